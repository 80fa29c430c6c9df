import { describe, expect, it } from 'vitest';
import { formations, type Formation, type StructureForm } from '../../../../shared/scene/schema';
import { boardsFor, seatsFor, type Seat } from '../layout';
import { bodyRadius, corners, distanceTo, settingFor, solid, type Item, type ItemKind, type Setting } from './setting';

const people = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `p${i}`, kind: i === 0 ? ('human' as const) : ('ai' as const) }));
const counts = [3, 5, 8, 12];

/** Every formation, and the circle as each meeting furnishes it. */
const cases: { formation: Formation; form: StructureForm | null; has: ItemKind[] }[] = [
  { formation: 'table', form: 'review', has: ['table'] },
  { formation: 'panel', form: 'interview', has: ['desk', 'sideboard'] },
  { formation: 'audience', form: 'qa', has: ['stage', 'lectern', 'screen'] },
  { formation: 'poster', form: 'poster', has: ['poster-board'] },
  { formation: 'u-shape', form: 'critique', has: ['table'] },
  { formation: 'circle', form: 'social', has: ['round-table', 'place-setting'] },
  { formation: 'circle', form: 'retro', has: ['whiteboard'] },
  { formation: 'circle', form: 'standup', has: ['whiteboard'] },
  { formation: 'circle', form: 'investigation', has: ['coffee-table', 'rug'] },
  { formation: 'circle', form: null, has: ['rug'] },
];

const furnished = (formation: Formation, form: StructureForm | null, n: number, kinds: ('slides' | 'poster' | 'document')[] = []) => {
  const seats = seatsFor(formation, people(n));
  const boards = boardsFor(formation, kinds, seats);
  return { seats, boards, setting: settingFor({ formation, form, seats, boards, kinds }) };
};

const all = (setting: Setting, kind: ItemKind): Item[] => setting.items.filter((item) => item.kind === kind);
const facing = (seat: Seat) => ({ x: Math.sin(seat.yaw), z: Math.cos(seat.yaw) });
/** Degrees between where a seat faces and the direction to (x, z). */
const offBy = (seat: Seat, x: number, z: number): number => {
  const f = facing(seat);
  const [dx, dz] = [x - seat.position[0], z - seat.position[2]];
  return (Math.acos(Math.max(-1, Math.min(1, (f.x * dx + f.z * dz) / Math.hypot(dx, dz)))) * 180) / Math.PI;
};
const tables: readonly ItemKind[] = ['table', 'desk', 'round-table', 'coffee-table'];

describe.each(cases)('the $formation furnished for a $form meeting', ({ formation, form, has }) => {
  it.each(counts)('has its setting for %i people: its own furniture, a chair per seated person, windows and lights', (n) => {
    const { seats, setting } = furnished(formation, form, n);
    for (const kind of has) expect(all(setting, kind).length, kind).toBeGreaterThan(0);
    expect(all(setting, 'chair').map((c) => c.seat).sort()).toEqual(seats.filter((s) => s.seated).map((s) => s.id).sort());
    expect(all(setting, 'window').length).toBeGreaterThanOrEqual(1);
    expect(all(setting, 'ceiling-light').length).toBeGreaterThanOrEqual(1);
  });

  it.each(counts)('puts nothing where any of %i people sits or stands, and no chair in another', (n) => {
    const { seats, setting } = furnished(formation, form, n, ['slides', 'poster']);
    for (const seat of seats) {
      const [x, , z] = seat.position;
      for (const piece of setting.items.filter(solid)) {
        if (piece.kind === 'chair' && piece.seat === seat.id) continue;
        // A table is sat at: the hips stay outside its top, the knees go under it.
        const clear = tables.includes(piece.kind) ? 0.2 : bodyRadius;
        expect(distanceTo(piece, x, z), `${piece.kind} at ${seat.id}`).toBeGreaterThanOrEqual(clear);
      }
    }
    const chairs = all(setting, 'chair');
    for (const [i, a] of chairs.entries())
      for (const b of chairs.slice(i + 1)) expect(corners(a).every((c) => distanceTo(b, c.x, c.z) > 0), `${a.seat} and ${b.seat}`).toBe(true);
  });

  it.each(counts)('draws the walls around %i people with room behind every seat, and every piece inside', (n) => {
    const { seats, setting } = furnished(formation, form, n, ['slides']);
    const { minX, maxX, minZ, maxZ } = setting.bounds;
    for (const seat of seats) {
      const [x, , z] = seat.position;
      expect(Math.min(x - minX, maxX - x, z - minZ, maxZ - z)).toBeGreaterThanOrEqual(1);
      const back = { x: x - 1.2 * facing(seat).x, z: z - 1.2 * facing(seat).z };
      expect(back.x >= minX && back.x <= maxX && back.z >= minZ - 0.1 && back.z <= maxZ, `the view from behind ${seat.id}`).toBe(true);
    }
    for (const piece of setting.items.filter(solid))
      for (const c of corners(piece)) expect(c.x >= minX - 1e-9 && c.x <= maxX + 1e-9 && c.z >= minZ - 1e-9 && c.z <= maxZ + 1e-9, piece.kind).toBe(true);
  });
});

