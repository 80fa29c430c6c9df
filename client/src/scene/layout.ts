/**
 * Where everyone sits or stands in the room, per formation, and where the shared content boards and
 * the tables go. Pure: the same scene gives the same room on every client.
 *
 * Conventions (those of the avatars): Y up, metres, the floor at y = 0. An avatar at yaw 0 faces +Z;
 * yaw turns it about Y, so it faces (sin yaw, 0, cos yaw). Every formation keeps its board (the
 * focus) at a fixed place on the -Z side, facing +Z, and grows toward +Z with the number of people.
 *
 * ```ts
 * const seats = seatsFor('panel', scene.participants); // [{ id: 'alex', position: [0, 0, 1.4], yaw: Math.PI, seated: true }, ...]
 * const board = focusFor('panel');                     // { position: [0, 2.05, -2.4], yaw: 0, width: 1.6 }
 * const boards = boardsFor('panel', ['slides', 'document'], seats); // the slides at the focus, the page beside them
 * const tables = tableFor('panel', seats);             // one tabletop per interviewer: a straight desk
 * ```
 */
import type { ContentKind, Formation, ParticipantKind } from '../../../shared/scene/schema';

export type Vec3 = [number, number, number];

export interface Seat {
  id: string;
  /** Where the avatar's root goes: on the floor, between the feet (standing) or under the hips (seated). */
  position: Vec3;
  /** Radians about Y; at 0 the avatar faces +Z. Turned toward the room's focus or centre. */
  yaw: number;
  seated: boolean;
}

/** Where the shared content board hangs: its centre, its facing (as for seats) and its width. */
export interface Focus {
  position: Vec3;
  yaw: number;
  width: number;
}

/** One content's board: its centre, its facing (as for seats), its width and height. */
export interface BoardPlace {
  position: Vec3;
  yaw: number;
  size: [number, number];
}

/** A tabletop, drawn as a box: the centre of its top surface, its size and its turn about Y. */
export interface Table {
  position: Vec3;
  /** Width along the table's own X, depth along its own Z. */
  size: [number, number];
  yaw: number;
}

export interface LayoutOptions {
  /** audience: who stands in the speaker area; poster: who stands beside the board. Default: the first participant. */
  presenters?: readonly string[];
  /** panel: who sits in the single chair facing the panel. Default: the first human, else the first participant. */
  candidate?: string;
}

/** Side by side, shoulder to shoulder with elbow room. */
const spacing = 0.8;
/** From a table's edge back to the seat point (the hips of whoever sits there). */
const clearance = 0.38;
export const tableHeight = 0.74;
/** The audience formation's stage: the presenters stand on it, beside the screen. */
export const stageHeight = 0.2;
/** A chair stays square to its table edge unless that faces further than this from the table's middle. */
const maxChairTurn = (30 * Math.PI) / 180;

const focus: Record<Formation, Focus> = {
  table: { position: [0, 1.4, -2.4], yaw: 0, width: 1.8 },
  // Just behind the circle's gap, close enough to read from across the circle.
  circle: { position: [0, 1.4, -1.5], yaw: 0, width: 1.4 },
  // Above the seated interviewers' heads, as the candidate sees it.
  panel: { position: [0, 2.05, -2.4], yaw: 0, width: 1.6 },
  audience: { position: [0, 1.7, -2.6], yaw: 0, width: 2.6 },
  poster: { position: [0, 1.35, -1.2], yaw: 0, width: 1 },
  'u-shape': { position: [0, 1.5, -2.6], yaw: 0, width: 2 },
};

export const focusFor = (formation: Formation): Focus => focus[formation];

export const wallHeight = 3;

/** Width over height: a 16:9 screen, a portrait poster, an A-format page. */
const aspect: Record<ContentKind, number> = { slides: 16 / 9, poster: 1 / 1.4, document: 1 / Math.SQRT2 };

