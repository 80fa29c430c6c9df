/**
 * The server's edge as people meet it: the app served by @hono/node-server on a real port, asked
 * with fetch and real WebSockets, never through `app.request()` (which hid that answers under
 * /api/ lost their security headers on the real server, and refused socket upgrades never had
 * them). Every kind of answer carries the headers; the frames that close a socket close it with
 * the codes the README names, and a bad message keeps it open; written feedback is rate-limited
 * like questions; a session report whose build failed is built again next time.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { sessionReports } from '../../server/api/reports';
import type { LoadedScene } from '../../shared/scene/schema';
import { type SessionRow, type Store } from '../../server/store/store';
import { ADMIN, Client, closeClients, createSession, startServer, tempDir, until, type Created, type InProcessServer, type TestServer } from './helpers';

const dirs: string[] = [];

/** A root like the repository's: an avatar and a built client. */
const siteRoot = (): string => {
  const root = tempDir();
  dirs.push(root);
  mkdirSync(join(root, 'avatars'), { recursive: true });
  mkdirSync(join(root, 'dist/client/assets'), { recursive: true });
  writeFileSync(join(root, 'avatars/avatar-01.glb'), Buffer.from('glTF'));
  writeFileSync(join(root, 'dist/client/index.html'), '<!doctype html><script type="module" src="/assets/index.js"></script>');
  writeFileSync(join(root, 'dist/client/assets/index.js'), 'console.log(1)');
  return root;
};

/** The server as main.ts builds it (the API, then the avatars and the built client), on an ephemeral port. */
const startSite = (): Promise<InProcessServer> => startServer({ siteRoot: siteRoot() });

/** The headers every answer carries, HTML, API, assets and errors alike (README, "Security"). */
const expectSecurityHeaders = (headers: Headers | Record<string, string | string[] | undefined>, what: string) => {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : ((headers[name] as string | undefined) ?? null));
  const csp = get('content-security-policy') ?? '';
  expect(/script-src ([^;]*)/.exec(csp)?.[1], `${what}: CSP script-src`).toBe("'self' blob:");
  expect(csp, `${what}: CSP`).toContain("default-src 'self'");
  expect(csp, `${what}: CSP`).toContain("frame-ancestors 'none'");
  expect(csp, `${what}: CSP`).toContain("object-src 'none'");
  expect(get('x-content-type-options'), `${what}: nosniff`).toBe('nosniff');
  expect(get('referrer-policy'), `${what}: Referrer-Policy`).toBe('no-referrer');
  expect(get('x-frame-options'), `${what}: X-Frame-Options`).toBe('DENY');
};

/** A socket upgrade that is refused: its status, headers and body, as the client reads them off the wire. */
const refusedUpgrade = (server: TestServer, path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(`${server.wsBase}${path}`);
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    ws.once('open', () => reject(new Error(`${path}: the upgrade was accepted`)));
    ws.once('error', () => undefined);
  });

