/**
 * Issue 15, framing at the trainee's seat, in headless Chromium against the real server: in each of
 * the nine shipped scenes the scene's first human joins on a desktop at 1280×720 and at 1920×1080,
 * and once every avatar is built, every head (its posed head bones projected with the room's
 * camera, `window.__room.heads()`) is inside the viewport and clear of the HUD. No page may throw,
 * each scene's setting drawn within 60 draw calls (issue 28), no name tag drawn whole over a farther face,
 * and nothing may load from outside the origin. Screenshots go to
 * test-artifacts/framing-<scene>-1280.png. And a presenter moves the slides for everyone from
 * the controls under the room, and in VR (IWER) by pointing at the screen and pulling the trigger.
 *
 * One browser page walks through every scene, so the avatars load from its cache after the first.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { api, startChild, tempDir, type ChildServer } from '../server/helpers';
import { buildClient, launchBrowser, pageProblems, testLink, watchPage, screenshot } from './browser';

const root = new URL('../../', import.meta.url).pathname;
const sizes = [
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
];
const scenes = readdirSync(`${root}scenes`)
  .filter((file) => file.endsWith('.yaml'))
  .map((file) => {
    const scene = parse(readFileSync(`${root}scenes/${file}`, 'utf8')) as { participants: { id: string; kind: string }[] };
    return { id: file.replace(/\.yaml$/, ''), human: scene.participants.find((p) => p.kind === 'human')!.id, others: scene.participants.length - 1 };
  });

let server: ChildServer;
let browser: Browser;
let page: Page;
const problems = pageProblems();

beforeAll(async () => {
  await buildClient();
  server = await startChild(tempDir());
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: sizes[0]! });
  watchPage(page, server.port, problems);
}, 300_000);

afterEach(() => {
  expect(problems.thrown.splice(0), 'errors thrown in the page').toEqual([]);
  expect(problems.offOrigin.splice(0), 'requests that left the origin').toEqual([]);
  expect(problems.failed.splice(0), 'requests the server could not answer').toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (server) rmSync(server.dataDir, { recursive: true, force: true });
}, 60_000);

type Box = { x: number; y: number; width: number; height: number };
type Head = { participant: string; box: Box | null };

/** Each tag drawn whole that hides more than a tenth of a farther face, as "tag over face". */
const coveredFaces = (boxes: { participant: string; head: Box | null; tag: Box | null; depth: number; faded: boolean }[]): string[] =>
  boxes.flatMap((mine) =>
    !mine.tag || mine.faded
      ? []
      : boxes
          .filter((other) => other !== mine && other.head && other.depth > mine.depth)
          .filter(({ head }) => {
            const [a, b] = [mine.tag!, head!];
            const shared = Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)) * Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));
            return shared > 0.1 * b.width * b.height;
          })
          .map((other) => `${mine.participant}'s tag over ${other.participant}'s face`),
  );

const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Waits until the desktop view is framed for this viewport, with the HUD measured and every avatar built; then every head and the HUD. */
const framedHeads = async (size: { width: number; height: number }, avatars: number): Promise<{ heads: Head[]; hud: Box }> => {
  await page.waitForFunction(
    ({ width, height, avatars }) => {
      const room = window.__room;
      const framing = room?.framing();
      return room !== undefined && room.heads().length === avatars && framing?.width === width && framing.height === height && framing.covered.length > 0;
    },
    { ...size, avatars },
    { timeout: 120_000 },
  );
  // Two frames drawn with that camera (the room's own, capped: TEST_FPS): the heads are read as they are on screen.
  const drawn = await page.evaluate(() => window.__room!.stats().frames);
  await page.waitForFunction((n) => window.__room!.stats().frames >= n + 2, drawn, { timeout: 60_000, polling: 50 });
  const hud = await page.locator('aside.hud').boundingBox();
  expect(hud, 'the HUD is on screen').not.toBeNull();
  return { heads: await page.evaluate(() => window.__room!.heads()), hud: hud! };
};