/**
 * The board's width and height for its content: as wide as the focus allows (a page at most 1 m),
 * and no taller than fits between half a metre above the floor and 35 cm below the ceiling.
 */
export const boardSize = (kind: ContentKind, focus: Focus): [number, number] => {
  const tallest = 2 * Math.min(focus.position[1] - 0.5, wallHeight - 0.35 - focus.position[1]);
  const width = Math.min(focus.width, kind === 'document' ? 1 : Infinity, tallest * aspect[kind]);
  return [width, width / aspect[kind]];
};

type Point = { x: number; z: number };
interface Place extends Point {
  yaw: number;
}

/** The yaw that faces from `from` toward `to`. */
const toward = (from: Point, to: Point): number => Math.atan2(to.x - from.x, to.z - from.z);

/** The same angle in (-π, π]. */
const wrap = (angle: number): number => Math.atan2(Math.sin(angle), Math.cos(angle));

const clamp = (value: number, limit: number): number => Math.max(-limit, Math.min(limit, value));

/** Square to the table edge (yaw `square`), or turned just enough toward `centre` to face within `maxChairTurn` of it. */
const atTable = (seat: Point, square: number, centre: Point): Place => {
  const facing = toward(seat, centre);
  return { ...seat, yaw: facing + clamp(wrap(square - facing), maxChairTurn) };
};

/** `count` offsets `step` apart, centred on 0. */
const spread = (count: number, step: number): number[] => Array.from({ length: count }, (_, i) => (i - (count - 1) / 2) * step);

/** Indices 0..count-1 ordered from the middle outward, so the first in a list gets the middle place. */
const middleOut = (count: number): number[] =>
  Array.from({ length: count }, (_, i) => i).sort((a, b) => Math.abs(a - (count - 1) / 2) - Math.abs(b - (count - 1) / 2) || a - b);

// Rectangular meeting table: its near end toward the board, people down both long sides and, for
// odd counts and large groups, at the far end (the head of the table).

const tablePlan = (n: number) => {
  const heads = n % 2 === 1 ? 1 : n >= 10 ? 2 : 0;
  const perSide = (n - heads) / 2;
  const length = Math.max(1.4, perSide * spacing + 0.4);
  const depth = heads === 2 ? 1.6 : 1.0;
  const near = -1;
  return { heads, perSide, length, depth, centre: { x: 0, z: near + length / 2 } };
};

const tablePlaces = (n: number): Place[] => {
  const { heads, perSide, length, depth, centre } = tablePlan(n);
  const places: Place[] = spread(heads, spacing).map((x) => atTable({ x, z: centre.z + length / 2 + clearance }, Math.PI, centre));
  for (const dz of spread(perSide, spacing)) {
    places.push(atTable({ x: depth / 2 + clearance, z: centre.z + dz }, -Math.PI / 2, centre));
    places.push(atTable({ x: -depth / 2 - clearance, z: centre.z + dz }, Math.PI / 2, centre));
  }
  return places;
};

// Chairs in a circle around an empty middle; the board is outside it, behind the gap between two
// chairs. The first participant (the one rehearsing, in the shipped scenes) sits across the circle
// from the board, so it is in view over the others' shoulders; the rest follow round the circle.

const circlePlaces = (n: number): Place[] => {
  // Neighbours further apart as the group grows (1.3 m for five, 1.58 m for twelve): a bigger
  // circle has room to spare, and chairs a metre apart had knees and elbows touching.
  const neighbours = 1.1 + 0.04 * n;
  const radius = Math.max(1.1, neighbours / (2 * Math.sin(Math.PI / Math.max(n, 2))));
  const centre = { x: 0, z: radius - 0.4 };
  const across = Math.floor(n / 2);
  return Array.from({ length: n }, (_, i) => {
    const angle = Math.PI + (((i + across) % n) + 0.5) * ((2 * Math.PI) / n);
    const seat = { x: centre.x + radius * Math.sin(angle), z: centre.z + radius * Math.cos(angle) };
    return { ...seat, yaw: toward(seat, centre) };
  });
};

