/**
 * Issue 17 parts 2 and 4, playback in the review (`/review/<session>`) and the 3D replay
 * (`/replay/<session>`) in headless Chromium against the real server: a simulated stand-up
 * (instant pace, stand-ins in every human seat) run to its end, then played.
 *
 * Two sources of recordings. The server's own (`GET /api/sessions/:id/recordings`, the embedded
 * eSpeak voice's): every persona line is listed on the report's clock, audio is scheduled and the
 * speaker's mouth moves. And a stand-in for it served by the test (page.route:
 * a recording per persona line, a tone of the line's length with viseme cues, one file missing), so
 * a missing file is checked too. No page may throw
 * or log an error, and nothing may load from outside the origin. Screenshots (1280×720):
 * test-artifacts/replay.png, replay-2x.png, replay-end.png, replay-interview.png (a job interview's
 * candidate and panel), review-playback-top.png (and review-playback.png, the whole page).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { visemes } from '../../shared/visemes';
import { encodeWav } from '../../shared/wav';
import type { Report, TimelineItem } from '../../shared/review/report';
import type { Recording, Recordings } from '../../client/src/review/player';
import type { ReplayData } from '../../shared/review/replay';
import { placeEvents } from '../../client/src/replay/replay';
import { api, Client, closeClients, createSession, logOf, type Created } from '../server/helpers';
import { screenshot, testPage } from './browser';
import { browserSuite, endedStandUp, reportOf, waitForEnded } from './pages';

let ran: Created;
let report: Report;
const suite = browserSuite({
  // The embedded eSpeak voice: an instant session's lines are synthesized, and recorded, all the same.
  async setup(server) {
    ran = await endedStandUp(server);
    const res = await api(server, `/api/sessions/${ran.id}/report`, { token: ran.tokens.observer! });
    report = (await res.json()) as Report;
  },
  // Failed answers every test expects: the stand-in's missing file.
  expected: [/^404 .*\/recordings\/[^/]+\.wav/],
  // The browser logs the 404 it was meant to get (the stand-in's missing file); nothing else may be logged.
  settle: (problems) => {
    problems.console = problems.console.filter((line) => !/status of 404/.test(line));
  },
});

type Line = TimelineItem & { utterance: string; participant: string };
const lines = (): Line[] => report.timeline.filter((i): i is Line => i.kind === 'utterance' && !!i.utterance && !!i.participant && i.endMs - i.startMs > 800);
const personaLines = () => {
  const personas = new Set(report.participants.filter((p) => p.kind === 'ai').map((p) => p.id));
  return lines().filter((l) => personas.has(l.participant));
};

/** The test's recordings: every persona line (its file may then be missing), a cue every 120 ms. */
const fakeRecordings = (): Recordings => ({
  recordings: personaLines().map(
    (l, seq): Recording => ({
      utterance: l.utterance,
      seq,
      participant: l.participant,
      startMs: l.startMs,
      durationMs: l.endMs - l.startMs,
      sampleRate: 16_000,
      url: `/api/sessions/${ran.id}/recordings/${l.utterance}.wav`,
      cues: Array.from({ length: Math.floor((l.endMs - l.startMs) / 120) }, (_, i) => ({ t: i * 120, viseme: (['aa', 'O', 'E', 'PP'] as const)[i % 4]! })),
      words: [],
    }),
  ),
  missing: [],
});

/** Serves the fake recordings on the page's origin: the list, a tone of each line's length, a 404 for `missing`. */
const serveRecordings = async (page: Page, missing: string): Promise<Recordings> => {
  const list = fakeRecordings();
  await page.route(/\/api\/sessions\/[^/]+\/recordings(\?.*)?$/, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(list) }));
  await page.route(/\/recordings\/[^/]+\.wav(\?.*)?$/, (route) => {
    const utterance = decodeURIComponent(/recordings\/([^/?]+)\.wav/.exec(route.request().url())![1]!);
    const found = list.recordings.find((r) => r.utterance === utterance);
    if (!found || utterance === missing) return route.fulfill({ status: 404, contentType: 'application/json', body: JSON.stringify({ error: 'not-found', message: 'No recording.' }) });
    const pcm = Int16Array.from({ length: Math.round((found.durationMs / 1000) * 16_000) }, (_, i) => Math.round(6000 * Math.sin((2 * Math.PI * 180 * i) / 16_000)));
    return route.fulfill({ status: 200, contentType: 'audio/wav', body: encodeWav(pcm, 16_000) });
  });
  return list;
};

