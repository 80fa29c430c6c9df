/**
 * The contact sheet of the shipped avatars: one cell per avatar, every other one speaking viseme_aa,
 * and something drawn in every cell. Renders with the real Chromium, so it takes a few seconds.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { renderSheet } from '../../avatars/generator/sheet';

interface Image {
  width: number;
  height: number;
  channels: number;
  pixels: Uint8Array;
}

/** Decodes an 8-bit RGB or RGBA, non-interlaced PNG: what Chromium's screenshots are. */
const decodePng = (png: Buffer): Image => {
  expect(png.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10])), 'PNG signature').toBe(true);
  const header = png.subarray(16, 29);
  const [width, height] = [header.readUInt32BE(0), header.readUInt32BE(4)];
  const [depth, colorType, interlace] = [header[8], header[9], header[12]];
  expect(depth, 'bit depth').toBe(8);
  expect([2, 6], 'colour type: RGB or RGBA').toContain(colorType);
  expect(interlace, 'interlace method').toBe(0);
  const channels = colorType === 6 ? 4 : 3;

  const chunks: Buffer[] = [];
  for (let offset = 8; offset < png.length; ) {
    const length = png.readUInt32BE(offset);
    if (png.toString('latin1', offset + 4, offset + 8) === 'IDAT') chunks.push(png.subarray(offset + 8, offset + 8 + length));
    offset += 12 + length;
  }
  const filtered = inflateSync(Buffer.concat(chunks));

  // Undo each scanline's filter (PNG spec §9.2): left a, up b, up-left c.
  const stride = width * channels;
  const pixels = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = filtered[y * (stride + 1)];
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? pixels[y * stride + x - channels]! : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels]! : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const predicted = [0, a, b, (a + b) >> 1, paeth][filter ?? 0] ?? 0;
      pixels[y * stride + x] = (filtered[y * (stride + 1) + 1 + x]! + predicted) & 0xff;
    }
  }
  return { width, height, channels, pixels };
};

/** Share of a rectangle's pixels that differ from its most common colour, the cell's background. */
const drawnShare = (image: Image, rect: { x: number; y: number; width: number; height: number }): number => {
  const colours = new Map<number, number>();
  const rgb = (x: number, y: number): [number, number, number] => {
    const i = (y * image.width + x) * image.channels;
    return [image.pixels[i]!, image.pixels[i + 1]!, image.pixels[i + 2]!];
  };
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    for (let x = rect.x; x < rect.x + rect.width; x++) {
      const [r, g, b] = rgb(x, y);
      const key = (r << 16) | (g << 8) | b;
      colours.set(key, (colours.get(key) ?? 0) + 1);
    }
  }
  const background = [...colours].reduce((most, entry) => (entry[1] > most[1] ? entry : most))[0];
  const [br, bg, bb] = [background >> 16, (background >> 8) & 0xff, background & 0xff];
  let drawn = 0;
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    for (let x = rect.x; x < rect.x + rect.width; x++) {
      const [r, g, b] = rgb(x, y);
      if (Math.max(Math.abs(r - br), Math.abs(g - bg), Math.abs(b - bb)) > 12) drawn++;
    }
  }
  return drawn / (rect.width * rect.height);
};

const manifest = JSON.parse(readFileSync('avatars/manifest.json', 'utf8')) as { avatars: { id: string }[] };
const dir = mkdtempSync(join(tmpdir(), 'avatar-sheet-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the contact sheet', () => {
  it('draws every avatar of the manifest in its own cell, every other one saying "aa"', async () => {
    const out = join(dir, 'sheet.png');
    const sheet = await renderSheet({ avatarsDir: 'avatars', out });

    expect(sheet.cells.map((c) => c.id)).toEqual(manifest.avatars.map((a) => a.id));
    expect(sheet.cells.filter((c) => c.viseme).length).toBe(Math.floor(manifest.avatars.length / 2));

    const image = decodePng(readFileSync(out));
    expect({ width: image.width, height: image.height }).toEqual({ width: sheet.width, height: sheet.height });
    for (const cell of sheet.cells) {
      expect(cell.x + cell.width <= image.width && cell.y + cell.height <= image.height, `${cell.id} lies inside the sheet`).toBe(true);
      // The body fills about a fifth of the upper half, the face a quarter of the lower half; a missing view leaves a few percent.
      const half = Math.floor(cell.height / 2);
      expect(drawnShare(image, { ...cell, height: half }), `drawn share of ${cell.id}'s upper half (full body)`).toBeGreaterThan(0.1);
      expect(drawnShare(image, { ...cell, y: cell.y + half, height: half }), `drawn share of ${cell.id}'s lower half (face)`).toBeGreaterThan(0.1);
    }
  }, 60_000);

  it('shows one avatar once per morph target, and each target changes its face', async () => {
    const out = join(dir, 'morphs.png');
    const sheet = await renderSheet({ avatarsDir: 'avatars', out, morphsOf: 'avatar-04' });
    expect(sheet.cells).toHaveLength(24); // at rest, then the 23 targets
    expect(sheet.cells.every((c) => c.id === 'avatar-04')).toBe(true);
    const image = decodePng(readFileSync(out));
    const face = (cell: (typeof sheet.cells)[number]) => {
      const top = cell.y + Math.floor(cell.height * 0.62);
      const rows: number[] = [];
      for (let y = top; y < cell.y + cell.height; y++) {
        for (let x = cell.x; x < cell.x + cell.width; x++) rows.push(...image.pixels.subarray((y * image.width + x) * image.channels, (y * image.width + x) * image.channels + 3));
      }
      return rows;
    };
    const rest = face(sheet.cells[0]!);
    sheet.cells.slice(1).forEach((cell, i) => {
      const changed = face(cell).filter((v, k) => Math.abs(v - rest[k]!) > 24).length / 3;
      expect(changed, `pixels of the face changed by morph target #${i + 1}`).toBeGreaterThan(20);
    });
  }, 60_000);
});