// Panel: the interviewers side by side behind one straight desk, each turned toward the single
// chair in front of it. The chair moves back as the panel grows, so the row stays within 40° either
// side of the candidate's straight ahead (a straight desk on an arc of tops looked bent).

/** Interviewers a little further apart than at a meeting table: each has their papers in front of them. */
const deskSpacing = 0.85;

const panelPlan = (interviewers: number) => {
  const row = -0.96;
  const half = ((Math.max(interviewers, 1) - 1) * deskSpacing) / 2 + 0.3;
  const distance = Math.max(2.4, half / Math.tan((40 * Math.PI) / 180));
  return { row, chair: { x: 0, z: row + distance }, xs: spread(interviewers, deskSpacing) };
};

const panelPlaces = (interviewers: number): { front: Place[]; rest: Place[] } => {
  const { row, chair, xs } = panelPlan(interviewers);
  const panel = middleOut(interviewers).map((i) => {
    const seat = { x: xs[i]!, z: row };
    return { ...seat, yaw: toward(seat, chair) };
  });
  return { front: [{ ...chair, yaw: Math.PI }], rest: panel };
};

// Rows on arcs around a point: the audience around the screen, visitors around a poster. Front rows
// fill first; each row is centred and spans at most `halfSpan` either side of straight ahead.

const arcRows = (count: number, around: Point, rows: { first: number; gap: number; halfSpan: number; step: number }): Place[] => {
  const places: Place[] = [];
  for (let row = 0; places.length < count; row++) {
    const radius = rows.first + row * rows.gap;
    const capacity = Math.floor((2 * rows.halfSpan * radius) / rows.step) + 1;
    const here = Math.min(capacity, count - places.length);
    for (const angle of spread(here, rows.step / radius)) {
      const seat = { x: around.x + radius * Math.sin(angle), z: around.z + radius * Math.cos(angle) };
      places.push({ ...seat, yaw: toward(seat, around) });
    }
  }
  return places;
};

const centroid = (points: readonly Point[]): Point => ({
  x: points.reduce((sum, p) => sum + p.x, 0) / Math.max(points.length, 1),
  z: points.reduce((sum, p) => sum + p.z, 0) / Math.max(points.length, 1),
});

/** Presenters stand at `spots`, facing the middle of the crowd. */
const facingCrowd = (spots: Point[], crowd: Place[]): Place[] => {
  const middle = centroid(crowd);
  return spots.map((spot) => ({ ...spot, yaw: toward(spot, middle) }));
};

const audiencePlaces = (presenters: number, listeners: number) => {
  const screen = { x: 0, z: focus.audience.position[2] };
  const audience = arcRows(listeners, screen, { first: 3.6, gap: 1.1, halfSpan: (40 * Math.PI) / 180, step: 0.85 });
  // The speaker area is beside the screen (on the audience's left), so nobody stands in front of it.
  const spots = Array.from({ length: presenters }, (_, i) => ({ x: -1.6 - i * spacing, z: -1.4 }));
  return { front: facingCrowd(spots, audience), rest: audience };
};

const posterPlaces = (presenters: number, visitors: number) => {
  const board = { x: 0, z: focus.poster.position[2] };
  const crowd = arcRows(visitors, board, { first: 1.8, gap: 0.8, halfSpan: (50 * Math.PI) / 180, step: 0.8 });
  // Presenters flank the board, alternating sides, so the poster stays in view.
  const beside = focus.poster.width / 2 + 0.65;
  const spots = Array.from({ length: presenters }, (_, i) => ({
    x: (i % 2 === 0 ? -1 : 1) * (beside + Math.floor(i / 2) * spacing),
    z: board.z + 0.3,
  }));
  return { front: facingCrowd(spots, crowd), rest: crowd };
};

