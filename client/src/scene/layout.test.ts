import { describe, expect, it } from 'vitest';
import { formations, type Formation } from '../../../shared/scene/schema';
import { boardHit, boardsFor, focusFor, seatsFor, stageHeight, tableFor, type Seat, type Vec3 } from './layout';

const people = (n: number, humans = 1) =>
  Array.from({ length: n }, (_, i) => ({ id: `p${i}`, kind: i < humans ? ('human' as const) : ('ai' as const) }));

const counts = Array.from({ length: 11 }, (_, i) => i + 2);

type Point = { x: number; z: number };
const at = (seat: Seat): Point => ({ x: seat.position[0], z: seat.position[2] });
const middle = (seats: readonly (Seat | Point)[]): Point => {
  const points = seats.map((s) => ('position' in s ? at(s) : s));
  return { x: points.reduce((sum, p) => sum + p.x, 0) / points.length, z: points.reduce((sum, p) => sum + p.z, 0) / points.length };
};

/** Degrees between where the seat faces and the direction to `target`. */
const offBy = (seat: Seat, target: Point): number => {
  const toward = Math.atan2(target.x - seat.position[0], target.z - seat.position[2]);
  return (Math.abs(Math.atan2(Math.sin(toward - seat.yaw), Math.cos(toward - seat.yaw))) * 180) / Math.PI;
};

const closest = (seats: readonly Seat[]): number => {
  let best = Infinity;
  for (const [i, a] of seats.entries())
    for (const b of seats.slice(i + 1)) best = Math.min(best, Math.hypot(a.position[0] - b.position[0], a.position[2] - b.position[2]));
  return best;
};

/** What each formation's people should face: the spec, per seat. */
const targetsOf = (formation: Formation, seats: Seat[], seat: Seat): Point[] => {
  const board = { x: focusFor(formation).position[0], z: focusFor(formation).position[2] };
  const tables = tableFor(formation, seats).map((t) => ({ x: t.position[0], z: t.position[2] }));
  const front = seats.filter((s) => s !== seat && s.seated !== seat.seated);
  switch (formation) {
    case 'table':
      return [tables[0]!];
    case 'circle':
      return [middle(seats)];
    case 'panel': // interviewers face the candidate (the first human); the candidate faces the panel
      return seat.id === 'p0' ? [middle(seats.slice(1))] : [at(seats[0]!)];
    case 'audience':
    case 'poster': // presenters face the crowd, the crowd faces the board
      return seat.id === 'p0' ? [middle(seats.slice(1))] : [board, ...front.map(at)];
    case 'u-shape': // the screen, or the middle between the arms
      return [board, middle(tables.slice(0, 2))];
  }
};

describe.each(formations)('%s', (formation) => {
  it.each(counts)('places %i people at least 0.7 m apart, each facing the focus or the centre', (n) => {
    const seats = seatsFor(formation, people(n));
    expect(seats.map((s) => s.id)).toEqual(people(n).map((p) => p.id));
    expect(closest(seats)).toBeGreaterThanOrEqual(0.7);
    for (const seat of seats) {
      // On the floor, but for the presenters of an audience, who stand on its stage.
      expect(seat.position[1]).toBe(formation === 'audience' && !seat.seated ? stageHeight : 0);
      expect(Math.min(...targetsOf(formation, seats, seat).map((t) => offBy(seat, t)))).toBeLessThan(35);
    }
  });

  it.each(counts)('keeps %i people clear of the board and the tables', (n) => {
    const seats = seatsFor(formation, people(n));
    const board = focusFor(formation);
    for (const seat of seats) {
      expect(Math.hypot(seat.position[0] - board.position[0], seat.position[2] - board.position[2])).toBeGreaterThan(board.width / 2);
      for (const table of tableFor(formation, seats)) {
        // In the table's own frame, the seat point (the hips) is outside the top.
        const dx = seat.position[0] - table.position[0];
        const dz = seat.position[2] - table.position[2];
        const along = dx * Math.cos(table.yaw) - dz * Math.sin(table.yaw);
        const across = dx * Math.sin(table.yaw) + dz * Math.cos(table.yaw);
        expect(Math.abs(along) > table.size[0] / 2 + 0.2 || Math.abs(across) > table.size[1] / 2 + 0.2).toBe(true);
      }
    }
  });
});

