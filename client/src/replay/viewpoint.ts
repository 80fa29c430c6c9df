/**
 * Where the 3D replay's camera starts: a raised observer's view of the whole formation, from the
 * side the room faces (+Z, the board is at -Z, scene/layout.ts) but between two seats, so no chair
 * and no one's name tag stands between the camera and the others' faces; and how large each name
 * tag is drawn from there, so it reads at 1280×720 however far its owner sits. Pure.
 *
 * The camera looks down at `pitch` onto the formation's middle at seated head height, and stands
 * back only as far as it must for every head and its tag to be on screen, clear of the replay's
 * header (top-left) and its bar (bottom); given the room's walls, it stays inside them, under the
 * ceiling, and looks from where the trainee's face is seen.
 *
 * ```ts
 * const view = overlook(seats, { width: 1280, height: 720 }, { bounds: setting.bounds, ceiling: wallHeight }, ['alex']);
 * <Canvas camera={{ fov: view.fov, position: view.position }}>…<OrbitControls target={view.target} />
 * <Avatar tagScale={view.tagScale.get(seat.id)} … />
 * ```
 */
import * as THREE from 'three';
import { headOf, headTopOf } from '../scene/attention';
import type { Seat, Vec3 } from '../scene/layout';

export interface Overlook {
  position: Vec3;
  target: Vec3;
  /** Vertical field of view, degrees. */
  fov: number;
  /** Each seat's name tag size, as a multiple of the room's (0.5 m wide): about the same on screen near and far. */
  tagScale: Map<string, number>;
}

/**
 * Vertical fields of view tried, degrees, the narrowest first: from further back bodies stand
 * upright on screen. At 50° the panel's near chair (the trainee's) sat at the edge of a steep wide
 * view and its body seemed to lean back 24°; a wider lens is used only where the room's walls
 * keep the camera from standing back.
 */
const fovs = [35, 42, 50];
/** Inside a room's walls the camera cannot always stand back: a wider lens too. */
const roomFovs = [...fovs, 60];
/**
 * Looking down between these (radians), the lowest first: low enough to see faces from about their
 * height, high enough to see over the near chairs and tags. From above the walls (3.6 m at 30°)
 * every face was foreshortened, the trainee's turned away, and the near wall's top cut the view.
 */
const pitches = [16, 20, 24, 28, 32, 38, 46, 55].map((deg) => (deg * Math.PI) / 180);
/** The camera stands at least this high above the seated heads it looks at (metres): an observer on their feet, seeing over the near tags. */
const above = 1.05;
/** The camera keeps this far inside the walls and under the ceiling (metres). */
const wallClearance = 0.3;
/** A face turned further than this from the camera (degrees, about the vertical) shows the back of the head. */
const facingAway = 100;
/**
 * The middle of a name tag above a head's top, and a tag's size (scene/name-tag.tsx). The view keeps
 * room for a tag higher than name-tag.tsx hangs it (0.14 m at scale 1, over the head as posed): the
 * views chosen with this were checked in every shipped scene, and a lower tag let closer views win
 * in which the far seats' bodies seem to recline.
 */
const tagAbove = 0.28;
const tag = { width: 0.5, height: 0.125 };
/** A name tag reads at its own size up to this far (metres): about 120 px wide at 720 px high; further away it grows with the distance. */
const readsWithin = 3.2;
/** A face as the view keeps it clear of tags: half its width and height around the head's middle, metres. */
const face = { halfWidth: 0.16, halfHeight: 0.24 };
/** The camera stands at least this far outside the ring of seats (metres): behind nobody's chair; inside a room's walls, as near as a person standing by. */
const outside = 1.0;
const insideRing = 0.4;
/** Directions tried for the camera, from straight along +Z: up to this far to either side, radians. */
const widestTurn = (70 * Math.PI) / 180;
/**
 * How far a seated body may lean on screen (degrees from upright): looked down on from close by, a
 * body near the edge of the view seems to recline with its face to the ceiling (the trainee's, in
 * the panel's near chair), though it sits as it did in the room.
 */
const uprightWithin = 12;
/** The hips above the floor (metres), seated and standing: a body leans from there to the middle of its head. */
const hipsOf = (seat: Seat): number => (seat.seated ? 0.53 : 0.95);
/** Where heads and tags must land, in normalised device coordinates: clear of the header and the bar. */
const inside = { left: -0.92, right: 0.92, bottom: -0.62, top: 0.56 };

