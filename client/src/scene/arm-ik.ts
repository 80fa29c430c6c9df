/**
 * A headset wearer's arms on their avatar, as everyone else sees them (issue 28, item 2): each arm
 * reaches for the wearer's relayed hand with a two-bone IK (upper arm, forearm; the shoulder stays
 * where the body and its clips put it), the elbow pointing down and out, the hand turned as the
 * controller or tracked hand is. An arm whose hand is not tracked eases back to the clips.
 *
 * `solveArm` is the geometry alone (law of cosines, a pole vector for the elbow's side); `ArmLayer`
 * lays it over an avatar's animated pose the way the rig's gaze is laid (rig.ts): it puts back the
 * clips' pose before the mixer runs (the mixer writes only what changed), keeps the new one after,
 * then turns the arm bones toward the IK pose by each arm's weight. Per frame it allocates nothing.
 *
 * The wearer's hands are placed relative to their head and put at the same place relative to the
 * avatar's eyes, scaled by the avatar's arm against the reference skeleton's (avatars/generator/
 * skeleton.ts: 0.27 + 0.25 m), so a tall wearer's reach fits a short avatar, and a hand out of the
 * avatar's reach is clamped to it (the arm straight, pointing at it).
 *
 * ```ts
 * const arms = new ArmLayer(gltf.scene); // in the rest pose, before any clip has posed it
 * arms.restore(); mixer.update(dt); arms.capture();
 * arms.update(dt, { head, left: { tracked: false, … }, right: { tracked: true, position, turn } });
 * solveArm({ shoulder, upper: 0.27, lower: 0.25 }, target, pole, solution); // solution.elbow, .wrist
 * ```
 */
import { Matrix4, Quaternion, Vector3, type Object3D } from 'three';

/** One relayed hand, in the room: its grip (WebXR's grip space: -Z toward the thumb, +X out of the back of the right hand) when tracked. */
export interface TrackedHand {
  tracked: boolean;
  position: Vector3;
  turn: Quaternion;
}

/** A headset wearer's head (their eyes) and hands as relayed, in the room. */
export interface TrackedArms {
  head: Vector3;
  left: TrackedHand;
  right: TrackedHand;
}

export const trackedArms = (): TrackedArms => ({
  head: new Vector3(),
  left: { tracked: false, position: new Vector3(), turn: new Quaternion() },
  right: { tracked: false, position: new Vector3(), turn: new Quaternion() },
});

export interface ArmChain {
  /** The shoulder joint (the upper arm bone's origin), in the room. */
  shoulder: Vector3;
  /** Shoulder to elbow and elbow to wrist, metres. */
  upper: number;
  lower: number;
}

export interface ArmSolution {
  elbow: Vector3;
  wrist: Vector3;
  /** Unit, across the shoulder-wrist line toward the elbow: the side the elbow points to. */
  bend: Vector3;
}

export const armSolution = (): ArmSolution => ({ elbow: new Vector3(), wrist: new Vector3(), bend: new Vector3() });

/** Never quite straight: a locked elbow has no side to bend to, and flickers as the hand moves. */
const MOST_REACH = 0.999;
const solving = { axis: new Vector3(), side: new Vector3() };

/**
 * Places the elbow and the wrist so the wrist is at `target` (or as near as the arm reaches, on the
 * line toward it) and the elbow on the side `pole` points to (a direction): the bones keep their
 * lengths. Writes into `into` and returns it.
 */
export const solveArm = ({ shoulder, upper, lower }: ArmChain, target: Vector3, pole: Vector3, into: ArmSolution): ArmSolution => {
  const { axis, side } = solving;
  axis.subVectors(target, shoulder);
  let distance = axis.length();
  if (distance < 1e-6) axis.copy(pole);
  axis.normalize();
  // Nearer than the bones' difference the forearm would fold through the upper arm; further than their sum it cannot reach.
  distance = Math.min(Math.max(distance, Math.abs(upper - lower) + 0.02 * (upper + lower)), MOST_REACH * (upper + lower));
  // The pole across the axis; a pole along the axis gives no side, so the elbow then goes back (-z of the room's or the pole's frame).
  side.copy(pole).addScaledVector(axis, -pole.dot(axis));
  if (side.lengthSq() < 1e-8) side.set(0, 0, -1).addScaledVector(axis, axis.z);
  side.normalize();
  // Law of cosines: how far along the axis the elbow is, and how far out to the side.
  const along = (upper * upper - lower * lower + distance * distance) / (2 * distance);
  const out = Math.sqrt(Math.max(0, upper * upper - along * along));
  into.wrist.copy(shoulder).addScaledVector(axis, distance);
  into.elbow.copy(shoulder).addScaledVector(axis, along).addScaledVector(side, out);
  into.bend.copy(side);
  return into;
};

