/**
 * The room's static geometry, built in code: floor, walls and ceiling around the formation, its
 * tables, a chair under every seated place, each content board's frame and stand, and a rug marking a
 * speaker area. Every piece is a box with its colour in the vertices, merged into one geometry, so
 * the whole room is one draw call with one material (`vertexColors`).
 *
 * ```ts
 * const geometry = roomGeometry({ formation: 'table', seats, boards: boardsFor('table', ['slides'], seats) });
 * <mesh geometry={geometry}><meshLambertMaterial vertexColors /></mesh>
 * ```
 */
import { BoxGeometry, Color, Float32BufferAttribute, PlaneGeometry, type BufferGeometry } from 'three';
import { mergeGeometries } from 'three/examples/jsm/utils/BufferGeometryUtils.js';
import type { Formation } from '../../../shared/scene/schema';
import { focusFor, tableFor, tableHeight, wallHeight, type BoardPlace, type Seat, type Vec3 } from './layout';

/** A light, warm room; dark frames and legs so furniture reads against it. */
const palette = {
  floor: 0xd6cdbd,
  wall: 0xf2efe9,
  ceiling: 0xfbfaf7,
  skirting: 0xc9c1b3,
  wood: 0x9c7d60,
  metal: 0x4d5259,
  fabric: 0x5d7390,
  frame: 0x2c2f34,
  rug: 0xb7c5d3,
};

/** A frame to place pieces in: a point on the floor and a turn about Y (a seat's, a table's, the board's). */
interface Frame {
  at: Vec3;
  yaw: number;
}

const colour = new Color();

/** Drops the UVs (nothing is textured) and paints every vertex `hex`. */
const coloured = (geometry: BufferGeometry, hex: number): BufferGeometry => {
  geometry.deleteAttribute('uv');
  colour.setHex(hex);
  const colours = new Float32Array(geometry.getAttribute('position').count * 3);
  for (let i = 0; i < colours.length; i += 3) colour.toArray(colours, i);
  return geometry.setAttribute('color', new Float32BufferAttribute(colours, 3));
};

/** A box of `size` centred at `centre` in `frame`, coloured. */
const box = (size: Vec3, centre: Vec3, hex: number, frame: Frame = { at: [0, 0, 0], yaw: 0 }): BufferGeometry =>
  coloured(new BoxGeometry(...size).translate(...centre).rotateY(frame.yaw).translate(...frame.at), hex);

/** A one-sided rectangle of `size`, facing +Z turned by `[pitch, yaw]`, centred at `centre`. */
const plane = (size: [number, number], centre: Vec3, [pitch, yaw]: [number, number], hex: number): BufferGeometry =>
  coloured(new PlaneGeometry(...size).rotateX(pitch).rotateY(yaw).translate(...centre), hex);

/** Seat pad, backrest and four legs, around the seat point (the sitter's hips, facing +Z). */
const chair = (frame: Frame): BufferGeometry[] => [
  box([0.46, 0.06, 0.44], [0, 0.42, 0.05], palette.fabric, frame),
  box([0.44, 0.46, 0.05], [0, 0.7, -0.19], palette.fabric, frame),
  ...[-0.2, 0.2].flatMap((x) => [-0.14, 0.24].map((z) => box([0.035, 0.39, 0.035], [x, 0.195, z], palette.metal, frame))),
];

/** A tabletop on four legs set in from its corners. */
const table = (width: number, depth: number, frame: Frame): BufferGeometry[] => [
  box([width, 0.04, depth], [0, tableHeight - 0.02, 0], palette.wood, frame),
  ...[-1, 1].flatMap((sx) =>
    [-1, 1].map((sz) =>
      box([0.05, tableHeight - 0.04, 0.05], [sx * (width / 2 - 0.08), (tableHeight - 0.04) / 2, sz * (depth / 2 - 0.08)], palette.metal, frame),
    ),
  ),
];

/** A frame behind the board (the board's face is 2.5 cm in front of its centre) on a two-legged stand. */
const boardStand = ({ position, yaw, size: [width, height] }: BoardPlace): BufferGeometry[] => {
  const frame = { at: [position[0], 0, position[2]] as Vec3, yaw };
  const bottom = position[1] - height / 2;
  return [
    box([width + 0.06, height + 0.06, 0.04], [0, position[1], 0], palette.frame, frame),
    ...[-1, 1].map((side) => box([0.04, bottom, 0.04], [side * (width / 2 - 0.1), bottom / 2, -0.04], palette.metal, frame)),
    ...[-1, 1].map((side) => box([0.06, 0.03, 0.5], [side * (width / 2 - 0.1), 0.015, -0.04], palette.metal, frame)),
  ];
};

