/**
 * Issue 29 in the 3D replay (`/replay/<session>`), in headless Chromium against the real server: an
 * author makes a scene through the editor's API (admin token) with a poster whose content is an
 * uploaded PNG, a session of it runs to its end (instant pace, stand-ins, text only), and its replay
 * shows the image on the poster's board: the PNG's two colours, found in the screenshot's pixels
 * inside the board's box on the page (`window.__replay.board`) and nowhere else, read with the
 * replay link's own token. And issue 28 there: every name tag sits just above its own head, not
 * beside it nor hidden behind a nearer head (`window.__replay.onScreen`). Checked at 640×360;
 * one screenshot at 1280×720: test-artifacts/replay-board.png. Nothing may load from off the origin.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { OnScreen, PageBox } from '../../client/src/scene/on-screen';
import { api, type Created } from '../server/helpers';
import { decodePng, type Image } from '../png';
import { screenshot, testPage } from './browser';
import { browserSuite, waitForEnded } from './pages';

const scene = 'replay-poster';
let ran: Created;
let file: string;
let png: Buffer;
const suite = browserSuite({
  // Text only: at instant pace the session runs to its end in a second or two.
  env: { SYNTHESIZER: 'none' },
  async setup(server, browser) {
    png = await posterPng(await browser.newPage());
    // A scene from the discussion template, saved before a file can be added to it.
    const made = await api(server, '/api/scenes', { method: 'POST', body: { template: 'discussion', id: scene, title: 'Pay bands' } });
    expect(made.status, await made.clone().text()).toBe(201);
    const uploaded = await fetch(`${server.base}/api/scenes/${scene}/uploads`, { method: 'POST', headers: { authorization: `Bearer ${server.admin}`, 'content-type': 'image/png' }, body: new Uint8Array(png) });
    expect(uploaded.status, await uploaded.clone().text()).toBe(201);
    file = ((await uploaded.json()) as { file: string }).file;
    // The poster with the image, and a shorter session than the template's.
    const opened = await fetch(`${server.base}/api/scenes/${scene}`, { headers: { authorization: `Bearer ${server.admin}`, accept: 'application/json' } });
    const draft = (await opened.json()) as { turnTaking: Record<string, unknown> } & Record<string, unknown>;
    const saved = await fetch(`${server.base}/api/scenes/${scene}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${server.admin}`, 'content-type': 'application/json', 'if-match': opened.headers.get('etag')! },
      body: JSON.stringify({ ...draft, turnTaking: { ...draft.turnTaking, maxTurns: 10 }, contents: [{ id: 'bands', kind: 'poster', title: 'Pay bands 2025', file }] }),
    });
    expect(saved.status, await saved.clone().text()).toBe(200);
    const created = await api(server, '/api/sessions', { method: 'POST', body: { scene, pace: 'instant', standIns: true } });
    expect(created.status, await created.clone().text()).toBe(201);
    ran = (await created.json()) as Created;
    await waitForEnded(server, [ran]);
  },
});

/** The poster's two blocks: a magenta and a cyan found nowhere else in any room. */
const posterColours = [
  [0xd8, 0x1b, 0xd8],
  [0x1b, 0xd8, 0xd8],
] as const;

/** A poster's image, drawn in a page: a PNG as an author would export one, half of it in each colour. */
const posterPng = async (page: Page): Promise<Buffer> => {
  const data = await page.evaluate((colours) => {
    const canvas = Object.assign(document.createElement('canvas'), { width: 480, height: 320 });
    const ctx = canvas.getContext('2d')!;
    colours.forEach(([r, g, b], i) => {
      ctx.fillStyle = `rgb(${r}, ${g}, ${b})`;
      ctx.fillRect(i * 240, 0, 240, 320);
    });
    return canvas.toDataURL('image/png');
  }, posterColours as unknown as number[][]);
  await page.close();
  return Buffer.from(data.replace(/^data:image\/png;base64,/, ''), 'base64');
};

