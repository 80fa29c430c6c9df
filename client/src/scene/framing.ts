/**
 * The desktop view from a participant's seat: where the camera stands and where it looks so that
 * every other participant's head is on screen and clear of the panels laid over the canvas (the
 * HUD). Pure: a seat, the heads and the screen give one view.
 *
 * The eye starts at the seat's head height and looks toward the others. When their heads do not all
 * fit (in a circle your neighbours sit nearly beside you), the eye moves back behind the seat, and
 * up a little to see over its chair, in 10 cm steps, until they do: the least move that shows
 * everyone, at most 1.2 m (every seat has 1.5 m of room behind it, furniture.ts). Only if that is
 * not enough does the view widen, 5° at a time. It is then aimed so the heads sit in the middle of
 * a part of the screen that no panel covers (above the panels, or beside them, whichever fits).
 *
 * ```ts
 * const view = frameSeat({ eye: [0, 1.2, 1.8], facing: Math.PI, heads, screen: { width: 1280, height: 720, fov: 60, covered: [hud] } });
 * camera.position.set(...view.position);
 * camera.rotation.set(view.pitch, view.yaw, 0, 'YXZ');
 * camera.fov = view.fov;
 * ```
 */
import type { Vec3 } from './layout';

/** A rectangle of the canvas, in its CSS pixels from its top-left corner. */
export interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface Screen {
  width: number;
  height: number;
  /** The camera's vertical field of view, degrees, as it would be: the framing may widen it. */
  fov: number;
  /** What the panels over the canvas cover. */
  covered: readonly Rect[];
}

export interface Framing {
  position: Vec3;
  /** The camera's turn about Y (at 0 it looks toward -Z) and up-down tilt, radians ('YXZ' order). */
  yaw: number;
  pitch: number;
  /** The vertical field of view, degrees: the screen's, or wider when moving back was not enough. */
  fov: number;
  /** How far behind the seat the eye moved to show everyone, metres. */
  back: number;
  /** Every head fits; false when even the widest view from furthest back could not show them all. */
  fits: boolean;
}

/**
 * A head as the framing keeps it clear: a ball this big around its middle. A head is about 17 cm
 * wide, 22 deep and 24 tall (a ball of 17 cm holds it); the rest is for its moving: breathing,
 * turning to a speaker, a nod.
 */
export const headRadius = 0.21;
/** Kept between a head and a screen edge or a panel, pixels. */
const margin = 10;
const step = 0.1;
const furthest = 1.2;
/** The widest the view is made, degrees (vertical; about 110° across a 16:9 screen). */
const widest = 80;
/** Metres up per metre back: enough to see over your own chair's back. */
const rise = 0.3;
const nearest = 0.05;

/** The parts of the screen no panel covers: for each panel, what lies above, below, left and right of it. */
export const freeRegions = (width: number, height: number, covered: readonly Rect[]): Rect[] => {
  let regions: Rect[] = [{ left: 0, top: 0, right: width, bottom: height }];
  for (const panel of covered) {
    regions = regions.flatMap((r) => {
      const overlaps = panel.left < r.right && panel.right > r.left && panel.top < r.bottom && panel.bottom > r.top;
      if (!overlaps) return [r];
      return [
        { ...r, bottom: Math.min(r.bottom, panel.top) },
        { ...r, top: Math.max(r.top, panel.bottom) },
        { ...r, right: Math.min(r.right, panel.left) },
        { ...r, left: Math.max(r.left, panel.right) },
      ];
    });
  }
  // Too thin to hold a row of faces: left out.
  const usable = regions.filter((r) => r.right - r.left > width / 4 && r.bottom - r.top > height / 4);
  return usable.sort((a, b) => (b.right - b.left) * (b.bottom - b.top) - (a.right - a.left) * (a.bottom - a.top));
};

/** A camera: its position, the rows of its rotation (right, up, back), and its focal length in pixels. */
interface Eye {
  at: Vec3;
  yaw: number;
  pitch: number;
  focal: number;
  width: number;
  height: number;
}

/** The span on screen, in pixels from the centre, of a ball of `headRadius` at (`across`, `depth`) in one plane of the camera. */
const span = (across: number, depth: number, focal: number): [number, number] | null => {
  const reach = Math.hypot(across, depth);
  // The lines from the eye that touch the ball: its direction, plus and minus the ball's half angle.
  const middle = Math.atan2(across, depth);
  const half = Math.asin(Math.min(1, headRadius / reach));
  if (Math.abs(middle) + half >= Math.PI / 2 - 0.01) return null;
  return [focal * Math.tan(middle - half), focal * Math.tan(middle + half)];
};

/** Where a head appears on screen: the box around its ball, in pixels, or null when it is not wholly in front of the camera. */
const project = (eye: Eye, head: Vec3): Rect | null => {
  const [dx, dy, dz] = [head[0] - eye.at[0], head[1] - eye.at[1], head[2] - eye.at[2]];
  // Into camera space: undo the yaw (about Y), then the pitch (about X); the camera looks down -Z.
  const [cy, sy, cp, sp] = [Math.cos(eye.yaw), Math.sin(eye.yaw), Math.cos(eye.pitch), Math.sin(eye.pitch)];
  const x = dx * cy - dz * sy;
  const z1 = dx * sy + dz * cy;
  const y = dy * cp + z1 * sp;
  const z = z1 * cp - dy * sp;
  if (-z < nearest + headRadius) return null;
  const across = span(x, -z, eye.focal);
  const up = span(y, -z, eye.focal);
  if (!across || !up) return null;
  return { left: eye.width / 2 + across[0], right: eye.width / 2 + across[1], top: eye.height / 2 - up[1], bottom: eye.height / 2 - up[0] };
};

