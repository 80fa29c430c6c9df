import { Box3, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { contentKinds, formations } from '../../../shared/scene/schema';
import { furnish, roomGeometry } from './furniture';
import { settingFor } from './setting/setting';
import { boardSize, boardsFor, focusFor, seatsFor, wallHeight } from './layout';

const people = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `p${i}`, kind: i === 0 ? ('human' as const) : ('ai' as const) }));

describe.each(formations)('the %s room', (formation) => {
  it.each([2, 7, 12])('is one vertex-coloured geometry around %i people and three boards', (n) => {
    const seats = seatsFor(formation, people(n));
    const focus = focusFor(formation);
    const boards = boardsFor(formation, ['slides', 'poster', 'document'], seats);
    const geometry = roomGeometry({ formation, seats, boards });
    // One geometry, one material, no groups: a single draw call.
    expect(geometry.groups).toHaveLength(0);
    expect(Object.keys(geometry.attributes).sort()).toEqual(['color', 'normal', 'position']);
    geometry.computeBoundingBox();
    const room = geometry.boundingBox!;
    expect(room.min.y).toBeCloseTo(-0.02);
    expect(room.max.y).toBeCloseTo(wallHeight);
    const inside = new Box3(room.min.clone().addScalar(1), room.max.clone().addScalar(-1));
    for (const seat of seats) expect(inside.containsPoint(new Vector3(seat.position[0], 1.5, seat.position[2]))).toBe(true);
    expect(room.containsPoint(new Vector3(...focus.position))).toBe(true);
    for (const board of boards) expect(room.containsPoint(new Vector3(...board.position))).toBe(true);
    geometry.dispose();
  });
});

describe('the glow', () => {
  it('draws the ceiling, the sky in the windows and the ceiling lights unlit, in a second geometry of its own', () => {
    const seats = seatsFor('panel', people(4));
    const setting = settingFor({ formation: 'panel', form: 'interview', seats, boards: [] });
    const { solid, glow } = furnish(setting, { chairless: ['p0'] });
    expect(glow.groups).toHaveLength(0);
    expect(Object.keys(glow.attributes).sort()).toEqual(['color', 'normal', 'position']);
    glow.computeBoundingBox();
    // The ceiling at the top of the walls, the windows' sky on the right-hand wall.
    expect(glow.boundingBox!.max.y).toBeCloseTo(wallHeight);
    expect(glow.boundingBox!.max.x).toBeCloseTo(setting.bounds.maxX, 1);
    // Without the viewer's own chair: one chair fewer than a room drawn whole.
    const whole = furnish(setting).solid;
    expect(whole.getAttribute('position').count).toBeGreaterThan(solid.getAttribute('position').count);
    for (const g of [solid, glow, whole]) g.dispose();
  });
});

describe('boards', () => {
  it('sizes slides 16:9, posters portrait and documents as a page', () => {
    const focus = focusFor('table');
    const [sw, sh] = boardSize('slides', focus);
    const [pw, ph] = boardSize('poster', focusFor('poster'));
    const [dw, dh] = boardSize('document', focus);
    expect(sw / sh).toBeCloseTo(16 / 9);
    expect(ph / pw).toBeCloseTo(1.4);
    expect(dh / dw).toBeCloseTo(Math.SQRT2, 2);
  });

  it('keeps every board above the floor and below the ceiling', () => {
    for (const formation of formations)
      for (const kind of contentKinds) {
        const focus = focusFor(formation);
        const [, height] = boardSize(kind, focus);
        expect(focus.position[1] - height / 2).toBeGreaterThan(0.4);
        expect(focus.position[1] + height / 2).toBeLessThan(wallHeight - 0.3);
      }
  });
});
