/**
 * The avatar rig on a real avatar and the shipped clips, in Node: what a viewer would see of lip
 * sync, blinks, gaze, nods, a raised hand, talking gestures and a cut.
 */
import { readFileSync } from 'node:fs';
import { Group, Quaternion, Vector3, type AnimationClip, type Object3D } from 'three';
import { clone } from 'three/examples/jsm/utils/SkeletonUtils.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { AvatarRig, type RigInput, type RigOptions } from './rig';
import { measureRigCost, parseGlb } from './rig-cost';

const bytes = (file: string): ArrayBuffer => {
  const b = readFileSync(new URL(`../../../avatars/${file}`, import.meta.url));
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
};

let avatar: Object3D;
let clips: AnimationClip[];
beforeAll(async () => {
  avatar = (await parseGlb(bytes('avatar-01.glb'))).scene;
  clips = (await parseGlb(bytes('animations.glb'))).animations;
});

const still = (): RigInput => ({ visemes: null, lookAt: null, speaking: false, nod: 0, handRaised: false, cutAt: 0 });

const rigged = (options: RigOptions = { seated: false }, yaw = 0) => {
  const root = clone(avatar);
  const rig = new AvatarRig(root, clips, options);
  const seat = new Group();
  seat.rotation.y = yaw;
  seat.add(root);
  return { rig, root: seat };
};

/** Two rigs alike in everything, seed included, so a difference between them is the input's doing. */
const twins = (options: RigOptions) => [rigged(options), rigged(options)] as const;

const fps = 60;
/** Runs `seconds` of frames; `each` may change the input before each frame and look after it. */
const run = (rig: AvatarRig, seconds: number, input: RigInput, each?: (t: number) => void) => {
  for (let f = 0; f < Math.round(seconds * fps); f++) {
    rig.update(1 / fps, input);
    each?.(f / fps);
  }
};

const bone = (root: Object3D, name: string) => {
  root.updateMatrixWorld(true);
  return root.getObjectByName(name)!;
};
const positionOf = (root: Object3D, name: string) => bone(root, name).getWorldPosition(new Vector3());
/** Where the bone's +Z (the face's forward, for Head and the eyes) points in the world. */
const forwardOf = (root: Object3D, name: string) => new Vector3().setFromMatrixColumn(bone(root, name).matrixWorld, 2).normalize();
const degreesBetween = (a: Quaternion, b: Quaternion) => (a.angleTo(b) * 180) / Math.PI;

describe('lip sync', () => {
  it('sets the viseme morphs from the input and opens the jaw a little', () => {
    const { rig } = rigged();
    rig.update(1 / fps, { ...still(), visemes: { aa: 0.8, PP: 0.1 } });
    expect(rig.morph('viseme_aa')).toBeCloseTo(0.8);
    expect(rig.morph('viseme_PP')).toBeCloseTo(0.1);
    expect(rig.morph('viseme_O')).toBe(0);
    expect(rig.morph('jawOpen')).toBeGreaterThan(0.1);
    expect(rig.morph('jawOpen')).toBeLessThanOrEqual(0.35);
  });

  it('lets the mouth close over a few frames when the speech stops', () => {
    const { rig } = rigged();
    rig.update(1 / fps, { ...still(), visemes: { aa: 1 } });
    rig.update(1 / fps, still());
    expect(rig.morph('viseme_aa')).toBeGreaterThan(0.5);
    run(rig, 0.3, still());
    expect(rig.morph('viseme_aa')).toBeLessThan(0.01);
  });
});

describe('blinks', () => {
  it('blinks on its own within 7 s and opens the lids again', () => {
    const { rig } = rigged({ seated: false, seed: 42 });
    const lids: number[] = [];
    run(rig, 7, still(), () => lids.push(rig.morph('eyeBlinkLeft')));
    const closed = lids.findIndex((lid) => lid > 0.8);
    expect(closed).toBeGreaterThanOrEqual(0);
    // A blink lasts about 150 ms.
    expect(lids.slice(closed, closed + 0.3 * fps)).toContain(0);
    expect(lids.filter((lid) => lid > 0).length).toBeLessThan(lids.length / 4);
  });

  it('blinks both eyes together, at times that follow from the seed', () => {
    const blinks = (seed: number) => {
      const { rig } = rigged({ seated: false, seed });
      const times: number[] = [];
      run(rig, 12, still(), (t) => {
        expect(rig.morph('eyeBlinkRight')).toBe(rig.morph('eyeBlinkLeft'));
        if (rig.morph('eyeBlinkLeft') > 0 && times.every((s) => t - s > 0.3)) times.push(t);
      });
      return times;
    };
    const times = blinks(3);
    expect(times.length).toBeGreaterThanOrEqual(2);
    expect(blinks(3)).toEqual(times);
    expect(blinks(4)).not.toEqual(times);
    // 2 to 6 s from the end of one blink to the start of the next.
    for (let i = 1; i < times.length; i++) {
      expect(times[i]! - times[i - 1]!).toBeGreaterThan(2.1);
      expect(times[i]! - times[i - 1]!).toBeLessThan(6.2);
    }
  });
});

