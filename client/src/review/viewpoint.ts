/**
 * Where the 3D replay's camera starts: a raised observer's view of the whole formation, from the
 * side the room faces (+Z, the board is at -Z, scene/layout.ts) but between two seats, so no chair
 * and no one's name tag stands between the camera and the others' faces; and how large each name
 * tag is drawn from there, so it reads at 1280×720 however far its owner sits. Pure.
 *
 * The camera looks down at `pitch` onto the formation's middle at seated head height, and stands
 * back only as far as it must for every head and its tag to be on screen, clear of the replay's
 * header (top-left) and its bar (bottom).
 *
 * ```ts
 * const view = overlook(seats, { width: 1280, height: 720 });
 * <Canvas camera={{ fov: view.fov, position: view.position }}>…<OrbitControls target={view.target} />
 * <Avatar tagScale={view.tagScale.get(seat.id)} … />
 * ```
 */
import * as THREE from 'three';
import { headOf, headTopOf } from '../room/attention';
import type { Seat, Vec3 } from '../scene/layout';

export interface Overlook {
  position: Vec3;
  target: Vec3;
  /** Vertical field of view, degrees. */
  fov: number;
  /** Each seat's name tag size, as a multiple of the room's (0.5 m wide): about the same on screen near and far. */
  tagScale: Map<string, number>;
}

const fov = 50;
/** Looking down this far (radians): high enough to see over the near chairs, low enough to see faces. */
const pitch = (28 * Math.PI) / 180;
/** The middle of a name tag above a head's top (scene/avatar.tsx hangs it there). */
const tagAbove = 0.28;
/** A name tag reads at its own size up to this far (metres); further away it grows with the distance. */
const readsWithin = 2.2;
/** Directions tried for the camera, from straight along +Z: up to this far to either side, radians. */
const widestTurn = (70 * Math.PI) / 180;
/** Where heads and tags must land, in normalised device coordinates: clear of the header and the bar. */
const inside = { left: -0.92, right: 0.92, bottom: -0.62, top: 0.62 };

/** The direction about the formation's middle, as atan2(x, z): 0 is +Z. */
const bearing = (x: number, z: number): number => Math.atan2(x, z);
const apart = (a: number, b: number): number => Math.abs(Math.atan2(Math.sin(a - b), Math.cos(a - b)));

export const overlook = (seats: readonly Seat[], screen: { width: number; height: number }): Overlook => {
  const n = Math.max(1, seats.length);
  const centre = { x: seats.reduce((sum, s) => sum + s.position[0], 0) / n, z: seats.reduce((sum, s) => sum + s.position[2], 0) / n };
  const target: Vec3 = [centre.x, 1.0, centre.z];
  // From the side the room faces, the bearing furthest from every seat's: between two seats.
  const seatBearings = seats.map((s) => bearing(s.position[0] - centre.x, s.position[2] - centre.z));
  let turn = 0;
  let clearest = -1;
  for (let a = -widestTurn; a <= widestTurn + 1e-9; a += Math.PI / 72) {
    const clear = Math.min(Math.PI, ...seatBearings.map((b) => apart(a, b)));
    // Ties go to the straighter view (the board stays in sight).
    if (clear > clearest + 1e-6 || (Math.abs(clear - clearest) <= 1e-6 && Math.abs(a) < Math.abs(turn))) [turn, clearest] = [a, clear];
  }
  const points = seats.flatMap((s) => {
    const head = headOf(s);
    return [head, new THREE.Vector3(s.position[0], s.position[1] + headTopOf(s) + tagAbove, s.position[2])];
  });
  const camera = new THREE.PerspectiveCamera(fov, screen.width / Math.max(1, screen.height), 0.05, 80);
  const place = (distance: number) => {
    const across = distance * Math.cos(pitch);
    camera.position.set(centre.x + across * Math.sin(turn), target[1] + distance * Math.sin(pitch), centre.z + across * Math.cos(turn));
    camera.lookAt(...target);
    camera.updateMatrixWorld();
  };
  const seen = new THREE.Vector3();
  const fits = () => points.every((p) => {
    seen.copy(p).project(camera);
    return seen.z < 1 && seen.x >= inside.left && seen.x <= inside.right && seen.y >= inside.bottom && seen.y <= inside.top;
  });
  let distance = 2;
  for (place(distance); !fits() && distance < 12; place(distance)) distance += 0.1;
  const tagScale = new Map(seats.map((s) => [s.id, Math.max(1, camera.position.distanceTo(headOf(s)) / readsWithin)]));
  return { position: camera.position.toArray() as Vec3, target, fov, tagScale };
};
