/**
 * Headless Chromium for the client's end-to-end tests and browser benchmarks: the Chromium from
 * npm (avatars/generator/chromium.ts) driven by playwright-core, software WebGL, a fake microphone, sound
 * allowed without a click. Pages are opened on `localhost`, where IWER emulates a Quest 3.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import type { Browser, Page, PageScreenshotOptions } from 'playwright-core';
import { launchChromium } from '../../avatars/generator/chromium';
import { clientIsStale } from '../../server/cli/build-client';

/** Chromium with a fake microphone and sound without a click. */
export const launchBrowser = (): Promise<Browser> =>
  launchChromium(['--autoplay-policy=no-user-gesture-required', '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream']);

const repoRoot = new URL('../../', import.meta.url).pathname;

/**
 * Builds dist/client when it is older than its sources (server/cli/build-client.ts). The check is
 * made here, in milliseconds: a build process (tsx, a second or several under load) is started
 * only when there is something to build, once per run (tests/client/build.global.ts), not per file.
 */
export const buildClient = async (): Promise<void> => {
  if (!clientIsStale()) return;
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/build-client.ts'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`client build failed (${code}):\n${stderr}`))));
  });
};

const artifacts = `${repoRoot}test-artifacts/`;

/**
 * Whether the tests write their screenshots: yes, except on CI (CI=true), where nobody looks at
 * them and each one of a room drawn in software WebGL costs 4-8 s. SCREENSHOTS=1 takes them anyway,
 * SCREENSHOTS=0 never.
 */
export const screenshots = (env: NodeJS.ProcessEnv = process.env): boolean =>
  env.SCREENSHOTS === '1' || (env.SCREENSHOTS !== '0' && !(env.CI && env.CI !== 'false' && env.CI !== '0'));

/**
 * The size of a page whose assertions hold at any 16:9 size (positions in normalized device
 * coordinates, sizes in metres or degrees, state read from the page): 1280×720 when screenshots are
 * taken, since people look at those at that size; else 640×360, a quarter of the pixels for
 * software WebGL to draw (a stereo VR frame of the retro: 134 ms of CPU at 1280×720, 69 at 640×360).
 */
export const shapeViewport = (env: NodeJS.ProcessEnv = process.env): { width: number; height: number } =>
  screenshots(env) ? { width: 1280, height: 720 } : { width: 640, height: 360 };

/** Writes what `page` shows to test-artifacts/<name>.png, for people to look at; asserts nothing. */
export const screenshot = async (page: Page, name: string, options: Omit<PageScreenshotOptions, 'path'> = {}): Promise<void> => {
  if (!screenshots()) return;
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ ...options, path: `${artifacts}${name}.png` });
};

/**
 * How many frames a second a test page's room draws (`?fps=`, client/src/scene/frame-cap.tsx). A
 * room drawn in software WebGL takes every core it can get (7 frames a second at 1280×720 on two
 * cores, both busy); a test that reads the room's state through its handle needs a few frames, and
 * the server and the page's own scripts the CPU. A test that measures what moves from frame to
 * frame (lips, arms) asks for `fps: null`, every frame the machine can draw.
 */
export const TEST_FPS = 6;

export interface TestLinkOptions {
  /** The frame cap; null for none. Default TEST_FPS. */
  fps?: number | null;
}

/** A join link of this server, on localhost (IWER's emulation only runs there), with the test handle on. */
export const testLink = (link: string, port: number, { fps = TEST_FPS }: TestLinkOptions = {}): string => {
  const url = new URL(link);
  url.hostname = 'localhost';
  url.port = String(port);
  url.searchParams.set('test', '1');
  if (fps !== null) url.searchParams.set('fps', String(fps));
  return url.href;
};

/** A page of this server (`/replay/<id>`, `/review/<id>`…) with these query parameters, the test handle on and frames capped as by `testLink`. */
export const testPage = (port: number, path: string, params: Record<string, string | number | undefined> = {}, options: TestLinkOptions = {}): string => {
  const url = new URL(path, `http://localhost:${port}`);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, String(value));
  return testLink(url.href, port, options);
};

/** What went wrong in watched pages: errors thrown, console errors, requests off the origin, answers that failed. */
export interface PageProblems {
  thrown: string[];
  console: string[];
  offOrigin: string[];
  failed: string[];
}

export const pageProblems = (): PageProblems => ({ thrown: [], console: [], offOrigin: [], failed: [] });

/**
 * Watches `page` for what a user would call broken: an error thrown (or a crash), a console error
 * (a Content-Security-Policy violation is one),
 * a request or socket to anywhere but `localhost:<port>` (nothing may load from a CDN), an answer
 * of 400 or more that `expected` does not allow (a bad link is meant to get its 404).
 */
export const watchPage = (page: Page, port: number, problems: PageProblems, expected: () => readonly RegExp[] = () => []): Page => {
  // What the server's Content-Security-Policy refuses (an eval, an inline script, a source off the
  // origin) reaches no console the test can read: the page reports it there itself.
  page
    .addInitScript(() =>
      document.addEventListener('securitypolicyviolation', (e) => console.error(`Content-Security-Policy refused ${e.violatedDirective} (${e.blockedURI}) at ${e.sourceFile}:${e.lineNumber}`)),
    )
    .catch(() => {});
  page.on('pageerror', (error) => problems.thrown.push(error.message));
  page.on('crash', () => problems.thrown.push('the page crashed'));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.console.push(message.text());
  });
  const leaves = (address: string) => {
    const url = new URL(address);
    if (/^(https?|wss?):$/.test(url.protocol) && url.host !== `localhost:${port}`) problems.offOrigin.push(address);
  };
  page.on('request', (request) => leaves(request.url()));
  page.on('websocket', (socket) => leaves(socket.url()));
  page.on('response', (response) => {
    const line = `${response.status()} ${response.url()}`;
    if (response.status() >= 400 && !expected().some((allowed) => allowed.test(line))) problems.failed.push(line);
  });
  return page;
};

