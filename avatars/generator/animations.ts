/**
 * The body animations every avatar shares: idle (standing and seated), nod, head shake, raise hand
 * and three talking loops, as rotation-only clips on the skeleton of `./skeleton`.
 *
 * Each clip is a function from time to a pose (bone name to local rotation), sampled at a few keys
 * per second. Rotations only, never translations, so one file animates avatars of every height.
 * The rest pose is a T-pose with identity rotations, so every clip also holds the arms-down pose of
 * each arm and hand bone it does not move itself: any clip played alone gives a natural pose.
 *
 * Sign conventions, checked by where a bone's child ends up (Y up, the character faces +Z, its left
 * is +X, angles in degrees, positive is counter-clockwise seen from the positive end of the axis):
 * - about Z, LeftArm's +X child turns down by a negative angle (RightArm's −X child by a positive one);
 * - about X, an upward bone (Head) tips forward by a positive angle, a downward one (UpLeg) by a negative one;
 * - about Y, the face (+Z) turns to the character's left (+X) by a positive angle;
 * - mirroring a rotation from the left side to the right negates its y and z components.
 *
 * ```ts
 * const clips = animationClips(); // [{ name: 'idle-standing', duration: 4, loop: true, tracks }, ...]
 * const glb = await new NodeIO().writeBinary(animationsDocument(skeletonFor({ height: 1.75, shoulders: 1, hips: 1 })));
 * ```
 */

import { Document, type Accessor, type Node } from '@gltf-transform/core';
import type { Bone } from './skeleton';

type Quat = [number, number, number, number];

export interface Track {
  bone: string;
  times: number[];
  /** Unit quaternions x, y, z, w, one per time, each in the hemisphere of the one before. */
  rotations: Quat[];
}

export interface Clip {
  name: string;
  /** Seconds. */
  duration: number;
  loop: boolean;
  tracks: Track[];
}

/** Keys per second; the motions are slow, and LINEAR interpolation fills in between. */
const keysPerSecond = 12;

// Quaternions.

const identity: Quat = [0, 0, 0, 1];

const multiply = ([ax, ay, az, aw]: Quat, [bx, by, bz, bw]: Quat): Quat => [
  aw * bx + ax * bw + ay * bz - az * by,
  aw * by - ax * bz + ay * bw + az * bx,
  aw * bz + ax * by - ay * bx + az * bw,
  aw * bw - ax * bx - ay * by - az * bz,
];

const normalize = (q: Quat): Quat => {
  const length = Math.hypot(...q);
  return [q[0] / length, q[1] / length, q[2] / length, q[3] / length];
};

const about = (axis: 0 | 1 | 2, degrees: number): Quat => {
  const half = (degrees * Math.PI) / 360;
  const q: Quat = [0, 0, 0, Math.cos(half)];
  q[axis] = Math.sin(half);
  return q;
};

/** Rotation by x degrees about X, then y about Y, then z about Z (all axes of the parent). */
const fromEuler = (x: number, y: number, z: number): Quat =>
  multiply(about(2, z), multiply(about(1, y), about(0, x)));

/** The right-side twin of a left-side rotation (the skeleton mirrors across the YZ plane). */
const mirror = ([x, y, z, w]: Quat): Quat => [x, -y, -z, w];

// Poses.

type Pose = Record<string, Quat>;
type Side = 'Left' | 'Right';

const sides: Side[] = ['Left', 'Right'];
/** How much each finger curls relative to the middle one: a relaxed hand curls more toward the little finger. */
const fingerCurl = { Index: 0.8, Middle: 1, Ring: 1.15, Pinky: 1.3 };

/**
 * One arm, described for the left side (the right side is its mirror). Angles in degrees.
 * The upper arm is twisted about its own axis by `twist` (positive turns the palm backward while
 * the arm hangs, so forward once it is raised overhead), hangs `lower` degrees below horizontal,
 * then swings forward by `raise` (180 points it straight up).
 */
