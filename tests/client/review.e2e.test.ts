/**
 * Issue 17, the review dashboard (`/review/<session>?token=`) in headless Chromium against the real
 * server: a simulated stand-up (instant pace, stand-ins in every human seat) run to its
 * end, then reviewed as its instructor (every chart drawn, a bar per utterance, a clicked bar's line
 * highlighted in the transcript, the headline figures equal to the report's, the exports saved
 * with the token), as one of its
 * participants (their report: nothing only instructors see), with a bad token (the link's problem
 * page) and for a session still in its lobby (the empty state). No page may throw or log an error,
 * and nothing may load from outside the origin. Screenshot: test-artifacts/review.png (1280×720, whole page).
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../shared/review/report';
import { createSession } from '../server/helpers';
import { screenshot } from './browser';
import { endedStandUpSuite, humanSeat } from './ended-stand-up';
import { waitForChartsDrawn } from './pages';

const standUp = endedStandUpSuite();
const { suite, newPage, reportOf } = standUp;

const review = (id: string, token: string) => `http://localhost:${suite.server.port}/review/${id}?token=${encodeURIComponent(token)}&test=1`;

/** Every chart drawn: a canvas of some size in each, and ECharts' own word that it finished. */
const waitForCharts = async (page: Page) => {
  await page.locator('.timeline[data-bars]').waitFor({ timeout: 60_000 });
  await waitForChartsDrawn(page);
};


