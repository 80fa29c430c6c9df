/**
 * A headset wearer's pose, seen by everyone (issue 28, item 2): the wearer's client writes their
 * head and hands in their seat's frame (`toSeat`) about 12 times a second (`PoseClock`), the server
 * relays it to the room, and every other client turns that seat's avatar the same way: the head
 * looks where the headset looks and the arms reach for the hands (scene/arm-ik.ts), eased between
 * frames (`createPoses`). A seat whose poses stopped (VR left, a connection gone: a second without
 * one, or longer if they had been coming slowly, `POSE_STALE_MS`) goes back to the room's own gaze;
 * a hand not tracked (none in the pose, or none for as long) gives its arm back to the clips.
 *
 * Seat-relative, so each client places it on that seat's avatar whatever the room around it; a few
 * hundred bytes, rounded to the millimetre.
 *
 * ```ts
 * const clock = createPoseClock();
 * if (clock.due(now)) session.send(toSeat('riley', seat, camera, [leftGrip, rightGrip]));
 * const poses = createPoses();
 * poses.receive(message, now); // from the socket
 * if (poses.lookPoint('riley', seat, now, point)) input.lookAt = point; // each frame
 * input.arms = poses.arms('riley', seat, now, arms) ? arms : null; // arms = trackedArms(), made once
 * ```
 */
import { Matrix4, Quaternion, Vector3, type Object3D } from 'three';
import type { Joint, PoseMessage } from '../../../shared/protocol/messages';
import type { TrackedArms, TrackedHand } from '../scene/arm-ik';
import type { Seat } from '../scene/layout';

/** Poses sent a second: a head turn reads as smooth at this rate once eased (`EASE_S`), and it costs ~3 KB/s a viewer. */
export const POSE_HZ = 12;
/**
 * A seat whose last pose is older than this is the room's again (its gaze, its idle); or than three
 * of the longest gaps its poses have lately come at, when they come slower (a headset drawing a few frames
 * a second, a link dropping poses): a slow stream is still a stream, not a stop every second.
 */
export const POSE_STALE_MS = 1000;
/** However slowly they came, a seat whose poses stopped this long ago is the room's again. */
export const POSE_LOST_MS = 4000;
/** How much of the slowest recent gap each pose keeps: after a hiccup a 12-a-second stream is judged by its own pace again within a second. */
const GAP_FORGET = 0.8;
/** The easing of a relayed head toward its latest pose: about one frame interval, so 12 poses a second glide. */
const EASE_S = 0.09;
/** How far ahead of the head the look point is put: far enough that the rig's neck offset does not bend it. */
const LOOK_M = 2;

/** When a pose is due: at most `hz` a second, on the caller's clock (ms). */
export const createPoseClock = (hz = POSE_HZ) => {
  let last = -Infinity;
  return {
    due(now: number): boolean {
      if (now - last < 1000 / hz) return false;
      last = now;
      return true;
    },
  };
};

const round = (x: number, places: number) => Math.round(x * places) / places;
const scratch = { seat: new Matrix4(), inverse: new Matrix4(), part: new Matrix4(), position: new Vector3(), turn: new Quaternion(), scale: new Vector3(), up: new Vector3(0, 1, 0) };

/** The seat's frame in the room: at its point on the floor, turned as it faces (the avatar's own frame). */
const seatMatrix = (seat: Seat, into: Matrix4): Matrix4 =>
  into.compose(scratch.position.set(...seat.position), scratch.turn.setFromAxisAngle(scratch.up, seat.yaw), scratch.scale.set(1, 1, 1));

/** A world-placed part (the camera, a grip) in the seat's frame; null for a part not tracked. */
const jointOf = (part: Object3D | null, inverse: Matrix4): Joint | null => {
  if (!part) return null;
  part.updateWorldMatrix(true, false);
  scratch.part.multiplyMatrices(inverse, part.matrixWorld).decompose(scratch.position, scratch.turn, scratch.scale);
  const { x, y, z } = scratch.position;
  const q = scratch.turn.normalize();
  return { p: [round(x, 1000), round(y, 1000), round(z, 1000)], q: [round(q.x, 10000), round(q.y, 10000), round(q.z, 10000), round(q.w, 10000)] };
};

/** The wearer's pose message: their head (the XR camera) and grips, in their seat's frame. */
export const toSeat = (participant: string, seat: Seat, head: Object3D, hands: readonly [Object3D | null, Object3D | null]): PoseMessage => {
  const inverse = scratch.inverse.copy(seatMatrix(seat, scratch.seat)).invert();
  return { type: 'pose', participant, head: jointOf(head, inverse)!, left: jointOf(hands[0], inverse), right: jointOf(hands[1], inverse) };
};

/** A relayed part (the head, a hand): its latest pose and the one drawn, eased toward it. */
interface Part {
  /** When the part last came (the caller's clock, ms; -Infinity: not in the last pose), and when it was last eased toward. */
  at: number;
  easedAt: number;
  /** How slowly this part's poses come (ms; 0 after a stop): the longest recent gap, forgotten slowly as they come faster. */
  gap: number;
  /** The wearer's own, read from their headset at each frame drawn: never stale, however far apart the frames. */
  own: boolean;
  position: Vector3;
  turn: Quaternion;
  shownPosition: Vector3;
  shownTurn: Quaternion;
}

