/**
 * A headset wearer's arms on their avatar: the two-bone solver alone, then the layer on every
 * shipped avatar with the shipped clips, as another participant would see it.
 */
import { readFileSync } from 'node:fs';
import { Group, Quaternion, Vector3, type AnimationClip, type Object3D } from 'three';
import { clone } from 'three/examples/jsm/utils/SkeletonUtils.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { rngFrom } from '../../../shared/rng';
import { armSolution, solveArm, trackedArms, type TrackedArms } from './arm-ik';
import { AvatarRig, type RigInput } from './rig';
import { parseGlb } from './rig-cost';

const shoulder = new Vector3(0.2, 1.3, 0);
const chain = { shoulder, upper: 0.28, lower: 0.25 };
/** Down and out to the avatar's right, a little back: where a right elbow hangs. */
const pole = new Vector3(-0.5, -1, -0.25).normalize();

/** How far the elbow sits from the shoulder-wrist line toward `direction` (its part across the line). */
const towardPole = (elbow: Vector3, wrist: Vector3, direction: Vector3) => {
  const axis = wrist.clone().sub(shoulder).normalize();
  const across = elbow.clone().sub(shoulder);
  across.addScaledVector(axis, -across.dot(axis));
  const side = direction.clone().addScaledVector(axis, -direction.dot(axis)).normalize();
  return across.dot(side);
};

describe('the two-bone arm solver', () => {
  it('puts the wrist on any reachable target within 1 cm, keeps both bones’ lengths, and bends the elbow toward the pole', () => {
    const rng = rngFrom(11);
    const solution = armSolution();
    for (let n = 0; n < 500; n++) {
      // A point 0.1 to 0.5 m from the shoulder, any direction.
      const direction = new Vector3(rng.next() - 0.5, rng.next() - 0.5, rng.next() - 0.5).normalize();
      const target = shoulder.clone().addScaledVector(direction, 0.1 + 0.4 * rng.next());
      const { elbow, wrist } = solveArm(chain, target, pole, solution);
      expect(wrist.distanceTo(target), `target ${n}`).toBeLessThan(0.01);
      expect(elbow.distanceTo(shoulder)).toBeCloseTo(chain.upper, 5);
      expect(wrist.distanceTo(elbow)).toBeCloseTo(chain.lower, 5);
      // Unless the target lies almost along the pole (then any side will do), the elbow is on the pole's side.
      if (Math.abs(direction.dot(pole)) < 0.95) expect(towardPole(elbow, wrist, pole), `target ${n}`).toBeGreaterThan(0.01);
    }
  });

  it('clamps a target out of reach to the arm’s length, pointing at it, and one too near to a folded arm', () => {
    const solution = armSolution();
    const far = shoulder.clone().add(new Vector3(-0.3, 0.6, 0.4));
    const { elbow, wrist } = solveArm(chain, far, pole, solution);
    expect(wrist.distanceTo(shoulder)).toBeLessThanOrEqual(chain.upper + chain.lower);
    expect(wrist.distanceTo(shoulder)).toBeGreaterThan(0.99 * (chain.upper + chain.lower));
    expect(wrist.clone().sub(shoulder).normalize().angleTo(far.clone().sub(shoulder).normalize())).toBeLessThan(1e-6);
    expect(elbow.distanceTo(shoulder)).toBeCloseTo(chain.upper, 5);
    expect(wrist.distanceTo(elbow)).toBeCloseTo(chain.lower, 5);

    // At the shoulder itself: no NaN, the bones' lengths kept, the forearm folded back.
    const near = solveArm(chain, shoulder.clone(), pole, solution);
    expect(Number.isFinite(near.wrist.x + near.wrist.y + near.wrist.z + near.elbow.x)).toBe(true);
    expect(near.elbow.distanceTo(shoulder)).toBeCloseTo(chain.upper, 5);
    expect(near.wrist.distanceTo(near.elbow)).toBeCloseTo(chain.lower, 5);
    expect(near.wrist.distanceTo(shoulder)).toBeGreaterThan(0);
  });

  it('swaps the elbow’s side when the pole does', () => {
    const target = shoulder.clone().add(new Vector3(-0.1, 0.2, 0.3));
    const up = solveArm(chain, target, new Vector3(0, 1, 0), armSolution());
    const down = solveArm(chain, target, new Vector3(0, -1, 0), armSolution());
    expect(up.elbow.y).toBeGreaterThan(down.elbow.y + 0.1);
    expect(up.wrist.distanceTo(down.wrist)).toBeLessThan(1e-9);
  });
});

