import { NodeIO } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import { animationClips, animationsDocument, type Clip, type Track } from './animations';
import { boneNames, skeletonFor, type Vec3 } from './skeleton';

type Quat = Track['rotations'][number];

const bones = skeletonFor({ height: 1.75, shoulders: 1, hips: 1 });
const clips = animationClips();

const clip = (name: string): Clip => {
  const found = clips.find((c) => c.name === name);
  if (!found) throw new Error(`no clip ${name}`);
  return found;
};

// Forward kinematics written independently of the module's quaternion helpers, so a sign error
// there shows up as a hand in the wrong place here.

const multiply = ([ax, ay, az, aw]: Quat, [bx, by, bz, bw]: Quat): Quat => [
  aw * bx + ax * bw + ay * bz - az * by,
  aw * by - ax * bz + ay * bw + az * bx,
  aw * bz + ax * by - ay * bx + az * bw,
  aw * bw - ax * bx - ay * by - az * bz,
];

/** v' = v + 2w(u × v) + 2u × (u × v), with u the vector part of the unit quaternion. */
const rotate = ([x, y, z, w]: Quat, [vx, vy, vz]: Vec3): Vec3 => {
  const cx = 2 * (y * vz - z * vy);
  const cy = 2 * (z * vx - x * vz);
  const cz = 2 * (x * vy - y * vx);
  return [vx + w * cx + (y * cz - z * cy), vy + w * cy + (z * cx - x * cz), vz + w * cz + (x * cy - y * cx)];
};

interface Posed {
  position: Vec3;
  rotation: Quat;
}

/** Every bone's world position and rotation at time t, each track held at its last key not after t. */
const poseAt = (clip: Clip, t: number): Map<string, Posed> => {
  const local = (bone: string): Quat => {
    const track = clip.tracks.find((tr) => tr.bone === bone);
    if (!track) return [0, 0, 0, 1];
    const key = track.times.findLastIndex((time) => time <= t + 1e-9);
    return track.rotations[Math.max(0, key)]!;
  };
  const posed = new Map<string, Posed>();
  for (const bone of bones) {
    const parent = bone.parent ? posed.get(bone.parent)! : { position: [0, 0, 0] as Vec3, rotation: [0, 0, 0, 1] as Quat };
    const offset = rotate(parent.rotation, bone.local);
    posed.set(bone.name, {
      position: [parent.position[0] + offset[0], parent.position[1] + offset[1], parent.position[2] + offset[2]],
      rotation: multiply(parent.rotation, local(bone.name)),
    });
  }
  return posed;
};

const positionsAt = (clip: Clip, t: number) => {
  const posed = poseAt(clip, t);
  return (bone: string): Vec3 => posed.get(bone)!.position;
};

const timesOf = (clip: Clip): number[] => [...new Set(clip.tracks.flatMap((track) => track.times))].sort((a, b) => a - b);

/** Arm and hand bones every clip must pose; the fingertip end bones carry no skin and stay at rest. */
const armAndHandBones = boneNames.filter((name) => /^(Left|Right)(Shoulder|Arm|ForeArm|Hand)/.test(name) && !name.endsWith('4'));