const url = (page: 'review' | 'replay', token: string, t?: number) => testPage(suite.server.port, `/${page}/${ran.id}`, { token, t: t === undefined ? undefined : Math.round(t) });

/** How fast the playhead moves against the page's clock (ms a ms), over a second of it. */
const speedOf = (page: Page, handle: '__playback' | '__replay') =>
  page.evaluate(async (name) => {
    const player = (window as unknown as Record<string, { position(): number }>)[name]!;
    const [p0, t0] = [player.position(), performance.now()];
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return (player.position() - p0) / (performance.now() - t0);
  }, handle);

/** The playhead's speed at 1× and at 2× (the buttons pressed in turn): about twice as fast at 2×, whatever the machine's load. */
const speedsOf = async (page: Page, handle: '__playback' | '__replay') => {
  await page.getByRole('button', { name: '1×', exact: true }).click();
  const normal = await speedOf(page, handle);
  await page.getByRole('button', { name: '2×', exact: true }).click();
  const fast = await speedOf(page, handle);
  expect(normal).toBeGreaterThan(0.5);
  expect(fast / normal).toBeGreaterThan(1.6);
  expect(fast / normal).toBeLessThan(2.4);
};

/** Moves the scrub bar as a person would: its value set, and the input event React listens for. */
const scrub = (page: Page, ms: number) =>
  page.locator('.scrub').evaluate((input: HTMLInputElement, value) => {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, String(value));
    input.dispatchEvent(new Event('input', { bubbles: true }));
  }, ms);

interface ReplayWindow {
  __replay: {
    stats(): { drawCalls: number; avatars: number };
    speaking(): string | null;
    morph(participant: string, name: string): number;
    position(): number;
    playing(): boolean;
    recordings: number;
    scheduled(): number;
    view(): { floor: { speaker: string | null } };
  };
}
const replayHandle = <T,>(page: Page, read: (replay: ReplayWindow['__replay']) => T) => page.evaluate(`(${read.toString()})(window.__replay)`) as Promise<T>;
const mouthOf = (page: Page, participant: string) =>
  page.evaluate(({ who, names }) => Math.max(...names.map((n) => (window as unknown as ReplayWindow).__replay.morph(who, `viseme_${n}`))), { who: participant, names: visemes.filter((v) => v !== 'sil') });

const waitForRoom = async (page: Page, people = report.participants.length) => {
  await page.locator('[data-page="replay"]').waitFor({ timeout: 60_000 });
  await page.waitForFunction((count) => {
    const replay = (window as unknown as Partial<ReplayWindow>).__replay;
    return !!replay && replay.stats().avatars === count && replay.stats().drawCalls > 0;
  }, people, { timeout: 90_000 });
};