/** The screen box around every head, or null when one is behind the camera. */
const extent = (eye: Eye, heads: readonly Vec3[]): Rect | null => {
  const box = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
  for (const head of heads) {
    const p = project(eye, head);
    if (!p) return null;
    box.left = Math.min(box.left, p.left);
    box.right = Math.max(box.right, p.right);
    box.top = Math.min(box.top, p.top);
    box.bottom = Math.max(box.bottom, p.bottom);
  }
  return box;
};

/** The middle of the interval [lo, hi] as seen through a window from `near` to `far` (angles off the view's axis). */
const centreOn = (lo: number, hi: number, near: number, far: number): number => (lo + hi - near - far) / 2;

/**
 * Turns the eye so the heads sit in the middle of `region`, and says whether they then fit. First
 * by angles, exact for a level view (each head's direction, and the half angle its ball covers);
 * then a few half steps toward the middle in pixels, which a tilted view and the perspective of
 * wide angles shift a little.
 */
const aim = (eye: Eye, heads: readonly Vec3[], region: Rect): boolean => {
  const yaws = { lo: Infinity, hi: -Infinity };
  const pitches = { lo: Infinity, hi: -Infinity };
  for (const head of heads) {
    const [dx, dy, dz] = [head[0] - eye.at[0], head[1] - eye.at[1], head[2] - eye.at[2]];
    const level = Math.hypot(dx, dz);
    const half = Math.asin(Math.min(1, headRadius / Math.hypot(level, dy)));
    // The yaw that looks straight at it, taken within half a turn of where the eye looks now.
    const yaw = eye.yaw + Math.atan2(Math.sin(Math.atan2(-dx, -dz) - eye.yaw), Math.cos(Math.atan2(-dx, -dz) - eye.yaw));
    const pitch = Math.atan2(dy, level);
    yaws.lo = Math.min(yaws.lo, yaw - half);
    yaws.hi = Math.max(yaws.hi, yaw + half);
    pitches.lo = Math.min(pitches.lo, pitch - half);
    pitches.hi = Math.max(pitches.hi, pitch + half);
  }
  // Screen columns and rows as angles off the axis: left and up are positive, as yaw and pitch turn.
  const off = (pixels: number) => Math.atan(pixels / eye.focal);
  eye.yaw = centreOn(yaws.lo, yaws.hi, off(eye.width / 2 - region.left), off(eye.width / 2 - region.right));
  eye.pitch = Math.max(-0.7, Math.min(0.7, centreOn(pitches.lo, pitches.hi, off(eye.height / 2 - region.top), off(eye.height / 2 - region.bottom))));
  for (let i = 0; i < 4; i++) {
    const box = extent(eye, heads);
    if (!box) break;
    eye.yaw -= Math.atan((box.left + box.right - region.left - region.right) / 2 / eye.focal) / 2;
    eye.pitch = Math.max(-0.7, Math.min(0.7, eye.pitch - Math.atan((box.top + box.bottom - region.top - region.bottom) / 2 / eye.focal) / 2));
  }
  const box = extent(eye, heads);
  return box !== null && box.left >= region.left + margin && box.right <= region.right - margin && box.top >= region.top + margin && box.bottom <= region.bottom - margin;
};

/**
 * The view from `eye` (the seat's head; `facing` its yaw, where the seat faces) that shows every
 * one of `heads` (world centres of the others' heads, and whatever else must be seen) on `screen`.
 */
export const frameSeat = ({ eye, facing, heads, screen }: { eye: Vec3; facing: number; heads: readonly Vec3[]; screen: Screen }): Framing => {
  const regions = freeRegions(screen.width, screen.height, screen.covered);
  const behind = { x: -Math.sin(facing), z: -Math.cos(facing) };
  // Start looking where the heads are, on average; else where the seat faces.
  const toward = heads.reduce((sum, h) => ({ x: sum.x + h[0] - eye[0], z: sum.z + h[2] - eye[2] }), { x: 0, z: 0 });
  const start = heads.length ? Math.atan2(-toward.x, -toward.z) : facing + Math.PI;
  const view = (back: number, fov: number, region: Rect): Framing => {
    const at: Vec3 = [eye[0] + behind.x * back, eye[1] + rise * back, eye[2] + behind.z * back];
    const focal = screen.height / 2 / Math.tan((fov * Math.PI) / 360);
    const turned: Eye = { at, yaw: start, pitch: 0, focal, width: screen.width, height: screen.height };
    const fits = aim(turned, heads, region);
    return { position: at, yaw: turned.yaw, pitch: turned.pitch, fov, back, fits };
  };
  if (heads.length === 0) return { position: eye, yaw: start, pitch: 0, fov: screen.fov, back: 0, fits: true };
  for (let fov = screen.fov; fov <= Math.max(widest, screen.fov); fov += 5) {
    for (let steps = 0; steps * step <= furthest + 1e-9; steps++) {
      for (const region of regions) {
        const framed = view(steps * step, fov, region);
        if (framed.fits) return framed;
      }
    }
  }
  // Nobody is left out on purpose: the widest view from furthest back, aimed at the largest free part.
  return view(furthest, Math.max(widest, screen.fov), regions[0] ?? { left: 0, top: 0, right: screen.width, bottom: screen.height });
};