describe('who sits and who stands', () => {
  it.each(['table', 'circle', 'panel', 'u-shape'] as const)('seats everyone at a %s', (formation) => {
    for (const n of counts) expect(seatsFor(formation, people(n)).every((s) => s.seated)).toBe(true);
  });

  it('stands everyone at a poster', () => {
    for (const n of counts) expect(seatsFor('poster', people(n)).some((s) => s.seated)).toBe(false);
  });

  it('stands the first participant in front of a seated audience', () => {
    const seats = seatsFor('audience', people(8, 0));
    expect(seats[0]!.seated).toBe(false);
    expect(seats.slice(1).every((s) => s.seated)).toBe(true);
  });

  it('stands the named presenters, beside the screen or the poster', () => {
    for (const formation of ['audience', 'poster'] as const) {
      const seats = seatsFor(formation, people(9), { presenters: ['p3', 'p5'] });
      const board = focusFor(formation);
      const [p3, p5] = [seats[3]!, seats[5]!];
      expect(p3.seated || p5.seated).toBe(false);
      for (const presenter of [p3, p5]) expect(Math.abs(presenter.position[0] - board.position[0])).toBeGreaterThan(board.width / 2);
      expect(closest(seats)).toBeGreaterThanOrEqual(0.7);
    }
  });

  it('puts the first human in the chair facing the panel, or the named candidate', () => {
    const seats = seatsFor('panel', [
      { id: 'hannah', kind: 'ai' },
      { id: 'alex', kind: 'human' },
      { id: 'raj', kind: 'ai' },
    ]);
    const chair = seats.find((s) => s.id === 'alex')!;
    expect(Math.abs(Math.abs(chair.yaw) - Math.PI)).toBeLessThan(1e-9);
    expect(seats.filter((s) => s.id !== 'alex').every((s) => s.position[2] < chair.position[2] - 2)).toBe(true);
    const named = seatsFor('panel', people(4), { candidate: 'p2' });
    expect(named[2]!.position[0]).toBe(0);
    expect(Math.max(...named.map((s) => s.position[2]))).toBe(named[2]!.position[2]);
  });
});

describe('tables', () => {
  it('gives the table and u-shape formations a table of the right height, the panel a desk per interviewer', () => {
    const count = (formation: Formation, n: number) => tableFor(formation, seatsFor(formation, people(n))).length;
    expect(count('table', 6)).toBe(1);
    expect(count('u-shape', 6)).toBe(3);
    expect(count('panel', 4)).toBe(3);
    expect(count('circle', 6) + count('audience', 6) + count('poster', 6)).toBe(0);
    for (const table of tableFor('table', seatsFor('table', people(6)))) expect(table.position[1]).toBeCloseTo(0.74);
  });

  it('seats everyone at the table within reach of it', () => {
    for (const n of counts) {
      const seats = seatsFor('table', people(n));
      const [table] = tableFor('table', seats);
      for (const seat of seats) {
        const outside = Math.max(
          Math.abs(seat.position[0] - table!.position[0]) - table!.size[0] / 2,
          Math.abs(seat.position[2] - table!.position[2]) - table!.size[1] / 2,
        );
        expect(outside).toBeGreaterThan(0.2);
        expect(outside).toBeLessThan(0.6);
      }
    }
  });
});

describe('circles', () => {
  it('seats the first participant across the circle from the board, facing it', () => {
    // (Two or three chairs leave nobody straight across.)
    for (const n of counts.filter((n) => n >= 4)) {
      const seats = seatsFor('circle', people(n));
      const board = focusFor('circle');
      const distance = (s: Seat) => Math.hypot(s.position[0] - board.position[0], s.position[2] - board.position[2]);
      expect(Math.max(...seats.map(distance)) - distance(seats[0]!)).toBeLessThan(0.05);
      expect(offBy(seats[0]!, { x: board.position[0], z: board.position[2] })).toBeLessThan(35);
    }
  });

  it('spaces neighbours further apart as the circle grows, never closer than 1.2 m', () => {
    const neighbours = counts.map((n) => {
      const seats = seatsFor('circle', people(n));
      return closest(seats);
    });
    for (const [i, gap] of neighbours.entries()) {
      expect(gap).toBeGreaterThanOrEqual(1.2);
      if (i > 0 && counts[i]! > 6) expect(gap).toBeGreaterThan(neighbours[i - 1]!);
    }
  });
});

