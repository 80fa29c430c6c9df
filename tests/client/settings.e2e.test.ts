/**
 * Issue 28, rooms that fit the scene, in headless Chromium against the real server: every shipped
 * scene's room, as its instructor sees it (every avatar in its setting), drawn at 1280×720 within
 * the draw-call budget (≤ 60 for a room of up to ten avatars), nothing loaded from outside the
 * origin and nothing thrown or logged (the suite checks after each test). Screenshots go to
 * test-artifacts/setting-<scene>.png for people to look at.
 *
 * One page walks through every scene, so the avatars load from its cache after the first.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { api } from '../server/helpers';
import { screenshot, testLink } from './browser';
import { browserSuite } from './pages';

const root = new URL('../../', import.meta.url).pathname;
const scenes = readdirSync(`${root}scenes`)
  .filter((file) => file.endsWith('.yaml'))
  .map((file) => {
    const scene = parse(readFileSync(`${root}scenes/${file}`, 'utf8')) as { participants: unknown[] };
    return { id: file.replace(/\.yaml$/, ''), people: scene.participants.length };
  });

const suite = browserSuite();

describe('rooms that fit the scene', () => {
  it('draws every scene’s setting at 1280×720 within 60 draw calls, from the origin alone', async () => {
    const page = await suite.open();
    for (const { id, people } of scenes) {
      const created = await api(suite.server, '/api/sessions', { method: 'POST', body: { scene: id, pace: 'realtime' } });
      expect(created.status, await created.clone().text()).toBe(201);
      const session = (await created.json()) as { id: string; tokens: Record<string, string> };
      await page.goto('about:blank');
      // Software WebGL on a busy machine: loading and drawing take their time, never a fixed one.
      await page.goto(testLink(`http://localhost:${suite.server.port}/room/${session.id}?token=${encodeURIComponent(session.tokens.observer!)}`, suite.server.port), { timeout: 120_000 });
      await page.waitForFunction((n) => window.__room?.stats().avatars === n, people, { timeout: 180_000 });
      // A second's stats with every avatar drawn.
      await page.waitForFunction((n) => {
        const stats = window.__room!.stats();
        return stats.avatars === n && stats.drawCalls > 0;
      }, people, { timeout: 60_000 });
      const { drawCalls } = await page.evaluate(() => window.__room!.stats());
      // The room is two draw calls (lit, glowing) and one per board; each avatar up to three and its tag.
      expect(drawCalls, `${id}: draw calls`).toBeLessThanOrEqual(60);
      expect(drawCalls, `${id}: draw calls`).toBeGreaterThanOrEqual(2 + people);
      await screenshot(page, `setting-${id}`, { timeout: 120_000 });
      expect((await api(suite.server, `/api/sessions/${session.id}`, { method: 'DELETE' })).status).toBe(200);
    }
  }, 1_800_000);
});