/** Pixels of `image` within 24 of `rgb` on every channel, inside `box` and outside it. */
const colourIn = (image: Image, rgb: readonly number[], box: PageBox): { inside: number; outside: number } => {
  const counts = { inside: 0, outside: 0 };
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const i = (y * image.width + x) * image.channels;
      if (![0, 1, 2].every((c) => Math.abs(image.pixels[i + c]! - rgb[c]!) <= 24)) continue;
      const inside = x >= box.x && x <= box.x + box.width && y >= box.y && y <= box.y + box.height;
      counts[inside ? 'inside' : 'outside']++;
    }
  }
  return counts;
};

const openReplay = async (page: Page): Promise<void> => {
  await page.goto(testPage(suite.server.port, `/replay/${ran.id}`, { token: ran.tokens.observer! }));
  await page.locator('[data-page="replay"]').waitFor({ timeout: 60_000 });
  await page.waitForFunction(() => window.__replay?.stats().avatars === 3 && window.__replay.stats().drawCalls > 0, undefined, { timeout: 90_000 });
};

type Box = PageBox;
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe('the 3D replay of a scene with an uploaded poster', () => {
  it("shows the uploaded image on the poster's board, read with the replay link's token", async () => {
    const page = await suite.open();
    await page.setViewportSize({ width: 640, height: 360 });
    const read = page.waitForResponse((res) => res.url().endsWith(`/api/uploads/${file}`), { timeout: 90_000 });
    await openReplay(page);
    const answered = await read;
    expect(answered.status()).toBe(200);
    expect(answered.request().headers()['authorization']).toBe(`Bearer ${ran.tokens.observer}`);
    expect(answered.headers()['content-type']).toBe('image/png');

    const board = (await page.evaluate(() => window.__replay!.board('bands')))!;
    expect(board, "the poster's board is in front of the camera").not.toBeNull();
    expect(board.x + board.width > 0 && board.x < 640 && board.y + board.height > 0 && board.y < 360, `the board ${JSON.stringify(board)} is on screen`).toBe(true);
    // Both colours drawn by the renderer inside the board's box (a texture redrawn once the image has loaded), none elsewhere.
    const shown = async () => {
      const shot = decodePng(await page.screenshot());
      return posterColours.map((rgb) => colourIn(shot, rgb, board));
    };
    await expect.poll(async () => Math.min(...(await shown()).map((c) => c.inside)), { timeout: 30_000 }).toBeGreaterThan(40);
    for (const { inside, outside } of await shown()) expect(outside, `pixels of the poster's colours outside its board (${inside} inside)`).toBeLessThanOrEqual(inside / 50);

    // Every name tag just above its own head: across, over the head's box; up, above its top by less than a head's height.
    const boxes = (await page.evaluate(() => window.__replay!.onScreen())) as OnScreen[];
    expect(boxes).toHaveLength(3);
    for (const { participant, head, tag, depth } of boxes) {
      const where = `${participant}: tag ${JSON.stringify(tag)}, head ${JSON.stringify(head)}`;
      expect(head && tag, where).toBeTruthy();
      const middle = tag!.x + tag!.width / 2;
      expect(middle >= head!.x && middle <= head!.x + head!.width, `${where}: the tag is over the head`).toBe(true);
      expect(tag!.y + tag!.height, `${where}: the tag is above the head`).toBeLessThanOrEqual(head!.y + 1);
      expect(head!.y - (tag!.y + tag!.height), `${where}: the tag is near the head`).toBeLessThan(head!.height);
      for (const other of boxes) if (other.depth < depth && other.head) expect(overlaps(tag!, other.head), `${where}: hidden behind ${other.participant}'s head`).toBe(false);
    }

    // What people look at: the same replay at 1280×720 (its view is framed for the window it opens in).
    await page.setViewportSize({ width: 1280, height: 720 });
    await openReplay(page);
    await expect.poll(async () => Math.min(...(await shown()).map((c) => c.inside + c.outside)), { timeout: 30_000 }).toBeGreaterThan(40);
    await screenshot(page, 'replay-board');
  }, 300_000);
});
