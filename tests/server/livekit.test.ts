/**
 * The LiveKit media plane as the HTTP API exposes it, with no LiveKit server anywhere: tokens for a
 * session's room traded for session tokens, LiveKit's signed webhooks, and health that says whether
 * LiveKit answers (and that sessions go on without it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/api/app';
import { createTokens } from '../../server/auth/tokens';
import type { LiveKitProbe } from '../../server/livekit/health';
import { roomNameFor } from '../../server/livekit/tokens';
import type { Rooms } from '../../server/rooms/rooms';
import type { Store } from '../../server/store/store';
import { signedWebhook } from '../fakes/livekit';
import { api, createSession, startServer, type InProcessServer } from './helpers';

const LIVEKIT = { LIVEKIT_URL: 'ws://127.0.0.1:1', LIVEKIT_API_KEY: 'devkey', LIVEKIT_API_SECRET: 'a-test-secret-that-is-at-least-32-characters' };

const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as {
    sub: string;
    iss: string;
    name: string;
    exp: number;
    nbf: number;
    attributes: Record<string, string>;
    video: Record<string, unknown>;
  };

const liveKitToken = (server: InProcessServer, session: string, token: string | null) => api(server, `/api/sessions/${session}/livekit-token`, { method: 'POST', token });

describe('POST /api/sessions/:id/livekit-token with LiveKit configured', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await startServer({ env: LIVEKIT });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("gives a participant the room's address and a token for its seat, named and dressed as in the scene", async () => {
    const session = await createSession(server, 'team-standup', 'realtime');
    const res = await liveKitToken(server, session.id, session.tokens.jordan!);
    expect(res.status).toBe(200);
    const { url, token } = (await res.json()) as { url: string; token: string };
    expect(url).toBe('ws://127.0.0.1:1');
    const claims = claimsOf(token);
    expect(claims).toMatchObject({ sub: 'jordan', iss: 'devkey', name: 'Jordan Lee', attributes: { role: 'participant', avatar: 'avatar-01' } });
    expect(claims.video).toEqual({
      roomJoin: true,
      room: roomNameFor(session.id),
      canPublish: true,
      canPublishSources: ['microphone'],
      canSubscribe: true,
      canPublishData: false,
    });
    expect(claims.exp - claims.nbf).toBeLessThanOrEqual(3600);
  });

  it('gives observers and the author a hidden, listen-only token', async () => {
    const session = await createSession(server, 'team-standup', 'realtime');
    for (const token of [session.tokens.observer!, server.admin]) {
      const res = await liveKitToken(server, session.id, token);
      expect(res.status).toBe(200);
      const claims = claimsOf(((await res.json()) as { token: string }).token);
      expect(claims.sub).toMatch(/^observer:/);
      expect(claims.video).toEqual({ roomJoin: true, room: roomNameFor(session.id), hidden: true, canSubscribe: true, canPublish: false, canPublishData: false });
    }
  });

  it('never outlives the session token it was traded for', async () => {
    const session = await createSession(server, 'team-standup', 'realtime');
    const shortLived = server.tokens.sign({ session: session.id, participant: 'jordan', role: 'participant' }, 90_000, Date.now());
    const claims = claimsOf(((await (await liveKitToken(server, session.id, shortLived)).json()) as { token: string }).token);
    expect(claims.exp - claims.nbf).toBeLessThanOrEqual(90);
  });

  it('wants a token of that session', async () => {
    const session = await createSession(server, 'team-standup', 'realtime');
    const other = await createSession(server, 'team-standup', 'realtime');
    const missing = await liveKitToken(server, session.id, null);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: 'unauthorized' });
    expect((await liveKitToken(server, session.id, 'garbage')).status).toBe(401);
    const foreign = await liveKitToken(server, session.id, other.tokens.jordan!);
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: 'forbidden' });
  });

  it('answers 404 for a session that is unknown or no longer live', async () => {
    expect((await liveKitToken(server, 'no-such-session', server.admin)).status).toBe(404);
    const session = await createSession(server, 'team-standup', 'realtime');
    expect((await api(server, `/api/sessions/${session.id}`, { method: 'DELETE' })).status).toBe(200);
    const ended = await liveKitToken(server, session.id, session.tokens.jordan!);
    expect(ended.status).toBe(404);
    expect(await ended.json()).toMatchObject({ error: 'not-found' });
  });

  it('reports LiveKit as the transport, unreachable, with the WebSocket as fallback, and still creates sessions', async () => {
    const res = await api(server, '/api/health', { token: null });
    expect(res.status).toBe(200);
    const health = (await res.json()) as { providers: { transport: string }; livekit: Record<string, unknown> };
    expect(health.providers.transport).toBe('livekit');
    expect(health.livekit).toMatchObject({ configured: true, reachable: false, fallback: 'websocket', error: expect.stringMatching(/^cannot connect/) });
    expect(Date.parse(health.livekit.checkedAt as string)).not.toBeNaN();
    await createSession(server, 'team-standup', 'instant');
  });

  it('refuses unsigned webhooks on the HTTP route', async () => {
    const res = await fetch(`${server.base}/api/livekit/webhook`, { method: 'POST', headers: { 'content-type': 'application/webhook+json' }, body: '{"event":"room_started"}' });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'unsigned' });
  });
});

describe('without LiveKit', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers 409 livekit-off to a valid token, so the client stays on the session socket', async () => {
    const session = await createSession(server, 'team-standup', 'realtime');
    const res = await liveKitToken(server, session.id, session.tokens.jordan!);
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: 'livekit-off', message: expect.stringContaining('LIVEKIT_URL') });
  });

  it('reports the WebSocket transport and no LiveKit in health, and has no webhook route', async () => {
    const health = (await (await api(server, '/api/health', { token: null })).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ providers: { transport: 'websocket' } });
    expect(health).not.toHaveProperty('livekit');
    expect((await fetch(`${server.base}/api/livekit/webhook`, { method: 'POST', body: '{}' })).status).toBe(404);
  });
});

describe('POST /api/livekit/webhook', () => {
  const livekit = { url: LIVEKIT.LIVEKIT_URL, apiKey: LIVEKIT.LIVEKIT_API_KEY, apiSecret: LIVEKIT.LIVEKIT_API_SECRET };
  const presence: [string, string, boolean][] = [];
  const reachable: LiveKitProbe = {
    check: async () => ({ configured: true, reachable: true, checkedAt: '2030-01-01T00:00:00.000Z' }),
    status: async () => ({ configured: true, reachable: true, checkedAt: '2030-01-01T00:00:00.000Z' }),
  };
  // Only the webhook and health routes are exercised: they touch neither rooms' sessions nor the store.
  const { app } = createApp({
    config: { adminToken: 'admin', tokenTtlMs: 3_600_000, maxMessageBytes: 16_384, messageRatePerS: 20, messageBurst: 40, generator: 'scripted', synthesizer: 'none', transcriber: 'none', livekit },
    rooms: { list: () => [] } as unknown as Rooms,
    store: {} as Store,
    tokens: createTokens('x'.repeat(32)),
    scenes: [],
    version: 'test',
    liveKitProbe: reachable,
    onLiveKitPresence: (...call) => presence.push(call),
  });
  const post = (body: string, authorization?: string) =>
    app.request('/api/livekit/webhook', { method: 'POST', headers: { 'content-type': 'application/webhook+json', ...(authorization ? { authorization } : {}) }, body });
  const joined = { event: 'participant_joined', room: { name: roomNameFor('s1') }, participant: { identity: 'ana', sid: 'PA_1' } };

  it('passes a signed join and leave on as presence', async () => {
    presence.length = 0;
    const enter = await signedWebhook(joined, livekit.apiKey, livekit.apiSecret);
    const res = await post(enter.body, enter.authorization);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: 'participant_joined' });
    const exit = await signedWebhook({ ...joined, event: 'participant_left' }, livekit.apiKey, livekit.apiSecret);
    expect((await post(exit.body, exit.authorization)).status).toBe(200);
    expect(presence).toEqual([
      ['s1', 'ana', true],
      ['s1', 'ana', false],
    ]);
  });

  it('refuses missing and foreign signatures and changed bodies with 401 and a typed error', async () => {
    presence.length = 0;
    const { body, authorization } = await signedWebhook(joined, livekit.apiKey, livekit.apiSecret);
    const foreign = await signedWebhook(joined, 'otherkey', livekit.apiSecret);
    const cases: [string, string | undefined, string][] = [
      [body, undefined, 'unsigned'],
      [foreign.body, foreign.authorization, 'bad-signature'],
      [body.replace('"ana"', '"bob"'), authorization, 'bad-signature'],
    ];
    for (const [sent, header, error] of cases) {
      const res = await post(sent, header);
      expect(res.status, error).toBe(401);
      expect(await res.json()).toMatchObject({ error, message: expect.any(String) });
    }
    expect(presence).toEqual([]);
  });

  it('refuses bodies far larger than any event', async () => {
    const res = await post(`{"event":"room_started","pad":"${'x'.repeat(100_000)}"}`, 'token');
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'too-large' });
  });

  it('reports a reachable LiveKit without a fallback', async () => {
    const health = (await (await app.request('/api/health')).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ providers: { transport: 'livekit' }, livekit: { configured: true, reachable: true } });
    expect(health.livekit).not.toHaveProperty('fallback');
  });
});
