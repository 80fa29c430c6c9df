import { describe, expect, it } from 'vitest';
import type { Vec3 } from '../scene/layout';
import { placeOrigin, snapTurn, turnY, type HeadPose, type OriginPlace } from './placement';

/** Where the head is in the room, and its yaw there, for an origin. */
const inRoom = (origin: OriginPlace, head: HeadPose): { position: Vec3; yaw: number } => {
  const offset = turnY(head.position, origin.yaw);
  return { position: [origin.position[0] + offset[0], origin.position[1] + offset[1], origin.position[2] + offset[2]], yaw: origin.yaw + head.yaw };
};

/** An angle in (-π, π]. */
const wrap = (a: number) => Math.atan2(Math.sin(a), Math.cos(a));

const close = (a: readonly number[], b: readonly number[]) => a.forEach((v, i) => expect(v).toBeCloseTo(b[i]!, 6));

describe('placing the trainee at their seat', () => {
  // A trainee standing in their room at 1.6 m, a step off their play area's centre, looking a little left.
  const head: HeadPose = { position: [0.3, 1.6, -0.2], yaw: 0.4 };
  const eye: Vec3 = [1, 1.18, 2];

  it('seated: puts the eyes at the seat’s eyes, looking where the seat faces, whatever the headset’s height', () => {
    const facing = Math.PI; // the seat faces -Z
    const origin = placeOrigin({ head, eye, facing, stance: 'seated', floor: 0 });
    const seen = inRoom(origin, head);
    close(seen.position, eye);
    // Looking down -Z is yaw 0 in the head's convention.
    expect(Math.cos(seen.yaw)).toBeCloseTo(1, 6);
  });

  it('standing: keeps the real floor as the room’s and the real height, at the seat’s place', () => {
    const origin = placeOrigin({ head, eye, facing: 0, stance: 'standing', floor: 0 });
    const seen = inRoom(origin, head);
    expect(origin.position[1]).toBe(0);
    close([seen.position[0], seen.position[1], seen.position[2]], [eye[0], 1.6, eye[2]]);
  });

  it('moves only the eyes, not the room, when the eye height changes while the head is turned away', () => {
    const facing = Math.PI;
    const origin = placeOrigin({ head, eye, facing, stance: 'seated', floor: 0 });
    // The trainee looks 40° to the left; then their avatar is built and its eyes are 4 cm lower.
    const turned: HeadPose = { position: head.position, yaw: head.yaw + (40 * Math.PI) / 180 };
    const lower: Vec3 = [eye[0], eye[1] - 0.04, eye[2]];
    const moved = placeOrigin({ head: turned, eye: lower, facing, stance: 'seated', floor: 0, keepYaw: origin.yaw });
    const seen = inRoom(moved, turned);
    close(seen.position, lower);
    // Still looking 40° left of where the seat faces (yaw 0 here).
    expect(wrap(seen.yaw)).toBeCloseTo((40 * Math.PI) / 180, 6);
    // Without keepYaw the room would turn to put the seat's facing in front of the turned head.
    expect(wrap(inRoom(placeOrigin({ head: turned, eye: lower, facing, stance: 'seated', floor: 0 }), turned).yaw)).toBeCloseTo(0, 6);
  });

  it('turns 30° to the right about the head, which stays where it was', () => {
    const origin = placeOrigin({ head, eye, facing: 0, stance: 'seated', floor: 0 });
    const turned = snapTurn(origin, head, 1);
    close(inRoom(turned, head).position, eye);
    expect(turned.yaw - origin.yaw).toBeCloseTo(-Math.PI / 6, 6);
    expect(snapTurn(turned, head, -1).yaw).toBeCloseTo(origin.yaw, 6);
  });
});