/** The direction about the formation's middle, as atan2(x, z): 0 is +Z. */
const bearing = (x: number, z: number): number => Math.atan2(x, z);
const apart = (a: number, b: number): number => Math.abs(Math.atan2(Math.sin(a - b), Math.cos(a - b)));

interface Box {
  left: number;
  right: number;
  bottom: number;
  top: number;
}
const overlaps = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.bottom < b.top && b.bottom < a.top;

/** The room the camera stands in: its walls (setting.ts's bounds) and the ceiling's height. */
export interface RoomShell {
  bounds: { minX: number; maxX: number; minZ: number; maxZ: number };
  ceiling: number;
}

/**
 * The starting view of `seats` on `screen`, inside `room` when one is given and a view fits there
 * (else from outside it, as without one); `humans`: the seats of people (the trainees). Preferred, in order: fewest faces under a tag, bodies
 * upright on screen, no human's face turned away (the trainee is who the replay is watched for),
 * then anyone's, the nearer, narrower and lower look.
 */
export const overlook = (seats: readonly Seat[], screen: { width: number; height: number }, room?: RoomShell, humans: readonly string[] = []): Overlook => {
  const n = Math.max(1, seats.length);
  const centre = { x: seats.reduce((sum, s) => sum + s.position[0], 0) / n, z: seats.reduce((sum, s) => sum + s.position[2], 0) / n };
  const target: Vec3 = [centre.x, 1.0, centre.z];
  const ring = Math.max(0, ...seats.map((s) => Math.hypot(s.position[0] - centre.x, s.position[2] - centre.z)));
  // From the side the room faces, the bearings furthest from every seat's: between two seats.
  const seatBearings = seats.map((s) => bearing(s.position[0] - centre.x, s.position[2] - centre.z));
  const clearance = (a: number) => Math.min(Math.PI, ...seatBearings.map((b) => apart(a, b)));
  const turns: number[] = [];
  for (let a = -widestTurn; a <= widestTurn + 1e-9; a += Math.PI / 72) turns.push(a);
  // The clearest first; ties go to the straighter view (the board stays in sight).
  turns.sort((a, b) => clearance(b) - clearance(a) || Math.abs(a) - Math.abs(b));
  const candidates = turns.filter((a) => clearance(a) >= clearance(turns[0]!) * 0.6).slice(0, 12);

  const heads = seats.map((s) => headOf(s));
  const tags = seats.map((s) => new THREE.Vector3(s.position[0], s.position[1] + headTopOf(s) + tagAbove, s.position[2]));
  const camera = new THREE.PerspectiveCamera(fovs[0], screen.width / Math.max(1, screen.height), 0.05, 80);
  let focal = 1;
  const lens = (fov: number) => {
    camera.fov = fov;
    camera.updateProjectionMatrix();
    focal = 1 / Math.tan((fov * Math.PI) / 360);
  };
  const place = (turn: number, pitch: number, distance: number) => {
    const across = distance * Math.cos(pitch);
    camera.position.set(centre.x + across * Math.sin(turn), target[1] + distance * Math.sin(pitch), centre.z + across * Math.cos(turn));
    camera.lookAt(...target);
    camera.updateMatrixWorld();
  };
  const seen = new THREE.Vector3();
  const onScreen = (p: THREE.Vector3) => {
    seen.copy(p).project(camera);
    return seen.z < 1 && seen.x >= inside.left && seen.x <= inside.right && seen.y >= inside.bottom && seen.y <= inside.top;
  };
  /** A ball-park box on screen (NDC) of `halfWidth` × `halfHeight` metres facing the camera at `p`. */
  const boxOf = (p: THREE.Vector3, halfWidth: number, halfHeight: number): Box => {
    const depth = camera.position.distanceTo(p);
    seen.copy(p).project(camera);
    const [w, h] = [(halfWidth * focal) / depth / camera.aspect, (halfHeight * focal) / depth];
    return { left: seen.x - w, right: seen.x + w, bottom: seen.y - h, top: seen.y + h };
  };
  /** A whole name tag on screen (its ends too, not only its middle: a near tag is wide). */
  const tagOnScreen = (t: THREE.Vector3, i: number) => {
    if (!onScreen(t)) return false;
    const box = boxOf(t, (tag.width * scaleAt(i)) / 2, (tag.height * scaleAt(i)) / 2);
    return box.left >= inside.left && box.right <= inside.right && box.top <= inside.top;
  };
  const scaleAt = (i: number) => Math.max(1, camera.position.distanceTo(heads[i]!) / readsWithin);
  /** How many faces some other seat's tag covers from here. */
  const covered = () => {
    const faces = heads.map((h) => boxOf(h, face.halfWidth, face.halfHeight));
    let count = 0;
    tags.forEach((t, i) => {
      const box = boxOf(t, (tag.width * scaleAt(i)) / 2, (tag.height * scaleAt(i)) / 2);
      if (faces.some((f, j) => j !== i && overlaps(box, f))) count++;
    });
    return count;
  };

  /** The most any body leans on screen from here, over `uprightWithin` (0 when all look upright). */
  const below = new THREE.Vector3();
  const leaning = () => {
    let worst = 0;
    for (const [i, seat] of seats.entries()) {
      below.set(seat.position[0], seat.position[1] + hipsOf(seat), seat.position[2]).project(camera);
      seen.copy(heads[i]!).project(camera);
      const across = (seen.x - below.x) * camera.aspect;
      worst = Math.max(worst, (Math.atan2(Math.abs(across), seen.y - below.y) * 180) / Math.PI);
    }
    return Math.max(0, worst - uprightWithin);
  };

  /** Faces turned away from the camera: each human's counts as many as everyone else's together. */
  const turnedAway = () => {
    let away = 0;
    for (const seat of seats) {
      const toCamera = bearing(camera.position.x - seat.position[0], camera.position.z - seat.position[2]);
      if ((apart(toCamera, seat.yaw) * 180) / Math.PI > facingAway) away += humans.includes(seat.id) ? seats.length : 1;
    }
    return away;
  };
  const inRoom = () =>
    !room ||
    (camera.position.y <= room.ceiling - wallClearance &&
      camera.position.x >= room.bounds.minX + wallClearance &&
      camera.position.x <= room.bounds.maxX - wallClearance &&
      camera.position.z >= room.bounds.minZ + wallClearance &&
      camera.position.z <= room.bounds.maxZ - wallClearance);

  type View = { turn: number; pitch: number; fov: number; distance: number; covered: number; away: number; leaning: number };
  /** The best view of those where every head and tag is on screen and the camera stands where `allowed` says. */
  const search = (lenses: readonly number[], margin: number, allowed: () => boolean): View | null => {
    let best: View | null = null;
    for (const fov of lenses) {
      lens(fov);
      for (const turn of candidates) {
        for (const pitch of pitches) {
          let distance = (ring + margin) / Math.cos(pitch);
          for (place(turn, pitch, distance); !(heads.every(onScreen) && tags.every(tagOnScreen)) && distance < 14; place(turn, pitch, distance)) distance += 0.1;
          if (distance >= 14 || camera.position.y < target[1] + above || !allowed()) continue;
          const view = { turn, pitch, fov, distance, covered: covered(), away: turnedAway(), leaning: leaning() };
          // Fewest faces under a tag, then bodies as upright as they sit, then the fewest faces turned away, then the nearest view
          // (larger faces); the narrower lens and the lower look come first on a tie.
          const better =
            !best ||
            view.covered < best.covered ||
            (view.covered === best.covered &&
              (view.leaning < best.leaning - 1 ||
                (Math.abs(view.leaning - best.leaning) <= 1 && (view.away < best.away || (view.away === best.away && view.distance < best.distance - 0.3)))));
          if (better) best = view;
        }
      }
    }
    return best;
  };
  // The view from above the room's walls was the only one before rooms had walls: kept for a room too small for any other.
  const best = (room && search(roomFovs, insideRing, inRoom)) || search(fovs, outside, () => true)!;
  lens(best.fov);
  place(best.turn, best.pitch, best.distance);
  const tagScale = new Map(seats.map((s, i) => [s.id, scaleAt(i)]));
  return { position: camera.position.toArray() as Vec3, target, fov: best.fov, tagScale };
};