const part = (): Part => ({ at: -Infinity, easedAt: 0, gap: 0, own: false, position: new Vector3(), turn: new Quaternion(), shownPosition: new Vector3(), shownTurn: new Quaternion() });

/** How long after its last pose a part is stale: a second, or three of its gaps (POSE_STALE_MS), at most POSE_LOST_MS. */
const staleAfter = (known: Part): number => Math.min(POSE_LOST_MS, Math.max(POSE_STALE_MS, 3 * known.gap));

/** Whether a part came recently enough, for how its poses have been coming (the wearer's own: whenever it came). */
const live = (known: Part, now: number): boolean => known.at > -Infinity && (known.own || now - known.at <= staleAfter(known));

/** A part's new pose at `now`: after a stop (or `atOnce`) it is taken at once; in a stream it is glided to. */
const arrive = (known: Part, joint: Joint, now: number, atOnce = false): void => {
  const fresh = atOnce || !live(known, now);
  const since = now - known.at;
  // A stream whose frames come unevenly (1.5 s, then 0.3 s, then 2 s) is as slow as its slow gaps.
  known.gap = since <= POSE_LOST_MS ? Math.max(since, known.gap * GAP_FORGET) : 0;
  known.own = atOnce;
  known.at = now;
  known.position.fromArray(joint.p);
  known.turn.fromArray(joint.q).normalize();
  if (fresh) {
    known.shownPosition.copy(known.position);
    known.shownTurn.copy(known.turn);
    known.easedAt = now;
  }
};

/** Moves what is drawn of a part toward its latest pose, for the time since it was last moved (twice at one `now` moves it once). */
const ease = (known: Part, now: number): void => {
  const share = 1 - Math.exp(-Math.max(0, now - known.easedAt) / 1000 / EASE_S);
  known.easedAt = now;
  known.shownPosition.lerp(known.position, share);
  known.shownTurn.slerp(known.turn, share);
};

interface Relayed {
  head: Part;
  hands: [Part, Part];
}

export interface Poses {
  /** A relayed pose arrived at `now` (ms). */
  receive(message: PoseMessage, now: number): void;
  /**
   * The wearer's own pose, read from their headset in this frame: drawn as it is, not eased, so
   * that their avatar's arms stay on their hands as they look down at them; and never stale, since
   * it is this frame's however long ago the last frame was (a hand missing from it is not tracked).
   */
  own(message: PoseMessage, now: number): void;
  /**
   * Writes into `out` the room point `participant`'s head looks at now (2 m along the headset's
   * view, from the head), eased toward the latest pose; false when its poses stopped (POSE_STALE_MS).
   */
  lookPoint(participant: string, seat: Seat, now: number, out: Vector3): boolean;
  /**
   * Writes into `out` where `participant`'s head and hands are now, in the room, eased toward the
   * latest pose; a hand is `tracked` while its poses have not stopped (its last place is kept
   * otherwise). False when the head's poses stopped (POSE_STALE_MS).
   */
  arms(participant: string, seat: Seat, now: number, out: TrackedArms): boolean;
}

export const createPoses = (): Poses => {
  const relayed = new Map<string, Relayed>();
  const forward = new Vector3();
  const frame = new Matrix4();
  const turn = new Quaternion();
  const seatTurn = new Quaternion();
  /** The participant's pose if one came in the last second, its head eased to `now`. */
  const current = (participant: string, now: number): Relayed | null => {
    const known = relayed.get(participant);
    if (!known || !live(known.head, now)) return null;
    ease(known.head, now);
    return known;
  };
  const toRoom = (known: Part, now: number, out: TrackedHand) => {
    out.tracked = live(known, now);
    if (!out.tracked) return;
    ease(known, now);
    out.position.copy(known.shownPosition).applyMatrix4(frame);
    out.turn.copy(seatTurn).multiply(known.shownTurn);
  };
  const take = (message: PoseMessage, now: number, atOnce: boolean) => {
    let known = relayed.get(message.participant);
    if (!known) relayed.set(message.participant, (known = { head: part(), hands: [part(), part()] }));
    arrive(known.head, message.head, now, atOnce);
    // A hand missing from a pose is not tracked now, whatever it was a moment ago.
    for (const [i, joint] of [message.left, message.right].entries()) {
      if (joint) arrive(known.hands[i]!, joint, now, atOnce);
      else known.hands[i]!.at = -Infinity;
    }
  };
  return {
    receive: (message, now) => take(message, now, false),
    own: (message, now) => take(message, now, true),
    lookPoint(participant, seat, now, out) {
      const known = current(participant, now);
      if (!known) return false;
      // The head looks down its -z, as the camera it was read from.
      seatMatrix(seat, frame);
      forward.set(0, 0, -LOOK_M).applyQuaternion(turn.copy(known.head.shownTurn));
      out.copy(known.head.shownPosition).add(forward).applyMatrix4(frame);
      return true;
    },
    arms(participant, seat, now, out) {
      const known = current(participant, now);
      if (!known) return false;
      seatMatrix(seat, frame);
      seatTurn.setFromAxisAngle(scratch.up, seat.yaw);
      out.head.copy(known.head.shownPosition).applyMatrix4(frame);
      toRoom(known.hands[0], now, out.left);
      toRoom(known.hands[1], now, out.right);
      return true;
    },
  };
};