interface Arm {
  lower: number;
  twist: number;
  raise: number;
  /** Elbow flexion, positive brings the hand forward. */
  elbow: number;
  /** Forearm twist, positive turns the palm up when the forearm points forward. */
  supination: number;
  /** Wrist: flexion toward the palm, and sideways bend toward the thumb. */
  wrist: number;
  wristSide: number;
  /** Finger flexion per joint (0 is an open, flat hand). */
  curl: number;
}

/** Relaxed, hanging at the side: elbow and fingers a little bent. */
const relaxedArm: Arm = { lower: 72, twist: 0, raise: 0, elbow: 15, supination: 0, wrist: 5, wristSide: 0, curl: 14 };

const armPose = (side: Side, arm: Arm): Pose => {
  const onSide = side === 'Left' ? (q: Quat) => q : mirror;
  const pose: Pose = {
    [`${side}Shoulder`]: identity,
    [`${side}Arm`]: onSide(multiply(about(0, -arm.raise), fromEuler(arm.twist, 0, -arm.lower))),
    [`${side}ForeArm`]: onSide(fromEuler(-arm.supination, -arm.elbow, 0)),
    [`${side}Hand`]: onSide(fromEuler(0, -arm.wristSide, -arm.wrist)),
  };
  // Joint 4 is the fingertip end bone, which nothing is skinned to; it stays at rest.
  for (const [finger, share] of Object.entries(fingerCurl)) {
    for (const joint of [1, 2, 3]) pose[`${side}Hand${finger}${joint}`] = onSide(about(2, -arm.curl * share));
  }
  for (const joint of [1, 2, 3]) pose[`${side}HandThumb${joint}`] = onSide(fromEuler(0, arm.curl * 0.3, -arm.curl * 0.5));
  return pose;
};

const arms = (left: Arm, right: Arm): Pose => ({ ...armPose('Left', left), ...armPose('Right', right) });

const armsDown = (): Pose => arms(relaxedArm, relaxedArm);

const tween = (from: Arm, to: Arm, amount: number): Arm => {
  const mixed = { ...from };
  for (const key of Object.keys(from) as (keyof Arm)[]) mixed[key] = from[key] + (to[key] - from[key]) * amount;
  return mixed;
};

/** A sine that completes whole `cycles` over `period`, so a loop's last key meets its first. */
const wave = (t: number, period: number, cycles: number, phase = 0): number =>
  Math.sin(2 * Math.PI * (cycles * (t / period) + phase));

const smoothstep = (from: number, to: number, t: number): number => {
  const x = Math.min(1, Math.max(0, (t - from) / (to - from)));
  return x * x * (3 - 2 * x);
};

type Trunk = Record<'Spine' | 'Spine1' | 'Spine2' | 'Neck' | 'Head', Quat>;

/** One breath through the chest per `period`, the neck keeping the head level, and a slow drift of the head. */
const breathing = (t: number, period: number): Trunk => {
  const breath = wave(t, period, 1);
  return {
    Spine: fromEuler(-0.6 * breath, 0, 0),
    Spine1: fromEuler(-0.8 * breath, 0, 0),
    Spine2: fromEuler(-1 * breath, 0, 0),
    Neck: fromEuler(1.2 * breath, 0, 0),
    Head: fromEuler(1.5 * wave(t, period, 1, 0.3), 3 * wave(t, period, 1), 1.5 * wave(t, period, 2, 0.1)),
  };
};

/** Thighs forward and horizontal, knees a little apart, shins down and feet flat. */
const seatedLegs = (): Pose => {
  const legs: Pose = {};
  for (const side of sides) {
    const onSide = side === 'Left' ? (q: Quat) => q : mirror;
    legs[`${side}UpLeg`] = onSide(multiply(about(1, 6), about(0, -90)));
    legs[`${side}Leg`] = onSide(about(0, 84));
    legs[`${side}Foot`] = onSide(about(0, 6));
  }
  return legs;
};

/** Hands resting on the thighs, palms down, for sitting. */
const armOnThigh: Arm = { lower: 80, twist: 30, raise: 15, elbow: 45, supination: -60, wrist: -30, wristSide: 0, curl: 10 };