const bytes = (file: string): ArrayBuffer => {
  const b = readFileSync(new URL(`../../../avatars/${file}`, import.meta.url));
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
};
const files = (JSON.parse(readFileSync(new URL('../../../avatars/manifest.json', import.meta.url), 'utf8')) as { avatars: { file: string }[] }).avatars.map((a) => a.file);

let clips: AnimationClip[];
const avatars = new Map<string, Object3D>();
beforeAll(async () => {
  clips = (await parseGlb(bytes('animations.glb'))).animations;
  for (const file of files) avatars.set(file, (await parseGlb(bytes(file))).scene);
});

const still = (): RigInput => ({ visemes: null, lookAt: null, speaking: false, nod: 0, handRaised: false, cutAt: 0 });

/** An avatar on a seat turned `yaw`, as the room places it. */
const seated = (file: string, yaw: number) => {
  const body = clone(avatars.get(file)!);
  const rig = new AvatarRig(body, clips, { seated: true, seed: 5 });
  const seat = new Group();
  seat.rotation.y = yaw;
  seat.position.set(1, 0, -2);
  seat.add(body);
  seat.updateMatrixWorld(true);
  return { rig, seat, body };
};

const at = (root: Object3D, name: string) => {
  root.updateMatrixWorld(true);
  return root.getObjectByName(name)!.getWorldPosition(new Vector3());
};
const turnOf = (root: Object3D, name: string) => {
  root.updateMatrixWorld(true);
  // Normalised: the clips' float32 rotations are a hair off unit length, which angleTo reads as an angle.
  return root.getObjectByName(name)!.getWorldQuaternion(new Quaternion()).normalize();
};

/** WebXR's grip of a right hand raised palm forward, fingers up: -y (fingers) up, -z (thumb side) toward the body's middle, +x (back of the hand) back. */
const raisedGrip = (yaw: number) => new Quaternion(Math.SQRT1_2, 0, Math.SQRT1_2, 0).premultiply(new Quaternion().setFromAxisAngle(new Vector3(0, 1, 0), yaw + Math.PI));

/**
 * The wearer's pose for an avatar: their eyes at the avatar's, their right hand 30 cm in front of
 * them and 10 cm down, raised palm forward (their forward is the seat's +z, turned by `yaw`).
 */
const raising = (body: Object3D, yaw: number): TrackedArms => {
  const arms = trackedArms();
  arms.head.copy(at(body, 'LeftEye')).add(at(body, 'RightEye')).multiplyScalar(0.5);
  const forward = new Vector3(Math.sin(yaw), 0, Math.cos(yaw));
  const right = new Vector3(-Math.cos(yaw), 0, Math.sin(yaw));
  arms.right.tracked = true;
  arms.right.position.copy(arms.head).addScaledVector(forward, 0.3).addScaledVector(right, 0.08).add(new Vector3(0, -0.1, 0));
  arms.right.turn.copy(raisedGrip(yaw));
  return arms;
};

const run = (rig: AvatarRig, seconds: number, input: RigInput) => {
  for (let f = 0; f < Math.round(seconds * 60); f++) rig.update(1 / 60, input);
};

