/**
 * Where the XR origin goes so that the trainee's eyes are where their seat's are: pure arithmetic
 * on the headset's pose in its own reference space (local-floor) and the seat's eye in the room.
 *
 * The headset reports the head at the wearer's real height (1.2 m seated on a real chair, 1.6 m
 * standing), which is not the height of their avatar's eyes: a trainee standing in their room
 * would look down on a table of seated colleagues, their heads seeming half their size. Seated,
 * the origin is lifted or lowered so the eyes land on the seat's; standing, the real floor is the
 * room's and only the place and the facing are set. Nothing moves by itself: the origin changes
 * when the session starts, on a recentre and on a snap turn, never gradually (no forced motion).
 *
 * ```ts
 * const origin = placeOrigin({ head, eye: [0, 1.18, 1.3], facing: Math.PI, stance: 'seated', floor: 0 });
 * group.position.set(...origin.position); group.rotation.set(0, origin.yaw, 0);
 * const turned = snapTurn(origin, head, 1); // 30° to the right, about the head
 * ```
 */
import type { Vec3 } from '../scene/layout';
import { SNAP_TURN_DEG, type Stance } from './vr-state';

/** The headset's pose in its reference space: its position and its yaw (0: looking down -Z). */
export interface HeadPose {
  position: Vec3;
  yaw: number;
}

export interface OriginPlace {
  position: Vec3;
  /** Radians about Y. */
  yaw: number;
}

/** The yaw of a look direction: 0 looking down -Z, positive turning left (toward -X), as three.js turns about Y. */
export const yawOf = (forward: Vec3): number => Math.atan2(-forward[0], -forward[2]);

/** `v` turned by `yaw` about Y (three.js's convention). */
export const turnY = (v: Vec3, yaw: number): Vec3 => {
  const c = Math.cos(yaw);
  const s = Math.sin(yaw);
  return [v[0] * c + v[2] * s, v[1], -v[0] * s + v[2] * c];
};

/**
 * The origin that puts `head` at `eye`, looking along the seat's facing (`facing`: the seat's yaw,
 * at 0 facing +Z, layout.ts's convention). Standing keeps the real floor at `floor`.
 *
 * With `keepYaw` (the origin's yaw now) it only moves the eyes: the room does not turn under a
 * head that is turned away, as when the seat's eye height changes or the trainee stands up.
 */
export const placeOrigin = ({ head, eye, facing, stance, floor, keepYaw }: { head: HeadPose; eye: Vec3; facing: number; stance: Stance; floor: number; keepYaw?: number }): OriginPlace => {
  // A seat at yaw 0 faces +Z: the head must look down +Z, which is yaw π in the head's convention.
  const yaw = keepYaw ?? facing + Math.PI - head.yaw;
  const offset = turnY(head.position, yaw);
  const position: Vec3 = [eye[0] - offset[0], stance === 'seated' ? eye[1] - offset[1] : floor, eye[2] - offset[2]];
  return { position, yaw };
};

/** The origin turned by one snap turn (`direction` 1: right, -1: left) about the head, which stays where it is. */
export const snapTurn = (origin: OriginPlace, head: HeadPose, direction: 1 | -1): OriginPlace => {
  const before = turnY(head.position, origin.yaw);
  const yaw = origin.yaw - (direction * SNAP_TURN_DEG * Math.PI) / 180;
  const after = turnY(head.position, yaw);
  return { position: [origin.position[0] + before[0] - after[0], origin.position[1], origin.position[2] + before[2] - after[2]], yaw };
};
