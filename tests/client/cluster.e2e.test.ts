/**
 * Issue 30, routing in a browser: two real server processes share one Postgres (PGlite served over
 * the wire), each its own origin (`http://localhost:<port>`, its PUBLIC_URL), both in
 * CLUSTER_ORIGINS. A join link for a session node B runs, opened on node A, loads the room: the
 * page's call for the session is answered 421 by A, made again at B (CORS, the token in its
 * header, never in a URL), and the room's socket opens at B directly. Nothing else leaves A's
 * origin, and nothing is refused by the Content-Security-Policy (a console error; Chromium's own
 * line for the 421 aside).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPgliteServer, type PgliteServer } from '../fakes/pglite-server';
import { createSession, startChild, tempDir, type ChildServer } from '../server/helpers';
import { freePorts } from '../server/ports';
import { buildClient, launchBrowser, pageProblems, screenshot, testLink, watchPage } from './browser';
import { expectNoPageProblems } from './pages';

const dataDir = tempDir();
let database: PgliteServer | null = null;
let browser: Browser | null = null;
const nodes: ChildServer[] = [];

beforeAll(async () => {
  await buildClient();
  database = await startPgliteServer();
  const ports = await freePorts(2);
  const origins = ports.map((port) => `http://localhost:${port}`);
  nodes.push(
    ...(await Promise.all(
      ['a', 'b'].map((name, i) => {
        const dir = join(dataDir, name);
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        // The cluster's one token secret: a token from either node works on both.
        writeFileSync(join(dir, 'token-secret'), 'a-secret-every-node-of-the-cluster-shares\n', { mode: 0o600 });
        const env = { PORT: String(ports[i]), PUBLIC_URL: origins[i]!, CLUSTER_ORIGINS: origins.join(','), DATABASE_URL: database!.url, NODE_ID: name, SYNTHESIZER: 'none', TRANSCRIBER: 'none' };
        return startChild(dir, { env });
      }),
    )),
  );
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  for (const node of nodes) await node.close();
  await database?.close();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('a join link opened on a node that does not run its session', () => {
  it('loads the room from the owner, its socket opened there, the token never in an HTTP URL', { timeout: 180_000 }, async () => {
    const [a, b] = nodes as [ChildServer, ChildServer];
    const created = await createSession(b, 'team-standup', 'realtime');
    const token = created.tokens.observer!;
    const owner = `localhost:${b.port}`;

    const problems = pageProblems();
    const context = await browser!.newContext({ viewport: { width: 640, height: 360 } });
    const page = watchPage(await context.newPage(), a.port, problems, () => [new RegExp(`^421 http://localhost:${a.port}/api/sessions/${created.id}$`)]);
    const sockets: string[] = [];
    page.on('websocket', (socket) => sockets.push(socket.url()));
    const misdirected: string[] = [];
    page.on('response', (response) => void (response.status() === 421 && misdirected.push(response.url())));

    await page.goto(testLink(`http://localhost:${a.port}/room/${created.id}?token=${token}`, a.port));
    await page.waitForFunction(() => window.__room !== undefined && (window.__room.state() as { connected: boolean }).connected, undefined, { timeout: 120_000 });
    await screenshot(page, 'cluster-room-from-the-owner');

    expect(misdirected).toEqual([`http://localhost:${a.port}/api/sessions/${created.id}`]);
    // What left A's origin: calls and sockets to B, the owner, and nothing else.
    const offOrigin = problems.offOrigin.splice(0);
    expect(offOrigin.length).toBeGreaterThan(0);
    expect(offOrigin.filter((address) => new URL(address).host !== owner)).toEqual([]);
    expect(offOrigin).toContain(`http://${owner}/api/sessions/${created.id}`);
    expect(offOrigin.filter((address) => address.startsWith('http') && address.includes(token))).toEqual([]);
    // The socket went to B at once: no socket to A was opened to be moved on.
    expect(sockets.length).toBeGreaterThan(0);
    expect(sockets.every((url) => url.startsWith(`ws://${owner}/api/sessions/${created.id}/socket?`))).toBe(true);
    await context.close();
    // Chromium logs every answer of 400 or more itself; this one was meant, and followed.
    const logged = problems.console.splice(0);
    expect(logged.filter((line) => !/^Failed to load resource: the server responded with a status of 421 /.test(line))).toEqual([]);
    expectNoPageProblems(problems);
  });
});
