/**
 * What furnishes the room of a scene: its setting, per formation and, for a circle, per the
 * meeting's form (a lunch, a retro, an investigation…). Pure: the seats and the content boards in,
 * the pieces out, each a box in the room (its footprint's centre, size and turn), and the walls
 * drawn around the group at the size it needs. furniture.ts gives each piece its shape.
 *
 * ```ts
 * const seats = seatsFor('panel', participants);
 * const setting = settingFor({ formation: 'panel', form: 'interview', seats, boards: [] });
 * setting.name;                                            // 'interview room'
 * setting.items.find((item) => item.kind === 'desk');     // the panel's desk, facing the candidate's chair
 * setting.bounds;                                          // { minX: -2.5, maxX: 2.5, minZ: -2.46, maxZ: 2.74 }
 * ```
 */
import type { Formation, StructureForm } from '../../../../shared/scene/schema';
import { focusFor, stageHeight, tableFor, tableHeight, wallHeight, type BoardPlace, type Seat, type Vec3 } from '../layout';

export type ItemKind =
  | 'chair'
  | 'table'
  | 'desk'
  | 'round-table'
  | 'place-setting'
  | 'coffee-table'
  | 'stage'
  | 'lectern'
  | 'screen'
  | 'wall-board'
  | 'board-stand'
  | 'poster-board'
  | 'whiteboard'
  | 'sideboard'
  | 'plant'
  | 'rug'
  | 'window'
  | 'door'
  | 'ceiling-light';

export interface Item {
  kind: ItemKind;
  /** The middle of its footprint, at the height it stands on (a wall piece, a board on a stand: the middle of its lower edge). */
  at: Vec3;
  /** Width along its own X, height, depth along its own Z. */
  size: Vec3;
  /** Radians about Y; at 0 its front faces +Z (a seat's convention, layout.ts). */
  yaw: number;
  /** A chair: whose it is. */
  seat?: string;
  /** A board that shows none of the scene's contents: a neighbouring poster, a blank screen. */
  blank?: boolean;
}

export type SettingName =
  | 'meeting room'
  | 'interview room'
  | 'lecture hall'
  | 'poster hall'
  | 'critique room'
  | 'lunch table'
  | 'retro'
  | 'stand-up'
  | 'drawing room'
  | 'discussion circle';

/** The room's walls: x and z from wall to wall. */
export interface Bounds {
  minX: number;
  maxX: number;
  minZ: number;
  maxZ: number;
}

/** The room's surfaces: an office, a restaurant's warm wood, a drawing room's dark panelling. */
export type Finish = 'office' | 'warm' | 'parlour' | 'hall';

export interface Setting {
  name: SettingName;
  finish: Finish;
  items: Item[];
  bounds: Bounds;
}

/** Pieces people cannot stand in: everything but what lies on the floor, hangs on a wall or sits on a table. */
export const solid = (item: Item): boolean => !['rug', 'stage', 'window', 'door', 'ceiling-light', 'place-setting', 'screen', 'wall-board'].includes(item.kind);

/** Kept clear around each seat: a person's body and elbows (hips or feet at the seat point). */
export const bodyRadius = 0.3;
/** Room behind a seat: the desktop view moves up to 1.2 m back to show everyone (framing.ts). */
const behindSeat = 1.3;
/** Room beside and in front of a seat, to the walls. */
const aroundSeat = 1.1;
const smallest = 5;

/** The setting a formation becomes for a meeting of this form. */
export const settingName = (formation: Formation, form: StructureForm | null | undefined): SettingName => {
  switch (formation) {
    case 'table':
      return 'meeting room';
    case 'panel':
      return 'interview room';
    case 'audience':
      return 'lecture hall';
    case 'poster':
      return 'poster hall';
    case 'u-shape':
      return 'critique room';
    case 'circle':
      return form === 'social' ? 'lunch table' : form === 'retro' ? 'retro' : form === 'standup' ? 'stand-up' : form === 'investigation' ? 'drawing room' : 'discussion circle';
  }
};

const finishOf: Record<SettingName, Finish> = {
  'meeting room': 'office',
  'interview room': 'office',
  'lecture hall': 'hall',
  'poster hall': 'hall',
  'critique room': 'office',
  'lunch table': 'warm',
  retro: 'office',
  'stand-up': 'office',
  'drawing room': 'parlour',
  'discussion circle': 'warm',
};