describe('playback in the review', () => {
  it('plays from the playhead, the transcript following; recordings scheduled, a missing one marked', async () => {
    const page = await suite.open();
    const missing = personaLines()[0]!.utterance;
    const list = await serveRecordings(page, missing);
    const from = lines()[1]!;
    await page.goto(url('review', ran.tokens.observer!, from.startMs));
    await page.locator('.timeline[data-bars]').waitFor({ timeout: 60_000 });
    expect(await page.evaluate(() => window.__playback!.recordings)).toBe(list.recordings.length);
    expect(Number(await page.locator('.timeline').getAttribute('data-playhead'))).toBe(from.startMs);

    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await expect.poll(async () => Number(await page.locator('.timeline').getAttribute('data-playhead')), { timeout: 10_000 }).toBeGreaterThan(from.startMs + 300);
    await expect.poll(() => page.evaluate(() => window.__playback!.scheduled()), { timeout: 10_000 }).toBeGreaterThan(0);
    // The line under the playhead is the selected one.
    await expect.poll(() => page.locator('.review-transcript li.selected').getAttribute('data-start'), { timeout: 10_000 }).not.toBeNull();
    await speedsOf(page, '__playback');

    // A click on a bar seeks, and playback goes on from there.
    const target = lines().at(-2)!;
    await page.locator(`.review-transcript li[data-utterance="${target.utterance}"] button`).click();
    await expect.poll(async () => Number(await page.locator('.timeline').getAttribute('data-playhead'))).toBeGreaterThanOrEqual(target.startMs);
    expect(await page.evaluate(() => window.__playback!.playing())).toBe(true);

    // The missing file: asked for when it comes due, then its line says so.
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await page.locator(`.review-transcript li[data-utterance="${missing}"] button`).click();
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await expect.poll(() => page.locator(`.review-transcript li[data-utterance="${missing}"] [data-no-recording]`).count(), { timeout: 10_000 }).toBe(1);
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    // The keyboard moves the playhead by seconds, not by the bar's millisecond step.
    const scrub = page.getByRole('slider', { name: 'Playhead', exact: true });
    const paused = Number(await scrub.inputValue());
    await scrub.press('ArrowLeft');
    await expect.poll(async () => Number(await scrub.inputValue())).toBe(Math.max(0, paused - 5000));
    expect(await scrub.getAttribute('aria-valuetext')).toMatch(/^\d+:\d\d of \d+:\d\d$/);
    await page.locator(`.review-transcript li[data-utterance="${missing}"]`).scrollIntoViewIfNeeded();
    await screenshot(page, 'review-playback', { fullPage: true });
    // The controls, the timeline and the top of the transcript with the marked line.
    await page.locator('.timeline-card').evaluate((card) => card.scrollIntoView({ block: 'start' }));
    await screenshot(page, 'review-playback-top');
    // "Watch in 3D" opens the replay at the playhead.
    const href = (await page.locator('[data-replay]').getAttribute('href'))!;
    expect(href).toMatch(new RegExp(`^/replay/${ran.id}\\?token=.+&t=\\d+`));
  }, 180_000);

  it("plays the server's own recordings of the session: every persona line listed on the report's clock, audio scheduled", async () => {
    const listed = (await (await api(suite.server, `/api/sessions/${ran.id}/recordings`, { token: ran.tokens.observer! })).json()) as Recordings;
    const byUtterance = new Map(listed.recordings.map((r) => [r.utterance, r]));
    for (const line of personaLines()) expect(byUtterance.get(line.utterance)?.startMs, `${line.utterance}'s recording`).toBe(line.startMs);
    expect(listed.missing).toEqual([]);
    const page = await suite.open();
    await page.goto(url('review', ran.tokens.observer!));
    await page.locator('.timeline[data-bars]').waitFor({ timeout: 60_000 });
    expect(await page.evaluate(() => window.__playback!.recordings)).toBe(listed.recordings.length);
    const marked = await page.locator('li[data-utterance]:has([data-no-recording])').evaluateAll((items) => items.map((li) => li.getAttribute('data-utterance')));
    expect(marked.filter((utterance) => byUtterance.has(utterance!)), 'recorded lines marked as having no recording').toEqual([]);
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await expect.poll(async () => Number(await page.locator('.timeline').getAttribute('data-playhead')), { timeout: 10_000 }).toBeGreaterThan(200);
    await expect.poll(() => page.evaluate(() => window.__playback!.scheduled()), { timeout: 10_000 }).toBeGreaterThan(0);
  }, 120_000);
});

