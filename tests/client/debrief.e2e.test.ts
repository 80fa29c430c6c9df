/**
 * Issue 17, the trainee's debrief (`/debrief/<session>?token=`) in headless Chromium against the
 * real server: a simulated stand-up (instant pace, stand-ins in every human seat) run to its end,
 * then debriefed for one human seat: the figures equal that seat's report, three observations
 * shown, a moment's link opens the review with the playhead there; printed, no buttons. Opened from
 * the ended session's page ("Your debrief") and, as the instructor, with a picker of human seats.
 * A session nobody spoke in gets plain words. Offline (the scripted generator), the written
 * feedback is the rules' and says so, and a question is answered with the transcript's most
 * related lines, linked into the review. No page may throw or log an error. Screenshots:
 * test-artifacts/debrief.png, debrief-print.png, debrief-empty.png.
 */
import { describe, expect, it } from 'vitest';
import type { Debrief } from '../../shared/review/answers';
import { api, createSession } from '../server/helpers';
import { screenshot } from './browser';
import { endedStandUpSuite, humanSeat } from './ended-stand-up';

const standUp = endedStandUpSuite();
const { suite, newPage, reportOf } = standUp;

const debrief = (id: string, token: string) => `http://localhost:${suite.server.port}/debrief/${id}?token=${encodeURIComponent(token)}`;

