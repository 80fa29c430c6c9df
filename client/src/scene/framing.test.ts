import { PerspectiveCamera, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { formations } from '../../../shared/scene/schema';
import { frameSeat, freeRegions, headRadius, type Rect } from './framing';
import { seatsFor, type Seat, type Vec3 } from './layout';

const people = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `p${i}`, kind: i === 0 ? ('human' as const) : ('ai' as const) }));
const headOf = (seat: Seat): Vec3 => [seat.position[0], seat.seated ? 1.2 : 1.62, seat.position[2]];
/** A HUD docked bottom-right, as styles.css docks it. */
const hudOn = (width: number, height: number): Rect => ({ left: width - 352, top: height - 12 - Math.min(320, 0.46 * height), right: width - 12, bottom: height - 12 });
const screens = [
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
];

/** Where three.js draws a point with the framed camera, in pixels. */
const drawn = (camera: PerspectiveCamera, point: Vec3, width: number, height: number) => {
  const p = new Vector3(...point).project(camera);
  return { x: ((p.x + 1) / 2) * width, y: ((1 - p.y) / 2) * height, inFront: p.z > -1 && p.z < 1 };
};

/** Points on a head's ball: its middle and its surface along the axes and diagonals. */
const ball = (centre: Vec3): Vec3[] => {
  const out: Vec3[] = [centre];
  for (const x of [-1, 0, 1])
    for (const y of [-1, 0, 1])
      for (const z of [-1, 0, 1]) {
        const length = Math.hypot(x, y, z);
        if (length) out.push([centre[0] + (x / length) * headRadius, centre[1] + (y / length) * headRadius, centre[2] + (z / length) * headRadius]);
      }
  return out;
};

describe('the desktop view from a seat', () => {
  it.each(formations)('shows every head at a %s on screen and clear of the HUD, seen by three.js', (formation) => {
    for (const n of [2, 3, 5, 6, 8, 12])
      for (const { width, height } of screens) {
        const seats = seatsFor(formation, people(n));
        const me = seats[seats.findIndex((s) => s.id === 'p0')]!;
        const heads = seats.filter((s) => s !== me).map(headOf);
        const hud = hudOn(width, height);
        const view = frameSeat({ eye: headOf(me), facing: me.yaw, heads, screen: { width, height, fov: 60, covered: [hud] } });
        expect(view.fits, `${n} at a ${formation}, ${width}×${height}`).toBe(true);

        const camera = new PerspectiveCamera(view.fov, width / height, 0.05, 80);
        camera.position.set(...view.position);
        camera.rotation.set(view.pitch, view.yaw, 0, 'YXZ');
        camera.updateMatrixWorld();
        for (const head of heads)
          for (const point of ball(head)) {
            const { x, y, inFront } = drawn(camera, point, width, height);
            expect(inFront && x >= 0 && x <= width && y >= 0 && y <= height, `${n} at a ${formation}, ${width}×${height}: on screen`).toBe(true);
            expect(x > hud.left && x < hud.right && y > hud.top && y < hud.bottom, `${n} at a ${formation}, ${width}×${height}: under the HUD`).toBe(false);
          }
      }
  });

  it('stays at the seat when everyone is in view from there, and moves back only when they are not', () => {
    const screen = { width: 1280, height: 720, fov: 60, covered: [] };
    // The candidate faces three interviewers across the desks.
    const panel = seatsFor('panel', people(4));
    expect(frameSeat({ eye: headOf(panel[0]!), facing: panel[0]!.yaw, heads: panel.slice(1).map(headOf), screen }).back).toBe(0);
    // In a circle your neighbours sit almost beside you.
    const circle = seatsFor('circle', people(6));
    const view = frameSeat({ eye: headOf(circle[0]!), facing: circle[0]!.yaw, heads: circle.slice(1).map(headOf), screen });
    expect(view.back).toBeGreaterThan(0);
    expect(view.back).toBeLessThanOrEqual(1.2);
    expect(view.fov).toBe(60);
  });

  it('finds the parts of the screen a bottom-right panel leaves free: above it and beside it', () => {
    const regions = freeRegions(1280, 720, [{ left: 928, top: 388, right: 1268, bottom: 708 }]);
    expect(regions).toEqual([
      { left: 0, top: 0, right: 928, bottom: 720 },
      { left: 0, top: 0, right: 1280, bottom: 388 },
    ]);
  });
});