describe('gaze', () => {
  it('turns the head toward a point on the avatar’s left (+X)', () => {
    const { rig, root } = rigged();
    const ahead = forwardOf(root, 'Head');
    run(rig, 1, { ...still(), lookAt: new Vector3(2, 1.6, 1) });
    const turned = forwardOf(root, 'Head');
    expect(ahead.x).toBeLessThan(0.1);
    expect(turned.x).toBeGreaterThan(0.7);
    // The head stops at 60° (the target is 63° off); the eyes take the rest.
    expect(forwardOf(root, 'LeftEye').x).toBeGreaterThan(turned.x);
  });

  it('looks in the world frame, whichever way the avatar faces', () => {
    const { rig, root } = rigged({ seated: true }, Math.PI / 2); // facing +X; its left is -Z
    run(rig, 1, { ...still(), lookAt: new Vector3(1, 1.2, -2) });
    expect(forwardOf(root, 'Head').z).toBeLessThan(-0.6);
  });

  it('settles in about a quarter of a second and never turns the head past 60°', () => {
    const { rig, root } = rigged();
    const input = { ...still(), lookAt: new Vector3(1, 1.65, 1) }; // 45° to the left
    run(rig, 0.25, input);
    const early = forwardOf(root, 'Head');
    expect((Math.atan2(early.x, early.z) * 180) / Math.PI).toBeGreaterThan(35);
    input.lookAt.set(-0.3, 1.6, -3); // behind, a little to the right
    run(rig, 1, input);
    const behind = forwardOf(root, 'Head');
    expect(Math.abs((Math.atan2(behind.x, behind.z) * 180) / Math.PI)).toBeLessThan(66);
    run(rig, 1, still());
    expect(Math.abs(forwardOf(root, 'Head').x)).toBeLessThan(0.12);
  });
});

describe('sitting', () => {
  it('sits upright with the head level, looking at a seated neighbour across the room', () => {
    const { rig, root } = rigged({ seated: true, seed: 5 });
    const across = new Vector3(0, rig.headTop - 0.1, 2.4);
    const leans: number[] = [];
    const tips: number[] = [];
    run(rig, 4, { ...still(), lookAt: across }, () => {
      // Back from the vertical (+Z is the avatar's front): positive is reclined.
      const spine = new Vector3().setFromMatrixColumn(bone(root, 'Spine2').matrixWorld, 1).normalize();
      leans.push((Math.atan2(-spine.z, spine.y) * 180) / Math.PI);
      const face = forwardOf(root, 'Head');
      tips.push((Math.asin(face.y) * 180) / Math.PI);
    });
    expect(Math.max(...leans), 'degrees the chest leans back, at most').toBeLessThan(2);
    expect(Math.min(...leans), 'degrees it leans forward, at most').toBeGreaterThan(-10);
    expect(Math.max(...tips.map(Math.abs)), 'degrees the face tips up or down, at most').toBeLessThan(8);
  });
});