/** The reference skeleton's arm, shoulder to wrist (avatars/generator/skeleton.ts, a 1.75 m build). */
const REFERENCE_ARM = 0.27 + 0.25;
/** Seconds an arm takes to give itself to a tracked hand, and to go back to the clips. */
const FOLLOW_IN = 0.3;
const FOLLOW_OUT = 0.5;
/** The most a wrist bends away from the forearm's line: past it the hand is turned no further. */
const WRIST_LIMIT = (80 * Math.PI) / 180;
/** Of the hand's roll about the forearm, the share the forearm takes (a wrist cannot twist alone without wringing the skin). */
const FOREARM_ROLL = 0.5;
const still = new Quaternion();

/**
 * A rotation that takes the pair (a, b) to the pair (c, d); each pair unit and perpendicular.
 * Written into `into` using `m` and `n` as scratch.
 */
const pairRotation = (a: Vector3, b: Vector3, c: Vector3, d: Vector3, into: Quaternion, m: Matrix4, n: Matrix4, cross: Vector3): Quaternion => {
  m.makeBasis(c, d, cross.crossVectors(c, d));
  n.makeBasis(a, b, cross.crossVectors(a, b)).transpose();
  return into.setFromRotationMatrix(m.multiply(n));
};

interface Arm {
  upper: Object3D;
  fore: Object3D;
  hand: Object3D;
  /** The bones' rotations as the clips last posed them (restored before each mixer update). */
  posed: [Quaternion, Quaternion, Quaternion];
  /** Before this layer, put back on dispose. */
  found: [Quaternion, Quaternion, Quaternion];
  /** In each bone's own frame: the way to its child, and the elbow's hinge (the rest pose bends the elbow forward). */
  upperAxis: Vector3;
  upperHinge: Vector3;
  foreAxis: Vector3;
  foreHinge: Vector3;
  /** In the hand's frame: toward the middle finger, and across the palm toward the index finger (null: no fingers to turn it by). */
  fingers: Vector3 | null;
  thumbward: Vector3 | null;
  /** Wrist to the middle of the palm (where a grip is), metres. */
  palm: number;
  /** Out to this arm's side of the avatar, in its root frame: +1 left (+x), -1 right. */
  side: 1 | -1;
  weight: number;
  /** Where the hand was last wanted, in the room: held while the arm goes back to the clips. */
  grip: Vector3;
  gripTurn: Quaternion;
}

export class ArmLayer {
  private readonly root: Object3D;
  private readonly arms: Arm[];
  private readonly eyes: Object3D[];
  /** Whether the arms were turned since the mixer last posed them (the clips' pose is then put back first). */
  private moved = false;

  // Scratch for the per-frame maths.
  private readonly shoulder = new Vector3();
  private readonly target = new Vector3();
  private readonly pole = new Vector3();
  private readonly along = new Vector3();
  private readonly hinge = new Vector3();
  private readonly cross = new Vector3();
  private readonly a = new Vector3();
  private readonly b = new Vector3();
  private readonly eyesAt = new Vector3();
  private readonly m = new Matrix4();
  private readonly n = new Matrix4();
  private readonly rootTurn = new Quaternion();
  private readonly parentTurn = new Quaternion();
  private readonly upperTurn = new Quaternion();
  private readonly foreTurn = new Quaternion();
  private readonly handTurn = new Quaternion();
  private readonly local = new Quaternion();
  private readonly roll = new Quaternion();
  private readonly solution = armSolution();
  private readonly chain: ArmChain = { shoulder: this.shoulder, upper: 0, lower: 0 };

