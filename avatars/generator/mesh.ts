/**
 * A small mesh builder for the avatars: surfaces made of rings (lofts, ellipsoids, caps, tori),
 * each vertex with a colour, up to four bone influences and a tag (which part of the face it
 * belongs to, for the morph targets). Normals are smoothed per surface from its faces.
 *
 * Surfaces are grids of `rows × columns` vertices, closed around the columns; faces wind
 * counter-clockwise seen from outside when rows run from the surface's start to its end and
 * columns run counter-clockwise around the axis seen from the end (the right-hand rule).
 */
import type { RGB } from './cast';
import type { Vec3 } from './skeleton';

export type Skin = [number, number][]; // [bone index, weight], weights summing to 1

export interface Vertex {
  p: Vec3;
  color: RGB;
  skin: Skin;
  tag: string;
}

export class MeshBuilder {
  readonly positions: number[] = [];
  readonly normals: number[] = [];
  readonly colors: number[] = [];
  readonly joints: number[] = [];
  readonly weights: number[] = [];
  readonly tags: string[] = [];
  readonly indices: number[] = [];

  get vertexCount(): number {
    return this.tags.length;
  }

  get triangleCount(): number {
    return this.indices.length / 3;
  }

  /**
   * Adds a grid surface: `rows` rings of `columns` vertices (closed around), from `vertex(row, column)`.
   * `flip` turns the faces inside out (for surfaces whose rows run the other way); `open` leaves
   * the last column unjoined to the first (a sheet, not a tube).
   */
  grid(rows: number, columns: number, vertex: (row: number, column: number) => Vertex, flip = false, open = false): void {
    const first = this.vertexCount;
    for (let r = 0; r < rows; r++) for (let c = 0; c < columns; c++) this.push(vertex(r, c));
    const start = this.indices.length;
    for (let r = 0; r < rows - 1; r++) {
      for (let c = 0; c < (open ? columns - 1 : columns); c++) {
        const a = first + r * columns + c;
        const b = first + r * columns + ((c + 1) % columns);
        const d = first + (r + 1) * columns + c;
        const e = first + (r + 1) * columns + ((c + 1) % columns);
        if (flip) this.indices.push(a, b, d, b, e, d);
        else this.indices.push(a, d, b, b, d, e);
      }
    }
    this.smooth(first, start);
  }

