/**
 * The room's static geometry, built in code from its setting (setting/setting.ts): floor, walls,
 * ceiling and skirting sized to the group, and every piece of the setting given its shape (chairs,
 * tables, the interview desk, the stage and lectern, screens and boards, poster boards, the
 * whiteboard of sticky notes, the lunch table laid, plants, windows, a door). Every piece is made of
 * three.js primitives with its colour in the vertices, merged into two geometries: the lit room (one
 * draw call, `meshLambertMaterial vertexColors`) and what glows (the sky in the windows, the ceiling
 * lights: one draw call, `meshBasicMaterial vertexColors`). No textures, nothing fetched.
 *
 * ```ts
 * const setting = settingFor({ formation: 'panel', form: 'interview', seats, boards });
 * const { solid, glow } = furnish(setting, { chairless: ['alex'] });
 * <mesh geometry={solid}><meshLambertMaterial vertexColors /></mesh>
 * <mesh geometry={glow}><meshBasicMaterial vertexColors /></mesh>
 * ```
 */
import { BoxGeometry, Color, CylinderGeometry, Float32BufferAttribute, IcosahedronGeometry, PlaneGeometry, type BufferGeometry } from 'three';
import { mergeGeometries } from 'three/examples/jsm/utils/BufferGeometryUtils.js';
import type { Formation, StructureForm } from '../../../shared/scene/schema';
import { wallHeight, type BoardPlace, type Seat, type Vec3 } from './layout';
import { settingFor, type Bounds, type Finish, type Item, type Setting } from './setting/setting';

/** Dark frames and legs so furniture reads against light walls; per finish, the floor and walls. */
const palette = {
  ceiling: 0xd9d6cf,
  wood: 0x9c7d60,
  darkWood: 0x5e4433,
  panel: 0x84664d,
  metal: 0x4d5259,
  aluminium: 0xb9bec4,
  fabric: 0x4f6685,
  frame: 0x2c2f34,
  white: 0xf6f6f3,
  stage: 0x3a3f47,
  pot: 0x8a5a44,
  leaf: 0x4f7a3c,
  leafLight: 0x6b9650,
  glass: 0xc9dbe4,
  plate: 0xfbfbf8,
  cloth: 0xe9e4d8,
  notes: [0xf5e27a, 0xf3a6b8, 0x9fdcb0, 0x9cc9ef],
  poster: [0x2f6f8f, 0x8f3f4f, 0x4f7f3f, 0x7f5f2f],
};

const finishes: Record<Finish, { floor: number; wall: number; skirting: number; rug: number }> = {
  office: { floor: 0x8e949a, wall: 0xeeebe5, skirting: 0x6d7278, rug: 0x6c7f96 },
  hall: { floor: 0x7b7f86, wall: 0xe6e2da, skirting: 0x55595f, rug: 0x5b6f88 },
  warm: { floor: 0xb08a66, wall: 0xf1e6d6, skirting: 0x7d5d44, rug: 0xb9a58a },
  parlour: { floor: 0x6e4d36, wall: 0xc9c0a8, skirting: 0x3f2d22, rug: 0x7e3a36 },
};

/** A frame to place a piece in: a point and a turn about Y. */
interface Frame {
  at: Vec3;
  yaw: number;
}

const origin: Frame = { at: [0, 0, 0], yaw: 0 };
const colour = new Color();

/** Drops the UVs and the index (so every primitive merges with every other), paints every vertex `hex`. */
const coloured = (geometry: BufferGeometry, hex: number): BufferGeometry => {
  const flat = geometry.index ? geometry.toNonIndexed() : geometry;
  if (flat !== geometry) geometry.dispose();
  flat.deleteAttribute('uv');
  colour.setHex(hex);
  const colours = new Float32Array(flat.getAttribute('position').count * 3);
  for (let i = 0; i < colours.length; i += 3) colour.toArray(colours, i);
  return flat.setAttribute('color', new Float32BufferAttribute(colours, 3));
};

const place = (geometry: BufferGeometry, centre: Vec3, frame: Frame) => geometry.translate(...centre).rotateY(frame.yaw).translate(...frame.at);

/** A box of `size` centred at `centre` in `frame`. */
const box = (size: Vec3, centre: Vec3, hex: number, frame: Frame = origin): BufferGeometry => coloured(place(new BoxGeometry(...size), centre, frame), hex);

/** An upright cylinder (radii at its top and bottom, `height` tall) centred at `centre` in `frame`. */
const cylinder = (top: number, bottom: number, height: number, centre: Vec3, hex: number, frame: Frame = origin, segments = 12): BufferGeometry =>
  coloured(place(new CylinderGeometry(top, bottom, height, segments), centre, frame), hex);