// U-shaped table open toward the screen: two arms reaching toward it and a base across the far end,
// people on the outside of the U.

const uPlan = (n: number) => {
  const perArm = Math.round(n / 3);
  const base = n - 2 * perArm;
  const inner = Math.max(1.8, base * spacing + 0.2);
  const depth = 0.7;
  const open = -1;
  const arm = Math.max(1.6, perArm * spacing + 0.4);
  return { perArm, base, inner, depth, open, arm, centre: { x: 0, z: open + arm / 2 } };
};

const uPlaces = (n: number): Place[] => {
  const { perArm, base, inner, depth, open, arm, centre } = uPlan(n);
  // The base fills from its middle out: the first participant faces the screen down the U with
  // neighbours on both sides, rather than at one end of a row that all sits to one side of them.
  const across = spread(base, spacing);
  const places: Place[] = middleOut(base).map((i) => atTable({ x: across[i]!, z: open + arm + depth + clearance }, Math.PI, centre));
  const side = inner / 2 + depth + clearance;
  for (const dz of spread(perArm, spacing)) {
    places.push(atTable({ x: side, z: centre.z + dz }, -Math.PI / 2, centre));
    places.push(atTable({ x: -side, z: centre.z + dz }, Math.PI / 2, centre));
  }
  return places;
};

const seat = (id: string, place: Place, seated: boolean): Seat => ({ id, position: [place.x, 0, place.z], yaw: wrap(place.yaw), seated });

/**
 * A place for every participant, in the participants' order. Seated formations (table, circle,
 * panel, u-shape) seat everyone; `poster` stands everyone; `audience` stands the presenters on
 * the stage (`stageHeight` up) and seats the rest in rows.
 */
export const seatsFor = (
  formation: Formation,
  participants: readonly { id: string; kind: ParticipantKind }[],
  options: LayoutOptions = {},
): Seat[] => {
  const n = participants.length;
  const everyone = (places: Place[], seated: boolean) => participants.map((p, i) => seat(p.id, places[i]!, seated));
  /** The participants named in `frontIds` (in order) at the front places, the others (in order) at the rest. */
  const frontAndRest = (
    frontIds: readonly string[],
    layout: (front: number, rest: number) => { front: Place[]; rest: Place[] },
    seated: { front: boolean; rest: boolean },
  ) => {
    const front = participants.filter((p) => frontIds.includes(p.id));
    const rest = participants.filter((p) => !frontIds.includes(p.id));
    const places = layout(front.length, rest.length);
    const byId = new Map<string, Seat>();
    front.forEach((p, i) => byId.set(p.id, seat(p.id, places.front[i]!, seated.front)));
    rest.forEach((p, i) => byId.set(p.id, seat(p.id, places.rest[i]!, seated.rest)));
    return participants.map((p) => byId.get(p.id)!);
  };
  const presenters = options.presenters ?? participants.slice(0, 1).map((p) => p.id);
  switch (formation) {
    case 'table':
      return everyone(tablePlaces(n), true);
    case 'circle':
      return everyone(circlePlaces(n), true);
    case 'u-shape':
      return everyone(uPlaces(n), true);
    case 'panel': {
      const candidate = options.candidate ?? (participants.find((p) => p.kind === 'human') ?? participants[0])?.id;
      return frontAndRest(candidate === undefined ? [] : [candidate], (_, rest) => panelPlaces(rest), { front: true, rest: true });
    }
    case 'audience':
      return frontAndRest(presenters, audiencePlaces, { front: false, rest: true }).map((s) =>
        s.seated ? s : { ...s, position: [s.position[0], stageHeight, s.position[2]] },
      );
    case 'poster':
      return frontAndRest(presenters, posterPlaces, { front: false, rest: false });
  }
};

/** Between two boards side by side. */
const boardGap = 0.3;