  private push(v: Vertex): void {
    this.positions.push(...v.p);
    this.normals.push(0, 0, 0);
    this.colors.push(...v.color);
    // Strongest four influences; a zero weight names no joint (glTF validators warn otherwise).
    const skin = v.skin.filter(([, w]) => w > 1e-4).sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, 4);
    const total = skin.reduce((sum, [, w]) => sum + w, 0) || 1;
    for (let i = 0; i < 4; i++) {
      this.joints.push(skin[i]?.[0] ?? 0);
      this.weights.push((skin[i]?.[1] ?? 0) / total);
    }
    this.tags.push(v.tag);
  }

  /** Smooth normals for the vertices from `first`, from the faces from index `start`. */
  private smooth(first: number, start: number): void {
    const p = this.positions;
    const n = this.normals;
    for (let i = start; i < this.indices.length; i += 3) {
      const [a, b, c] = [this.indices[i]!, this.indices[i + 1]!, this.indices[i + 2]!];
      const ux = p[b * 3]! - p[a * 3]!, uy = p[b * 3 + 1]! - p[a * 3 + 1]!, uz = p[b * 3 + 2]! - p[a * 3 + 2]!;
      const vx = p[c * 3]! - p[a * 3]!, vy = p[c * 3 + 1]! - p[a * 3 + 1]!, vz = p[c * 3 + 2]! - p[a * 3 + 2]!;
      const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
      for (const k of [a, b, c]) {
        n[k * 3] = n[k * 3]! + nx;
        n[k * 3 + 1] = n[k * 3 + 1]! + ny;
        n[k * 3 + 2] = n[k * 3 + 2]! + nz;
      }
    }
    for (let k = first; k < this.vertexCount; k++) {
      const len = Math.hypot(n[k * 3]!, n[k * 3 + 1]!, n[k * 3 + 2]!);
      if (len > 0) for (let j = 0; j < 3; j++) n[k * 3 + j] = n[k * 3 + j]! / len;
      else n[k * 3 + 1] = 1;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Vector helpers

export const add = (a: Vec3, b: Vec3): Vec3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
export const scale = (a: Vec3, s: number): Vec3 => [a[0] * s, a[1] * s, a[2] * s];
export const lerp = (a: number, b: number, t: number): number => a + (b - a) * t;
export const clamp01 = (x: number): number => Math.min(1, Math.max(0, x));
/** 0 below `a`, 1 above `b`, smooth between. */
export const smoothstep = (a: number, b: number, x: number): number => {
  const t = clamp01((x - a) / (b - a));
  return t * t * (3 - 2 * t);
};
export const mix = (a: RGB, b: RGB, t: number): RGB => [lerp(a[0], b[0], t), lerp(a[1], b[1], t), lerp(a[2], b[2], t)];
export const shade = (c: RGB, f: number): RGB => [Math.min(1, c[0] * f), Math.min(1, c[1] * f), Math.min(1, c[2] * f)];

// ---------------------------------------------------------------------------------------------
// Surfaces

export interface Ring {
  /** Centre of the ring. */
  c: Vec3;
  /** Half-extents along the ring's two axes. */
  r: [number, number];
}

/**
 * A tube through rings perpendicular to `axis` ('x' for arms, 'y' for the body and legs):
 * around x the ring spans (y, z); around y it spans (x, z). Ends are closed by shrinking rings
 * the caller provides (radius 0 gives a point).
 */
export const loft = (
  mesh: MeshBuilder,
  axis: 'x' | 'y' | '-x' | '-y',
  rings: Ring[],
  columns: number,
  paint: (p: Vec3, ring: number, angle: number) => RGB,
  skin: (p: Vec3, ring: number) => Skin,
  tag = 'body',
): void => {
  mesh.grid(
    rings.length,
    columns,
    (row, column) => {
      const { c, r } = rings[row]!;
      const a = (column / columns) * Math.PI * 2;
      const cos = Math.cos(a);
      const sin = Math.sin(a);
      let p: Vec3;
      // Counter-clockwise around the direction the rings advance in, so faces point outwards;
      // angle 0 is the front (+Z) around y, and the top (+Y) around x.
      if (axis === 'y') p = [c[0] - r[0] * sin, c[1], c[2] + r[1] * cos];
      else if (axis === '-y') p = [c[0] + r[0] * sin, c[1], c[2] + r[1] * cos];
      else if (axis === 'x') p = [c[0], c[1] + r[0] * cos, c[2] - r[1] * sin];
      else p = [c[0], c[1] + r[0] * cos, c[2] + r[1] * sin];
      return { p, color: paint(p, row, a), skin: skin(p, row), tag };
    },
  );
};

/**
 * An ellipsoid, or part of one: polar angle from the +Y pole `from`..`to` (radians), all the way
 * around. `deform` may move each point (hair volume, beard shapes).
 */
export const ellipsoid = (
  mesh: MeshBuilder,
  centre: Vec3,
  radii: Vec3,
  rows: number,
  columns: number,
  paint: (p: Vec3, unit: Vec3) => RGB,
  skin: (p: Vec3) => Skin,
  tag = 'body',
  options: {
    from?: number | ((azimuth: number) => number);
    to?: number | ((azimuth: number) => number);
    deform?: (p: Vec3, unit: Vec3, azimuth: number, polar: number) => Vec3;
  } = {},
): void => {
  mesh.grid(rows, columns, (row, column) => {
    // Azimuth 0 faces +Z (the front); counter-clockwise seen from above.
    const azimuth = (column / columns) * Math.PI * 2;
    const from = typeof options.from === 'function' ? options.from(azimuth) : (options.from ?? 0);
    const to = typeof options.to === 'function' ? options.to(azimuth) : (options.to ?? Math.PI);
    const polar = lerp(from, to, row / (rows - 1));
    const unit: Vec3 = [Math.sin(polar) * Math.sin(azimuth), Math.cos(polar), Math.sin(polar) * Math.cos(azimuth)];
    let p: Vec3 = [centre[0] + radii[0] * unit[0], centre[1] + radii[1] * unit[1], centre[2] + radii[2] * unit[2]];
    if (options.deform) p = options.deform(p, unit, azimuth, polar);
    return { p, color: paint(p, unit), skin: skin(p), tag };
  });
};

/**
 * A torus around the Z axis (facing +Z): major radii (x, y), tube radius `tube`, scaled around the
 * ring by `thickness(angle)` (lips: thin at the corners, fuller below) and squashed in depth by
 * `depth`. `paint` is told the angle around the ring and around the tube (0 outward, π/2 forward).
 */
export const torus = (
  mesh: MeshBuilder,
  centre: Vec3,
  major: [number, number],
  tube: number,
  rows: number,
  columns: number,
  paint: (p: Vec3, angle: number, around: number) => RGB,
  skin: (p: Vec3) => Skin,
  tag: (angle: number) => string,
  shape: { thickness?: (angle: number) => number; depth?: number } = {},
): void => {
  mesh.grid(rows + 1, columns, (row, column) => {
    const a = (row / rows) * Math.PI * 2; // around the ring
    const b = (column / columns) * Math.PI * 2; // around the tube
    const ring: Vec3 = [Math.cos(a), Math.sin(a), 0];
    const r = tube * (shape.thickness?.(a) ?? 1);
    const p: Vec3 = [
      centre[0] + (major[0] + r * Math.cos(b)) * ring[0],
      centre[1] + (major[1] + r * Math.cos(b)) * ring[1],
      centre[2] + r * (shape.depth ?? 1) * Math.sin(b),
    ];
    return { p, color: paint(p, a, b), skin: skin(p), tag: tag(a) };
  });
};

/** A capsule-like tube through points, each with a radius; the ends are rounded. */
export const tube = (
  mesh: MeshBuilder,
  points: { p: Vec3; r: number }[],
  columns: number,
  paint: (p: Vec3, along: number) => RGB,
  skin: (p: Vec3, segment: number, t: number) => Skin,
  tag = 'body',
): void => {
  // A frame perpendicular to the (mostly straight) path.
  const first = points[0]!.p;
  const last = points[points.length - 1]!.p;
  const dir = norm([last[0] - first[0], last[1] - first[1], last[2] - first[2]]);
  const helper: Vec3 = Math.abs(dir[1]) < 0.9 ? [0, 1, 0] : [1, 0, 0];
  const u = norm(cross(helper, dir));
  const v = cross(dir, u);
  const rings: { c: Vec3; r: number; segment: number; t: number }[] = [];
  const capRings = 3;
  for (let i = capRings; i >= 1; i--) {
    const k = i / capRings;
    const r0 = points[0]!.r;
    rings.push({ c: add(first, scale(dir, -r0 * Math.sin((k * Math.PI) / 2) * 0.9)), r: r0 * Math.cos((k * Math.PI) / 2), segment: 0, t: 0 });
  }
  points.forEach((pt, i) => rings.push({ c: pt.p, r: pt.r, segment: Math.max(0, i - 1), t: i === 0 ? 0 : 1 }));
  for (let i = 1; i <= capRings; i++) {
    const k = i / capRings;
    const rn = points[points.length - 1]!.r;
    rings.push({ c: add(last, scale(dir, rn * Math.sin((k * Math.PI) / 2) * 0.9)), r: rn * Math.cos((k * Math.PI) / 2), segment: points.length - 2, t: 1 });
  }
  const total = rings.length - 1;
  mesh.grid(rings.length, columns, (row, column) => {
    const ring = rings[row]!;
    const a = (column / columns) * Math.PI * 2;
    const p = add(ring.c, add(scale(u, Math.cos(a) * ring.r), scale(v, -Math.sin(a) * ring.r)));
    return { p, color: paint(p, row / total), skin: skin(p, ring.segment, ring.t), tag };
  });
};

/**
 * An open sheet laid over another surface, like a shirt front on a torso: `rows × columns`
 * vertices at `at(u, v)`, u and v from 0 to 1. Faces point toward the viewer when u runs up and v
 * runs to the viewer's right seen from the front (−X to +X, the character's right to its left).
 */
export const sheet = (
  mesh: MeshBuilder,
  rows: number,
  columns: number,
  at: (u: number, v: number) => Vec3,
  paint: (p: Vec3, u: number, v: number) => RGB,
  skin: (p: Vec3) => Skin,
  tag = 'body',
): void => {
  mesh.grid(
    rows,
    columns,
    (row, column) => {
      const u = row / (rows - 1);
      const v = column / (columns - 1);
      const p = at(u, v);
      return { p, color: paint(p, u, v), skin: skin(p), tag };
    },
    true,
    true,
  );
};

export const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
export const norm = (a: Vec3): Vec3 => {
  const len = Math.hypot(a[0], a[1], a[2]) || 1;
  return [a[0] / len, a[1] / len, a[2] / len];
};

/**
 * Adds rings at the given coordinates along the loft's axis (x: 0, y: 1), interpolated from
 * their neighbours, so a colour boundary there (a cuff, a hem, a waistband) stays sharp.
 */
export const refine = <R extends Ring>(rings: R[], along: 0 | 1, cuts: number[]): R[] => {
  const out = [...rings];
  for (const cut of cuts) {
    for (let i = 0; i < out.length - 1; i++) {
      const a = out[i]!;
      const b = out[i + 1]!;
      const lo = Math.min(a.c[along], b.c[along]);
      const hi = Math.max(a.c[along], b.c[along]);
      if (cut <= lo || cut >= hi) continue;
      const t = (cut - a.c[along]) / (b.c[along] - a.c[along]);
      out.splice(i + 1, 0, {
        ...a,
        c: [lerp(a.c[0], b.c[0], t), lerp(a.c[1], b.c[1], t), lerp(a.c[2], b.c[2], t)],
        r: [lerp(a.r[0], b.r[0], t), lerp(a.r[1], b.r[1], t)],
      });
      break;
    }
  }
  return out;
};