/** A one-sided rectangle facing +Z turned by `[pitch, yaw]`, centred at `centre`. */
const plane = (size: [number, number], centre: Vec3, [pitch, yaw]: [number, number], hex: number): BufferGeometry =>
  coloured(new PlaneGeometry(...size).rotateX(pitch).rotateY(yaw).translate(...centre), hex);

const frameOf = (item: Item): Frame => ({ at: item.at, yaw: item.yaw });

/** Seat pad, backrest and four legs, around the seat point (the sitter's hips, facing +Z). */
const chair = (frame: Frame): BufferGeometry[] => [
  box([0.46, 0.06, 0.44], [0, 0.42, 0.05], palette.fabric, frame),
  box([0.44, 0.46, 0.05], [0, 0.7, -0.19], palette.fabric, frame),
  ...[-0.2, 0.2].flatMap((x) => [-0.14, 0.24].map((z) => box([0.035, 0.39, 0.035], [x, 0.195, z], palette.metal, frame))),
];

/** A tabletop on four legs set in from its corners. */
const table = ([width, height, depth]: Vec3, frame: Frame): BufferGeometry[] => [
  box([width, 0.04, depth], [0, height - 0.02, 0], palette.wood, frame),
  ...[-1, 1].flatMap((sx) => [-1, 1].map((sz) => box([0.05, height - 0.04, 0.05], [sx * (width / 2 - 0.08), (height - 0.04) / 2, sz * (depth / 2 - 0.08)], palette.metal, frame))),
];

/** The interview desk: a straight top on two side panels, closed toward the candidate by a modesty panel. */
const desk = ([width, height, depth]: Vec3, frame: Frame): BufferGeometry[] => [
  box([width, 0.05, depth], [0, height - 0.025, 0], palette.wood, frame),
  box([width - 0.1, height * 0.62, 0.03], [0, height * 0.55, depth / 2 - 0.06], palette.panel, frame),
  ...[-1, 1].map((side) => box([0.04, height - 0.05, depth - 0.04], [side * (width / 2 - 0.03), (height - 0.05) / 2, 0], palette.panel, frame)),
];

/** A round top on a pedestal, its edge skirted in `top`'s colour (a cloth, or the wood's apron). */
const roundTable = ([width, height]: Vec3, frame: Frame, top = palette.cloth): BufferGeometry[] => [
  cylinder(width / 2, width / 2, 0.04, [0, height - 0.02, 0], top, frame, 32),
  cylinder(width / 2 + 0.01, width / 2 - 0.01, Math.min(0.12, height / 4), [0, height - Math.min(0.12, height / 4) / 2 - 0.04, 0], top, frame, 32),
  cylinder(0.07, 0.07, height - 0.1, [0, (height - 0.1) / 2, 0], palette.metal, frame, 8),
  cylinder(0.3, 0.34, 0.04, [0, 0.02, 0], palette.metal, frame, 16),
];

/** A plate and a glass in front of a diner (the piece stands on the tabletop). */
const placeSetting = (frame: Frame): BufferGeometry[] => [
  cylinder(0.13, 0.1, 0.02, [0, 0.01, 0], palette.plate, frame, 16),
  cylinder(0.035, 0.03, 0.12, [0.2, 0.06, 0.1], palette.glass, frame, 8),
];

/** The stage: a platform with a darker front edge and one step at each end. */
const stage = ([width, height, depth]: Vec3, frame: Frame): BufferGeometry[] => [
  box([width, height, depth], [0, height / 2, 0], palette.stage, frame),
  box([width, 0.03, 0.02], [0, height - 0.015, depth / 2 + 0.01], palette.aluminium, frame),
  ...[-1, 1].map((side) => box([0.5, height / 2, 0.3], [side * (width / 2 - 0.35), height / 4, depth / 2 + 0.15], palette.stage, frame)),
];

/** A lectern: a body, and its reading desk tilted toward the speaker behind it (its front faces the audience). */
const lectern = ([width, height, depth]: Vec3, frame: Frame): BufferGeometry[] => [
  box([width * 0.8, height - 0.1, depth * 0.8], [0, (height - 0.1) / 2, 0], palette.darkWood, frame),
  coloured(place(new BoxGeometry(width, 0.04, depth).rotateX(-0.3), [0, height - 0.06, 0], frame), palette.wood),
  box([width * 0.9, 0.05, depth * 0.9], [0, 0.025, 0], palette.frame, frame),
];