  /** `root` in its rest pose (as loaded): the arms' axes and hinges are read from it. */
  constructor(root: Object3D) {
    this.root = root;
    root.updateWorldMatrix(true, true);
    const inverse = new Matrix4().copy(root.matrixWorld).invert();
    /** A bone's rotation in the root's frame, at rest. */
    const rest = (bone: Object3D) => new Quaternion().setFromRotationMatrix(new Matrix4().multiplyMatrices(inverse, bone.matrixWorld));
    const at = (bone: Object3D) => bone.getWorldPosition(new Vector3()).applyMatrix4(inverse);
    const forward = new Vector3(0, 0, 1);
    this.arms = (['Left', 'Right'] as const).flatMap((name) => {
      const upper = root.getObjectByName(`${name}Arm`);
      const fore = root.getObjectByName(`${name}ForeArm`);
      const hand = root.getObjectByName(`${name}Hand`);
      if (!upper || !fore || !hand) return [];
      const bones = [upper, fore, hand] as const;
      const [shoulder, elbow, wrist] = bones.map(at) as [Vector3, Vector3, Vector3];
      const upperDir = elbow.clone().sub(shoulder).normalize();
      const foreDir = wrist.clone().sub(elbow).normalize();
      // The hinge of an elbow that bends the forearm forward (+z) from the rest pose (T or A): its axis across both.
      const inUpper = rest(upper).invert();
      const inFore = rest(fore).invert();
      const middle = root.getObjectByName(`${name}HandMiddle1`);
      const index = root.getObjectByName(`${name}HandIndex1`);
      const pinky = root.getObjectByName(`${name}HandPinky1`);
      let fingers: Vector3 | null = null;
      let thumbward: Vector3 | null = null;
      let palm = (0.05 * (shoulder.distanceTo(elbow) + elbow.distanceTo(wrist))) / REFERENCE_ARM;
      if (middle && index && pinky && middle.parent === hand && index.parent === hand && pinky.parent === hand) {
        fingers = middle.position.clone().normalize();
        thumbward = index.position.clone().sub(pinky.position);
        thumbward.addScaledVector(fingers, -thumbward.dot(fingers)).normalize();
        palm = 0.5 * middle.getWorldPosition(new Vector3()).distanceTo(hand.getWorldPosition(new Vector3()));
      }
      const arm: Arm = {
        upper,
        fore,
        hand,
        posed: bones.map((b) => b.quaternion.clone()) as Arm['posed'],
        found: bones.map((b) => b.quaternion.clone()) as Arm['found'],
        upperAxis: upperDir.clone().applyQuaternion(inUpper),
        upperHinge: upperDir.clone().cross(forward).normalize().applyQuaternion(inUpper),
        foreAxis: foreDir.clone().applyQuaternion(inFore),
        foreHinge: foreDir.clone().cross(forward).normalize().applyQuaternion(inFore),
        fingers,
        thumbward,
        palm,
        side: name === 'Left' ? 1 : -1,
        weight: 0,
        grip: new Vector3(),
        gripTurn: new Quaternion(),
      };
      return [arm];
    });
    this.eyes = ['LeftEye', 'RightEye'].flatMap((name) => root.getObjectByName(name) ?? []);
  }

  /** Puts back the clips' last pose of the arms, if this layer moved them since: call before the mixer updates. */
  restore(): void {
    if (!this.moved) return;
    this.moved = false;
    for (let i = 0; i < this.arms.length; i++) {
      const arm = this.arms[i]!;
      arm.upper.quaternion.copy(arm.posed[0]);
      arm.fore.quaternion.copy(arm.posed[1]);
      arm.hand.quaternion.copy(arm.posed[2]);
    }
  }

  /** Keeps the clips' new pose of the arms: call after the mixer updates. */
  capture(): void {
    for (let i = 0; i < this.arms.length; i++) {
      const arm = this.arms[i]!;
      arm.posed[0].copy(arm.upper.quaternion);
      arm.posed[1].copy(arm.fore.quaternion);
      arm.posed[2].copy(arm.hand.quaternion);
    }
  }

  /** Turns each arm toward its tracked hand by its weight (eased in and out); `wearer` null: no one's hands to follow. */
  update(step: number, wearer: TrackedArms | null): void {
    for (let i = 0; i < this.arms.length; i++) {
      const arm = this.arms[i]!;
      const hand = wearer ? (arm.side === 1 ? wearer.left : wearer.right) : null;
      const tracked = hand !== null && hand.tracked;
      arm.weight = Math.min(1, Math.max(0, arm.weight + (tracked ? step / FOLLOW_IN : -step / FOLLOW_OUT)));
      if (arm.weight === 0) continue;
      // The arm as the clips posed it under the body: where the shoulder is, and the bones' lengths.
      arm.upper.updateWorldMatrix(true, false);
      arm.fore.updateWorldMatrix(false, false);
      arm.hand.updateWorldMatrix(false, false);
      this.shoulder.setFromMatrixPosition(arm.upper.matrixWorld);
      this.a.setFromMatrixPosition(arm.fore.matrixWorld);
      this.chain.upper = this.shoulder.distanceTo(this.a);
      this.chain.lower = this.a.distanceTo(this.b.setFromMatrixPosition(arm.hand.matrixWorld));
      if (tracked) this.place(arm, hand, wearer!.head);
      this.reach(arm, arm.weight);
      this.moved = true;
    }
  }

  /** Where this arm's wrist is now, in the room (null: the avatar has no such arm). */
  wrist(side: 'left' | 'right', out: Vector3): Vector3 | null {
    const arm = this.arms.find((a) => a.side === (side === 'left' ? 1 : -1));
    if (!arm) return null;
    arm.hand.updateWorldMatrix(true, false);
    return arm.hand.getWorldPosition(out);
  }

