/**
 * Chromium's screenshots read back as pixels, so a browser test can look at what a user sees (a
 * poster's colours on its board, an avatar sheet's drawn cells) without an image library.
 *
 * ```ts
 * const shot = decodePng(await page.screenshot());
 * shot.pixels[(y * shot.width + x) * shot.channels]; // the red of pixel (x, y)
 * ```
 */
import { inflateSync } from 'node:zlib';
import { expect } from 'vitest';

export interface Image {
  width: number;
  height: number;
  channels: number;
  pixels: Uint8Array;
}

/** Decodes an 8-bit RGB or RGBA, non-interlaced PNG: what Chromium's screenshots are. */
export const decodePng = (png: Buffer): Image => {
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

/** How many pixels of `image` are within `tolerance` of `rgb` on every channel. */
export const pixelsNear = (image: Image, rgb: readonly [number, number, number], tolerance = 24): number => {
  let count = 0;
  for (let i = 0; i < image.pixels.length; i += image.channels) {
    if (Math.abs(image.pixels[i]! - rgb[0]) <= tolerance && Math.abs(image.pixels[i + 1]! - rgb[1]) <= tolerance && Math.abs(image.pixels[i + 2]! - rgb[2]) <= tolerance) count++;
  }
  return count;
};