/**
 * A board per content, in the contents' order: the first at the formation's focus, the others along
 * the same wall, alternately to its right and left (as the room faces it), past anyone standing by
 * the wall (a poster's presenters, the speaker area), each turned toward the middle of the seats so
 * that it reads from where people are.
 */
export const boardsFor = (formation: Formation, kinds: readonly ContentKind[], seats: readonly Seat[]): BoardPlace[] => {
  const first = focus[formation];
  const [x, y, z] = first.position;
  const middle = centroid(seats.map((s) => ({ x: s.position[0], z: s.position[2] })));
  // How far from the focus's centre each side is taken, toward +X (1) and -X (-1).
  const reach = new Map<number, number>();
  for (const side of [1, -1]) {
    const standing = seats.filter((s) => !s.seated && Math.abs(s.position[2] - z) < 1.5).map((s) => side * (s.position[0] - x) + 0.45);
    reach.set(side, Math.max(first.width / 2, ...standing));
  }
  return kinds.map((kind, i) => {
    const size = boardSize(kind, first);
    if (i === 0) return { position: first.position, yaw: first.yaw, size };
    const side = i % 2 === 1 ? 1 : -1;
    const from = reach.get(side)! + boardGap;
    reach.set(side, from + size[0]);
    const at = { x: x + side * (from + size[0] / 2), z };
    return { position: [at.x, y, at.z], yaw: wrap(toward(at, middle)), size };
  });
};

/**
 * Where a ray from `origin` along `direction` meets a board's face: `across` its width from 0 (the
 * left edge as you face the board) to 1, at `distance` along the ray (in lengths of `direction`).
 * Null when it misses, or comes from behind the board.
 */
export const boardHit = (board: BoardPlace, origin: Vec3, direction: Vec3): { across: number; distance: number } | null => {
  const [nx, nz] = [Math.sin(board.yaw), Math.cos(board.yaw)];
  const facing = direction[0] * nx + direction[2] * nz;
  if (facing >= -1e-9) return null;
  const [bx, , bz] = board.position;
  const distance = ((bx - origin[0]) * nx + (bz - origin[2]) * nz) / facing;
  if (distance <= 0) return null;
  const [dx, dy, dz] = [0, 1, 2].map((k) => origin[k]! + distance * direction[k]! - board.position[k]!) as Vec3;
  // The board's own X runs along (cos yaw, 0, -sin yaw): to the right of someone facing it.
  const along = dx * nz - dz * nx;
  const [width, height] = board.size;
  if (Math.abs(along) > width / 2 || Math.abs(dy) > height / 2) return null;
  return { across: along / width + 0.5, distance };
};

/**
 * The tabletops of a formation with `seats.length` people (the layout depends only on the count):
 * one long table, a straight desk of one top per interviewer, three tops for the U, none otherwise.
 */
export const tableFor = (formation: Formation, seats: readonly Seat[]): Table[] => {
  const n = seats.length;
  switch (formation) {
    case 'table': {
      const { length, depth, centre } = tablePlan(n);
      return [{ position: [centre.x, tableHeight, centre.z], size: [depth, length], yaw: 0 }];
    }
    case 'panel': {
      // One top per interviewer, side by side: together one straight desk.
      const { row, xs } = panelPlan(n - 1);
      const depth = 0.7;
      return xs.map((x) => ({ position: [x, tableHeight, row + clearance + depth / 2], size: [deskSpacing, depth], yaw: 0 }));
    }
    case 'u-shape': {
      const { inner, depth, open, arm } = uPlan(n);
      const armX = inner / 2 + depth / 2;
      return [
        { position: [-armX, tableHeight, open + arm / 2], size: [depth, arm], yaw: 0 },
        { position: [armX, tableHeight, open + arm / 2], size: [depth, arm], yaw: 0 },
        { position: [0, tableHeight, open + arm + depth / 2], size: [inner + 2 * depth, depth], yaw: 0 },
      ];
    }
    case 'circle':
    case 'audience':
    case 'poster':
      return [];
  }
};