/** A board's frame behind its content (the content is 2.5 cm in front of the board's centre, board.tsx). */
const boardFrame = (width: number, bottom: number, height: number, frame: Frame, hex = palette.frame): BufferGeometry =>
  box([width, height + 0.06, 0.04], [0, bottom + height / 2, 0], hex, frame);

/** A board hung on the wall (`blank`: a projection screen with nothing on it). */
const wallBoard = (item: Item): BufferGeometry[] => {
  const [w, h] = [item.size[0], item.size[1]];
  const frame = frameOf(item);
  return [boardFrame(w, 0, h, frame), ...(item.blank ? [box([w - 0.06, h - 0.06, 0.01], [0, h / 2, 0.025], palette.white, frame)] : [])];
};

/** A board on a two-legged stand with feet, its face from `at`'s height up. */
const boardStand = ({ size: [w, content], at, yaw }: Item): BufferGeometry[] => {
  const frame = { at: [at[0], 0, at[2]] as Vec3, yaw };
  const bottom = at[1];
  return [
    boardFrame(w, bottom, content, frame),
    ...[-1, 1].map((side) => box([0.04, bottom, 0.04], [side * (w / 2 - 0.1), bottom / 2, -0.02], palette.metal, frame)),
    ...[-1, 1].map((side) => box([0.06, 0.03, 0.5], [side * (w / 2 - 0.1), 0.015, -0.02], palette.metal, frame)),
  ];
};

/** A neighbour's poster in blocks: a title band, lines of text, two figures. */
const posterBlocks = (w: number, h: number, bottom: number, seed: number, frame: Frame): BufferGeometry[] => {
  const accent = palette.poster[seed % palette.poster.length]!;
  const z = 0.03;
  const out = [box([w, h, 0.01], [0, bottom + h / 2, z], palette.white, frame), box([w, h * 0.12, 0.012], [0, bottom + h * 0.92, z], accent, frame)];
  for (let i = 0; i < 7; i++) out.push(box([w * (i % 3 === 2 ? 0.35 : 0.42), 0.018, 0.012], [-w * 0.24 + (i % 3 === 2 ? -0.035 : 0), bottom + h * (0.78 - i * 0.06), z], 0x9aa0a8, frame));
  out.push(box([w * 0.4, h * 0.22, 0.012], [w * 0.24, bottom + h * 0.64, z], accent, frame));
  out.push(box([w * 0.86, h * 0.24, 0.012], [0, bottom + h * 0.2, z], palette.poster[(seed + 1) % palette.poster.length]!, frame));
  return out;
};

/** A poster board: a grey fabric panel on two feet, showing a neighbour's poster when `blank`. */
const posterBoard = (item: Item, seed: number): BufferGeometry[] => {
  const frame = frameOf(item);
  const [w, h] = [item.size[0], item.size[1]];
  const bottom = 0.3;
  return [
    box([w, h - bottom, 0.04], [0, bottom + (h - bottom) / 2, 0], 0x7d848c, frame),
    ...[-1, 1].map((side) => box([0.05, bottom, 0.05], [side * (w / 2 - 0.1), bottom / 2, 0], palette.metal, frame)),
    ...[-1, 1].map((side) => box([0.07, 0.03, 0.5], [side * (w / 2 - 0.1), 0.015, 0], palette.metal, frame)),
    ...(item.blank ? posterBlocks(w * 0.8, (h - bottom) * 0.8, bottom + (h - bottom) * 0.1, seed, frame) : []),
  ];
};

/** A whiteboard on a mobile stand, with three columns of sticky notes under their headings. */
const whiteboard = (item: Item): BufferGeometry[] => {
  const frame = frameOf(item);
  const [w, h] = [item.size[0], 1.0];
  const bottom = item.size[1] - h - 0.03;
  const out = [
    box([w, h + 0.05, 0.03], [0, bottom + h / 2, 0], palette.aluminium, frame),
    box([w - 0.05, h, 0.01], [0, bottom + h / 2, 0.018], palette.white, frame),
    box([w - 0.2, 0.04, 0.06], [0, bottom - 0.01, 0.04], palette.aluminium, frame),
    ...[-1, 1].map((side) => box([0.04, bottom, 0.04], [side * (w / 2 - 0.08), bottom / 2, -0.02], palette.aluminium, frame)),
    ...[-1, 1].map((side) => box([0.06, 0.04, 0.55], [side * (w / 2 - 0.08), 0.04, -0.02], palette.metal, frame)),
  ];
  const columns = 3;
  for (let c = 0; c < columns; c++) {
    const x = -w / 2 + (w * (c + 0.5)) / columns;
    out.push(box([w / columns - 0.2, 0.025, 0.01], [x, bottom + h - 0.08, 0.026], 0x3d4a5c, frame));
    const notes = [4, 3, 5][c]!;
    for (let n = 0; n < notes; n++) {
      const [col, row] = [n % 2, Math.floor(n / 2)];
      out.push(box([0.1, 0.1, 0.008], [x + (col - 0.5) * 0.13, bottom + h - 0.2 - row * 0.14, 0.027], palette.notes[(c + n) % palette.notes.length]!, frame));
    }
  }
  return out;
};

