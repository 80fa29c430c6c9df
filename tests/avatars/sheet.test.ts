/**
 * The contact sheet of the shipped avatars: one cell per avatar, every other one speaking viseme_aa,
 * and something drawn in every cell. Renders with the real Chromium, so it takes a few seconds.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderSheet } from '../../avatars/generator/sheet';
import { decodePng, type Image } from '../png';

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
