/**
 * The one browser-test harness: a real server (`startChild`) and headless Chromium started once
 * per file and closed after it, pages opened at 1280×720 in their own contexts, watched, closed
 * after each test, and their problems asserted then (nothing thrown or logged, no request off the
 * origin, no answer the test did not mean to get). (browser.ts stays free of vitest: the benchmarks
 * use it too.)
 *
 *   const suite = browserSuite({ env: { SYNTHESIZER: 'none' } });
 *   it('lists sessions', async () => {
 *     const page = await suite.open();
 *     await page.goto(`http://localhost:${suite.server.port}/sessions`);
 *   });
 */
import { rmSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import type { Report } from '../../shared/review/report';
import { afterAll, afterEach, beforeAll, expect, vi } from 'vitest';
import { api, createSession, startChild, tempDir, type ChildServer, type Created, type TestServer } from '../server/helpers';
import { startFakeWhisper, type FakeWhisper } from '../fakes/whisper-server';
import { buildClient, launchBrowser, pageProblems, watchPage, type PageProblems } from './browser';

/** Asserts the watched pages had no problem of any kind, and empties the lists for the next test. */
export const expectNoPageProblems = (problems: PageProblems): void => {
  expect(problems.thrown.splice(0), 'errors thrown in the pages').toEqual([]);
  expect(problems.console.splice(0), 'errors logged in the pages').toEqual([]);
  expect(problems.offOrigin.splice(0), 'requests that left the origin').toEqual([]);
  expect(problems.failed.splice(0), 'requests the server could not answer').toEqual([]);
};

export interface ServerAndBrowserOptions {
  /** The server's environment, over startChild's (`SYNTHESIZER: 'none'` for text-only sessions). */
  env?: Record<string, string>;
  /** Runs once the server and the browser are up: sessions to create, a run to wait for. */
  setup?: (server: ChildServer, browser: Browser) => Promise<void>;
  /** Runs once the server has closed: fakes of vendors the test started itself. */
  teardown?: () => Promise<void>;
}

export interface ServerAndBrowser {
  readonly server: ChildServer;
  readonly browser: Browser;
  /** Starts the server again on the same data and environment (after a test killed it); closed after the file like the first. */
  restart(): Promise<ChildServer>;
}

/**
 * The file's server (its data in a temporary folder, removed after) and browser, built, started
 * and launched in `beforeAll`, closed in `afterAll`; read them inside hooks and tests only.
 */
export const serverAndBrowser = (options: ServerAndBrowserOptions = {}): ServerAndBrowser => {
  let server: ChildServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    await buildClient();
    server = await startChild(tempDir(), { env: options.env });
    browser = await launchBrowser();
    await options.setup?.(server, browser);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (server) rmSync(server.dataDir, { recursive: true, force: true });
    await options.teardown?.();
  }, 60_000);
  return {
    get server() {
      if (!server) throw new Error('the server starts in beforeAll');
      return server;
    },
    get browser() {
      if (!browser) throw new Error('the browser launches in beforeAll');
      return browser;
    },
    async restart() {
      server = await startChild(server!.dataDir, { env: options.env });
      return server;
    },
  };
};

export interface BrowserSuiteOptions extends ServerAndBrowserOptions {
  /** Failed answers every test of the file means to get (a recording left missing on purpose). */
  expected?: readonly RegExp[];
  /** Runs after each test's pages are closed, before their problems are asserted: drops what a test meant to cause. */
  settle?: (problems: PageProblems) => void;
}

export interface BrowserSuite extends ServerAndBrowser {
  /** What went wrong in this test's pages so far (a test may take out what it meant to cause). */
  readonly problems: PageProblems;
  /** A page at 1280×720 (or `viewport`) in its own browser context, watched, closed after the test. */
  open(permissions?: string[], viewport?: { width: number; height: number }): Promise<Page>;
  /** A page the app opened itself (a new tab), watched and closed like the others. */
  adopt(page: Page): Page;
  /** Failed answers this test means to get (a bad token's 401), allowed until it ends. */
  expectFailures(...lines: RegExp[]): void;
}