/** A low sideboard against the wall. */
const sideboard = ([w, h, d]: Vec3, frame: Frame): BufferGeometry[] => [
  box([w, h - 0.08, d], [0, 0.08 + (h - 0.08) / 2, 0], palette.darkWood, frame),
  box([w - 0.04, 0.08, d - 0.06], [0, 0.04, -0.02], palette.frame, frame),
  box([w + 0.02, 0.03, d + 0.02], [0, h - 0.015, 0], palette.wood, frame),
];

/** A potted plant: the pot, and foliage in a few low-poly clumps. */
const plant = ([w, h]: Vec3, frame: Frame): BufferGeometry[] => [
  cylinder(w * 0.36, w * 0.28, 0.42, [0, 0.21, 0], palette.pot, frame, 10),
  cylinder(0.02, 0.02, h * 0.4, [0, 0.42 + h * 0.1, 0], palette.darkWood, frame, 5),
  coloured(place(new IcosahedronGeometry(w * 0.5, 1), [0, h - w * 0.5, 0], frame), palette.leaf),
  coloured(place(new IcosahedronGeometry(w * 0.36, 1), [w * 0.18, h - w * 0.95, w * 0.1], frame), palette.leafLight),
  coloured(place(new IcosahedronGeometry(w * 0.32, 1), [-w * 0.2, h - w * 0.85, -w * 0.08], frame), palette.leaf),
];

/** A window's frame: sill, four sides and a mullion (the sky behind it glows, `windowGlass`). */
const windowFrame = ({ size: [w, h], at, yaw }: Item): BufferGeometry[] => {
  const frame = { at, yaw };
  const t = 0.06;
  return [
    box([w + 0.2, 0.04, 0.14], [0, -0.02, 0.07], palette.white, frame),
    box([w + 2 * t, t, 0.08], [0, h + t / 2, 0.02], palette.white, frame),
    box([w + 2 * t, t, 0.08], [0, t / 2, 0.02], palette.white, frame),
    ...[-1, 1].map((side) => box([t, h, 0.08], [side * (w / 2 + t / 2), h / 2, 0.02], palette.white, frame)),
    box([0.04, h, 0.06], [0, h / 2, 0.02], palette.white, frame),
  ];
};

/** The sky seen through a window: pale at the horizon, bluer above (vertex colours on an unlit plane). */
const windowGlass = ({ size: [w, h], at, yaw }: Item): BufferGeometry => {
  const glass = coloured(place(new PlaneGeometry(w, h, 1, 4), [0, h / 2, 0.005], { at, yaw }), 0);
  const position = glass.getAttribute('position');
  const colours = glass.getAttribute('color');
  const [low, high] = [new Color(0xe4eef2), new Color(0x8fb8da)];
  for (let i = 0; i < position.count; i++) {
    colour.copy(low).lerp(high, Math.max(0, Math.min(1, (position.getY(i) - at[1]) / h)));
    colours.setXYZ(i, colour.r, colour.g, colour.b);
  }
  return glass;
};

/** A door: a panel just proud of the wall, its frame and a handle. */
const door = ({ size: [w, h], at, yaw }: Item): BufferGeometry[] => {
  const frame = { at, yaw };
  return [
    box([w + 0.12, h + 0.06, 0.03], [0, (h + 0.06) / 2, 0.015], palette.white, frame),
    box([w, h, 0.04], [0, h / 2, 0.03], palette.wood, frame),
    box([0.12, 0.025, 0.05], [w / 2 - 0.12, 1.0, 0.07], palette.aluminium, frame),
  ];
};

