import * as THREE from 'three';
import { describe, expect, it } from 'vitest';
import type { Formation } from '../../../shared/scene/schema';
import { headOf } from '../scene/attention';
import { seatsFor, wallHeight } from '../scene/layout';
import { settingFor } from '../scene/setting/setting';
import { overlook } from './viewpoint';

const formations: Formation[] = ['circle', 'table', 'panel', 'audience', 'poster', 'u-shape'];
const screen = { width: 1280, height: 720 };

describe("the replay's starting view", () => {
  for (const formation of formations) {
    for (const people of [3, 5, 8]) {
      const seats = seatsFor(formation, Array.from({ length: people }, (_, i) => ({ id: `p${i}`, kind: i === 0 ? ('human' as const) : ('ai' as const) })));
      const view = overlook(seats, screen);
      const camera = new THREE.PerspectiveCamera(view.fov, screen.width / screen.height, 0.05, 80);
      camera.position.set(...view.position);
      camera.lookAt(...view.target);
      camera.updateMatrixWorld();

      it(`shows every head of a ${formation} of ${people} on screen, clear of the header and the bar, from above`, () => {
        for (const seat of seats) {
          const p = headOf(seat).project(camera);
          expect(Math.abs(p.x), seat.id).toBeLessThan(0.95);
          expect(Math.abs(p.y), seat.id).toBeLessThan(0.65);
        }
        expect(view.position[1]).toBeGreaterThan(view.target[1] + 1);
      });

      it(`stands between the seats of a ${formation} of ${people}, behind nobody's chair`, () => {
        const centre = new THREE.Vector2(view.target[0], view.target[2]);
        const towards = new THREE.Vector2(view.position[0], view.position[2]).sub(centre).normalize();
        for (const seat of seats) {
          const out = new THREE.Vector2(seat.position[0], seat.position[2]).sub(centre);
          if (out.length() < 0.3) continue;
          expect(Math.acos(Math.min(1, towards.dot(out.normalize()))), seat.id).toBeGreaterThan((12 * Math.PI) / 180);
        }
      });

      it(`shows every seated body of a ${formation} of ${people} upright, not reclining in the view's perspective`, () => {
        for (const seat of seats.filter((s) => s.seated)) {
          const hips = new THREE.Vector3(seat.position[0], seat.position[1] + 0.53, seat.position[2]).project(camera);
          const head = headOf(seat).project(camera);
          const lean = (Math.atan2(Math.abs(head.x - hips.x) * camera.aspect, head.y - hips.y) * 180) / Math.PI;
          expect(lean, seat.id).toBeLessThan(18);
        }
      });

      it(`draws the far tags of a ${formation} of ${people} larger, the near ones as they are`, () => {
        const far = seats.map((s) => camera.position.distanceTo(headOf(s)));
        for (const [i, seat] of seats.entries()) expect(view.tagScale.get(seat.id)).toBeCloseTo(Math.max(1, far[i]! / 3.2));
      });
    }
  }
});

describe("the replay's starting view of an interview (the candidate and a panel of three, scenes/job-interview.yaml)", () => {
  const seats = seatsFor('panel', [
    { id: 'alex', kind: 'human' as const },
    ...['hannah', 'raj', 'sofia'].map((id) => ({ id, kind: 'ai' as const })),
  ]);
  const { bounds } = settingFor({ formation: 'panel', form: 'interview', seats, boards: [] });
  const view = overlook(seats, screen, { bounds, ceiling: wallHeight }, ['alex']);
  const camera = new THREE.PerspectiveCamera(view.fov, screen.width / screen.height, 0.05, 80);
  camera.position.set(...view.position);
  camera.lookAt(...view.target);
  camera.updateMatrixWorld();

  it('stands inside the room, under the ceiling, a standing observer looking down a little, every head on screen', () => {
    const [x, y, z] = view.position;
    expect(x).toBeGreaterThan(bounds.minX);
    expect(x).toBeLessThan(bounds.maxX);
    expect(z).toBeGreaterThan(bounds.minZ);
    expect(z).toBeLessThan(bounds.maxZ);
    expect(y).toBeLessThan(wallHeight);
    expect(y).toBeGreaterThan(view.target[1] + 1);
    const down = (Math.atan2(y - view.target[1], Math.hypot(x - view.target[0], z - view.target[2])) * 180) / Math.PI;
    expect(down).toBeLessThan(35);
    for (const seat of seats) {
      const p = headOf(seat).project(camera);
      expect(Math.abs(p.x), seat.id).toBeLessThan(0.95);
      expect(Math.abs(p.y), seat.id).toBeLessThan(0.65);
    }
  });

  it("sees the candidate's face, not the back of their head", () => {
    const alex = seats[0]!;
    const toCamera = Math.atan2(view.position[0] - alex.position[0], view.position[2] - alex.position[2]);
    const off = Math.abs(Math.atan2(Math.sin(toCamera - alex.yaw), Math.cos(toCamera - alex.yaw)));
    expect((off * 180) / Math.PI).toBeLessThan(100);
  });
});