describe('boards', () => {
  const kinds = ['slides', 'poster', 'document', 'slides', 'document'] as const;

  it.each(formations)('hangs one board per content at a %s: the first at the focus, the others beside it, none overlapping, clear of everyone', (formation) => {
    for (const n of [2, 6, 12]) {
      const seats = seatsFor(formation, people(n), { presenters: ['p0', 'p1'] });
      const boards = boardsFor(formation, kinds, seats);
      expect(boards).toHaveLength(kinds.length);
      expect(boards[0]!.position).toEqual(focusFor(formation).position);
      // Along the wall, edge to edge, with the gap between them.
      const spans = boards
        .map((b) => [b.position[0] - (b.size[0] / 2) * Math.abs(Math.cos(b.yaw)), b.position[0] + (b.size[0] / 2) * Math.abs(Math.cos(b.yaw))] as const)
        .sort((a, b) => a[0] - b[0]);
      for (const [i, span] of spans.entries()) if (i > 0) expect(span[0]).toBeGreaterThan(spans[i - 1]![1]);
      for (const board of boards) {
        for (const seat of seats) {
          // Nobody stands or sits within half a metre of a board's face.
          const along = (seat.position[0] - board.position[0]) * Math.cos(board.yaw) - (seat.position[2] - board.position[2]) * Math.sin(board.yaw);
          const across = Math.hypot(seat.position[0] - board.position[0], seat.position[2] - board.position[2]);
          expect(Math.abs(along) > board.size[0] / 2 + 0.3 || across > 0.8).toBe(true);
        }
      }
    }
  });

  it('turns the boards beside the first toward the people', () => {
    const seats = seatsFor('table', people(6));
    const [, right, left] = boardsFor('table', ['slides', 'document', 'document'], seats);
    expect(right!.yaw).toBeLessThan(0);
    expect(left!.yaw).toBeGreaterThan(0);
    for (const board of [right!, left!]) expect(offBy({ id: 'board', position: board.position, yaw: board.yaw, seated: false }, middle(seats))).toBeLessThan(1);
  });

  it('sizes slides 16:9, posters portrait and documents as a page, within the walls', () => {
    const [slides, poster, page] = boardsFor('table', ['slides', 'poster', 'document'], seatsFor('table', people(4)));
    expect(slides!.size[0] / slides!.size[1]).toBeCloseTo(16 / 9);
    expect(poster!.size[1] / poster!.size[0]).toBeCloseTo(1.4);
    expect(page!.size[1] / page!.size[0]).toBeCloseTo(Math.SQRT2, 2);
  });

  it('finds where a ray meets a board, from the left edge as you face it (0) to the right (1)', () => {
    const board = { position: [0, 1.5, -2] as Vec3, yaw: 0, size: [2, 1] as [number, number] };
    expect(boardHit(board, [0, 1.5, 1], [0, 0, -1])).toEqual({ across: 0.5, distance: 3 });
    expect(boardHit(board, [-0.5, 1.5, 1], [0, 0, -1])!.across).toBeCloseTo(0.25);
    const turned = { ...board, yaw: Math.PI / 2 };
    // Facing +X: as you face it, its right edge is toward -Z.
    expect(boardHit(turned, [2, 1.5, -2.5], [-1, 0, 0])!.across).toBeCloseTo(0.75);
    expect(boardHit(board, [0, 1.5, -3], [0, 0, 1]), 'from behind').toBeNull();
    expect(boardHit(board, [0, 3, 1], [0, 0, -1]), 'above it').toBeNull();
    expect(boardHit(board, [0, 1.5, 1], [0, 0, 1]), 'looking away').toBeNull();
  });
});
