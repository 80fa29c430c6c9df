/**
 * What the browser tests of the review pages share: asserting that watched pages had no problem,
 * pages opened at 1280×720 in their own contexts and closed after each test, and waiting for
 * simulated sessions to end. (browser.ts stays free of vitest: the benchmarks use it too.)
 */
import type { Browser, Page } from 'playwright-core';
import { expect, vi } from 'vitest';
import { api, type Created, type TestServer } from '../server/helpers';
import { watchPage, type PageProblems } from './browser';

/** Asserts the watched pages had no problem of any kind, and empties the lists for the next test. */
export const expectNoPageProblems = (problems: PageProblems): void => {
  expect(problems.thrown.splice(0), 'errors thrown in the pages').toEqual([]);
  expect(problems.console.splice(0), 'errors logged in the pages').toEqual([]);
  expect(problems.offOrigin.splice(0), 'requests that left the origin').toEqual([]);
  expect(problems.failed.splice(0), 'requests the server could not answer').toEqual([]);
};

/**
 * Pages at 1280×720, each in its own browser context, watched (`watchPage`) and closed by `closeAll`.
 * `expected`: failed answers a test means to get.
 */
export const pageKeeper = (options: { browser: () => Browser; port: () => number; problems: PageProblems; expected?: () => readonly RegExp[] }) => {
  const pages: Page[] = [];
  return {
    async open(permissions: string[] = []): Promise<Page> {
      const context = await options.browser().newContext({ viewport: { width: 1280, height: 720 }, permissions });
      const page = await context.newPage();
      pages.push(page);
      return watchPage(page, options.port(), options.problems, options.expected);
    },
    /** A page the app opened itself (a new tab), watched and closed like the others. */
    adopt(page: Page): Page {
      pages.push(page);
      return watchPage(page, options.port(), options.problems, options.expected);
    },
    async closeAll(): Promise<void> {
      for (const page of pages.splice(0)) await page.context().close().catch(() => {});
    },
  };
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