/** Forearm forward, palm half up, hand open: the base of every talking gesture. */
const gesturing: Arm = { lower: 80, twist: 0, raise: 8, elbow: 70, supination: 40, wrist: -5, wristSide: 0, curl: 6 };

/** Straight up above the head, the palm forward and the hand open. */
const raisedArm: Arm = { lower: 80, twist: 90, raise: 170, elbow: 8, supination: 0, wrist: -10, wristSide: 0, curl: 2 };

interface Motion {
  name: string;
  duration: number;
  loop: boolean;
  pose: (t: number) => Pose;
}

/**
 * A talking loop: both forearms beat with their own rhythm and amplitude around `gesturing`. The
 * fingers hold still, open: animating thirty finger joints would add half again to the file for little to see.
 */
const talking = (
  name: string,
  duration: number,
  beats: { left: number; right: number; leftAmplitude: number; rightAmplitude: number; sway: number },
): Motion => ({
  name,
  duration,
  loop: true,
  pose: (t) => {
    const beat = (cycles: number, amplitude: number, phase: number): Arm => {
      const swing = wave(t, duration, cycles, phase);
      const open = wave(t, duration, cycles, phase + 0.25);
      return {
        ...gesturing,
        elbow: gesturing.elbow + amplitude * swing,
        supination: gesturing.supination + amplitude * 1.2 * open,
        wrist: gesturing.wrist - amplitude * 0.6 * swing,
        wristSide: amplitude * 0.4 * open,
      };
    };
    const body = breathing(t, duration);
    const sway = beats.sway * wave(t, duration, 1);
    return {
      ...arms(beat(beats.left, beats.leftAmplitude, 0), beat(beats.right, beats.rightAmplitude, 0.35)),
      ...body,
      Spine2: multiply(fromEuler(0, sway, 0.5 * sway), body.Spine2),
      // The head nods lightly on the right hand's beat and turns against the chest's sway.
      Head: multiply(fromEuler(2 * wave(t, duration, beats.right, 0.1), -1.5 * sway, 0), body.Head),
    };
  },
});

const motions: Motion[] = [
  {
    name: 'idle-standing',
    duration: 4,
    loop: true,
    pose: (t) => {
      // A small shift of weight from one foot to the other and back, under the breathing.
      const trunk = breathing(t, 4);
      const shift = wave(t, 4, 1, 0.25);
      return { ...armsDown(), ...trunk, Hips: fromEuler(0, 0, 1.2 * shift), Spine: multiply(fromEuler(0, 0, -1.6 * shift), trunk.Spine) };
    },
  },
  {
    name: 'idle-seated',
    duration: 4,
    loop: true,
    pose: (t) => {
      // Seated people lean a little forward from the hips, attentive, the neck keeping the head level:
      // upright to the eye, where the chest's breathing alone tipped the trunk back.
      const trunk = breathing(t, 4);
      return {
        ...arms(armOnThigh, armOnThigh),
        ...seatedLegs(),
        ...trunk,
        Spine: multiply(fromEuler(4, 0, 0), trunk.Spine),
        Spine1: multiply(fromEuler(2, 0, 0), trunk.Spine1),
        Neck: multiply(fromEuler(-4, 0, 0), trunk.Neck),
        Head: multiply(fromEuler(-2, 0, 0), trunk.Head),
      };
    },
  },
  {
    name: 'nod',
    duration: 1.2,
    loop: false,
    pose: (t) => {
      // Down and up twice: 0 at the start, the middle and the end.
      const down = (1 - Math.cos((4 * Math.PI * t) / 1.2)) / 2;
      return { ...armsDown(), Neck: fromEuler(6 * down, 0, 0), Head: fromEuler(14 * down, 0, 0) };
    },
  },
  {
    name: 'head-shake',
    duration: 1.4,
    loop: false,
    pose: (t) => {
      // Left, right, left: one and a half swings, fading a little.
      const yaw = 22 * Math.sin((3 * Math.PI * t) / 1.4) * (1 - 0.3 * (t / 1.4));
      return { ...armsDown(), Neck: fromEuler(0, 0.3 * yaw, 0), Head: fromEuler(0, 0.7 * yaw, 0) };
    },
  },
  {
    name: 'raise-hand',
    duration: 2,
    loop: false,
    pose: (t) => arms(relaxedArm, tween(relaxedArm, raisedArm, smoothstep(0, 0.9, t))),
  },
  talking('talk-1', 3, { left: 2, right: 3, leftAmplitude: 10, rightAmplitude: 14, sway: 2 }),
  talking('talk-2', 4, { left: 2, right: 5, leftAmplitude: 6, rightAmplitude: 20, sway: 3 }),
  talking('talk-3', 2.5, { left: 4, right: 3, leftAmplitude: 12, rightAmplitude: 9, sway: 1.5 }),
];

