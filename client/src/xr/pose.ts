/**
 * A headset wearer's pose, seen by everyone (issue 28, item 2): the wearer's client writes their
 * head and hands in their seat's frame (`toSeat`) about 12 times a second (`PoseClock`), the server
 * relays it to the room, and every other client turns that seat's avatar the same way: the head
 * looks where the headset looks, eased between frames (`createPoses`). A seat whose poses stopped
 * for a second (VR left, a connection gone) goes back to the room's own gaze.
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
 * ```
 */
import { Matrix4, Quaternion, Vector3, type Object3D } from 'three';
import type { Joint, PoseMessage } from '../../../shared/protocol/messages';
import type { Seat } from '../scene/layout';

/** Poses sent a second: a head turn reads as smooth at this rate once eased (`EASE_S`), and it costs ~3 KB/s a viewer. */
export const POSE_HZ = 12;
/** A seat whose last pose is older than this is the room's again (its gaze, its idle). */
export const POSE_STALE_MS = 1000;
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

interface Relayed {
  /** When the last pose came (the caller's clock, ms), and when it was last eased toward. */
  at: number;
  easedAt: number;
  position: Vector3;
  turn: Quaternion;
  /** The head as drawn: eased toward the latest pose. */
  shownPosition: Vector3;
  shownTurn: Quaternion;
}

export interface Poses {
  /** A relayed pose arrived at `now` (ms). */
  receive(message: PoseMessage, now: number): void;
  /**
   * Writes into `out` the room point `participant`'s head looks at now (2 m along the headset's
   * view, from the head), eased toward the latest pose; false when no pose came in the last second.
   */
  lookPoint(participant: string, seat: Seat, now: number, out: Vector3): boolean;
}

export const createPoses = (): Poses => {
  const relayed = new Map<string, Relayed>();
  const forward = new Vector3();
  const frame = new Matrix4();
  const turn = new Quaternion();
  return {
    receive(message, now) {
      let known = relayed.get(message.participant);
      const fresh = !known || now - known.at > POSE_STALE_MS;
      if (!known) {
        known = { at: now, easedAt: now, position: new Vector3(), turn: new Quaternion(), shownPosition: new Vector3(), shownTurn: new Quaternion() };
        relayed.set(message.participant, known);
      }
      known.at = now;
      known.position.fromArray(message.head.p);
      known.turn.fromArray(message.head.q).normalize();
      // After a gap the head takes the pose at once; in a stream it glides to it.
      if (fresh) {
        known.shownPosition.copy(known.position);
        known.shownTurn.copy(known.turn);
        known.easedAt = now;
      }
    },
    lookPoint(participant, seat, now, out) {
      const known = relayed.get(participant);
      if (!known || now - known.at > POSE_STALE_MS) return false;
      const ease = 1 - Math.exp(-Math.max(0, now - known.easedAt) / 1000 / EASE_S);
      known.easedAt = now;
      known.shownPosition.lerp(known.position, ease);
      known.shownTurn.slerp(known.turn, ease);
      // The head looks down its -z, as the camera it was read from.
      seatMatrix(seat, frame);
      forward.set(0, 0, -LOOK_M).applyQuaternion(turn.copy(known.shownTurn));
      out.copy(known.shownPosition).add(forward).applyMatrix4(frame);
      return true;
    },
  };
};
