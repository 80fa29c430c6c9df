/**
 * The trainee's place in a headset: the XR origin set so their eyes are at their seat's eyes,
 * facing the room (placement.ts), when the session starts and on every recentre (the panel's
 * button, or the headset's own, which resets the reference space); moved, not turned, when the
 * eyes' height changes (their avatar built) or between seated and standing; turned 30° by a flick
 * of either thumbstick (snap turning: no smooth rotation, no locomotion, nothing that moves the
 * view by itself).
 *
 * ```tsx
 * <SeatOrigin seat={seat} eye={[0, 1.18, 1.35]} vr={vr} />
 * ```
 */
import { useFrame, useThree } from '@react-three/fiber';
import { XROrigin } from '@react-three/xr';
import { useEffect, useRef } from 'react';
import type { Group } from 'three';
import type { Seat, Vec3 } from '../scene/layout';
import { placeOrigin, snapTurn, yawOf, type HeadPose, type OriginPlace } from './placement';
import type { VrStore } from './vr-state';

/** A thumbstick past this (of 1) is a flick; it must come back inside RELEASE before the next. */
const FLICK = 0.7;
const RELEASE = 0.3;

export const SeatOrigin = ({ seat, eye, vr }: { seat: Seat; eye: Vec3; vr: VrStore }) => {
  const { gl } = useThree();
  const origin = useRef<Group>(null);
  const place = useRef<OriginPlace | null>(null);
  /** What the origin was last placed for: a change of any of them places it again. */
  const placedFor = useRef({ recentred: -1, stance: '', turns: 0, eye: '' });
  const head = useRef<HeadPose>({ position: [0, 0, 0], yaw: 0 });
  const sticks = useRef(new Map<XRInputSource, boolean>());

  // The headset's own recentre resets the reference space: the eyes go back to the seat.
  useEffect(() => {
    const start = () => {
      place.current = null;
      gl.xr.getReferenceSpace()?.addEventListener('reset', () => vr.recentre());
    };
    gl.xr.addEventListener('sessionstart', start);
    return () => gl.xr.removeEventListener('sessionstart', start);
  }, [gl, vr]);

  useFrame((_state, _delta, frame?: XRFrame) => {
    const group = origin.current;
    const space = gl.xr.getReferenceSpace();
    const pose = frame && space ? frame.getViewerPose(space) : null;
    if (!group || !frame || !pose) return;
    const { position: p, orientation: q } = pose.transform;
    // The head's look direction: (0, 0, -1) turned by its orientation.
    const forward: Vec3 = [-2 * (q.x * q.z + q.w * q.y), -2 * (q.y * q.z - q.w * q.x), -(1 - 2 * (q.x * q.x + q.y * q.y))];
    head.current = { position: [p.x, p.y, p.z], yaw: yawOf(forward) };

    const { recentred, stance, turns } = vr.get();
    const eyeKey = eye.join();
    const last = placedFor.current;
    if (!place.current || recentred !== last.recentred || stance !== last.stance || eyeKey !== last.eye) {
      // Facing the room on entering and on a recentre; otherwise (the eyes' height, sitting or standing)
      // the room stays turned as it is: a trainee looking aside as their avatar is built is not turned.
      const keepYaw = place.current && recentred === last.recentred ? place.current.yaw : undefined;
      place.current = placeOrigin({ head: head.current, eye, facing: seat.yaw, stance, floor: seat.position[1], keepYaw });
      placedFor.current = { recentred, stance, turns: keepYaw === undefined ? turns : last.turns, eye: eyeKey };
    }
    // Snap turns asked for on the panel (hands have no thumbstick), then flicks of a thumbstick.
    while (placedFor.current.turns !== turns) {
      const direction = turns > placedFor.current.turns ? 1 : -1;
      place.current = snapTurn(place.current, head.current, direction);
      placedFor.current.turns += direction;
    }
    for (const source of frame.session.inputSources) {
      const x = source.gamepad?.axes[2] ?? 0;
      const flicked = sticks.current.get(source) ?? false;
      if (!flicked && Math.abs(x) > FLICK) {
        sticks.current.set(source, true);
        place.current = snapTurn(place.current, head.current, x > 0 ? 1 : -1);
      } else if (flicked && Math.abs(x) < RELEASE) sticks.current.set(source, false);
    }
    if (group.position.x !== place.current.position[0] || group.position.y !== place.current.position[1] || group.position.z !== place.current.position[2] || group.rotation.y !== place.current.yaw) {
      group.position.set(...place.current.position);
      group.rotation.set(0, place.current.yaw, 0);
      vr.set({ placed: vr.get().placed + 1 });
    }
  });

  // Outside a session the origin stands on the seat, facing the room, until the first pose places it.
  return <XROrigin ref={origin} position={seat.position} rotation={[0, seat.yaw + Math.PI, 0]} />;
};