/** `serverAndBrowser`, with pages kept, watched and checked after each test (`expectNoPageProblems`). */
export const browserSuite = (options: BrowserSuiteOptions = {}): BrowserSuite => {
  const both = serverAndBrowser(options);
  const problems = pageProblems();
  const pages: Page[] = [];
  let expected: readonly RegExp[] = [];
  const allowed = () => [...(options.expected ?? []), ...expected];
  afterEach(async () => {
    for (const page of pages.splice(0)) await page.context().close().catch(() => {});
    options.settle?.(problems);
    expectNoPageProblems(problems);
    expected = [];
  });
  return {
    get server() {
      return both.server;
    },
    get browser() {
      return both.browser;
    },
    restart: () => both.restart(),
    problems,
    async open(permissions: string[] = [], viewport = { width: 1280, height: 720 }): Promise<Page> {
      const context = await both.browser.newContext({ viewport, permissions });
      const page = await context.newPage();
      pages.push(page);
      return watchPage(page, both.server.port, problems, allowed);
    },
    adopt(page: Page): Page {
      pages.push(page);
      return watchPage(page, both.server.port, problems, allowed);
    },
    expectFailures(...lines: RegExp[]): void {
      expected = lines;
    },
  };
};

/** A server child whose transcriber is a fake Whisper server, and a browser: what the talking-people tests share. */
export interface VoiceSuite {
  readonly server: ChildServer;
  readonly whisper: FakeWhisper;
  readonly browser: Browser;
}

/**
 * Starts, for a test file, the built client, a fake Whisper server that hears `heard` in every
 * utterance, the real server (a child process) transcribing through it, and a browser; closes them after.
 *
 * ```ts
 * const voice = voiceSuite(' Hello there.');
 * const page = await voice.browser.newPage();
 * ```
 */
export const voiceSuite = (heard: string): VoiceSuite => {
  const suite = {} as { server: ChildServer; whisper: FakeWhisper; browser: Browser };
  beforeAll(async () => {
    await buildClient();
    suite.whisper = await startFakeWhisper();
    suite.whisper.setDefault({ chunks: [heard] });
    suite.server = await startChild(tempDir(), { env: { TRANSCRIBER: 'openai', WHISPER_BASE_URL: suite.whisper.baseUrl } });
    suite.browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await suite.browser?.close();
    await suite.server?.close();
    if (suite.server) rmSync(suite.server.dataDir, { recursive: true, force: true });
    await suite.whisper?.close();
  }, 60_000);
  return suite;
};

/** Waits until every one of `sessions` has ended (an instant session runs to its end in a few seconds). */
export const waitForEnded = (server: TestServer, sessions: readonly Created[], timeoutMs = 90_000): Promise<void> =>
  vi.waitFor(
    async () => {
      for (const session of sessions) {
        const { status } = (await (await api(server, `/api/sessions/${session.id}`, { token: session.tokens.observer })).json()) as { status?: string };
        if (status !== 'ended') throw new Error(`session ${session.id} is still ${status}`);
      }
    },
    { timeout: timeoutMs, interval: 250 },
  );

/** A simulated stand-up (instant pace, stand-ins in every human seat) run to its end. */
export const endedStandUp = async (server: TestServer): Promise<Created> => {
  const ran = await createSession(server, 'team-standup', 'instant', 'stand-ins');
  // At instant pace the whole session runs in a few seconds: wait for its end.
  await waitForEnded(server, [ran]);
  return ran;
};

/** A session's report as `token` is let see it (asserting it was given). */
export const reportOf = async (server: TestServer, id: string, token: string): Promise<Report> => {
  const res = await api(server, `/api/sessions/${id}/report`, { token });
  expect(res.status).toBe(200);
  return (await res.json()) as Report;
};

/** Waits until every chart of the page is drawn: a canvas of some size in each, and ECharts' own word that it finished. */
export const waitForChartsDrawn = (page: Page): Promise<unknown> =>
  page.waitForFunction(() => {
    const charts = Array.from(document.querySelectorAll('.chart'));
    return charts.length > 0 && charts.every((chart) => {
      const canvas = chart.querySelector('canvas');
      return chart.getAttribute('data-drawn') === 'true' && !!canvas && canvas.width > 0 && canvas.height > 0;
    });
  }, undefined, { timeout: 60_000 });