describe('animationClips', () => {
  it('has the idle, gesture and talking clips, the idles and talks looping', () => {
    expect(clips.map(({ name, loop }) => [name, loop])).toEqual([
      ['idle-standing', true],
      ['idle-seated', true],
      ['nod', false],
      ['head-shake', false],
      ['raise-hand', false],
      ['talk-1', true],
      ['talk-2', true],
      ['talk-3', true],
    ]);
    for (const name of ['talk-1', 'talk-2', 'talk-3']) {
      expect(clip(name).duration).toBeGreaterThanOrEqual(2.5);
      expect(clip(name).duration).toBeLessThanOrEqual(4);
    }
  });

  it('is the same on every call', () => {
    expect(animationClips()).toEqual(clips);
  });

  it('animates only bones of the skeleton, each once, by rotation alone', () => {
    for (const { name, tracks } of clips) {
      const animated = tracks.map((track) => track.bone);
      for (const bone of animated) expect(boneNames, `${name}: ${bone}`).toContain(bone);
      expect(new Set(animated).size, name).toBe(animated.length);
      for (const track of tracks) expect(Object.keys(track).sort()).toEqual(['bone', 'rotations', 'times']);
    }
  });

  it('poses every arm and hand bone in every clip, so any clip alone looks natural', () => {
    for (const { name, tracks } of clips) {
      const animated = new Set(tracks.map((track) => track.bone));
      for (const bone of armAndHandBones) expect(animated.has(bone), `${name}: ${bone}`).toBe(true);
    }
  });

  it('keys increasing times from 0 to the duration, at most 15 a second, one unit quaternion each', () => {
    for (const { name, duration, tracks } of clips) {
      for (const { bone, times, rotations } of tracks) {
        const label = `${name}/${bone}`;
        expect(rotations.length, label).toBe(times.length);
        expect(times[0], label).toBe(0);
        expect(times.at(-1), label).toBeCloseTo(duration, 9);
        for (let i = 1; i < times.length; i++) expect(times[i]!, label).toBeGreaterThan(times[i - 1]!);
        expect(times.length - 1, label).toBeLessThanOrEqual(duration * 15);
        for (const q of rotations) expect(Math.hypot(...q), label).toBeCloseTo(1, 9);
      }
    }
  });

  it('keeps each track in one hemisphere so LINEAR interpolation takes the short way', () => {
    for (const { name, tracks } of clips) {
      for (const { bone, rotations } of tracks) {
        for (let i = 1; i < rotations.length; i++) {
          const dot = rotations[i]!.reduce((sum, v, j) => sum + v * rotations[i - 1]![j]!, 0);
          expect(dot, `${name}/${bone} key ${i}`).toBeGreaterThanOrEqual(0);
        }
      }
    }
  });

  it('ends every loop where it begins', () => {
    for (const { name, tracks } of clips.filter((c) => c.loop)) {
      for (const { bone, rotations } of tracks) {
        const [first, last] = [rotations[0]!, rotations.at(-1)!];
        for (let i = 0; i < 4; i++) expect(last[i], `${name}/${bone}`).toBeCloseTo(first[i]!, 6);
      }
    }
  });

  it('stands idle with the arms down, hands at the sides of the body', () => {
    const at = positionsAt(clip('idle-standing'), 0);
    for (const side of ['Left', 'Right'] as const) {
      const [hand, shoulder] = [at(`${side}Hand`), at(`${side}Arm`)];
      const outward = side === 'Left' ? 1 : -1;
      expect(shoulder[1] - hand[1], side).toBeGreaterThan(0.35);
      expect(hand[0] * outward, side).toBeGreaterThan(0.15);
      expect(hand[0] * outward, side).toBeLessThan(0.4);
      expect(Math.abs(hand[2]), side).toBeLessThan(0.15);
      expect(at(`${side}HandMiddle4`)[1], side).toBeLessThan(hand[1]);
    }
  });

  it('breathes: the idle chest moves', () => {
    const spine = clip('idle-standing').tracks.find((track) => track.bone === 'Spine2')!;
    expect(spine.times.length).toBeGreaterThan(2);
  });

  it('sits with the thighs forward at hip height, shins down and hands on the thighs', () => {
    const seated = clip('idle-seated');
    for (const t of [0, seated.duration / 2]) {
      const at = positionsAt(seated, t);
      const hips = at('Hips');
      for (const side of ['Left', 'Right'] as const) {
        const knee = at(`${side}Leg`);
        expect(knee[2] - hips[2], side).toBeGreaterThan(0.3);
        expect(Math.abs(knee[1] - hips[1]), side).toBeLessThan(0.1);
        const ankle = at(`${side}Foot`);
        expect(knee[1] - ankle[1], side).toBeGreaterThan(0.35);
        expect(Math.abs(ankle[2] - knee[2]), side).toBeLessThan(0.1);
        const hand = at(`${side}Hand`);
        expect(hand[2], side).toBeGreaterThan(0.15);
        expect(hand[2], side).toBeLessThan(knee[2]);
        expect(hand[1] - knee[1], side).toBeGreaterThan(0);
        expect(hand[1] - knee[1], side).toBeLessThan(0.15);
      }
    }
  });

  it('nods the head forward twice and comes back', () => {
    const nod = clip('nod');
    const forward = (t: number): number => {
      const at = positionsAt(nod, t);
      return at('HeadTop_End')[2] - at('Head')[2];
    };
    const quarter = nod.duration / 4;
    expect(forward(quarter)).toBeGreaterThan(0.04);
    expect(forward(3 * quarter)).toBeGreaterThan(0.04);
    expect(forward(2 * quarter)).toBeLessThan(0.01);
    expect(forward(nod.duration)).toBeLessThan(0.01);
  });

  it('shakes the head left, right, left', () => {
    const shake = clip('head-shake');
    const facing = (t: number): number => rotate(poseAt(shake, t).get('Head')!.rotation, [0, 0, 1])[0];
    const sixth = shake.duration / 6;
    expect(facing(sixth)).toBeGreaterThan(0.2);
    expect(facing(3 * sixth)).toBeLessThan(-0.2);
    expect(facing(5 * sixth)).toBeGreaterThan(0.2);
  });

  it('raises the right hand above the head, forearm upright, palm forward, and holds it', () => {
    const raise = clip('raise-hand');
    const end = poseAt(raise, raise.duration);
    const at = (bone: string): Vec3 => end.get(bone)!.position;
    expect(at('RightHand')[1]).toBeGreaterThan(at('HeadTop_End')[1]);
    const [elbow, wrist] = [at('RightForeArm'), at('RightHand')];
    expect((wrist[1] - elbow[1]) / Math.hypot(wrist[0] - elbow[0], wrist[1] - elbow[1], wrist[2] - elbow[2])).toBeGreaterThan(0.9);
    expect(rotate(end.get('RightHand')!.rotation, [0, -1, 0])[2]).toBeGreaterThan(0.8);
    expect(at('LeftArm')[1] - at('LeftHand')[1]).toBeGreaterThan(0.35);
    expect(positionsAt(raise, 0)('RightHand')[1]).toBeLessThan(at('RightArm')[1]);
    expect(positionsAt(raise, raise.duration * 0.6)('RightHand')).toEqual(at('RightHand'));
  });

  it('talks with the forearms forward, each loop in its own rhythm', () => {
    const talks = ['talk-1', 'talk-2', 'talk-3'].map(clip);
    for (const talk of talks) {
      for (const t of timesOf(talk)) {
        const at = positionsAt(talk, t);
        for (const side of ['Left', 'Right']) {
          expect(at(`${side}Hand`)[2] - at(`${side}ForeArm`)[2], `${talk.name} ${side} at ${t}`).toBeGreaterThan(0.15);
          expect(at(`${side}Arm`)[1] - at(`${side}Hand`)[1], `${talk.name} ${side} at ${t}`).toBeGreaterThan(0.15);
        }
      }
      const hand = talk.tracks.find((track) => track.bone === 'RightForeArm')!;
      expect(hand.times.length, talk.name).toBeGreaterThan(2);
    }
    const rhythms = talks.map((talk) => JSON.stringify(talk.tracks.find((track) => track.bone === 'RightForeArm')));
    expect(new Set(rhythms).size).toBe(3);
  });
});

