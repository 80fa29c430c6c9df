/**
 * `window.__xr` with `?test=1`: what the headset's end-to-end tests read and drive on the emulated
 * Quest 3 (emulator.ts), beside `window.__room` (room/test-handle.ts).
 *
 * - `inVR()`: whether an immersive session runs
 * - `vr()`: the headset controls' state (xr/vr-state.ts: stance, talking, notices…)
 * - `eye()`: the viewer's eyes in the room, `[x, y, z]`
 * - `onScreen(name)`: where a surface (`panel`, `keyboard`) is in the view: its centre and corners in
 *   normalised device coordinates (-1..1, y up), and its distance; null when it is not shown
 * - `aim(name, button)`: points the emulated right controller (or right hand, with `hand`) at that
 *   button of the surface; false when there is no such button
 * - `useHands(on)`: tracked hands instead of controllers; `pinch(pressed)`: the right hand's pinch
 * - `connect(side, on)`: turns an emulated controller on or off (a controller that disconnects)
 * - `stick(x)`: pushes the right thumbstick across (-1 left … 1 right; 0 lets it go)
 * - `turnHead(yaw, pitch)`: turns the emulated headset, in degrees: yaw to the wearer's left, pitch down
 * - `exit()`: ends the immersive session as the panel's Exit VR does
 * - `heads()`: each avatar's head as the current view shows it: its height on screen turned back into
 *   metres at its distance (the same in a headset and on a desktop when both are at real scale)
 */
import type { XRStore } from '@react-three/xr';
import { Euler, Quaternion, Vector3, type PlaneGeometry } from 'three';
import { emulatedHeadset } from '../room/emulator';
import type { CameraView } from '../room/test-handle';
import type { AvatarRig } from '../scene/rig';
import { targetNamed } from './targets';
import type { VrState, VrStore } from './vr-state';

export interface SurfaceOnScreen {
  centre: [number, number, number];
  corners: [number, number][];
  distance: number;
}

export interface XrHandle {
  inVR(): boolean;
  vr(): VrState;
  eye(): [number, number, number] | null;
  onScreen(name: string): SurfaceOnScreen | null;
  aim(name: string, button: string): boolean;
  useHands(on: boolean): boolean;
  pinch(pressed: boolean): boolean;
  connect(side: 'left' | 'right', on: boolean): boolean;
  stick(x: number): boolean;
  turnHead(yaw: number, pitch: number): boolean;
  exit(): Promise<void>;
  heads(): { participant: string; metres: number; distance: number }[];
}

declare global {
  interface Window {
    __xr?: XrHandle;
  }
}

/** Where the right hand is held, relative to the head: in front of the chest, a little to the right. */
const handFromHead = new Vector3(0.15, -0.35, -0.25);

export const installXrTestHandle = (options: { store: XRStore; vr: VrStore; viewer: () => CameraView | null; rigs: () => Map<string, AvatarRig> }): (() => void) => {
  const { store, vr } = options;
  const right = () => {
    const device = emulatedHeadset();
    return device ? (device.primaryInputMode === 'hand' ? device.hands.right : device.controllers.right) : undefined;
  };
  const handle: XrHandle = {
    inVR: () => store.getState().session != null,
    vr: () => vr.get(),
    eye() {
      const viewer = options.viewer();
      return viewer ? (viewer.camera.getWorldPosition(new Vector3()).toArray() as [number, number, number]) : null;
    },
    onScreen(name) {
      const target = targetNamed(name);
      const viewer = options.viewer();
      if (!target || !viewer || !target.mesh.visible) return null;
      const { camera } = viewer;
      camera.updateMatrixWorld();
      target.mesh.updateWorldMatrix(true, false);
      const { width, height } = (target.mesh.geometry as PlaneGeometry).parameters;
      const project = (x: number, y: number) => target.mesh.localToWorld(new Vector3(x, y, 0)).project(camera);
      const centre = project(0, 0);
      const corners = [project(-width / 2, height / 2), project(width / 2, height / 2), project(width / 2, -height / 2), project(-width / 2, -height / 2)];
      const distance = target.mesh.getWorldPosition(new Vector3()).distanceTo(camera.getWorldPosition(new Vector3()));
      return { centre: [centre.x, centre.y, centre.z], corners: corners.map((c) => [c.x, c.y] as [number, number]), distance };
    },
    aim(name, id) {
      const input = right();
      const device = emulatedHeadset();
      const target = targetNamed(name);
      const button = target?.buttons().find((b) => b.id === id);
      const origin = options.viewer()?.camera.parent;
      if (!input || !device || !target || !button || !origin) return false;
      const { width, height } = (target.mesh.geometry as PlaneGeometry).parameters;
      const x = ((button.x + button.width / 2) / target.canvas.width - 0.5) * width;
      const y = (0.5 - (button.y + button.height / 2) / target.canvas.height) * height;
      // The button in the XR origin's frame, where the emulated device's poses are.
      const spot = origin.worldToLocal(target.mesh.localToWorld(new Vector3(x, y, 0)));
      const head = new Vector3(device.position.x, device.position.y, device.position.z);
      const from = head.clone().add(handFromHead);
      const direction = spot.sub(from).normalize();
      const turn = new Quaternion().setFromUnitVectors(new Vector3(0, 0, -1), direction);
      input.position.set(from.x, from.y, from.z);
      input.quaternion.set(turn.x, turn.y, turn.z, turn.w);
      return true;
    },
    useHands(on) {
      const device = emulatedHeadset();
      if (!device) return false;
      device.primaryInputMode = on ? 'hand' : 'controller';
      return true;
    },
    pinch(pressed) {
      const hand = emulatedHeadset()?.hands.right;
      hand?.updatePinchValue(pressed ? 1 : 0);
      return hand !== undefined;
    },
    connect(side, on) {
      const controller = emulatedHeadset()?.controllers[side];
      if (controller) controller.connected = on;
      return controller !== undefined;
    },
    stick(x) {
      const controller = emulatedHeadset()?.controllers.right;
      controller?.updateAxes('thumbstick', x, 0);
      return controller !== undefined;
    },
    turnHead(yaw, pitch) {
      const device = emulatedHeadset();
      if (!device) return false;
      const turn = new Quaternion().setFromEuler(new Euler((-pitch * Math.PI) / 180, (yaw * Math.PI) / 180, 0, 'YXZ'));
      device.quaternion.set(turn.x, turn.y, turn.z, turn.w);
      return true;
    },
    async exit() {
      await store.getState().session?.end();
    },
    heads() {
      const viewer = options.viewer();
      if (!viewer) return [];
      const { camera } = viewer;
      camera.updateMatrixWorld();
      const corners = Array.from({ length: 8 }, () => new Vector3());
      // ndc y = y / depth * P[5] (P[5] = 1 / tan(fovy / 2)): a height on screen back to metres at its depth.
      const focal = camera.projectionMatrix.elements[5]!;
      return [...options.rigs()].map(([participant, rig]) => {
        rig.headCorners(corners);
        const centre = rig.headCentre(new Vector3()).applyMatrix4(camera.matrixWorldInverse);
        const ys = corners.map((c) => c.project(camera).y);
        const depth = -centre.z;
        return { participant, metres: ((Math.max(...ys) - Math.min(...ys)) * depth) / focal, distance: depth };
      });
    },
  };
  window.__xr = handle;
  return () => {
    if (window.__xr === handle) delete window.__xr;
  };
};