const sameRotation = (a: Quat, b: Quat): boolean => a.every((v, i) => Math.abs(v - b[i]!) < 1e-6);

/** Samples a motion into tracks; a bone that never moves gets two keys, at the start and the end. */
const sample = ({ name, duration, loop, pose }: Motion): Clip => {
  const steps = Math.ceil(duration * keysPerSecond);
  const times = Array.from({ length: steps + 1 }, (_, i) => (i * duration) / steps);
  const poses = times.map(pose);
  const bones = Object.keys(poses[0]!);
  const tracks = bones.map((bone): Track => {
    const rotations: Quat[] = [];
    for (const p of poses) {
      const q = normalize(p[bone]!);
      const previous = rotations.at(-1);
      // q and −q are the same rotation; keep neighbours in one hemisphere so LINEAR takes the short way.
      const dot = previous ? q.reduce((sum, v, i) => sum + v * previous[i]!, 0) : 1;
      rotations.push(dot < 0 ? [-q[0], -q[1], -q[2], -q[3]] : q);
    }
    const first = rotations[0]!;
    if (rotations.every((q) => sameRotation(q, first))) return { bone, times: [0, duration], rotations: [first, first] };
    return { bone, times, rotations };
  });
  return { name, duration, loop, tracks };
};

/** Every clip, deterministic (no Math.random, no Date). */
export const animationClips = (): Clip[] => motions.map(sample);

/**
 * A glTF document holding the skeleton as nodes (root `Armature`, child `Hips`, translations from
 * `bones`, no meshes) and one animation per clip, LINEAR rotation channels on those nodes.
 */
export const animationsDocument = (bones: Bone[]): Document => {
  const doc = new Document();
  doc.getRoot().getAsset().generator = 'rehearsal-room avatars';
  const buffer = doc.createBuffer();

  const armature = doc.createNode('Armature');
  doc.createScene('Scene').addChild(armature);
  const nodes = new Map<string, Node>();
  for (const bone of bones) {
    const node = doc.createNode(bone.name).setTranslation(bone.local);
    const parent = bone.parent === null ? armature : nodes.get(bone.parent);
    if (!parent) throw new Error(`bone ${bone.name}: parent ${bone.parent} must come before it`);
    parent.addChild(node);
    nodes.set(bone.name, node);
  }

  for (const clip of animationClips()) {
    const animation = doc.createAnimation(clip.name);
    // Tracks with the same key times share one input accessor.
    const inputs = new Map<string, Accessor>();
    for (const track of clip.tracks) {
      const node = nodes.get(track.bone);
      if (!node) throw new Error(`clip ${clip.name}: no bone ${track.bone} in the skeleton`);
      const key = track.times.join(',');
      const input =
        inputs.get(key) ?? doc.createAccessor().setType('SCALAR').setArray(new Float32Array(track.times)).setBuffer(buffer);
      inputs.set(key, input);
      const output = doc.createAccessor().setType('VEC4').setArray(new Float32Array(track.rotations.flat())).setBuffer(buffer);
      const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation('LINEAR');
      const channel = doc.createAnimationChannel().setTargetNode(node).setTargetPath('rotation').setSampler(sampler);
      animation.addSampler(sampler).addChannel(channel);
    }
  }
  return doc;
};
