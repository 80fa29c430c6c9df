/**
 * The HTTP edge (server/api/security.ts, app.ts, static.ts): security headers on every response
 * (HTML, API, assets, errors), the admin token only in the Authorization header, join links from
 * PUBLIC_URL (and a warning when a proxy is in front without it), a body limit on every endpoint
 * with a clear 413 that does not read the body, and only built assets served.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/api/app';
import { MAX_BODY_BYTES } from '../../server/api/security';
import { staticFiles } from '../../server/api/static';
import { createTokens } from '../../server/auth/tokens';
import { loadConfig } from '../../server/config';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { createRooms } from '../../server/rooms/rooms';
import { loadScenes } from '../../server/scene/load';
import type { LoadedScene } from '../../shared/scene/schema';
import { openStore, type Store } from '../../server/store/store';
import { ADMIN, api, closeClients, startServer, tempDir, upgradeStatus, type InProcessServer } from './helpers';

const repoRoot = new URL('../../', import.meta.url).pathname;
let scenes: LoadedScene[];
const stores: Store[] = [];
const dirs: string[] = [];

/** A root like the repository's: avatars (with the generator's sources beside them) and a built client. */
const siteRoot = (): string => {
  const root = tempDir();
  dirs.push(root);
  mkdirSync(join(root, 'avatars/generator'), { recursive: true });
  mkdirSync(join(root, 'dist/client/assets'), { recursive: true });
  writeFileSync(join(root, 'avatars/avatar-01.glb'), Buffer.from('glTF'));
  writeFileSync(join(root, 'avatars/manifest.json'), '{"avatars":[]}');
  writeFileSync(join(root, 'avatars/generator/cast.ts'), 'export const cast = [];');
  writeFileSync(join(root, 'avatars/generator/sheet-page.html'), '<script>alert(1)</script>');
  writeFileSync(join(root, 'dist/client/index.html'), '<!doctype html><script type="module" src="/assets/index.js"></script>');
  writeFileSync(join(root, 'dist/client/assets/index.js'), 'console.log(1)');
  return root;
};

/** The app as main.ts builds it (API, then avatars and the built client), answering `app.request`. */
const appWith = (env: Record<string, string> = {}, warnings: string[] = []) => {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const config = loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, GENERATOR: 'scripted', SYNTHESIZER: 'none', ...env });
  const store = openStore(dataDir);
  stores.push(store);
  const rooms = createRooms({ store, scenes: new Map(scenes.map((s) => [s.id, s])), generator: () => createScriptedGenerator() });
  const { app } = createApp({ config, rooms, store, tokens: createTokens(randomBytes(32).toString('base64url')), version: 'test', scenes, warn: (line) => warnings.push(line) });
  const files = staticFiles({ root: siteRoot() });
  expect(files.clientBuilt).toBe(true);
  app.route('/', files.app);
  return app;
};

const admin = { authorization: `Bearer ${ADMIN}` };
const createBody = JSON.stringify({ scene: 'team-standup', pace: 'instant' });

beforeAll(async () => {
  scenes = await loadScenes(join(repoRoot, 'scenes'));
});