/** The formations whose first board hangs on the wall behind it (the others stand free). */
const onTheWall: readonly Formation[] = ['table', 'panel', 'audience', 'u-shape'];

/** The four corners of an item's footprint in the room, grown by `margin`. */
export const corners = (item: Item, margin = 0): { x: number; z: number }[] => {
  const [w, , d] = item.size;
  const [c, s] = [Math.cos(item.yaw), Math.sin(item.yaw)];
  return [
    [-1, -1],
    [1, -1],
    [1, 1],
    [-1, 1],
  ].map(([sx, sz]) => {
    const [x, z] = [(sx! * (w + 2 * margin)) / 2, (sz! * (d + 2 * margin)) / 2];
    // The item's own X runs along (cos yaw, -sin yaw), its Z along (sin yaw, cos yaw).
    return { x: item.at[0] + x * c + z * s, z: item.at[2] - x * s + z * c };
  });
};

/** Pieces with a round footprint, as wide as their `size[0]`. */
const round: readonly ItemKind[] = ['round-table', 'coffee-table', 'plant'];

/** How far a point lies outside an item's footprint (0 inside). */
export const distanceTo = (item: Item, x: number, z: number): number => {
  const [dx, dz] = [x - item.at[0], z - item.at[2]];
  if (round.includes(item.kind)) return Math.max(0, Math.hypot(dx, dz) - item.size[0] / 2);
  const [c, s] = [Math.cos(item.yaw), Math.sin(item.yaw)];
  const along = dx * c - dz * s;
  const across = dx * s + dz * c;
  return Math.hypot(Math.max(0, Math.abs(along) - item.size[0] / 2), Math.max(0, Math.abs(across) - item.size[2] / 2));
};

const centreOf = (seats: readonly Seat[]) => ({
  x: seats.reduce((sum, s) => sum + s.position[0], 0) / Math.max(seats.length, 1),
  z: seats.reduce((sum, s) => sum + s.position[2], 0) / Math.max(seats.length, 1),
});

/** A piece facing `yaw`, standing at (x, y, z). */
const item = (kind: ItemKind, [x, y, z]: Vec3, size: Vec3, yaw = 0, extra: Partial<Item> = {}): Item => ({ kind, at: [x, y, z], size, yaw, ...extra });

/** The content boards as pieces: on the wall, on a stand, or on a poster board. */
const boardPieces = (formation: Formation, boards: readonly BoardPlace[], kinds: readonly (string | undefined)[]): Item[] =>
  boards.map((board, i) => {
    const [x, y, z] = board.position;
    const [w, h] = board.size;
    if (i === 0 && onTheWall.includes(formation)) return item(kinds[i] === 'slides' ? 'screen' : 'wall-board', [x, y - h / 2, z - 0.02], [w + 0.06, h, 0.04], board.yaw);
    if (formation === 'poster') return item('poster-board', [x, 0, z - 0.04], [w + 0.2, y + h / 2 + 0.15, 0.5], board.yaw);
    // A stand's height is its face's (at its lower edge); its legs reach the floor.
    return item('board-stand', [x, y - h / 2, z - 0.04], [w + 0.06, h, 0.5], board.yaw);
  });