describe("the trainee's debrief", () => {
  it("shows a seat's figures from its report, three observations linked into the review, and prints without buttons", async () => {
    const seat = humanSeat(standUp.ran);
    const token = standUp.ran.tokens[seat]!;
    const report = await reportOf(standUp.ran.id, token);
    const you = report.participants.find((p) => p.id === seat)!;
    expect(you.turns).toBeGreaterThan(0);

    const page = await newPage();
    await page.goto(debrief(standUp.ran.id, token));
    await page.locator('[data-page="debrief"]').waitFor({ timeout: 60_000 });
    expect(await page.locator('[data-page="debrief"]').getAttribute('data-seat')).toBe(seat);
    const figure = (id: string) => page.locator(`[data-figure="${id}"]`).getAttribute('data-value');
    const raw = (value: number | null) => (value === null ? '' : String(value));
    expect(await figure('share')).toBe(String(you.speakingShare));
    // Pace, fillers and response time are the seat's speech only (the debrief's): a stand-in's simulated lines have none.
    const read = await api(suite.server, `/api/sessions/${standUp.ran.id}/debrief`, { token });
    expect(read.status).toBe(200);
    const debriefed = (await read.json()) as Debrief;
    expect(debriefed.speech.wordsPerMinute).toBeNull();
    expect(await figure('pace')).toBe('');
    expect(await page.locator('[data-figure="pace"] [data-unmeasured]').innerText()).toBe('Simulated — no pace measured.');
    expect(await figure('fillers')).toBe('');
    expect(await figure('latency')).toBe('');
    expect(await figure('questions')).toBe(String(you.questionsAnswered));
    expect(await page.locator('[data-figure="questions"] .value').innerText()).toBe(`${you.questionsAnswered} of ${you.questionsReceived}`);
    // Beside it, the questions their reply answered by content.
    expect(await figure('answers')).toBe(String(debriefed.questions.byContent!.answered));
    expect(await page.locator('[data-figure="answers"] .value').innerText()).toBe(`${debriefed.questions.byContent!.answered} of ${debriefed.questions.byContent!.questions}`);
    expect(await figure('interruptions')).toBe(String(you.interruptionsMade));
    expect(await figure('gaze')).toBe(raw(you.gazeAtSpeakerShare));
    // Nobody joined: the simulation played the seat, and the page says so instead of speaking of a person.
    expect(you.simulated).toBe(true);
    expect(await page.locator('[data-stand-in]').innerText()).toBe('This seat was played by the simulation (a stand-in): these figures describe the stand-in, not a person.');
    expect(await page.locator('h1').innerText()).not.toMatch(/here is how it went/);
    expect(await page.locator('[data-figure="gaze"]').innerText()).toMatch(/Not measured: nobody joined this seat/);
    expect(await page.locator('[data-page="debrief"]').innerText()).not.toMatch(/you joined on a desktop/);

    // The pace chart drawn, when they spoke (a stand-in's simulated lines have no pace).
    if (debriefed.speech.wordsPerMinute !== null) {
      await page.waitForFunction(() => {
        const chart = document.querySelector('.pace-chart');
        const canvas = chart?.querySelector('canvas');
        return chart?.getAttribute('data-drawn') === 'true' && !!canvas && canvas.width > 0;
      }, undefined, { timeout: 30_000 });
    }

    // Up to three: a positive is said only when it is true (a share within a quarter of the expected one…).
    const shown = await page.locator('.observations li').count();
    expect(shown).toBeGreaterThanOrEqual(1);
    expect(shown).toBeLessThanOrEqual(3);
    expect(await page.locator('.observations').getAttribute('data-observations')).toBe(String(shown));

    await screenshot(page, 'debrief', { fullPage: true });

    // Printed: no buttons or navigation, no question box, the chart kept.
    await page.locator('.written-feedback[data-feedback="rules"]').waitFor({ timeout: 30_000 });
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('.question-box').isVisible()).toBe(false);
    expect(await page.locator('.written-feedback').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Print or save as PDF', exact: true }).isVisible()).toBe(false);
    expect(await page.getByRole('link', { name: 'Open the review', exact: true }).isVisible()).toBe(false);
    expect(await page.getByText('Click a time to open the review').isVisible()).toBe(false);
    expect(await page.locator('.pace-chart').count()).toBe(0);
    await screenshot(page, 'debrief-print', { fullPage: true });
    await page.emulateMedia({ media: 'screen' });

    // A moment's link opens the review with the playhead at it (a seat that spoke has at least one: a problem's or its longest turn).
    const links = page.locator('.observations a[data-moment]');
    expect(await links.count()).toBeGreaterThan(0);
    const moment = Number(await links.first().getAttribute('data-moment'));
    await links.first().click();
    await page.waitForURL(new RegExp(`/review/${standUp.ran.id}\\?token=.*&t=${moment}$`));
    await page.locator('.timeline[data-bars]').waitFor({ timeout: 60_000 });
    expect(await page.locator('.timeline').getAttribute('data-playhead')).toBe(String(moment));
    expect(await page.locator('.review-transcript li.selected').count()).toBe(1);
  }, 300_000);

  it("is opened from the ended session's page, and shows an instructor a picker of the human seats", async () => {
    const seat = humanSeat(standUp.ran);
    const token = standUp.ran.tokens[seat]!;
    const page = await newPage();
    await page.goto(`http://localhost:${suite.server.port}/room/${standUp.ran.id}?token=${encodeURIComponent(token)}`);
    const open = page.getByRole('link', { name: 'Your debrief', exact: true });
    await open.waitFor({ timeout: 30_000 });
    expect(await open.getAttribute('href')).toBe(`/debrief/${standUp.ran.id}?token=${encodeURIComponent(token)}`);
    await open.click();
    await page.locator('[data-page="debrief"]').waitFor({ timeout: 30_000 });

    const report = await reportOf(standUp.ran.id, standUp.ran.tokens.observer!);
    const humans = report.participants.filter((p) => p.kind === 'human');
    const instructor = await newPage();
    await instructor.goto(debrief(standUp.ran.id, standUp.ran.tokens.observer!));
    await instructor.locator('[data-page="debrief"]').waitFor({ timeout: 30_000 });
    const picker = instructor.getByLabel('Participant');
    expect(await picker.locator('option').count()).toBe(humans.length);
    expect(await instructor.locator('[data-page="debrief"]').getAttribute('data-seat')).toBe(humans[0]!.id);
    if (humans.length > 1) {
      await picker.selectOption(humans[1]!.id);
      await expect.poll(() => instructor.locator('[data-page="debrief"]').getAttribute('data-seat')).toBe(humans[1]!.id);
      expect(await instructor.locator('[data-figure="share"]').getAttribute('data-value')).toBe(String(humans[1]!.speakingShare));
    }

    // A session nobody has spoken in: plain words, no figures that do not exist, no error.
    const lobby = await createSession(suite.server, 'job-interview', 'realtime', 'lobby');
    const waiting = await newPage();
    await waiting.goto(debrief(lobby.id, lobby.tokens[humanSeat(lobby)]!));
    await waiting.locator('[data-page="debrief"]').waitFor({ timeout: 30_000 });
    expect(await waiting.locator('.observations li').innerText()).toMatch(/Nobody spoke in this session/);
    expect(await waiting.locator('[data-figure="pace"]').innerText()).toMatch(/Not measured: you did not speak/);
    expect(await waiting.locator('[data-figure="gaze"]').innerText()).toMatch(/Not measured/);
    await screenshot(waiting, 'debrief-empty', { fullPage: true });
  }, 120_000);

  it('writes the feedback from the figures offline, and answers a question with links to the moments', async () => {
    const seat = humanSeat(standUp.ran);
    const token = standUp.ran.tokens[seat]!;
    const report = await reportOf(standUp.ran.id, token);
    const page = await newPage();
    await page.goto(debrief(standUp.ran.id, token));
    const written = page.locator('.written-feedback[data-feedback="rules"]');
    await written.waitFor({ timeout: 30_000 });
    const you = report.participants.find((p) => p.id === seat)!;
    expect(await written.locator('.paragraph').textContent()).toMatch(new RegExp(`^You took ${you.turns} turns? \\(${you.turns} by the stand-in\\) and ${Math.round(you.speakingShare * 100)}% of the talk`));
    expect(await written.locator('.byline').textContent()).toMatch(/^From the figures: rule-based/);

    // Words of a line someone said (not in the first person: that would look at the asker's own lines first): the answer offers it among at most three moments, each a link into the review.
    const line = report.timeline.find((i) => i.kind === 'utterance' && (i.text ?? '').split(' ').length >= 6 && !/\b(i|i'm|i've|i'd|me|my|mine|myself)\b/i.test(i.text ?? ''))!;
    const question = page.getByLabel('Your question');
    await question.fill(`When was it said that ${line.text!.toLowerCase()}`);
    await question.press('Enter');
    const answer = page.locator('.question-box [data-answer="rules"]');
    await answer.waitFor({ timeout: 30_000 });
    expect(await answer.locator('p').first().textContent()).toBe('These moments look relevant:');
    const moments = answer.locator('a[data-moment]');
    expect(await moments.count()).toBeGreaterThan(0);
    expect(await moments.count()).toBeLessThanOrEqual(3);
    expect(await moments.evaluateAll((links) => links.map((a) => a.getAttribute('data-moment')))).toContain(String(line.startMs));
    expect(await moments.first().getAttribute('href')).toMatch(new RegExp(`^/review/${standUp.ran.id}\\?token=.*&t=\\d+$`));
  }, 60_000);
});
