/**
 * Sends the wearer's pose to the room while they are in the headset: their head (the XR camera)
 * and each controller's or hand's grip, in their seat's frame (pose.ts), about 12 times a second,
 * and only while the connection is open (a pose is presence: a late one is worth nothing, so none
 * is queued). Everyone else's view turns this seat's avatar with it. The wearer's own view takes
 * it at every frame (`poses.own`): their avatar's arms, seen as they look down, are on their hands.
 *
 * ```tsx
 * {inVR && <SharePose session={session} participant="riley" seat={seat} />}
 * ```
 */
import { useFrame, useThree } from '@react-three/fiber';
import { useMemo } from 'react';
import { Object3D } from 'three';
import type { Session } from '../room/session';
import type { Seat } from '../scene/layout';
import { createPoseClock, toSeat } from './pose';

export const SharePose = ({ session, participant, seat }: { session: Session; participant: string; seat: Seat }) => {
  const { gl, camera } = useThree();
  const clock = useMemo(() => createPoseClock(), []);
  const grips = useMemo(() => [new Object3D(), new Object3D()] as const, []);

  useFrame((_state, _delta, frame?: XRFrame) => {
    const space = gl.xr.getReferenceSpace();
    // The XR origin (the camera's parent) places the reference space in the room.
    const origin = camera.parent;
    if (!frame || !space || !origin) return;
    origin.updateWorldMatrix(true, false);
    let left: Object3D | null = null;
    let right: Object3D | null = null;
    for (const source of frame.session.inputSources) {
      if (source.handedness !== 'left' && source.handedness !== 'right') continue;
      const pose = frame.getPose(source.gripSpace ?? source.targetRaySpace, space);
      if (!pose) continue;
      const grip = grips[source.handedness === 'left' ? 0 : 1];
      grip.matrix.fromArray(pose.transform.matrix).premultiply(origin.matrixWorld).decompose(grip.position, grip.quaternion, grip.scale);
      if (source.handedness === 'left') left = grip;
      else right = grip;
    }
    const pose = toSeat(participant, seat, camera, [left, right]);
    const now = performance.now();
    session.poses.own(pose, now);
    if (clock.due(now)) session.sendPose(pose);
  });
  return null;
};