/** The formation's own furniture: tables, desk, stage and lectern, the lunch table, the whiteboard. */
const centrepieces = (name: SettingName, formation: Formation, seats: readonly Seat[], boards: readonly BoardPlace[]): Item[] => {
  const tables = tableFor(formation, seats);
  switch (name) {
    case 'meeting room':
    case 'critique room':
      return tables.map((t) => item('table', [t.position[0], 0, t.position[2]], [t.size[0], tableHeight, t.size[1]], t.yaw));
    case 'interview room': {
      // The interviewers' tops side by side, as one desk with a modesty panel toward the chair.
      const xs = tables.flatMap((t) => [t.position[0] - t.size[0] / 2, t.position[0] + t.size[0] / 2]);
      const [lo, hi] = [Math.min(...xs), Math.max(...xs)];
      const desk = tables[0] ? [item('desk', [(lo + hi) / 2, 0, tables[0].position[2]], [hi - lo, tableHeight, tables[0].size[1]], 0)] : [];
      const focus = focusFor('panel');
      // A sideboard against the back wall, under the board.
      return [...desk, item('sideboard', [0, 0, focus.position[2] - 0.06 + 0.25], [Math.max(1.6, hi - lo), 0.8, 0.44], 0)];
    }
    case 'lecture hall': {
      const presenters = seats.filter((s) => !s.seated);
      const focus = focusFor('audience');
      const screen = boards[0] ?? { position: focus.position, size: [focus.width, 0] };
      const xs = [...presenters.map((s) => s.position[0]), screen.position[0] - screen.size[0] / 2, screen.position[0] + screen.size[0] / 2];
      const front = Math.max(focus.position[2] + 1, ...presenters.map((s) => s.position[2] + 0.7));
      const back = focus.position[2] - 0.06;
      const [lo, hi] = [Math.min(...xs) - 0.8, Math.max(...xs) + 0.5];
      const stage = item('stage', [(lo + hi) / 2, 0, (front + back) / 2], [hi - lo, stageHeight, front - back], 0);
      const audience = centreOf(seats.filter((s) => s.seated));
      const lecturer = presenters[0];
      // The lectern stands before the first presenter, between them and the audience.
      const lectern = lecturer
        ? (() => {
            const yaw = Math.atan2(audience.x - lecturer.position[0], audience.z - lecturer.position[2]);
            const at: Vec3 = [lecturer.position[0] + 0.55 * Math.sin(yaw), stageHeight, lecturer.position[2] + 0.55 * Math.cos(yaw)];
            return [item('lectern', at, [0.56, 1.08, 0.42], yaw)];
          })()
        : [];
      // Without slides to show, the screen hangs there blank.
      const blank = boards.length === 0 ? [item('screen', [focus.position[0], focus.position[1] - 0.73, focus.position[2] - 0.02], [focus.width, 1.46, 0.04], 0, { blank: true })] : [];
      return [stage, ...lectern, ...blank];
    }
    case 'poster hall': {
      // The neighbouring posters of the session, along the same wall, turned a little toward the room.
      const focus = focusFor('poster');
      const reach = Math.max(1.6, ...seats.filter((s) => Math.abs(s.position[2] - focus.position[2]) < 1.2).map((s) => Math.abs(s.position[0]) + 0.9));
      const taken = boards.slice(1).map((b) => Math.abs(b.position[0]) + b.size[0] / 2);
      const x = Math.max(reach, ...taken) + 0.9;
      return [-1, 1].map((side) => item('poster-board', [side * x, 0, focus.position[2] - 0.4], [1.2, 2.1, 0.5], -side * 0.35, { blank: true }));
    }
    case 'lunch table':
    case 'drawing room': {
      const centre = centreOf(seats);
      const ring = Math.min(...seats.map((s) => Math.hypot(s.position[0] - centre.x, s.position[2] - centre.z)));
      if (name === 'drawing room') {
        const r = Math.min(0.5, ring - 0.75);
        return [item('rug', [centre.x, 0, centre.z], [2 * ring + 0.6, 0.01, 2 * ring + 0.6], 0), item('coffee-table', [centre.x, 0, centre.z], [2 * r, 0.45, 2 * r], 0)];
      }
      // Round, its edge where a seated diner's hands rest: 38 cm in front of the hips, as at any table.
      const r = ring - 0.4;
      const settings = seats.map((s) => {
        const yaw = Math.atan2(centre.x - s.position[0], centre.z - s.position[2]);
        const at: Vec3 = [s.position[0] + 0.62 * Math.sin(yaw), tableHeight, s.position[2] + 0.62 * Math.cos(yaw)];
        return item('place-setting', at, [0.4, 0.12, 0.3], yaw);
      });
      return [item('round-table', [centre.x, 0, centre.z], [2 * r, tableHeight, 2 * r], 0), ...settings];
    }
    case 'retro':
    case 'stand-up': {
      // The team's board of sticky notes, where a board would be (beside the first content, if any).
      const focus = focusFor('circle');
      const x = boards.length ? focus.position[0] + focus.width / 2 + 1.1 : focus.position[0];
      return [item('whiteboard', [x, 0, focus.position[2] - 0.05], [1.7, 1.95, 0.55], 0)];
    }
    case 'discussion circle': {
      const centre = centreOf(seats);
      const ring = Math.min(...seats.map((s) => Math.hypot(s.position[0] - centre.x, s.position[2] - centre.z)));
      return [item('rug', [centre.x, 0, centre.z], [2 * ring, 0.01, 2 * ring], 0)];
    }
  }
};