describe('over a real server socket, every answer carries the security headers', () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let session: Created;
  beforeAll(async () => {
    site = await startSite();
    session = await createSession(site, 'team-standup', 'instant');
    await until(() => site.rooms.get(session.id)!.ended(), 'the instant stand-up to end');
  }, 60_000);
  afterAll(async () => {
    await site?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const get = (path: string, token: string | null = ADMIN) => fetch(`${site.base}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

  it.each([
    ['a JSON route', () => `/api/sessions/${session.id}`, 200, /^application\/json/],
    ['an open JSON route', () => '/api/health', 200, /^application\/json/],
    ['a text route', () => `/api/sessions/${session.id}/transcript`, 200, /^text\/plain/],
    ['JSON lines', () => `/api/sessions/${session.id}/events`, 200, /^application\/x-ndjson/],
    ['a download', () => `/api/sessions/${session.id}/report?format=csv`, 200, /^text\/csv/],
    ['a 404 of the API', () => '/api/sessions/no-such-session', 404, /^application\/json/],
    ['a route the API does not have', () => '/api/no-such-route', 404, /^text\/plain/],
  ])('%s', async (what, path, status, type) => {
    const res = await get(path());
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(type);
    expectSecurityHeaders(res.headers, what);
    // API answers hold tokens and session state: never cached on the way.
    expect(res.headers.get('cache-control')).toBe('no-store');
    if (what === 'a download') expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename=".*-report\.csv"$/);
  });

  it('a 401 without a token, with its problem in the body', async () => {
    const res = await get('/api/sessions', null);
    expect(res.status).toBe(401);
    expectSecurityHeaders(res.headers, 'a 401');
    expect(await res.json()).toEqual({ error: 'unauthorized', message: 'Send a token: Authorization: Bearer <token>, or ?token= on sockets.' });
  });

  it.each([
    ['the room page (HTML)', `/room/abc?token=x`, /^text\/html/],
    ['a built script', '/assets/index.js', /javascript/],
    ['an avatar', '/avatars/avatar-01.glb', /^model\/gltf-binary|^application\/octet-stream/],
  ])('a static file: %s', async (what, path, type) => {
    const res = await get(path, null);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(type);
    expectSecurityHeaders(res.headers, what);
  });

  it('a refused socket upgrade: its status, the headers and the problem, not a bare status line', async () => {
    const refused = await refusedUpgrade(site, `/api/sessions/${session.id}/socket?token=not-a-token`);
    expect(refused.status).toBe(401);
    expectSecurityHeaders(refused.headers, 'a refused upgrade');
    expect(JSON.parse(refused.body)).toEqual({ error: 'unauthorized', message: 'The token is not valid.' });
    const inUrl = await refusedUpgrade(site, `/api/sessions/${session.id}/socket?token=${ADMIN}`);
    expect(inUrl.status).toBe(401);
    expect((JSON.parse(inUrl.body) as { error: string }).error).toBe('token-in-url');
    const foreign = await refusedUpgrade(site, `/api/sessions/another-session/socket?token=${encodeURIComponent(session.tokens.observer!)}`);
    expect(foreign.status).toBe(403);
    expectSecurityHeaders(foreign.headers, 'a 403 upgrade');
  });
});

describe('socket frames', () => {
  let server: InProcessServer;
  let live: Created;
  beforeAll(async () => {
    server = await startServer();
    live = await createSession(server, 'team-standup', 'realtime', 'lobby');
  }, 60_000);
  afterAll(async () => {
    await closeClients();
    await server?.close();
  });

  const watcher = () => Client.connect(server, live.id, live.tokens.observer!);

  it('a bad message gets a typed error and the socket stays open', async () => {
    const socket = await watcher();
    expect(await socket.expectError('{not json')).toMatchObject({ code: 'bad-json' });
    expect(await socket.expectError('x'.repeat(server.config.maxMessageBytes + 1))).toMatchObject({ code: 'too-large' });
    expect(await socket.expectError({ type: 'no-such-type' })).toMatchObject({ code: 'bad-message', field: 'type' });
    await socket.ping();
    expect(socket.closed).toBeNull();
  });

  it('a text frame that is not UTF-8 closes the socket with 1007', async () => {
    const socket = await watcher();
    socket.ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    await until(() => socket.closed !== null, 'the socket to close');
    expect(socket.closed?.code).toBe(1007);
  });

  it('a frame over the payload limit (64 messages, at least 1 MiB) closes the socket with 1009', async () => {
    const socket = await watcher();
    const limit = Math.max(server.config.maxMessageBytes * 64, 1 << 20);
    socket.ws.send('x'.repeat(limit + 1));
    await until(() => socket.closed !== null, 'the socket to close');
    expect(socket.closed?.code).toBe(1009);
  });
});

describe('written feedback', () => {
  const t0 = Date.now();
  let server: InProcessServer;
  let ended: Created;
  beforeAll(async () => {
    // The API's clock stands still: no budget refills while the test runs, however slow the machine.
    server = await startServer({ now: () => t0 });
    ended = await createSession(server, 'team-standup', 'instant');
    await until(() => server.rooms.get(ended.id)!.ended(), 'the instant stand-up to end');
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it('is limited like questions: six at once per token, then 429 with Retry-After', async () => {
    const feedback = (token: string) => fetch(`${server.base}/api/sessions/${ended.id}/feedback`, { headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 6; i++) expect((await feedback(ended.tokens.observer!)).status).toBe(200);
    const limited = await feedback(ended.tokens.observer!);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('10');
    expect(await limited.json()).toEqual({ error: 'rate-limited', message: 'At most 6 feedback requests a minute; ask again in 10 s.' });
    // Each token has its own budget.
    expect((await feedback(ended.tokens.jordan!)).status).toBe(200);
  });
});

describe('session reports', () => {
  it('are built again after a build that failed, not served the failure from the cache', async () => {
    let fail = true;
    const scene = {
      get participants() {
        throw new Error('the scene could not be read');
      },
    } as unknown as LoadedScene;
    const reports = sessionReports({
      store: { lastSeq: () => 3, events: () => [] } as unknown as Store,
      // Failing, the live room's scene; then none (an ended session of a scene this server lacks).
      sceneOf: async () => (fail ? scene : undefined),
    });
    const viewer = { role: 'author', participant: null } as const;
    const row = { id: 's1', scene: 'team-standup', sceneEtag: null } as SessionRow;
    await expect(reports.of(row, viewer)).rejects.toThrow('the scene could not be read');
    fail = false;
    const report = await reports.of(row, viewer);
    expect(report.participants).toEqual([]);
  });
});