describe('gestures', () => {
  it('nods once per increment, then the head comes back', () => {
    const [calm, nodding] = twins({ seated: true, seed: 5 });
    const input = still();
    const gap: number[] = [];
    for (let f = 0; f < 3 * fps; f++) {
      calm.rig.update(1 / fps, still());
      if (f === 30) input.nod++;
      nodding.rig.update(1 / fps, input);
      gap.push(degreesBetween(bone(calm.root, 'Head').quaternion, bone(nodding.root, 'Head').quaternion));
    }
    expect(Math.max(...gap.slice(0, 30))).toBeLessThan(0.01);
    expect(Math.max(...gap.slice(30, 30 + 1.3 * fps))).toBeGreaterThan(8);
    expect(gap.at(-1)).toBeLessThan(0.5);
  });

  it('nods down, toward the floor', () => {
    const [calm, nodding] = twins({ seated: false, seed: 5 });
    run(calm.rig, 0.5, still());
    run(nodding.rig, 0.5, still());
    run(calm.rig, 0.3, still());
    run(nodding.rig, 0.3, { ...still(), nod: 1 });
    expect(forwardOf(nodding.root, 'Head').y).toBeLessThan(forwardOf(calm.root, 'Head').y - 0.1);
  });

  it.each([false, true])('raises the right hand above the head within 1.5 s (seated: %s) and lowers it again', (seated) => {
    const { rig, root } = rigged({ seated, seed: 2 });
    run(rig, 0.5, still());
    expect(positionOf(root, 'RightHand').y).toBeLessThan(positionOf(root, 'Head').y);
    run(rig, 1.5, { ...still(), handRaised: true });
    expect(positionOf(root, 'RightHand').y).toBeGreaterThan(positionOf(root, 'Head').y);
    expect(positionOf(root, 'LeftHand').y).toBeLessThan(positionOf(root, 'Head').y - 0.3);
    run(rig, 1.5, still());
    expect(positionOf(root, 'RightHand').y).toBeLessThan(positionOf(root, 'Head').y - 0.3);
  });

  it('raises the arm into the same pose seated as standing (the gesture overrides the idle arm)', () => {
    const standing = rigged({ seated: false, seed: 2 });
    const seated = rigged({ seated: true, seed: 2 });
    run(standing.rig, 2.5, { ...still(), handRaised: true });
    run(seated.rig, 2.5, { ...still(), handRaised: true });
    for (const name of ['RightArm', 'RightForeArm', 'RightHand'])
      expect(degreesBetween(bone(standing.root, name).quaternion, bone(seated.root, name).quaternion)).toBeLessThan(1);
  });

  it('gestures with the forearms while speaking and stops after', () => {
    const [silent, talking] = twins({ seated: false, seed: 9 });
    const apart = () => positionOf(silent.root, 'RightHand').distanceTo(positionOf(talking.root, 'RightHand'));
    run(silent.rig, 2, still());
    run(talking.rig, 2, { ...still(), speaking: true });
    expect(apart()).toBeGreaterThan(0.1);
    run(silent.rig, 2, still());
    run(talking.rig, 2, still());
    expect(apart()).toBeLessThan(0.01);
  });

  it('keeps a seated avatar’s legs bent under every gesture, feet on the floor', () => {
    const standing = rigged({ seated: false }).root;
    const { rig, root } = rigged({ seated: true, seed: 3 });
    const input = { ...still(), speaking: true, handRaised: true };
    run(rig, 2, input, (t) => {
      if (Math.abs(t - 1) < 1e-9) input.nod++;
    });
    const hip = positionOf(root, 'LeftUpLeg');
    const knee = positionOf(root, 'LeftLeg');
    expect(Math.abs(knee.y - hip.y)).toBeLessThan(0.08); // thigh level
    expect(knee.z - hip.z).toBeGreaterThan(0.3); // and forward
    expect(Math.abs(positionOf(root, 'LeftToeBase').y - positionOf(standing, 'LeftToeBase').y)).toBeLessThan(0.03);
    expect(hip.y).toBeGreaterThan(0.4);
    expect(hip.y).toBeLessThan(0.55);
    expect(rig.headTop).toBeGreaterThan(1.2);
    expect(rig.headTop).toBeLessThan(1.5);
  });
});

describe('rebuilding', () => {
  it('leaves the body as it found it, so a new rig on the same body (React StrictMode) sits it the same', () => {
    const root = clone(avatar);
    const first = new AvatarRig(root, clips, { seated: true, seed: 1 });
    run(first, 1, { ...still(), lookAt: new Vector3(2, 1, 1), speaking: true });
    first.dispose();
    expect(root.position.y).toBe(0);
    for (const name of ['LeftUpLeg', 'Head', 'LeftEye']) expect(degreesBetween(bone(root, name).quaternion, bone(avatar, name).quaternion)).toBeLessThan(0.01);
    const second = new AvatarRig(root, clips, { seated: true, seed: 1 });
    expect(second.headTop).toBeCloseTo(first.headTop);
    expect(root.position.y).toBeLessThan(-0.3);
  });
});

describe('a cut', () => {
  it('snaps the mouth shut and jerks the head, then lets lip sync go on', () => {
    const [plain, cut] = twins({ seated: false, seed: 1 });
    const input = { ...still(), visemes: { aa: 0.8 } };
    run(plain.rig, 0.5, input);
    run(cut.rig, 0.5, input);
    const cutInput = { ...input, cutAt: 1 };
    plain.rig.update(1 / fps, input);
    cut.rig.update(1 / fps, cutInput);
    expect(cut.rig.morph('viseme_aa')).toBe(0);
    expect(cut.rig.morph('jawOpen')).toBe(0);
    run(plain.rig, 0.05, input);
    run(cut.rig, 0.05, cutInput);
    expect(forwardOf(cut.root, 'Head').y).toBeGreaterThan(forwardOf(plain.root, 'Head').y + 0.04);
    run(cut.rig, 0.5, cutInput);
    expect(cut.rig.morph('viseme_aa')).toBeCloseTo(0.8);
  });
});

describe('cost', () => {
  it('measures ten rigs over 600 frames (timings are for the bench, not asserted here)', async () => {
    const cost = await measureRigCost({ avatar: bytes('avatar-07.glb'), animations: bytes('animations.glb'), rigs: 10, frames: 600 });
    expect(cost.rigs).toBe(10);
    expect(cost.frames).toBe(600);
    expect(Number.isFinite(cost.msPerRigFrame)).toBe(true);
    expect(cost.msPerFrame).toBeCloseTo(cost.msPerRigFrame * 10);
  });
});