describe('the 3D replay', () => {
  it('draws the room at the playhead with the speaker speaking and moving their lips, at 1× and 2×, scrubs to the very end, and rests mouths when paused', async () => {
    const page = await suite.open();
    await serveRecordings(page, '');
    const line = personaLines()[1] ?? personaLines()[0]!;
    const middle = (line.startMs + line.endMs) / 2;
    await page.goto(url('replay', ran.tokens.observer!, middle));
    await waitForRoom(page);

    expect(await replayHandle(page, (r) => r.speaking())).toBe(line.participant);
    expect(await replayHandle(page, (r) => r.view().floor.speaker)).toBe(line.participant);
    // Paused (as it opens) nobody's mouth is left open mid-word.
    await expect.poll(() => mouthOf(page, line.participant), { timeout: 10_000 }).toBeLessThan(0.01);
    expect(await page.locator('.replay-line').getAttribute('data-speaking')).toBe(line.participant);
    // The personas are in the room; the humans' seats were simulated (stand-ins), never joined.
    const personas = report.participants.filter((p) => p.kind === 'ai').map((p) => p.id);
    expect(await page.locator('.replay-people li[data-here="true"]').evaluateAll((items) => items.map((li) => li.getAttribute('data-participant')))).toEqual(personas);
    expect(await page.locator('.replay-people li[data-here="false"]').first().innerText()).toMatch(/\(simulated\)/);
    await screenshot(page, 'replay');

    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await expect.poll(() => mouthOf(page, line.participant), { timeout: 10_000 }).toBeGreaterThan(0);
    await expect.poll(() => replayHandle(page, (r) => r.scheduled()), { timeout: 10_000 }).toBeGreaterThan(0);
    await speedsOf(page, '__replay');
    await screenshot(page, 'replay-2x');

    // Paused mid-line, the speaker's mouth comes to rest.
    await page.getByRole('button', { name: '1×', exact: true }).click();
    const longest = personaLines().reduce((a, b) => (b.endMs - b.startMs > a.endMs - a.startMs ? b : a));
    await scrub(page, longest.startMs + 200);
    await expect.poll(() => mouthOf(page, longest.participant), { timeout: 10_000 }).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    expect(await replayHandle(page, (r) => r.position())).toBeLessThan(longest.endMs);
    await expect.poll(() => mouthOf(page, longest.participant), { timeout: 5_000 }).toBeLessThan(0.01);

    // Dragged to the very end: the playhead is at the session's end, and the bar says it has ended.
    await scrub(page, report.durationMs + 10_000);
    expect(await replayHandle(page, (r) => r.position())).toBe(report.durationMs);
    await expect.poll(() => page.locator('.replay-line').innerText()).toBe('The session has ended.');
    expect(await replayHandle(page, (r) => r.speaking())).toBeNull();
    // A few frames for the name tags to follow (a tag's dot is redrawn a frame after its avatar stops).
    await page.waitForTimeout(1000);
    await screenshot(page, 'replay-end');

    // Scrubbing jumps, back as well as forward, and the room follows.
    const back = lines()[0]!;
    await scrub(page, back.startMs + 300);
    const at = await replayHandle(page, (r) => r.position());
    expect(at).toBeGreaterThanOrEqual(back.startMs + 300);
    expect(at).toBeLessThan(back.startMs + 2000);
    await expect.poll(() => replayHandle(page, (r) => r.view().floor.speaker)).toBe(back.participant);
  }, 180_000);

  it("replays from the server's own data and recordings, for a participant too, lips moving", async () => {
    const seat = Object.keys(ran.tokens).find((who) => who !== 'observer')!;
    const line = personaLines()[0]!;
    const page = await suite.open();
    await page.goto(url('replay', ran.tokens[seat]!, (line.startMs + line.endMs) / 2));
    await waitForRoom(page);
    expect(await replayHandle(page, (r) => r.speaking())).toBe(line.participant);
    expect(await replayHandle(page, (r) => r.recordings)).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await expect.poll(() => mouthOf(page, line.participant), { timeout: 10_000 }).toBeGreaterThan(0);
    // Back to the review, at the same moment.
    const back = page.getByRole('link', { name: 'Back to the review', exact: true });
    expect(await back.getAttribute('href')).toMatch(/^\/review\/.+&t=\d+/);
  }, 120_000);

  it("turns a headset trainee's head, in the instructor's replay, to whom they looked at in VR (their logged gaze)", async () => {
    // Riley in a headset: her client reports whom her head points at (room/looking-at.ts). She looks at
    // Morgan while she asks Ana and Ana answers, then at Casey while Dev does: not where the room's
    // attention would turn her (to the one answering), so only her logged gaze can turn her so.
    const retro = await createSession(suite.server, 'sprint-retro', 'realtime', 'stand-ins');
    const riley = await Client.connect(suite.server, retro.id, retro.tokens.riley!);
    await riley.waitFor((messages) => messages.some((m) => m.type === 'welcome'), 'welcome');
    // Each held while she asks that person something and they answer, so that it has its own moment on the replay's clock.
    const utterances = async () => (await logOf(suite.server, retro.id)).filter((e) => e.type === 'utterance').length;
    const gazed = async (at: string, asking: string) => {
      riley.send({ type: 'gaze', at });
      await expect.poll(async () => (await logOf(suite.server, retro.id)).some((e) => e.type === 'gaze' && e.at === at), { timeout: 30_000 }).toBe(true);
      const said = await utterances();
      riley.send({ type: 'say', text: asking });
      await expect.poll(utterances, { timeout: 90_000, interval: 250 }).toBeGreaterThan(said + 1);
    };
    await gazed('morgan', 'Ana, what would you change first?');
    await gazed('casey', 'Dev, does that work for you?');
    expect((await api(suite.server, `/api/sessions/${retro.id}`, { method: 'DELETE' })).status).toBe(200);
    await closeClients();
    await waitForEnded(suite.server, [retro]);

    // When each was logged, on the replay's clock (the report's).
    const token = retro.tokens.observer!;
    const data = (await (await api(suite.server, `/api/sessions/${retro.id}/replay`, { token })).json()) as ReplayData;
    const placed = placeEvents(data.events, await reportOf(suite.server, retro.id, token));
    const when = (at: string) => placed.find(({ event }) => event.type === 'gaze' && event.at === at)!.at;

    const page = await suite.open();
    // Between the two (the log's times on a simulated clock can be close: the middle of them), then after the second.
    await page.goto(testPage(suite.server.port, `/replay/${retro.id}`, { token, t: Math.round((when('morgan') + when('casey')) / 2) }));
    await waitForRoom(page, data.participants.length);
    const facing = () => page.evaluate(() => (window as unknown as { __replay: { facing(id: string): string | null } }).__replay.facing('riley'));
    await expect.poll(facing, { timeout: 30_000 }).toBe('morgan');
    await scrub(page, placed.at(-1)!.at);
    await expect.poll(facing, { timeout: 30_000 }).toBe('casey');
    await screenshot(page, 'replay-gaze');
  }, 180_000);

  it("shows the interview's candidate sitting up, their face to the panel, not tipped to the ceiling", async () => {
    const interview = await createSession(suite.server, 'job-interview', 'instant', 'stand-ins');
    await waitForEnded(suite.server, [interview]);
    const ended = await reportOf(suite.server, interview.id, interview.tokens.observer!);
    const page = await suite.open();
    // Between two lines, nobody speaking: the candidate listens, as they do most of the time.
    await page.goto(testPage(suite.server.port, `/replay/${interview.id}`, { token: interview.tokens.observer!, t: 1 }));
    await waitForRoom(page, ended.participants.length);
    await page.waitForTimeout(1500);
    await screenshot(page, 'replay-interview');
    type Pose = { pitch: number; tilt: number; seen: number };
    const poses = (await page.evaluate(`(${((ids: string[]) => Object.fromEntries(ids.map((id) => [id, (window as unknown as { __replay: { head(id: string): unknown } }).__replay.head(id)]))).toString()})(${JSON.stringify(ended.participants.map((p) => p.id))})`)) as Record<string, Pose>;
    const camera = (await page.evaluate('window.__replay.camera()')) as { pitch: number; height: number };
    // An observer on their feet inside the room (under its 3 m ceiling), looking down a little.
    expect(camera.height).toBeLessThan(3);
    expect(camera.pitch).toBeGreaterThan(-35);
    // Every head held about level and upright in the room; none shows its chin to the viewer.
    for (const [id, pose] of Object.entries(poses)) {
      expect(Math.abs(pose.pitch), id).toBeLessThan(12);
      expect(pose.tilt, id).toBeLessThan(12);
      expect(pose.seen, id).toBeLessThan(0);
    }
  }, 180_000);
});