/** Walls around every seat (room behind it for the desktop view), every piece and every board; at least 5 m each way. */
const boundsOf = (formation: Formation, seats: readonly Seat[], items: readonly Item[], boards: readonly BoardPlace[]): Bounds => {
  const xs: number[] = [];
  const zs: number[] = [];
  for (const s of seats) {
    const [x, , z] = s.position;
    xs.push(x - aroundSeat, x + aroundSeat, x - behindSeat * Math.sin(s.yaw));
    zs.push(z - aroundSeat, z + aroundSeat, z - behindSeat * Math.cos(s.yaw));
  }
  for (const piece of items.filter(solid)) for (const c of corners(piece, 0.4)) xs.push(c.x), zs.push(c.z);
  for (const board of boards) for (const side of [-1, 1]) xs.push(board.position[0] + (side * board.size[0] * Math.cos(board.yaw)) / 2 + side * 0.4);
  const focus = focusFor(formation);
  // The first board hangs on the back wall; a standing one has room to walk behind it.
  const back = onTheWall.includes(formation) ? focus.position[2] - 0.06 : Math.min(...zs, focus.position[2] - 0.8);
  let [minX, maxX, minZ, maxZ] = [Math.min(...xs), Math.max(...xs), back, Math.max(...zs)];
  if (!onTheWall.includes(formation)) minZ = Math.min(minZ, ...zs);
  // A poster hall goes on past the crowd at this poster: visitors stand, and walk on to the next.
  if (formation === 'poster') maxZ += 1.5;
  const [growX, growZ] = [Math.max(0, smallest - (maxX - minX)) / 2, Math.max(0, smallest - (maxZ - minZ))];
  [minX, maxX] = [minX - growX, maxX + growX];
  maxZ += growZ;
  return { minX, maxX, minZ, maxZ };
};

/** Windows on the right-hand wall, a door on the left near the front, plants in the back corners, lights in the ceiling. */
const shellPieces = ({ minX, maxX, minZ, maxZ }: Bounds, items: readonly Item[]): Item[] => {
  const depth = maxZ - minZ;
  const windows = depth >= 6.5 ? 2 : 1;
  const out: Item[] = [];
  for (let i = 0; i < windows; i++) {
    const z = minZ + (depth * (i + 1)) / (windows + 1);
    out.push(item('window', [maxX, 0.9, z], [Math.min(1.6, depth / (windows + 1) - 0.4), Math.min(1.5, wallHeight - 1.3), 0.1], -Math.PI / 2));
  }
  out.push(item('door', [minX, 0, maxZ - 1.2], [0.95, 2.1, 0.06], Math.PI / 2));
  for (const x of [minX + 0.45, maxX - 0.45]) {
    const plant = item('plant', [x, 0, minZ + 0.45], [0.5, 1.3, 0.5], 0);
    const standing = items.filter((other) => other.kind !== 'place-setting');
    if (standing.every((other) => corners(plant).every((c) => distanceTo(other, c.x, c.z) > 0.1) && distanceTo(plant, other.at[0], other.at[2]) > 0.1)) out.push(plant);
  }
  const [w, d] = [maxX - minX, maxZ - minZ];
  const [nx, nz] = [Math.max(1, Math.round(w / 2.6)), Math.max(1, Math.round(d / 2.6))];
  for (let i = 0; i < nx; i++)
    for (let j = 0; j < nz; j++) out.push(item('ceiling-light', [minX + (w * (i + 0.5)) / nx, wallHeight - 0.02, minZ + (d * (j + 0.5)) / nz], [1.2, 0.02, 0.6], 0));
  return out;
};

/**
 * The setting of a formation with these seats and boards (boardsFor), furnished for the meeting's
 * `form` (the scene's structure.form; a circle is a lunch table, a retro, a drawing room…).
 */
export const settingFor = ({
  formation,
  form,
  seats,
  boards,
  kinds = [],
}: {
  formation: Formation;
  form?: StructureForm | null;
  seats: readonly Seat[];
  boards: readonly BoardPlace[];
  /** Each board's content kind (slides hang on a screen). */
  kinds?: readonly (string | undefined)[];
}): Setting => {
  const name = settingName(formation, form);
  const chairs = seats.filter((s) => s.seated).map((s) => item('chair', s.position, [0.48, 0.92, 0.5], s.yaw, { seat: s.id }));
  const items = [...centrepieces(name, formation, seats, boards), ...boardPieces(formation, boards, kinds), ...chairs];
  const bounds = boundsOf(formation, seats, items, boards);
  return { name, finish: finishOf[name], items: [...items, ...shellPieces(bounds, items)], bounds };
};