describe('animationsDocument', () => {
  const write = () => new NodeIO().writeBinary(animationsDocument(bones));

  it('holds the skeleton and one LINEAR rotation animation per clip', () => {
    const doc = animationsDocument(bones);
    const root = doc.getRoot();
    const [armature] = root.listScenes()[0]!.listChildren();
    expect(armature?.getName()).toBe('Armature');
    expect(armature?.listChildren().map((node) => node.getName())).toEqual(['Hips']);
    expect(root.listNodes().map((node) => node.getName()).sort()).toEqual(['Armature', ...boneNames].sort());
    expect(root.listMeshes()).toHaveLength(0);
    const forearm = root.listNodes().find((node) => node.getName() === 'LeftForeArm')!;
    expect(forearm.getTranslation()).toEqual(bones.find((bone) => bone.name === 'LeftForeArm')!.local);

    expect(root.listAnimations().map((animation) => animation.getName())).toEqual(clips.map((c) => c.name));
    for (const animation of root.listAnimations()) {
      const source = clip(animation.getName());
      expect(animation.listChannels()).toHaveLength(source.tracks.length);
      for (const channel of animation.listChannels()) {
        expect(channel.getTargetPath()).toBe('rotation');
        const sampler = channel.getSampler()!;
        expect(sampler.getInterpolation()).toBe('LINEAR');
        const track = source.tracks.find((tr) => tr.bone === channel.getTargetNode()?.getName())!;
        expect(sampler.getInput()?.getCount()).toBe(track.times.length);
        expect(Array.from(sampler.getOutput()!.getArray()!)).toEqual(Array.from(new Float32Array(track.rotations.flat())));
      }
    }
  });

  it('writes the same small GLB every time', async () => {
    const [first, second] = await Promise.all([write(), write()]);
    expect(Buffer.from(first).equals(Buffer.from(second))).toBe(true);
    expect(first.byteLength).toBeLessThan(300_000);
  });
});