describe("a headset wearer's arms on their avatar", () => {
  it('reaches the right wrist to the wearer’s hand, scaled to the avatar’s arm, on every shipped avatar, with the bones’ lengths kept and the elbow down and out', () => {
    expect(files.length).toBeGreaterThanOrEqual(12);
    for (const file of files) {
      const yaw = 0.7;
      const { rig, seat, body } = seated(file, yaw);
      const lengths = [at(body, 'RightArm').distanceTo(at(body, 'RightForeArm')), at(body, 'RightForeArm').distanceTo(at(body, 'RightHand'))];
      run(rig, 0.2, still());
      const arms = raising(body, yaw);
      run(rig, 1, { ...still(), arms });

      // Where the wrist should be: the hand's place from the wearer's eyes, scaled by this avatar's arm
      // against the reference 0.52 m, from the avatar's eyes; the wrist behind the grip by half the palm.
      const eyes = at(body, 'LeftEye').add(at(body, 'RightEye')).multiplyScalar(0.5);
      const scale = (lengths[0]! + lengths[1]!) / 0.52;
      const palm = at(body, 'RightHandMiddle1').distanceTo(at(body, 'RightHand')) / 2;
      const wanted = arms.right.position.clone().sub(arms.head).multiplyScalar(scale).add(eyes).add(new Vector3(0, palm, 0).applyQuaternion(arms.right.turn));
      const wrist = at(body, 'RightHand');
      expect(wrist.distanceTo(wanted), `${file}: the wrist off its target (m)`).toBeLessThan(0.01);
      expect(at(body, 'RightArm').distanceTo(at(body, 'RightForeArm')), file).toBeCloseTo(lengths[0]!, 4);
      expect(at(body, 'RightForeArm').distanceTo(wrist), file).toBeCloseTo(lengths[1]!, 4);

      // The elbow below the shoulder-wrist line and out to the avatar's right (the seat's -x, turned).
      const elbow = at(body, 'RightForeArm');
      const shoulderAt = at(body, 'RightArm');
      const axis = wrist.clone().sub(shoulderAt).normalize();
      const across = elbow.clone().sub(shoulderAt);
      across.addScaledVector(axis, -across.dot(axis));
      const outward = new Vector3(-1, 0, 0).applyQuaternion(seat.quaternion);
      expect(across.y, `${file}: elbow below the line`).toBeLessThan(-0.02);
      expect(across.dot(outward), `${file}: elbow out`).toBeGreaterThan(0);

      // The hand turned as the grip is: fingers up, palm forward (its back toward the wearer).
      const fingers = at(body, 'RightHandMiddle1').sub(wrist).normalize();
      expect(fingers.y, `${file}: fingers up`).toBeGreaterThan(0.8);
      rig.dispose();
    }
  });

  it('leaves the other arm, and everything with no hand tracked, to the clips', () => {
    const file = 'avatar-03.glb';
    const a = seated(file, 0);
    const b = seated(file, 0);
    const arms = raising(a.body, 0);
    for (let f = 0; f < 60; f++) {
      a.rig.update(1 / 60, { ...still(), arms });
      b.rig.update(1 / 60, still());
    }
    for (const bone of ['LeftArm', 'LeftForeArm', 'LeftHand', 'Spine2', 'Hips']) expect(turnOf(a.body, bone).angleTo(turnOf(b.body, bone)), bone).toBeLessThan(1e-6);
    expect(at(a.body, 'RightHand').distanceTo(at(b.body, 'RightHand'))).toBeGreaterThan(0.2);
  });

  it('gives the arm back to the clips smoothly once the hand is no longer tracked, and follows it again when it is', () => {
    const file = 'avatar-08.glb';
    const a = seated(file, 0);
    const b = seated(file, 0);
    const arms = raising(a.body, 0);
    const both = (seconds: number, input: RigInput) => {
      const path: number[] = [];
      for (let f = 0; f < Math.round(seconds * 60); f++) {
        a.rig.update(1 / 60, input);
        b.rig.update(1 / 60, still());
        path.push(at(a.body, 'RightHand').distanceTo(at(b.body, 'RightHand')));
      }
      return path;
    };
    both(1, { ...still(), arms });
    arms.right.tracked = false;
    const back = both(1, { ...still(), arms });
    // No jump: each frame moves the hand a few centimetres at most, and it ends where the clips hold it.
    const raisedBy = at(a.body, 'RightHand').distanceTo(at(b.body, 'RightHand'));
    const steps = back.slice(1).map((d, i) => Math.abs(d - back[i]!));
    expect(Math.max(...steps), 'largest step back to the clips in a frame (m)').toBeLessThan(0.05);
    expect(back[5]!, 'still on its way after 0.1 s').toBeGreaterThan(0.1);
    expect(raisedBy, 'back on the clips after a second (m)').toBeLessThan(1e-4);
    for (const bone of ['RightArm', 'RightForeArm', 'RightHand']) expect(turnOf(a.body, bone).angleTo(turnOf(b.body, bone)), bone).toBeLessThan(1e-4);

    // The wearer lifts the hand again: the arm follows within half a second.
    arms.right.tracked = true;
    both(0.5, { ...still(), arms });
    expect(at(a.body, 'RightHand').distanceTo(at(b.body, 'RightHand'))).toBeGreaterThan(0.2);
  });
});
