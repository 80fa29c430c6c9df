/**
 * Issue 17, compare (`/compare?sessions=…`) in headless Chromium against the real server: three
 * simulated stand-ups (instant pace, stand-ins, each its own seed) run to their end, ticked on the
 * sessions page (which says why it cannot compare one, or a stand-up with an interview), compared:
 * the table's values equal GET /api/compare's, the differences are listed, the radar and every bar
 * chart drawn. Too few sessions give a message, not an error. Simulated runs are added from their
 * report files (a file that is not a report is named), and two runs judged offline, from the
 * figures. No page may throw or log an error, and nothing may load from outside the origin.
 * Screenshots: test-artifacts/compare.png (1280×720), compare-files.png.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { formatFigure, type Comparison } from '../../shared/review/comparison';
import type { Report } from '../../shared/review/report';
import { api, createSession, type Created } from '../server/helpers';
import { screenshot } from './browser';
import { browserSuite, waitForChartsDrawn, waitForEnded } from './pages';

let runs: Created[] = [];
let interview: Created;
const suite = browserSuite({
  // Text only: at instant pace a session then runs to its end in a second or two.
  env: { SYNTHESIZER: 'none' },
  async setup(server) {
    runs = [];
    for (let i = 0; i < 3; i++) runs.push(await createSession(server, 'team-standup', 'instant', 'stand-ins'));
    interview = await createSession(server, 'job-interview', 'realtime', 'lobby');
    await waitForEnded(server, runs);
  },
});

const newPage = (): Promise<Page> => suite.open();

const tick = (page: Page, id: string) => page.locator(`tr[data-session="${id}"] td.pick input[type=checkbox]`);

describe('compare', () => {
  it('compares three runs ticked on the sessions page: the table equals the API, the radar and bars drawn', async () => {
    const page = await newPage();
    await page.goto(`http://localhost:${suite.server.port}/sessions`);
    await page.getByLabel('Admin token').fill(suite.server.admin);
    await page.getByRole('button', { name: 'Show sessions', exact: true }).click();
    await tick(page, runs[0]!.id).waitFor();
    const button = page.getByRole('button', { name: /^Compare selected/ });
    const note = page.locator('[data-compare-note]');

    expect(await button.isDisabled()).toBe(true);
    await tick(page, runs[0]!.id).check();
    expect(await note.textContent()).toMatch(/Tick one more session/);
    await tick(page, interview.id).check();
    expect(await button.isDisabled()).toBe(true);
    expect(await note.textContent()).toMatch(/Only sessions of one scene compare/);
    await tick(page, interview.id).uncheck();
    await tick(page, runs[1]!.id).check();
    await tick(page, runs[2]!.id).check();
    expect(await button.isDisabled()).toBe(false);
    await button.click();
    await page.waitForURL(/\/compare\?sessions=/);
    const ids = new URL(page.url()).searchParams.get('sessions')!.split(',');
    // Oldest first.
    expect(ids).toEqual(runs.map((r) => r.id));

    await page.locator('[data-page="compare"][data-state="comparison"]').waitFor({ timeout: 60_000 });
    await waitForChartsDrawn(page);
    const charts = await page.locator('[data-chart]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-chart')));
    expect(charts).toContain('radar');
    expect(charts.filter((c) => c!.startsWith('bars-')).length).toBeGreaterThanOrEqual(6);
    const radar = await page.locator('[data-chart="radar"] canvas').boundingBox();
    expect(radar!.width).toBeGreaterThan(0);
    expect(radar!.height).toBeGreaterThan(0);

    // The table shows the API's figures, each as the page formats it ("—" where a run has none).
    const res = await api(suite.server, `/api/compare?sessions=${ids.join(',')}`);
    expect(res.status).toBe(200);
    const comparison = (await res.json()) as Comparison;
    const cells = await page.locator('td[data-figure]').evaluateAll((tds) => tds.map((td) => ({ key: td.getAttribute('data-figure')!, run: Number(td.getAttribute('data-run')), text: td.textContent })));
    expect(cells).toHaveLength(comparison.figures.length * 3);
    for (const cell of cells) {
      const figure = comparison.figures.find((f) => f.key === cell.key)!;
      const value = comparison.sessions[cell.run]!.values[cell.key];
      expect(cell.text, `${cell.key} of run ${cell.run + 1}`).toBe(value === null || value === undefined ? '—' : formatFigure(value, figure.unit));
    }
    // Evenness is a spread: its row and its bar chart say lower is more even.
    expect(await page.locator('tr:has(td[data-figure="evenness"]) th').textContent()).toBe('Evenness (spread: lower is more even)');
    expect(await page.locator('[data-chart="bars-evenness"]').textContent()).toMatch(/lower is more even/);
    const listed = await page.locator('ul[data-differences] li').allTextContents();
    expect(listed).toEqual(comparison.differences);
    await screenshot(page, 'compare');
    await screenshot(page, 'compare-full', { fullPage: true });
  }, 300_000);

  it('asks for two sessions when given one, without an error', async () => {
    const page = await newPage();
    await page.goto(`http://localhost:${suite.server.port}/compare?sessions=${runs[0]!.id}`);
    await page.locator('[data-problem]').waitFor();
    expect(await page.locator('[data-problem]').textContent()).toMatch(/at least two sessions/);
  }, 60_000);

  it('compares the sessions that remain when one of the link was deleted, and names it', async () => {
    // The page asks GET /api/compare first and gets its 404 for the deleted one.
    suite.expectFailures(/^404 .*\/api\/compare\?/);
    const deleted = await createSession(suite.server, 'team-standup', 'instant', 'stand-ins');
    await waitForEnded(suite.server, [deleted]);
    expect((await api(suite.server, `/api/sessions/${deleted.id}?purge=true`, { method: 'DELETE' })).status).toBe(200);
    const page = await newPage();
    await page.goto(`http://localhost:${suite.server.port}/compare?sessions=${runs[0]!.id},${deleted.id},${runs[1]!.id}`);
    await page.getByLabel('Admin token').fill(suite.server.admin);
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    await page.locator('[data-page="compare"][data-state="comparison"]').waitFor({ timeout: 60_000 });
    expect(await page.locator('[data-gone]').getAttribute('data-gone')).toBe(deleted.id);
    expect(await page.locator('[data-gone]').textContent()).toBe(`Session "${deleted.id}" no longer exists (it was deleted). The others are compared without it.`);
    expect(await page.locator('td[data-figure="turns"]').count()).toBe(2);
    suite.problems.console.splice(0).forEach((line) => expect(line).toMatch(/status of 404/));

    // One left: a message naming the deleted one, not a comparison.
    await page.goto(`http://localhost:${suite.server.port}/compare?sessions=${runs[0]!.id},${deleted.id}`);
    await page.locator('[data-problem]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-problem]').textContent()).toMatch(new RegExp(`Session "${deleted.id}" no longer exists.*at least two sessions`));
    suite.problems.console.splice(0).forEach((line) => expect(line).toMatch(/status of 404/));
  }, 120_000);

  it('asks for the admin token, names the odd one out of mixed scenes, and shows "—" for a session nobody spoke in', async () => {
    suite.expectFailures(/^400 .*\/api\/compare\?/);
    const page = await newPage();
    await page.goto(`http://localhost:${suite.server.port}/compare?sessions=${runs[0]!.id},${interview.id}`);
    await page.getByLabel('Admin token').fill(suite.server.admin);
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    await page.locator('[data-problem]').waitFor();
    expect(await page.locator('[data-problem]').textContent()).toMatch(new RegExp(`Only sessions of one scene compare: "${interview.id}" is of job-interview`));
    // The browser logs the 400 it was meant to get; nothing else may be logged.
    const logged = suite.problems.console.splice(0);
    expect(logged.filter((line) => !/status of 400/.test(line))).toEqual([]);

    const lobby = await createSession(suite.server, 'team-standup', 'realtime', 'lobby');
    await page.goto(`http://localhost:${suite.server.port}/compare?sessions=${runs[0]!.id},${lobby.id}`);
    await page.locator('[data-page="compare"][data-state="comparison"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('.compare-runs li').nth(1).textContent()).toMatch(/nobody spoke/);
    expect(await page.locator('td[data-figure="evenness"][data-run="1"]').textContent()).toBe('—');
    expect(await page.locator('td[data-figure="turns"][data-run="1"]').textContent()).toBe('0');
    const pace = await page.locator('td[data-run="1"][data-figure$=":wordsPerMinute"]').allTextContents();
    expect(pace.length).toBeGreaterThan(0);
    expect(pace.every((cell) => cell === '—')).toBe(true);
  }, 60_000);

  it('adds simulated runs from their report files, names a file that is not a report, and judges two runs from the figures', async () => {
    // Report files as the simulator writes them: each run's report, as JSON.
    const dir = mkdtempSync(join(tmpdir(), 'compare-files-'));
    const files = [1, 2].map((k) => join(dir, `report-${k}.json`));
    const reports: Report[] = [];
    for (const [k, file] of files.entries()) {
      reports.push((await (await api(suite.server, `/api/sessions/${runs[k + 1]!.id}/report`)).json()) as Report);
      writeFileSync(file, JSON.stringify(reports[k], null, 2));
    }
    writeFileSync(join(dir, 'notes.json'), '{"turns": "many"}');

    const page = await newPage();
    await page.goto(`http://localhost:${suite.server.port}/compare?sessions=${runs[0]!.id}`);
    await page.locator('[data-problem]').waitFor();
    await page.getByLabel('Report files').setInputFiles([...files, join(dir, 'notes.json')]);
    await page.getByLabel('Admin token').fill(suite.server.admin);
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    await page.locator('[data-page="compare"][data-state="comparison"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-file-problems]').textContent()).toMatch(/^notes\.json is not a report \(/);
    const listed = await page.locator('.compare-runs li').allTextContents();
    expect(listed).toHaveLength(3);
    expect(listed[1]).toMatch(/Run 2 report-1\.json · a simulated run, from its report file/);
    expect(await page.locator('td[data-figure="turns"][data-run="2"]').textContent()).toBe(String(reports[1]!.turns));

    // Judged offline: a verdict per criterion from the figures, and the page says so.
    const panel = page.getByRole('region', { name: 'Judge two runs', exact: true });
    await panel.getByLabel('Second run').selectOption({ label: 'Run 3' });
    await panel.getByLabel('clarity').uncheck();
    await panel.getByRole('button', { name: 'Judge', exact: true }).click();
    await panel.locator('[data-judgement="rules"]').waitFor({ timeout: 30_000 });
    const rows = await panel.locator('tr[data-criterion]').evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-criterion'), tr.getAttribute('data-winner')]));
    expect(rows.map(([criterion]) => criterion)).toEqual(['turn-taking', 'on-topic', 'evenness']);
    for (const [, winner] of rows) expect(['a', 'b', 'tie']).toContain(winner);
    expect(await panel.locator('.byline').textContent()).toMatch(/^From the figures: without a generator key/);
    await screenshot(page, 'compare-files', { fullPage: true });
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});