describe('the settings', () => {
  it('sits the interview panel behind one straight desk that faces the candidate’s chair, in a room of its size', () => {
    const { seats, setting } = furnished('panel', 'interview', 4);
    const [desk] = all(setting, 'desk');
    const [candidate, ...panel] = seats;
    expect(all(setting, 'desk')).toHaveLength(1);
    expect(desk!.yaw).toBe(0);
    // The candidate looks at the desk's middle; the desk lies between them and every interviewer.
    expect(offBy(candidate!, desk!.at[0], desk!.at[2])).toBeLessThan(5);
    for (const interviewer of panel) {
      expect(interviewer.position[2]).toBeLessThan(desk!.at[2] - desk!.size[2] / 2);
      expect(offBy(interviewer, candidate!.position[0], candidate!.position[2])).toBeLessThan(1);
    }
    expect(candidate!.position[2]).toBeGreaterThan(desk!.at[2] + desk!.size[2] / 2 + 1);
    const { minX, maxX, minZ, maxZ } = setting.bounds;
    expect(maxX - minX).toBeLessThanOrEqual(5.5);
    expect(maxZ - minZ).toBeLessThanOrEqual(5.5);
  });

  it('puts the Q&A’s presenters on a stage with the screen behind them and a lectern before the first, facing the audience', () => {
    const { seats, boards, setting } = furnished('audience', 'qa', 8, ['slides']);
    const [stage] = all(setting, 'stage');
    const [lectern] = all(setting, 'lectern');
    const [screen] = all(setting, 'screen');
    const presenter = seats[0]!;
    expect(distanceTo(stage!, presenter.position[0], presenter.position[2])).toBe(0);
    expect(presenter.position[1]).toBeCloseTo(stage!.size[1]);
    expect(screen!.at[0]).toBeCloseTo(boards[0]!.position[0]);
    expect(screen!.at[2]).toBeLessThan(boards[0]!.position[2]);
    expect(boards[0]!.position[2] - setting.bounds.minZ).toBeLessThan(0.1);
    expect(lectern!.at[1]).toBeCloseTo(stage!.size[1]);
    expect(Math.hypot(lectern!.at[0] - presenter.position[0], lectern!.at[2] - presenter.position[2])).toBeCloseTo(0.55);
    expect(Math.abs(lectern!.yaw - presenter.yaw)).toBeLessThan(0.3);
    for (const seat of seats.filter((s) => s.seated)) {
      expect(distanceTo(stage!, seat.position[0], seat.position[2]), seat.id).toBeGreaterThan(0.3);
      expect(offBy(seat, screen!.at[0], screen!.at[2]), seat.id).toBeLessThan(45);
    }
  });

  it('puts the poster on a poster board among its neighbours’ boards, the visitors facing it', () => {
    const { seats, boards, setting } = furnished('poster', 'poster', 6, ['poster']);
    const boardsHere = all(setting, 'poster-board');
    expect(boardsHere.filter((b) => !b.blank)).toHaveLength(1);
    expect(boardsHere.filter((b) => b.blank).length).toBeGreaterThanOrEqual(2);
    const own = boardsHere.find((b) => !b.blank)!;
    // The poster hangs on its board's face: within its width, its feet on the floor, just in front.
    expect(own.at[0]).toBeCloseTo(boards[0]!.position[0]);
    expect(own.size[0]).toBeGreaterThan(boards[0]!.size[0]);
    expect(own.size[1]).toBeGreaterThan(boards[0]!.position[1] + boards[0]!.size[1] / 2);
    for (const visitor of seats.filter((s) => offBy(s, own.at[0], own.at[2]) > 90)) expect(['p0']).toContain(visitor.id);
  });

  it('lays the lunch table round, a place in front of every diner facing its middle', () => {
    const { seats, setting } = furnished('circle', 'social', 6);
    const [table] = all(setting, 'round-table');
    const places = all(setting, 'place-setting');
    expect(places).toHaveLength(6);
    for (const seat of seats) {
      expect(offBy(seat, table!.at[0], table!.at[2])).toBeLessThan(1);
      const edge = Math.hypot(seat.position[0] - table!.at[0], seat.position[2] - table!.at[2]) - table!.size[0] / 2;
      expect(edge).toBeGreaterThan(0.3);
      expect(edge).toBeLessThan(0.5);
      expect(places.some((p) => Math.hypot(p.at[0] - table!.at[0], p.at[2] - table!.at[2]) < table!.size[0] / 2 - 0.1 && offBy(seat, p.at[0], p.at[2]) < 1)).toBe(true);
    }
  });

  it('stands the retro’s whiteboard outside the circle, turned to its middle, beside a content’s board rather than on it', () => {
    const { seats, setting } = furnished('circle', 'retro', 6);
    const [board] = all(setting, 'whiteboard');
    const middle = { x: seats.reduce((s, p) => s + p.position[0], 0) / 6, z: seats.reduce((s, p) => s + p.position[2], 0) / 6 };
    const ring = Math.max(...seats.map((s) => Math.hypot(s.position[0] - middle.x, s.position[2] - middle.z)));
    expect(Math.hypot(board!.at[0] - middle.x, board!.at[2] - middle.z)).toBeGreaterThan(ring);
    expect(Math.abs(Math.atan2(middle.x - board!.at[0], middle.z - board!.at[2]) - board!.yaw)).toBeLessThan(0.1);
    const withDocument = furnished('circle', 'retro', 6, ['document']);
    const [beside] = all(withDocument.setting, 'whiteboard');
    const document = withDocument.boards[0]!;
    expect(Math.abs(beside!.at[0] - document.position[0])).toBeGreaterThan((beside!.size[0] + document.size[0]) / 2);
  });

  it('hangs the first board of a meeting room on its back wall, and stands a circle’s on a stand', () => {
    for (const formation of ['table', 'panel', 'u-shape'] as const) {
      const { boards, setting } = furnished(formation, null, 5, ['document']);
      expect(boards[0]!.position[2] - setting.bounds.minZ).toBeLessThan(0.1);
      expect(all(setting, 'wall-board')).toHaveLength(1);
    }
    const circle = furnished('circle', null, 5, ['document']);
    expect(all(circle.setting, 'board-stand')).toHaveLength(1);
    expect(circle.boards[0]!.position[2] - circle.setting.bounds.minZ).toBeGreaterThan(0.5);
  });

  it('finishes every formation with walls, windows and lights', () => {
    for (const formation of formations) {
      const { setting } = furnished(formation, null, 4);
      expect(setting.bounds.maxX - setting.bounds.minX).toBeGreaterThanOrEqual(5);
      expect(all(setting, 'door')).toHaveLength(1);
    }
  });
});