describe('the review dashboard', () => {
  it("draws an ended session's timeline, transcript and charts for its instructor, in step", async () => {
    const report = await reportOf(standUp.ran.id, standUp.ran.tokens.observer!);
    const utterances = report.timeline.filter((item) => item.kind === 'utterance');
    expect(utterances.length).toBeGreaterThan(3);

    const page = await newPage();
    await page.goto(review(standUp.ran.id, standUp.ran.tokens.observer!));
    await waitForCharts(page);
    const charts = await page.locator('[data-chart]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-chart')));
    expect(charts).toEqual(['cumulative', 'pace', 'talk-share', 'turns', 'latency']);
    // An instant run: its times are simulated, and the page says so where they are shown.
    expect(report.pace).toBe('instant');
    expect(await page.locator('[data-simulated-time]').innerText()).toMatch(/instant pace, on simulated time/);
    expect(await page.locator('[data-chart="latency"]').innerText()).toMatch(/simulated time: instant pace/);
    expect(Number(await page.locator('.timeline').getAttribute('data-bars'))).toBe(utterances.length);
    expect(Number(await page.locator('.timeline').getAttribute('data-lanes'))).toBeGreaterThanOrEqual(report.participants.length);
    expect(await page.locator('.review-transcript li').count()).toBe(utterances.length);
    // Stand-ins in every human seat: each is marked so, not as a person who took part.
    const standIns = report.participants.filter((p) => p.kind === 'human' && p.turns > 0);
    expect(standIns.length).toBeGreaterThan(0);
    for (const p of standIns) {
      expect(p.simulated).toBe(true);
      expect(await page.locator(`tr[data-participant="${p.id}"] small`).innerText()).toBe('human (stand-in)');
    }

    // The headline figures are the report's.
    const figure = (id: string) => page.locator(`[data-figure="${id}"]`).getAttribute('data-value');
    expect(Number(await figure('duration'))).toBe(report.durationMs);
    expect(Number(await figure('turns'))).toBe(report.turns);
    expect(Number(await figure('breakdowns'))).toBe(report.breakdowns.count);
    expect(Number(await figure('interruptions'))).toBe(report.interruptions);
    expect(await figure('answered-next')).toBe(report.answeredNext === null ? '' : String(report.answeredNext));
    expect(await figure('answered')).toBe(report.answeredByContent == null ? '' : String(report.answeredByContent));
    expect(await figure('evenness')).toBe(report.evenness === null ? '' : String(report.evenness));
    expect(await page.locator('[data-figure="turns"] dd').first().innerText()).toBe(String(report.turns));

    // The exports need the token: fetched and saved as files, not plain links.
    for (const [file, starts] of [
      ['transcript.vtt', /^WEBVTT/],
      ['transcript.json', /^[[{]/],
      ['report.csv', /^\S+,/],
    ] as const) {
      const [saved] = await Promise.all([page.waitForEvent('download'), page.locator(`[data-export="${file}"]`).click()]);
      expect(saved.suggestedFilename()).toBe(`${standUp.ran.id.replace(/[^\w-]/g, '_')}-${file}`);
      expect(readFileSync((await saved.path())!, 'utf8')).toMatch(starts);
    }

    // A click on a bar late in the session: its line is highlighted, in view, and the playhead at its start.
    const target = utterances[utterances.length - 2]!;
    const point = await page.evaluate((id) => (window as unknown as { __review: { barPoint: (u: string) => { x: number; y: number } | null } }).__review.barPoint(id), target.utterance!);
    expect(point).not.toBeNull();
    await page.locator('.timeline').scrollIntoViewIfNeeded();
    const again = await page.evaluate((id) => (window as unknown as { __review: { barPoint: (u: string) => { x: number; y: number } | null } }).__review.barPoint(id), target.utterance!);
    await page.mouse.click(again!.x, again!.y);
    const line = page.locator(`.review-transcript li[data-utterance="${target.utterance}"]`);
    await expect.poll(() => line.getAttribute('class')).toBe('selected');
    expect(await page.locator('.review-transcript li.selected').count()).toBe(1);
    expect(await line.innerText()).toContain(target.text!.slice(0, 40));
    const visible = await line.evaluate((li) => {
      const box = li.parentElement!.getBoundingClientRect();
      const at = li.getBoundingClientRect();
      return at.top >= box.top - 1 && at.bottom <= box.bottom + 1;
    });
    expect(visible).toBe(true);
    await expect.poll(() => page.locator('.timeline').getAttribute('data-playhead')).toBe(String(target.startMs));

    // A click on a line moves the playhead to it.
    const first = utterances[1]!;
    await page.locator(`.review-transcript li[data-utterance="${first.utterance}"] button`).click();
    await expect.poll(() => page.locator('.timeline').getAttribute('data-playhead')).toBe(String(first.startMs));
    // Scrolling the transcript to its end moves the playhead later.
    await page.locator('.review-transcript').evaluate((list) => list.scrollTo({ top: list.scrollHeight }));
    await expect.poll(async () => Number(await page.locator('.timeline').getAttribute('data-playhead'))).toBeGreaterThan(first.startMs);

    // Dragging the scrub bar while paused: the line at the playhead is highlighted, and the playhead stays where it was dragged.
    expect(await page.locator('.player-controls').getAttribute('data-playing')).toBe('false');
    const scrubTo = utterances.slice(2).find((u) => Math.ceil((u.startMs + 1) / 100) * 100 < u.endMs - 100)!;
    const dragged = Math.ceil((scrubTo.startMs + 1) / 100) * 100;
    await page.locator('.scrub').evaluate((input, value) => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, String(value));
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }, dragged);
    await expect.poll(() => page.locator('.review-transcript li.selected').getAttribute('data-utterance')).toBe(scrubTo.utterance);
    await expect.poll(() => page.locator('.timeline').getAttribute('data-playhead')).toBe(String(dragged));

    // Back to the bar, for the screenshot.
    await page.locator('.timeline').scrollIntoViewIfNeeded();
    const last = await page.evaluate((id) => (window as unknown as { __review: { barPoint: (u: string) => { x: number; y: number } | null } }).__review.barPoint(id), target.utterance!);
    await page.mouse.click(last!.x, last!.y);
    await expect.poll(() => line.getAttribute('class')).toBe('selected');
    await page.mouse.move(0, 0);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'review', { fullPage: true });
    await screenshot(page, 'review-top');
  }, 300_000);

  it("shows a participant their session's review, without what only instructors see", async () => {
    const seat = humanSeat(standUp.ran);
    const theirs = await reportOf(standUp.ran.id, standUp.ran.tokens[seat]!);
    const instructors = await reportOf(standUp.ran.id, standUp.ran.tokens.observer!);
    expect(theirs.timeline.some((item) => item.audience === 'observers')).toBe(false);
    const page = await newPage();
    await page.goto(review(standUp.ran.id, standUp.ran.tokens[seat]!));
    await waitForCharts(page);
    expect(await page.locator('.review-head').innerText()).toMatch(/your view as a participant/);
    expect(await page.locator(`tr[data-participant="${seat}"]`).getAttribute('class')).toBe('you');
    const markers = (r: Report) => r.timeline.filter((i) => (i.kind === 'utterance' && i.pair === 'question') || ['interruption', 'instructor', 'system'].includes(i.kind)).length;
    expect(Number(await page.locator('.timeline').getAttribute('data-markers'))).toBe(markers(theirs));
    expect(markers(theirs)).toBeLessThanOrEqual(markers(instructors));
  }, 120_000);

  it('says what is wrong with a bad token, and shows an empty state for a session nobody has spoken in', async () => {
    suite.expectFailures(/^401 .*\/api\/sessions\//);
    const bad = await newPage();
    const token = standUp.ran.tokens.observer!;
    await bad.goto(review(standUp.ran.id, token.slice(0, -2) + (token.endsWith('A') ? 'BB' : 'AA')));
    await bad.locator('[data-page="unauthorized"]').waitFor({ timeout: 30_000 });
    expect(await bad.locator('h1').innerText()).toBe('This link is not valid');
    // The browser logs the 401 it was meant to get; nothing else may be logged.
    suite.problems.console = suite.problems.console.filter((line) => !/status of 401/.test(line));

    // No token: the link's problem, and nothing asked of the server's API (no 401 logged).
    const bare = await newPage();
    const asked: string[] = [];
    bare.on('request', (request) => asked.push(request.url()));
    await bare.goto(`http://localhost:${suite.server.port}/review/${standUp.ran.id}`);
    await bare.locator('main').waitFor({ timeout: 30_000 });
    await bare.waitForLoadState('networkidle');
    expect(asked.filter((url) => url.includes('/api/'))).toEqual([]);

    const lobby = await createSession(suite.server, 'job-interview', 'realtime', 'lobby');
    const page = await newPage();
    await page.goto(review(lobby.id, lobby.tokens.observer!));
    await page.locator('[data-empty]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-page="review"]').getAttribute('data-state')).toBe('empty');
    expect(await page.locator('[data-figure="turns"]').getAttribute('data-value')).toBe('0');
    expect(await page.locator('.timeline').count()).toBe(0);
    await screenshot(page, 'review-empty');
  }, 120_000);

  it('is opened from an ended session\'s page and from the sessions page', async () => {
    const page = await newPage();
    await page.goto(`http://localhost:${suite.server.port}/room/${standUp.ran.id}?token=${encodeURIComponent(standUp.ran.tokens.observer!)}`);
    const open = page.getByRole('link', { name: 'Open the review', exact: true });
    await open.waitFor({ timeout: 30_000 });
    expect(await open.getAttribute('href')).toBe(`/review/${standUp.ran.id}?token=${encodeURIComponent(standUp.ran.tokens.observer!)}`);
    await open.click();
    await page.locator('[data-page="review"]').waitFor({ timeout: 30_000 });

    const sessions = await newPage();
    await sessions.goto(`http://localhost:${suite.server.port}/sessions`);
    await sessions.getByLabel('Admin token').fill(suite.server.admin);
    await sessions.getByRole('button', { name: 'Show sessions', exact: true }).click();
    const row = sessions.locator(`tr[data-session="${standUp.ran.id}"]`);
    const [opened] = await Promise.all([sessions.context().waitForEvent('page'), row.getByRole('button', { name: 'Review', exact: true }).click()]);
    suite.adopt(opened);
    await opened.waitForURL(new RegExp(`/review/${standUp.ran.id}\\?token=`));
    await opened.locator('[data-page="review"]').waitFor({ timeout: 30_000 });
  }, 120_000);
});