/** The floor plan's extent: every seat and every board, with room to walk around; at least 6 m square. */
const bounds = (seats: readonly Seat[], formation: Formation, boards: readonly BoardPlace[]) => {
  const focus = focusFor(formation);
  // A board's two edges: its width runs along its own X, (cos yaw, -sin yaw) in the room.
  const edges = boards.flatMap(({ position, yaw, size }) =>
    [-1, 1].map((side) => ({ x: position[0] + (side * size[0] * Math.cos(yaw)) / 2, z: position[2] - (side * size[0] * Math.sin(yaw)) / 2 })),
  );
  const xs = [...seats.map((s) => s.position[0]), focus.position[0] - focus.width / 2, focus.position[0] + focus.width / 2, ...edges.map((e) => e.x)];
  const zs = seats.map((s) => s.position[2]);
  const margin = 1.5;
  const minSize = 6;
  // The boards stand just off the wall behind them.
  const minZ = Math.min(focus.position[2] - 0.6, ...edges.map((e) => e.z - 0.45), ...zs.map((z) => z - margin));
  const maxZ = Math.max(minZ + minSize, ...zs.map((z) => z + margin));
  const [lo, hi] = [Math.min(...xs) - margin, Math.max(...xs) + margin];
  const grow = Math.max(0, minSize - (hi - lo)) / 2;
  return { minX: lo - grow, maxX: hi + grow, minZ, maxZ };
};

/**
 * Floor, ceiling and four walls with skirting. Walls and ceiling are single planes facing into the
 * room: closed around anyone inside (a headset never shows the void), see-through from outside, so
 * an observer orbiting above looks in.
 */
const shell = ({ minX, maxX, minZ, maxZ }: ReturnType<typeof bounds>): BufferGeometry[] => {
  const [w, d] = [maxX - minX, maxZ - minZ];
  const [cx, cz] = [(minX + maxX) / 2, (minZ + maxZ) / 2];
  const [h, skirt] = [wallHeight / 2, 0.1];
  return [
    box([w, 0.02, d], [cx, -0.01, cz], palette.floor),
    plane([w, d], [cx, wallHeight, cz], [Math.PI / 2, 0], palette.ceiling),
    plane([w, wallHeight], [cx, h, minZ], [0, 0], palette.wall),
    plane([w, wallHeight], [cx, h, maxZ], [0, Math.PI], palette.wall),
    plane([d, wallHeight], [minX, h, cz], [0, Math.PI / 2], palette.wall),
    plane([d, wallHeight], [maxX, h, cz], [0, -Math.PI / 2], palette.wall),
    box([w, skirt, 0.02], [cx, skirt / 2, minZ + 0.01], palette.skirting),
    box([w, skirt, 0.02], [cx, skirt / 2, maxZ - 0.01], palette.skirting),
    box([0.02, skirt, d], [minX + 0.01, skirt / 2, cz], palette.skirting),
    box([0.02, skirt, d], [maxX - 0.01, skirt / 2, cz], palette.skirting),
  ];
};

/** A rug under the people standing in a seated room: the speaker area of an audience. */
const speakerArea = (seats: readonly Seat[]): BufferGeometry[] => {
  const standing = seats.filter((s) => !s.seated);
  if (standing.length === 0 || standing.length === seats.length) return [];
  const xs = standing.map((s) => s.position[0]);
  const zs = standing.map((s) => s.position[2]);
  const [minX, maxX, minZ, maxZ] = [Math.min(...xs) - 0.6, Math.max(...xs) + 0.6, Math.min(...zs) - 0.6, Math.max(...zs) + 0.6];
  return [box([maxX - minX, 0.01, maxZ - minZ], [(minX + maxX) / 2, 0.005, (minZ + maxZ) / 2], palette.rug)];
};

/**
 * The whole static room as one geometry (position, normal, color). `boards` are the content boards
 * (boardsFor): their frames and stands are part of the room; the pictures on them are not.
 */
export const roomGeometry = ({
  formation,
  seats,
  boards,
  chairless = [],
}: {
  formation: Formation;
  seats: readonly Seat[];
  boards: readonly BoardPlace[];
  /** Seats drawn without their chair: a desktop viewer's own, which the camera looks past from behind. */
  chairless?: readonly string[];
}): BufferGeometry => {
  const pieces = [
    ...shell(bounds(seats, formation, boards)),
    ...speakerArea(seats),
    ...tableFor(formation, seats).flatMap((t) => table(t.size[0], t.size[1], { at: [t.position[0], 0, t.position[2]], yaw: t.yaw })),
    ...seats.filter((s) => s.seated && !chairless.includes(s.id)).flatMap((s) => chair({ at: s.position, yaw: s.yaw })),
    ...boards.flatMap(boardStand),
  ];
  const merged = mergeGeometries(pieces);
  for (const piece of pieces) piece.dispose();
  if (!merged) throw new Error('roomGeometry: the room pieces could not be merged (mismatched attributes)');
  return merged;
};