describe('framing at the trainee’s seat', () => {
  it.each(scenes)('shows every head in $id, clear of the HUD, at 1280×720 and 1920×1080', async ({ id, human, others }) => {
    const created = await api(server, '/api/sessions', { method: 'POST', body: { scene: id, pace: 'realtime' } });
    expect(created.status, await created.clone().text()).toBe(201);
    const session = (await created.json()) as { id: string; links: Record<string, string> };
    // The last scene's room is left before resizing: software WebGL redraws it at every size.
    await page.goto('about:blank');
    await page.setViewportSize(sizes[0]!);
    // Software WebGL on a busy machine: loading and drawing take their time, never a fixed one.
    // Framing is read from the room's state and two frames drawn: two frames a second, each of them at up to 1920×1080 in software.
    await page.goto(testLink(session.links[human]!, server.port, { fps: 2 }), { timeout: 120_000 });

    let drawn: Promise<{ drawCalls: number }> | undefined;
    for (const size of sizes) {
      await page.setViewportSize(size);
      const { heads, hud } = await framedHeads(size, others);
      // The screenshot people look at is 1280×720; one at 1920×1080 costs 6-9 s of software rendering each.
      if (size.width === 1280) {
        // No name tag drawn whole over a farther face (a neighbour's over the chin across the table): it fades.
        await expect.poll(async () => coveredFaces(await page.evaluate(() => window.__room!.onScreen())), { timeout: 30_000, interval: 250 }).toEqual([]);
        await screenshot(page, `framing-${id}-${size.width}`, { timeout: 120_000 });
        // The scene's setting (issue 28) within the budget: the room is two draw calls (lit, glowing) and one per
        // board; each avatar up to three and its tag. A second's stats with every avatar drawn: the
        // stats after the first to count every avatar (that one may read the draw calls of a frame
        // drawn before the last avatar was in the scene, 2 under load). The stats come once a
        // second whatever the size: they are waited for while the room is framed at the next one.
        drawn = page
          .waitForFunction(
            (n) => {
              const stats = window.__room!.stats();
              const seen = window as unknown as { firstWithEveryAvatar?: object };
              if (stats.avatars < n || stats.drawCalls === 0) return false;
              seen.firstWithEveryAvatar ??= stats;
              return stats !== seen.firstWithEveryAvatar;
            },
            others,
            { timeout: 60_000, polling: 100 },
          )
          .then(() => page.evaluate(() => window.__room!.stats()));
        // Awaited below; a failure meanwhile is reported there, not as an unhandled rejection.
        drawn.catch(() => {});
      }
      for (const { participant, box } of heads) {
        expect(box, `${participant}'s head is in front of the camera`).not.toBeNull();
        const where = `${participant}'s head at ${size.width}×${size.height}: ${JSON.stringify(box)}, HUD ${JSON.stringify(hud)}`;
        expect(box!.x >= 0 && box!.y >= 0 && box!.x + box!.width <= size.width && box!.y + box!.height <= size.height, `${where} is inside the viewport`).toBe(true);
        expect(overlaps(box!, hud), `${where} is clear of the HUD`).toBe(false);
      }
    }
    const { drawCalls } = await drawn!;
    expect(drawCalls, `${id}: draw calls`).toBeLessThanOrEqual(60);
    expect(drawCalls, `${id}: draw calls`).toBeGreaterThanOrEqual(2 + others);
    expect((await api(server, `/api/sessions/${session.id}`, { method: 'DELETE' })).status).toBe(200);
  }, 400_000);

  it('lets the presenter move the slides for everyone from the controls under the room', async () => {
    const created = await api(server, '/api/sessions', { method: 'POST', body: { scene: 'conference-qa', pace: 'realtime' } });
    const session = (await created.json()) as { id: string; links: Record<string, string> };
    // Left at 1920×1080 by the framing; what is asserted here is the slides' state and the log, at any size.
    await page.goto('about:blank');
    await page.setViewportSize({ width: 640, height: 360 });
    await page.goto(testLink(session.links.nadia!, server.port), { timeout: 120_000 });
    await page.getByRole('button', { name: /^next slide/ }).click({ timeout: 120_000 });
    await page.waitForFunction(() => (window.__room!.state() as { slides: Record<string, number> }).slides['cool-roof-slides'] === 1, undefined, { timeout: 60_000 });
    await page.getByText('Slide 2 / 7').waitFor({ timeout: 60_000 });
    const log = (await (await api(server, `/api/sessions/${session.id}/events`)).text()).trim().split('\n').map((line) => JSON.parse(line) as { type: string });
    expect(log).toContainEqual(expect.objectContaining({ type: 'slide', content: 'cool-roof-slides', index: 1, by: 'nadia' }));

    // In the headset (a Quest 3 emulated by IWER): the trigger pulled while pointing at the right
    // of the screen shows the next slide, at its left third the previous one; elsewhere it talks.
    const slide = () => page.evaluate(() => (window.__room!.state() as { slides: Record<string, number> }).slides['cool-roof-slides']);
    const pull = async (across: number, expected: number) => {
      expect(await page.evaluate((x) => window.__room!.aim('cool-roof-slides', x), across)).toBe(true);
      // The pose is read on the next XR frames; the pull begins after it.
      const frames = await page.evaluate(() => window.__room!.vrFrames());
      await page.waitForFunction((n) => window.__room!.vrFrames() > n + 3, frames, { timeout: 60_000, polling: 50 });
      await page.evaluate(() => window.__room!.trigger(true));
      await page.waitForFunction((n) => (window.__room!.state() as { slides: Record<string, number> }).slides['cool-roof-slides'] === n, expected, { timeout: 60_000, polling: 50 });
      await page.evaluate(() => window.__room!.trigger(false));
      const released = await page.evaluate(() => window.__room!.vrFrames());
      await page.waitForFunction((n) => window.__room!.vrFrames() > n + 3, released, { timeout: 60_000, polling: 50 });
    };
    expect(await page.evaluate(() => window.__room!.enterVR())).toBe(true);
    await page.waitForFunction(() => window.__room!.vrFrames() > 10, undefined, { timeout: 60_000 });
    await pull(0.8, 2);
    await pull(0.1, 1);
    expect(await slide()).toBe(1);
    const after = (await (await api(server, `/api/sessions/${session.id}/events`)).text()).trim().split('\n').map((line) => JSON.parse(line) as { type: string });
    const slides = after.filter((e) => e.type === 'slide');
    expect(slides.slice(-2)).toEqual([
      expect.objectContaining({ content: 'cool-roof-slides', index: 2, by: 'nadia' }),
      expect.objectContaining({ content: 'cool-roof-slides', index: 1, by: 'nadia' }),
    ]);
    expect((await api(server, `/api/sessions/${session.id}`, { method: 'DELETE' })).status).toBe(200);
  }, 300_000);
});