/** Floor and four walls with skirting: single planes facing in (see-through from outside, so an orbiting observer looks in). */
const shell = ({ minX, maxX, minZ, maxZ }: Bounds, finish: Finish): BufferGeometry[] => {
  const { floor, wall, skirting } = finishes[finish];
  const [w, d] = [maxX - minX, maxZ - minZ];
  const [cx, cz] = [(minX + maxX) / 2, (minZ + maxZ) / 2];
  const [h, skirt] = [wallHeight / 2, 0.1];
  return [
    box([w, 0.02, d], [cx, -0.01, cz], floor),
    plane([w, wallHeight], [cx, h, minZ], [0, 0], wall),
    plane([w, wallHeight], [cx, h, maxZ], [0, Math.PI], wall),
    plane([d, wallHeight], [minX, h, cz], [0, Math.PI / 2], wall),
    plane([d, wallHeight], [maxX, h, cz], [0, -Math.PI / 2], wall),
    box([w, skirt, 0.02], [cx, skirt / 2, minZ + 0.01], skirting),
    box([w, skirt, 0.02], [cx, skirt / 2, maxZ - 0.01], skirting),
    box([0.02, skirt, d], [minX + 0.01, skirt / 2, cz], skirting),
    box([0.02, skirt, d], [maxX - 0.01, skirt / 2, cz], skirting),
  ];
};

/** A piece's lit shape. */
const shapeOf = (item: Item, finish: Finish, index: number): BufferGeometry[] => {
  const frame = frameOf(item);
  switch (item.kind) {
    case 'chair':
      return chair(frame);
    case 'table':
      return table(item.size, frame);
    case 'coffee-table':
      return roundTable(item.size, frame, palette.darkWood);
    case 'desk':
      return desk(item.size, frame);
    case 'round-table':
      return roundTable(item.size, frame);
    case 'place-setting':
      return placeSetting(frame);
    case 'stage':
      return stage(item.size, frame);
    case 'lectern':
      return lectern(item.size, frame);
    case 'screen':
    case 'wall-board':
      return wallBoard(item);
    case 'board-stand':
      return boardStand(item);
    case 'poster-board':
      return posterBoard(item, index);
    case 'whiteboard':
      return whiteboard(item);
    case 'sideboard':
      return sideboard(item.size, frame);
    case 'plant':
      return plant(item.size, frame);
    case 'rug':
      return [box([item.size[0], 0.01, item.size[2]], [0, 0.005, 0], finishes[finish].rug, frame)];
    case 'window':
      return windowFrame(item);
    case 'door':
      return door(item);
    case 'ceiling-light':
      return [];
  }
};

const merge = (pieces: BufferGeometry[], what: string): BufferGeometry => {
  const merged = mergeGeometries(pieces);
  for (const piece of pieces) piece.dispose();
  if (!merged) throw new Error(`furniture: the ${what} could not be merged (mismatched attributes)`);
  return merged;
};

/**
 * The setting as two geometries: `solid` (lit: the shell and every piece) and `glow` (unlit: the
 * windows' sky and the ceiling lights). `chairless`: seats drawn without their chair (a desktop
 * viewer's own, which the camera looks past from behind).
 */
export const furnish = (setting: Setting, { chairless = [] }: { chairless?: readonly string[] } = {}): { solid: BufferGeometry; glow: BufferGeometry } => {
  const items = setting.items.filter((item) => !(item.kind === 'chair' && item.seat !== undefined && chairless.includes(item.seat)));
  const solid = [...shell(setting.bounds, setting.finish), ...items.flatMap((item, i) => shapeOf(item, setting.finish, i))];
  const { minX, maxX, minZ, maxZ } = setting.bounds;
  const glow = [
    // The ceiling is evenly lit by its own lights: unlit, so it never goes dark brown under the floor's bounce.
    plane([maxX - minX, maxZ - minZ], [(minX + maxX) / 2, wallHeight, (minZ + maxZ) / 2], [Math.PI / 2, 0], palette.ceiling),
    ...items.filter((item) => item.kind === 'window').map(windowGlass),
    ...items.filter((item) => item.kind === 'ceiling-light').map((item) => plane([item.size[0], item.size[2]], item.at, [Math.PI / 2, 0], 0xffffff)),
  ];
  return { solid: merge(solid, 'room'), glow: merge(glow, 'lights') };
};

/**
 * The whole lit room as one geometry (position, normal, color). `boards` are the content boards
 * (boardsFor): their frames and stands are part of the room; the pictures on them are not.
 */
export const roomGeometry = ({
  formation,
  form,
  seats,
  boards,
  kinds,
  chairless = [],
}: {
  formation: Formation;
  form?: StructureForm | null;
  seats: readonly Seat[];
  boards: readonly BoardPlace[];
  kinds?: readonly string[];
  /** Seats drawn without their chair: a desktop viewer's own, which the camera looks past from behind. */
  chairless?: readonly string[];
}): BufferGeometry => {
  const { solid, glow } = furnish(settingFor({ formation, form, seats, boards, kinds }), { chairless });
  glow.dispose();
  return solid;
};