afterAll(() => {
  for (const store of stores) store.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('security headers', () => {
  const app = () => appWith();

  it.each([
    ['the room page (HTML)', '/room/abc?token=x', 200],
    ['the home page', '/', 200],
    ['the API', '/api/health', 200],
    ['an API error', '/api/sessions', 401],
    ['a built script', '/assets/index.js', 200],
    ['an avatar', '/avatars/avatar-01.glb', 200],
    ['a missing file', '/nothing-here.js', 404],
  ])('are on %s', async (_what, path, status) => {
    const res = await app().request(path);
    expect(res.status).toBe(status);
    const csp = res.headers.get('content-security-policy') ?? '';
    const scriptSrc = /script-src ([^;]*)/.exec(csp)?.[1] ?? '';
    expect(scriptSrc).toBe("'self' blob:");
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('let the client reach LiveKit when it is configured, and nothing else off the origin', async () => {
    const app = appWith({ LIVEKIT_URL: 'wss://livekit.example.com', LIVEKIT_API_KEY: 'devkey', LIVEKIT_API_SECRET: 's'.repeat(32) });
    const csp = (await app.request('/')).headers.get('content-security-policy') ?? '';
    expect(/connect-src ([^;]*)/.exec(csp)?.[1]).toBe("'self' blob: data: wss://livekit.example.com https://livekit.example.com");
  });

  it('keep API answers, which hold tokens, out of caches', async () => {
    const res = await app().request('/api/sessions', { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: createBody });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

describe('the admin token', () => {
  it('is refused in the URL, with a message saying where it goes', async () => {
    const app = appWith();
    for (const [method, path] of [
      ['GET', `/api/sessions?token=${ADMIN}`],
      ['POST', `/api/sessions?token=${ADMIN}`],
    ] as const) {
      const res = await app.request(path, { method, headers: { 'content-type': 'application/json' }, ...(method === 'POST' ? { body: createBody } : {}) });
      expect(res.status, `${method} ${path}`).toBe(401);
      const body = (await res.json()) as { error: string; message: string };
      expect(body.error).toBe('token-in-url');
      expect(body.message).toMatch(/only in the Authorization header/);
    }
    expect((await app.request('/api/sessions', { headers: admin })).status).toBe(200);
  });

  it('opens no socket from the URL, while session tokens there still do', async () => {
    const server: InProcessServer = await startServer();
    try {
      const created = (await (await api(server, '/api/sessions', { method: 'POST', body: { scene: 'team-standup', pace: 'instant', standIns: true } })).json()) as { id: string; tokens: Record<string, string> };
      const socket = (token: string) => upgradeStatus(server, `/api/sessions/${created.id}/socket?token=${encodeURIComponent(token)}`);
      expect(await socket(ADMIN)).toBe(401);
      expect(await socket(created.tokens.observer!)).toBe(101);
      // A join link's token also reads the session over HTTP.
      expect((await fetch(`${server.base}/api/sessions/${created.id}?token=${encodeURIComponent(created.tokens.observer!)}`)).status).toBe(200);
    } finally {
      await closeClients();
      await server.close();
    }
  });
});

describe('join links', () => {
  const create = async (app: ReturnType<typeof appWith>, headers: Record<string, string> = {}) => {
    const res = await app.request('http://10.0.0.5:8787/api/sessions', { method: 'POST', headers: { ...admin, 'content-type': 'application/json', ...headers }, body: createBody });
    expect(res.status).toBe(201);
    return ((await res.json()) as { links: Record<string, string> }).links;
  };

  it('are built from PUBLIC_URL, whatever the request says', async () => {
    const links = await create(appWith({ PUBLIC_URL: 'https://rehearse.example.org/' }), { host: 'evil.example', 'x-forwarded-host': 'evil.example' });
    expect(Object.values(links).length).toBeGreaterThan(1);
    for (const link of Object.values(links)) expect(link).toMatch(/^https:\/\/rehearse\.example\.org\/room\/[\w-]+\?token=/);
  });

  it('without PUBLIC_URL use the address asked, and warn once when a proxy is in front', async () => {
    const warnings: string[] = [];
    const app = appWith({}, warnings);
    expect(Object.values(await create(app))[0]).toMatch(/^http:\/\/10\.0\.0\.5:8787\/room\//);
    expect(warnings).toEqual([]);
    await create(app, { 'x-forwarded-host': 'rehearse.example.org', 'x-forwarded-proto': 'https' });
    await create(app, { 'x-forwarded-host': 'rehearse.example.org' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^WARNING: PUBLIC_URL is not set and requests come through a proxy .*Set PUBLIC_URL/);
  });

  it('refuse a PUBLIC_URL that is no http(s) address', () => {
    expect(() => loadConfig({ PUBLIC_URL: 'rehearse.example.org' })).toThrow(/PUBLIC_URL: must be an http:\/\/ or https:\/\/ URL/);
  });
});

describe('request bodies', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterEach(() => closeClients());
  afterAll(() => server.close());

  it('over the limit get 413 with a clear message, from the Content-Length, at once', async () => {
    const res = await fetch(`${server.base}/api/sessions`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: Buffer.alloc(2 * 1024 * 1024, 32) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: 'too-large', message: `Request bodies are limited to ${MAX_BODY_BYTES} bytes.` });
    // The server still answers.
    expect((await api(server, '/api/health', { token: null })).status).toBe(200);
  });

  it('are limited on every endpoint, not only those that read one', async () => {
    const app = appWith();
    for (const [method, path] of [
      ['POST', '/api/sessions'],
      ['PUT', '/api/health'],
      ['DELETE', '/api/sessions/x'],
      ['POST', '/room/x'],
    ] as const) {
      const res = await app.request(path, { method, headers: { ...admin, 'content-length': String(2 * 1024 * 1024) }, body: 'x' });
      expect(res.status, `${method} ${path}`).toBe(413);
    }
  });

  it('without a length are read only up to the limit', async () => {
    let sent = 0;
    const chunk = new Uint8Array(16 * 1024).fill(32);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 2 * 1024 * 1024) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const res = await appWith().request('/api/sessions', { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
    expect(sent).toBeLessThanOrEqual(MAX_BODY_BYTES + 2 * chunk.byteLength);
  });
});

describe('static files', () => {
  it('serve the avatars and the built client, never sources', async () => {
    const app = appWith();
    expect((await app.request('/avatars/avatar-01.glb')).status).toBe(200);
    expect((await app.request('/avatars/manifest.json')).status).toBe(200);
    expect((await app.request('/assets/index.js')).status).toBe(200);
    for (const path of ['/avatars/generator/cast.ts', '/avatars/generator/sheet-page.html', '/avatars/%2e%2e/package.json', '/avatars/../server/main.ts', '/client/src/main.tsx', '/server/main.ts']) {
      expect((await app.request(path)).status, path).toBe(404);
    }
  });
});
