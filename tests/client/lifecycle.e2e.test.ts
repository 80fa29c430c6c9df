/**
 * Issue 15 end to end, in headless Chromium against the real server (`server/main.ts`, scripted
 * generator, eSpeak voices): the HUD's one status line through a session's life (lobby, someone
 * speaking, your turn, paused by the instructor or for an empty seat, ended, the connection
 * dropped, the microphone muted or listening); the instructor's lobby (Start, Start with
 * stand-ins, a Stand in per empty seat); an ended session's link; links that do not work (an
 * unknown session, an altered token, another session's token). No page may throw, and nothing may
 * load from outside the origin. Screenshots (1280×720) go to test-artifacts/lifecycle-*.png.
 */
import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startFakeWhisper, type FakeWhisper } from '../fakes/whisper-server';
import { api, Client, closeClients, startChild, tempDir, type ChildServer } from '../server/helpers';
import { pageProblems, testLink, watchPage, screenshot } from './browser';
import { serverAndBrowser } from './pages';

const viewport = { width: 1280, height: 720 };
const pages: Page[] = [];
// A seat empty for 2 s pauses the session (the default 20 s would only slow the test down).
const suite = serverAndBrowser({ env: { SEAT_GRACE_S: '2' } });

/** What went wrong in the pages of a test: errors thrown, requests off the origin, answers that failed unexpectedly. */
const problems = pageProblems();
/** Failed answers a test expects (a link that does not open is meant to get its 401, 403 or 404). */
let expectedFailures: RegExp[] = [];

afterEach(async () => {
  await closeClients();
  for (const page of pages.splice(0)) await page.close().catch(() => {});
  expect(problems.thrown.splice(0), 'errors thrown in the pages').toEqual([]);
  expect(problems.offOrigin.splice(0), 'requests that left the origin').toEqual([]);
  expect(problems.failed.splice(0), 'requests the server could not answer').toEqual([]);
  expectedFailures = [];
});

interface Created {
  id: string;
  links: Record<string, string>;
  tokens: Record<string, string>;
}

const create = async (on: ChildServer, scene: string, options: { standIns?: boolean } = {}): Promise<Created> => {
  const res = await api(on, '/api/sessions', { method: 'POST', body: { scene, pace: 'realtime', ...options } });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Created;
};

/** A page watched for errors, off-origin requests and failed answers. */
const newPage = async (on: ChildServer): Promise<Page> => {
  const page = await suite.browser.newPage({ viewport });
  pages.push(page);
  return watchPage(page, on.port, problems, () => expectedFailures);
};

/** A join link on localhost (where IWER runs), with the test handle (`room: true`) or as a person opens it. */
const link = (on: ChildServer, address: string, room = true): string => {
  const url = new URL(testLink(address, on.port));
  if (!room) url.searchParams.delete('test');
  return url.href;
};

/** Opens a join link into the room, and waits for it to be drawn. */
const enter = async (on: ChildServer, address: string): Promise<Page> => {
  const page = await newPage(on);
  await page.goto(link(on, address));
  await page.waitForFunction(() => window.__room !== undefined && (window.__room.state() as { connected: boolean }).connected, undefined, { timeout: 60_000 });
  return page;
};

const statusOf = (page: Page) => page.locator('[data-status]').first();
const waitForStatus = (page: Page, kinds: string[], timeout = 60_000) =>
  page.waitForFunction((wanted) => wanted.includes(document.querySelector('[data-status]')?.getAttribute('data-status') ?? ''), kinds, { timeout, polling: 100 });
/** Waits for a status and its words together (a status read a moment later may already have moved on); returns the words. */
const waitForLine = async (page: Page, kinds: string[], words: RegExp, timeout = 60_000): Promise<string> => {
  const handle = await page.waitForFunction(
    ([wanted, source, flags]) => {
      const line = document.querySelector('[data-status]');
      const text = (line as HTMLElement | null)?.innerText ?? '';
      return wanted.includes(line?.getAttribute('data-status') ?? '') && new RegExp(source, flags).test(text) && text;
    },
    [kinds, words.source, words.flags] as const,
    // Every 100 ms rather than every frame: software WebGL under load draws a frame or two a second.
    { timeout, polling: 100 },
  );
  return (await handle.jsonValue()) as string;
};
const shoot = (page: Page, name: string) => screenshot(page, `lifecycle-${name}`);

