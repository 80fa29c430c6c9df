import { Object3D, Quaternion, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { ClientMessage, ServerMessage } from '../../../shared/protocol/messages';
import { trackedArms } from '../scene/arm-ik';
import type { Seat } from '../scene/layout';
import { createPoseClock, createPoses, POSE_LOST_MS, POSE_STALE_MS, toSeat } from './pose';

const up = new Vector3(0, 1, 0);
/** A seat off the room's centre, facing the room's -x (turned a quarter right of +z). */
const seat: Seat = { id: 'riley', position: [1.5, 0, 2], yaw: -Math.PI / 2, seated: true };

/** The wearer's head in the room: at the seat's eyes, turned `yaw` to their left and `pitch` down, as a camera (looking down its -z). */
const headAt = (yaw: number, pitch: number): Object3D => {
  const head = new Object3D();
  head.position.set(1.4, 1.18, 2.05);
  // Facing the seat's way is the camera turned half round from the seat's frame.
  head.quaternion.setFromAxisAngle(up, seat.yaw + Math.PI + yaw).multiply(new Quaternion().setFromAxisAngle(new Vector3(1, 0, 0), -pitch));
  return head;
};

/** Where a head looks, in the room: its -z. */
const lookOf = (head: Object3D) => new Vector3(0, 0, -1).applyQuaternion(head.quaternion);

describe("a headset wearer's pose, seen by everyone", () => {
  it('is sent in the seat’s frame, a valid protocol message both ways, and read back where the headset looked', () => {
    const head = headAt(0.5, 0.2);
    const hand = new Object3D();
    hand.position.set(1.2, 0.9, 1.8);
    const message = toSeat('riley', seat, head, [null, hand]);
    // Seat-relative: the eyes ~1.18 m over the seat's point, ahead of it (+z), not the room's coordinates.
    expect(message.head.p[1]).toBeCloseTo(1.18, 3);
    expect(message.head.p[2]).toBeCloseTo(0.1, 3);
    expect(message.left).toBeNull();
    expect(message.right).not.toBeNull();
    expect(ClientMessage.parse(JSON.parse(JSON.stringify(message)))).toEqual(message);
    expect(ServerMessage.parse(message)).toEqual(message);

    const poses = createPoses();
    poses.receive(message, 1000);
    const point = new Vector3();
    expect(poses.lookPoint('riley', seat, 1000, point)).toBe(true);
    const looked = point.sub(head.position).normalize();
    expect(looked.angleTo(lookOf(head))).toBeLessThan(0.002);
  });

  it('eases the head from one pose to the next, and gives the seat back to the room a second after the last', () => {
    const poses = createPoses();
    poses.receive(toSeat('riley', seat, headAt(0, 0), [null, null]), 0);
    const point = new Vector3();
    poses.lookPoint('riley', seat, 0, point);
    const turned = headAt(0.6, 0);
    poses.receive(toSeat('riley', seat, turned, [null, null]), 80);
    // One frame later the head is on its way, not there yet; a few frames on, it is there.
    poses.lookPoint('riley', seat, 96, point);
    const partway = point.clone().sub(turned.position).normalize().angleTo(lookOf(turned));
    expect(partway).toBeGreaterThan(0.1);
    expect(partway).toBeLessThan(0.55);
    for (let t = 112; t <= 600; t += 16) poses.lookPoint('riley', seat, t, point);
    expect(point.clone().sub(turned.position).normalize().angleTo(lookOf(turned))).toBeLessThan(0.01);

    expect(poses.lookPoint('riley', seat, 80 + POSE_STALE_MS - 1, point)).toBe(true);
    expect(poses.lookPoint('riley', seat, 80 + POSE_STALE_MS + 1, point)).toBe(false);
    expect(poses.lookPoint('casey', seat, 100, point)).toBe(false);
  });

  it('keeps a slow stream of poses (a headset drawing two frames a second) as a stream, and still lets a stopped one go', () => {
    const poses = createPoses();
    const point = new Vector3();
    const turned = headAt(0.6, 0);
    // Poses 1.5 s apart: after the first gap the seat stays the wearer's between them.
    for (const t of [0, 1500, 3000, 4500]) poses.receive(toSeat('riley', seat, turned, [turned, null]), t);
    expect(poses.lookPoint('riley', seat, 4500 + 1400, point), 'between two slow poses').toBe(true);
    expect(point.clone().sub(turned.position).normalize().angleTo(lookOf(turned))).toBeLessThan(0.01);
    const arms = trackedArms();
    expect(poses.arms('riley', seat, 4500 + 1400, arms)).toBe(true);
    expect(arms.left.tracked, 'a hand in every slow pose').toBe(true);
    // Uneven frames (1.5 s, then 0.3 s, then nearly 2 s): judged by the slow gaps, not the last one.
    const uneven = createPoses();
    for (const t of [0, 1500, 1800]) uneven.receive(toSeat('dev', seat, turned, [null, null]), t);
    expect(uneven.lookPoint('dev', seat, 1800 + 1900, point), 'a second and a half after a quick pose').toBe(true);
    // Three gaps without one: stopped.
    expect(poses.lookPoint('riley', seat, 4500 + 3 * 1500 + 1, point)).toBe(false);
    // However slow the stream was, a pose gap past POSE_LOST_MS is a stop, and the next pose starts afresh.
    const slow = createPoses();
    for (const t of [0, 3000, 6000]) slow.receive(toSeat('casey', seat, turned, [null, null]), t);
    expect(slow.lookPoint('casey', seat, 6000 + POSE_LOST_MS - 1, point)).toBe(true);
    expect(slow.lookPoint('casey', seat, 6000 + POSE_LOST_MS + 1, point)).toBe(false);
    // A single pose after a stop is a second's worth, as at first.
    slow.receive(toSeat('casey', seat, turned, [null, null]), 20_000);
    expect(slow.lookPoint('casey', seat, 20_000 + POSE_STALE_MS + 1, point)).toBe(false);
  });

  it('is sent at most 12 times a second, whatever the headset’s frame rate', () => {
    for (const hz of [72, 90, 120]) {
      const clock = createPoseClock();
      // One second of frames.
      const sent = Array.from({ length: hz }, (_, frame) => clock.due(frame * (1000 / hz))).filter(Boolean).length;
      expect(sent, `poses in a second at ${hz} Hz`).toBeGreaterThanOrEqual(10);
      expect(sent, `poses in a second at ${hz} Hz`).toBeLessThanOrEqual(12);
    }
  });

  it('gives the hands in the room where the wearer held them, eased, and a hand missing from a pose or a second old as not tracked', () => {
    const poses = createPoses();
    const head = headAt(0, 0);
    const hand = new Object3D();
    hand.position.set(1.2, 1.1, 1.8);
    hand.quaternion.setFromAxisAngle(new Vector3(1, 0, 0), 0.8);
    hand.updateMatrixWorld();
    poses.receive(toSeat('riley', seat, head, [null, hand]), 0);
    const arms = trackedArms();
    expect(poses.arms('riley', seat, 0, arms)).toBe(true);
    expect(arms.head.distanceTo(head.position)).toBeLessThan(0.002);
    expect(arms.left.tracked).toBe(false);
    expect(arms.right.tracked).toBe(true);
    expect(arms.right.position.distanceTo(hand.position)).toBeLessThan(0.002);
    expect(arms.right.turn.angleTo(hand.quaternion)).toBeLessThan(0.002);

    // Raised 30 cm: one frame on, partway; a few frames on, there.
    hand.position.y += 0.3;
    hand.updateMatrixWorld();
    poses.receive(toSeat('riley', seat, head, [null, hand]), 80);
    poses.arms('riley', seat, 96, arms);
    expect(arms.right.position.y).toBeGreaterThan(1.1 + 0.03);
    expect(arms.right.position.y).toBeLessThan(1.4 - 0.03);
    for (let t = 112; t <= 600; t += 16) {
      // The stream goes on, 12 a second.
      if (t % 80 === 0) poses.receive(toSeat('riley', seat, head, [null, hand]), t);
      poses.arms('riley', seat, t, arms);
    }
    expect(arms.right.position.distanceTo(hand.position)).toBeLessThan(0.005);
    poses.receive(toSeat('riley', seat, head, [null, hand]), 620);

    // A pose without the right hand: not tracked from that pose on; the left, once it comes, is.
    const left = new Object3D();
    left.position.set(1.6, 0.9, 1.9);
    left.updateMatrixWorld();
    poses.receive(toSeat('riley', seat, head, [left, null]), 700);
    poses.arms('riley', seat, 700, arms);
    expect(arms.right.tracked).toBe(false);
    expect(arms.left.tracked).toBe(true);
    expect(arms.left.position.distanceTo(left.position)).toBeLessThan(0.002);
    // No pose for a second: no arms at all.
    expect(poses.arms('riley', seat, 700 + POSE_STALE_MS + 1, arms)).toBe(false);
  });

  it("puts the wearer's own hands where they hold them at once, in their own view, where a relayed pose glides", () => {
    const poses = createPoses();
    const head = headAt(0, 0);
    const hand = new Object3D();
    hand.position.set(1.2, 0.9, 1.8);
    hand.updateMatrixWorld();
    poses.own(toSeat('riley', seat, head, [null, hand]), 0);
    // Raised 30 cm in the next frame: their avatar's hand is on it in that frame, not on its way.
    hand.position.y += 0.3;
    hand.updateMatrixWorld();
    poses.own(toSeat('riley', seat, head, [null, hand]), 14);
    const arms = trackedArms();
    expect(poses.arms('riley', seat, 14, arms)).toBe(true);
    expect(arms.right.position.distanceTo(hand.position)).toBeLessThan(0.002);
    // The same movement relayed to someone else glides there over a few frames.
    const relayed = createPoses();
    hand.position.y -= 0.3;
    hand.updateMatrixWorld();
    relayed.receive(toSeat('riley', seat, head, [null, hand]), 0);
    hand.position.y += 0.3;
    hand.updateMatrixWorld();
    relayed.receive(toSeat('riley', seat, head, [null, hand]), 80);
    relayed.arms('riley', seat, 94, arms);
    expect(arms.right.position.distanceTo(hand.position)).toBeGreaterThan(0.03);

    // Frames seconds apart (a loaded machine): the own pose is still this frame's, its hand on the controller.
    const mine = createPoses();
    mine.own(toSeat('riley', seat, head, [null, hand]), 0);
    mine.own(toSeat('riley', seat, head, [null, hand]), 300);
    expect(mine.arms('riley', seat, 300 + POSE_LOST_MS + 2000, arms)).toBe(true);
    expect(arms.right.tracked).toBe(true);
    expect(arms.left.tracked, 'a hand missing from it is not tracked').toBe(false);
    expect(relayed.arms('riley', seat, 80 + POSE_LOST_MS + 1, arms), 'a relayed one is, after POSE_LOST_MS').toBe(false);
  });
});