  /** Puts the arms back as they were given. */
  dispose(): void {
    for (const arm of this.arms) {
      arm.upper.quaternion.copy(arm.found[0]);
      arm.fore.quaternion.copy(arm.found[1]);
      arm.hand.quaternion.copy(arm.found[2]);
    }
  }

  /**
   * Where this avatar's hand goes for the wearer's: the hand's place from the wearer's eyes, scaled
   * to the avatar's arm, from the avatar's eyes (so a wearer standing, or taller, still fits).
   */
  private place(arm: Arm, hand: TrackedHand, head: Vector3): void {
    this.eyesAt.copy(head);
    if (this.eyes.length > 0) {
      this.eyesAt.set(0, 0, 0);
      // The first eye brings the head's matrices up to date (gaze has just turned it); the others share it.
      for (let i = 0; i < this.eyes.length; i++) {
        this.eyes[i]!.updateWorldMatrix(i === 0, false);
        this.eyesAt.add(this.a.setFromMatrixPosition(this.eyes[i]!.matrixWorld));
      }
      this.eyesAt.divideScalar(this.eyes.length);
    }
    arm.grip.subVectors(hand.position, head).multiplyScalar((this.chain.upper + this.chain.lower) / REFERENCE_ARM).add(this.eyesAt);
    arm.gripTurn.copy(hand.turn);
  }

  /** Solves the arm (its shoulder and lengths in `chain`) for its grip and turns its bones that way, `weight` of the way from the clips' pose. */
  private reach(arm: Arm, weight: number): void {
    const { upper, fore, hand } = arm;
    // The wrist is behind the grip (the middle of the fist): along the grip's +y, away from the fingers.
    this.target.set(0, 1, 0).applyQuaternion(arm.gripTurn).multiplyScalar(arm.palm).add(arm.grip);
    // The elbow points down and out, a little back: where a seated person's elbows hang.
    this.root.matrixWorld.decompose(this.along, this.rootTurn, this.hinge);
    this.pole.set(0.5 * arm.side, -1, -0.25).normalize().applyQuaternion(this.rootTurn);
    const { elbow, wrist, bend } = solveArm(this.chain, this.target, this.pole, this.solution);

    // The elbow's hinge: across the arm, so the forearm bends away from the side the elbow points to.
    this.along.subVectors(wrist, this.shoulder).normalize();
    this.hinge.crossVectors(bend, this.along).normalize();
    this.a.subVectors(elbow, this.shoulder).normalize();
    this.b.copy(this.hinge).addScaledVector(this.a, -this.hinge.dot(this.a)).normalize();
    pairRotation(arm.upperAxis, arm.upperHinge, this.a, this.b, this.upperTurn, this.m, this.n, this.cross);
    this.a.subVectors(wrist, elbow).normalize();
    this.b.copy(this.hinge).addScaledVector(this.a, -this.hinge.dot(this.a)).normalize();
    pairRotation(arm.foreAxis, arm.foreHinge, this.a, this.b, this.foreTurn, this.m, this.n, this.cross);

    // The hand as the grip is turned: fingers along the grip's -y, the index side toward its -z (WebXR grip space).
    const rest = arm.found[2];
    if (arm.fingers && arm.thumbward) {
      pairRotation(arm.fingers, arm.thumbward, this.a.set(0, -1, 0), this.b.set(0, 0, -1), this.handTurn, this.m, this.n, this.cross);
      this.handTurn.premultiply(arm.gripTurn);
      // In the forearm's frame: a wrist bent past its limit is bent only that far from its rest.
      this.local.copy(this.foreTurn).invert().multiply(this.handTurn);
      const angle = this.local.angleTo(rest);
      if (angle > WRIST_LIMIT) this.local.slerp(rest, 1 - WRIST_LIMIT / angle);
      // The roll about the forearm (of the turn from the rest), shared: the forearm takes part of it, the wrist the rest.
      this.roll.copy(rest).invert().premultiply(this.local);
      const axis = arm.foreAxis;
      const twist = axis.x * this.roll.x + axis.y * this.roll.y + axis.z * this.roll.z;
      this.roll.set(axis.x * twist, axis.y * twist, axis.z * twist, this.roll.w).normalize().slerp(still, 1 - FOREARM_ROLL);
      this.foreTurn.multiply(this.roll);
      this.local.premultiply(this.roll.invert());
    } else {
      this.local.copy(hand.quaternion);
    }

    // From turns in the room to each bone's own: the upper arm's under the shoulder as posed, the forearm's under the upper arm's new turn.
    upper.parent!.matrixWorld.decompose(this.along, this.parentTurn, this.hinge);
    upper.quaternion.slerp(this.parentTurn.invert().multiply(this.upperTurn), weight);
    fore.quaternion.slerp(this.upperTurn.invert().multiply(this.foreTurn), weight);
    hand.quaternion.slerp(this.local, weight);
  }
}