describe('links to sessions that are over or do not open', () => {
  it("opens an ended session's link on its summary, not a blank page", async () => {
    const session = await create(suite.server, 'sprint-retro', { standIns: true });
    const ended = await api(suite.server, `/api/sessions/${session.id}`, { method: 'DELETE' });
    expect(ended.status).toBe(200);

    const page = await newPage(suite.server);
    await page.goto(link(suite.server, session.links.riley!, false));
    const summary = page.locator('[data-page="ended"]');
    await summary.waitFor({ timeout: 30_000 });
    const text = await summary.innerText();
    expect(text).toContain('Sprint retrospective after a missed deadline');
    expect(text).toContain('This session has ended');
    expect(text).toMatch(/Duration\s+\d+ (min|s)/);
    expect(text).toMatch(/Turns\s+\d+/);
    for (const name of ['Riley Quinn', 'Casey Morgan-Reid', 'Morgan Ellis']) expect(text).toContain(name);
    await shoot(page, 'ended-page');
  }, 120_000);

  it("reads an older server's answer for an ended session (no participants), where the page threw on 'find'", async () => {
    const session = await create(suite.server, 'sprint-retro', { standIns: true });
    const page = await newPage(suite.server);
    await page.route(/\/api\/sessions\/[^/?]+$/, (route) => route.fulfill({ json: { session: session.id, scene: 'sprint-retro', phase: 'ended', lastSeq: 7 } }));
    await page.goto(link(suite.server, session.links.riley!, false));
    await page.locator('[data-page="ended"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('h1').innerText()).toBe('sprint-retro');
  }, 120_000);

  it('says what happened and what to do for an unknown session, an altered token and another session’s token', async () => {
    const session = await create(suite.server, 'sprint-retro');
    const other = await create(suite.server, 'team-standup');
    const riley = new URL(session.links.riley!);
    const token = riley.searchParams.get('token')!;
    const cases = [
      // The author's token reaches every session, so only a session that does not exist answers 404.
      { name: 'not-found', path: '/room/no-such-session', token: suite.server.admin, status: 404, title: 'There is no such session' },
      // One character of the signature changed.
      { name: 'unauthorized', path: riley.pathname, token: token.slice(0, -2) + (token.endsWith('A') ? 'BB' : 'AA'), status: 401, title: 'This link is not valid' },
      { name: 'forbidden', path: riley.pathname, token: other.tokens.jordan!, status: 403, title: 'This link does not match its session' },
    ];
    for (const c of cases) {
      expectedFailures = [new RegExp(`^${c.status} .*/api/sessions/`)];
      const page = await newPage(suite.server);
      await page.goto(`http://localhost:${suite.server.port}${c.path}?token=${encodeURIComponent(c.token)}`);
      const problem = page.locator(`[data-page="${c.name}"]`);
      await problem.waitFor({ timeout: 30_000 });
      expect(await page.locator('h1').innerText()).toBe(c.title);
      expect(await problem.innerText()).toMatch(/What to do:/);
      await shoot(page, c.name);
    }
  }, 120_000);
});

describe("the HUD's status line through a session's life", () => {
  it('lobby, someone speaking, paused by the instructor, a seat left empty and stood in for, ended', async () => {
    const session = await create(suite.server, 'sprint-retro');
    const observer = await enter(suite.server, session.links.observer!);
    const riley = await enter(suite.server, session.links.riley!);

    // The lobby: Riley is here, Casey is not; the instructor may start with a stand-in, not without.
    await waitForStatus(riley, ['lobby'], 30_000);
    expect(await statusOf(riley).innerText()).toBe('Waiting for everyone to join: Riley Quinn / waiting for Casey Morgan-Reid');
    expect(await riley.locator('[aria-label="lobby"]').innerText()).toMatch(/starts when everyone is here, or when the instructor starts it/);
    await shoot(riley, 'lobby');
    await observer.getByRole('button', { name: 'stand in for Casey Morgan-Reid', exact: true }).waitFor();
    expect(await observer.getByRole('button', { name: 'Start', exact: true }).isDisabled()).toBe(true);
    expect(await observer.getByRole('button', { name: 'Start with stand-ins', exact: true }).isEnabled()).toBe(true);
    await shoot(observer, 'observer-lobby');

    // Casey arrives: everyone is here, the session starts, and the line says so without a new snapshot.
    // She joins over the socket, as her page would: a third room drawn in software WebGL took 30 s to load.
    const casey = await Client.connect(suite.server, session.id, session.tokens.casey!);

    // Someone speaks: the line names them while their speech plays. (Morgan's opening may come while
    // the page is still busy building the room; Ana's answer to Riley comes once it is drawn.)
    await waitForStatus(riley, ['speaking', 'your-turn'], 60_000);
    await riley.evaluate(() => window.__room!.say('Ana, what slowed the review down?'));
    // The speaker is read with the line, in one go: a moment later the speech may be over.
    const handle = await riley.waitForFunction(
      () => {
        const line = document.querySelector('[data-status]') as HTMLElement | null;
        const text = line?.innerText ?? '';
        return line?.getAttribute('data-status') === 'speaking' && / speaking$/.test(text) && { text, speaker: window.__room!.speaking() };
      },
      undefined,
      { timeout: 90_000, polling: 100 },
    );
    const { text: line, speaker } = (await handle.jsonValue()) as { text: string; speaker: string | null };
    await shoot(riley, 'speaking');
    // The instructor's page follows the start on its own time (Casey's socket joins in an instant).
    await observer.getByRole('button', { name: 'Start with stand-ins', exact: true }).waitFor({ state: 'detached', timeout: 30_000 });
    expect(line).toMatch(/^[A-Z][\w' -]+ speaking$/);
    expect(speaker).not.toBeNull();

    // The instructor pauses and resumes.
    await observer.getByRole('button', { name: 'Pause', exact: true }).click();
    await waitForStatus(riley, ['paused']);
    expect(await statusOf(riley).innerText()).toBe('Paused by the instructor');
    await shoot(riley, 'paused');
    await observer.getByRole('button', { name: 'Resume', exact: true }).click();
    await riley.waitForFunction(() => document.querySelector('[data-status]')?.getAttribute('data-status') !== 'paused');

    // Casey drops: past the grace period the session waits for her seat; the instructor has the simulation stand in.
    await casey.close();
    // The grace is 2 s on the server's clock; the page hears of it when a loaded machine gets to it.
    await waitForStatus(riley, ['paused'], 90_000);
    expect(await statusOf(riley).innerText()).toMatch(/^Paused: (Casey's|a participant's) seat is empty$/);
    await shoot(riley, 'seat-empty');
    await observer.getByRole('button', { name: 'stand in for Casey Morgan-Reid', exact: true }).click();
    await riley.waitForFunction(() => document.querySelector('[data-status]')?.getAttribute('data-status') !== 'paused', undefined, { timeout: 30_000 });
    await shoot(observer, 'observer-stand-in');

    // The instructor's live view: the floor with its reason, the snippet's progress, the clock.
    expect(await observer.locator('[data-floor] .why').innerText()).toMatch(/^\s*· \S/);
    expect(await observer.locator('[data-progress]').innerText()).toMatch(/ · turn \d+ of \d+$/);
    expect(await observer.getByRole('timer').first().innerText()).toMatch(/^\d+:\d\d$/);
    // The instructor takes Morgan's seat over and speaks for her; the room hears it as Morgan's.
    await observer.getByRole('button', { name: 'take over Morgan Ellis', exact: true }).click();
    const sayAs = observer.getByLabel('say as Morgan Ellis');
    await sayAs.fill('Riley, what would you change first next sprint?');
    await observer.getByRole('button', { name: 'Say', exact: true }).click();
    await riley.locator('.transcript p[data-speaker="morgan"]', { hasText: 'what would you change first next sprint' }).waitFor({ timeout: 60_000 });
    await shoot(observer, 'observer-take-over');
    await observer.getByRole('button', { name: 'hand back Morgan Ellis', exact: true }).click();
    await observer.getByRole('button', { name: 'take over Morgan Ellis', exact: true }).waitFor();

    // The instructor ends it, after saying yes: the line says so, and the link now opens the summary.
    await observer.getByRole('button', { name: 'End session', exact: true }).click();
    await observer.getByRole('button', { name: 'Keep going', exact: true }).click();
    expect(await statusOf(riley).getAttribute('data-status')).not.toBe('ended');
    await observer.getByRole('button', { name: 'End session', exact: true }).click();
    await observer.getByRole('button', { name: 'Yes, end it', exact: true }).click();
    await waitForStatus(riley, ['ended']);
    expect(await statusOf(riley).innerText()).toBe('The session has ended: ended by the instructor');
    await shoot(riley, 'hud-ended');
    await riley.goto(link(suite.server, session.links.riley!, false));
    await riley.locator('[data-page="ended"]').waitFor({ timeout: 30_000 });
  }, 300_000);

  it('says "your turn" only once nobody is speaking, and shows a line only once its speech is heard', async () => {
    // Alex is the only human: the session starts as they arrive, and the interviewer asks them questions.
    const session = await create(suite.server, 'job-interview');
    const alex = await enter(suite.server, session.links.alex!);
    // The panel opens by asking Alex (while the page may still be loading the room).
    await waitForLine(alex, ['your-turn'], /your turn$/i, 120_000);
    await shoot(alex, 'your-turn');
    // Without a transcriber the microphone says so plainly, and offers typing (and the browser's recognition).
    expect(await alex.locator('[aria-label="microphone"]').innerText()).toContain("This server has no transcriber: type, or use your browser's speech recognition");

    // Alex answers by typing; then every frame until it is Alex's turn again: the status, who is
    // audible, and the AI lines on screen with their speech.
    await alex.getByLabel('message').fill('I have led two product launches, and the second one taught me to cut scope early.');
    const sampling = alex.evaluate(
      () =>
        new Promise<{ status: string; audible: string | null; lines: { speaker: string; heard: boolean }[] }[]>((resolve) => {
          type View = { transcript: { id: string; speaker: string; source: string; audio: string }[]; speech: Record<string, { state: string }> };
          const seen: { status: string; audible: string | null; lines: { speaker: string; heard: boolean }[] }[] = [];
          // A reply heard to the end of what had come is queued again when more of it comes late (a
          // loaded machine's synthesis): it was heard, and stays on screen.
          const heardOnce = new Set<string>();
          const deadline = performance.now() + 120_000;
          let asked = false;
          const sample = () => {
            const status = document.querySelector('[data-status]')?.getAttribute('data-status') ?? '';
            const view = window.__room!.state() as View;
            const shown = Array.from(document.querySelectorAll('.transcript p'), (p) => p.getAttribute('data-line'));
            const ai = view.transcript.filter((l) => l.source !== 'human' && shown.includes(l.id));
            for (const [audio, speech] of Object.entries(view.speech)) if (speech.state !== 'queued') heardOnce.add(audio);
            seen.push({ status, audible: window.__room!.speaking(), lines: ai.map((l) => ({ speaker: l.speaker, heard: heardOnce.has(l.audio) })) });
            // Alex's answer ends their turn; the next "your turn" is the panel's next question.
            asked ||= status !== 'your-turn';
            if ((asked && status === 'your-turn') || performance.now() > deadline) resolve(seen);
            else requestAnimationFrame(sample);
          };
          requestAnimationFrame(sample);
        }),
    );
    await alex.getByRole('button', { name: 'Say', exact: true }).click();
    // The answer shows at once, as Alex's own words.
    await alex.locator('.transcript p[data-speaker="alex"]').first().waitFor({ timeout: 30_000 });
    const frames = await sampling;
    expect(frames.at(-1)!.status, 'it became Alex’s turn again').toBe('your-turn');
    // The line on screen was drawn in the frame before the sample, and the audio clock runs on its
    // own: a voice that starts between the two is on screen one frame later (software WebGL draws a
    // few frames a second here). Two frames in a row saying "your turn" over a voice is a fault.
    const overVoice = (f: (typeof frames)[number] | undefined) => f?.status === 'your-turn' && f.audible !== null && f.audible !== 'alex';
    expect(frames.filter((f, i) => overVoice(f) && overVoice(frames[i + 1])), 'frames saying "your turn" while someone was audible').toEqual([]);
    expect(frames.some((f) => f.status === 'speaking'), 'a panelist was heard speaking first').toBe(true);
    expect(frames.flatMap((f) => f.lines).filter((l) => !l.heard), 'AI lines on screen before their speech was heard').toEqual([]);
  }, 300_000);

  it('says the connection dropped when the server goes away', async () => {
    const session = await create(suite.server, 'job-interview');
    const alex = await enter(suite.server, session.links.alex!);
    await waitForStatus(alex, ['speaking', 'your-turn', 'transcription-unavailable']);
    // Requests to a server that is gone fail: that is the point here.
    expectedFailures = [/./];
    await suite.server.kill9();
    await waitForStatus(alex, ['reconnecting'], 30_000);
    expect(await statusOf(alex).innerText()).toMatch(/^Reconnecting…/);
    await shoot(alex, 'reconnecting');
    // No later test uses this server (the microphone's have a server of their own): it is not started again.
  }, 120_000);
});

describe('the microphone with a transcriber on the server', () => {
  let voiced: ChildServer;
  let whisper: FakeWhisper;
  beforeAll(async () => {
    whisper = await startFakeWhisper();
    voiced = await startChild(tempDir(), { env: { TRANSCRIBER: 'openai', WHISPER_BASE_URL: whisper.baseUrl } });
  }, 120_000);
  afterAll(async () => {
    await voiced?.close();
    if (voiced) rmSync(voiced.dataDir, { recursive: true, force: true });
    await whisper?.close();
  });

  it('says the mic is muted until it is on, then listening, with a meter', async () => {
    const session = await create(voiced, 'job-interview');
    const alex = await enter(voiced, session.links.alex!);
    // The panel asks Alex at once, so the muted mic shows on "your turn" (or alone, if the line comes first).
    await waitForLine(alex, ['mic-muted', 'your-turn'], /^Mic muted: type, or turn the mic on$|: your turn \(mic muted: type, or turn the mic on\)$/, 120_000);
    await shoot(alex, 'mic-muted');
    await alex.getByLabel('microphone mode').selectOption('open');
    await alex.waitForFunction(() => !/muted/i.test(document.querySelector('[data-status]')?.textContent ?? ''), undefined, { timeout: 30_000 });
    expect(await statusOf(alex).getAttribute('data-status')).toMatch(/^(listening|your-turn|speaking)$/);
    await alex.locator('meter[aria-label="your level"]').waitFor();
    await shoot(alex, 'listening');
  }, 300_000);
});
