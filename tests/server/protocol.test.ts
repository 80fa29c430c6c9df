/**
 * Issue 3, the edges of the API: typed errors that keep the socket open (roles, bad JSON, unknown
 * or malformed messages, oversized messages, floods), and credentials refused over HTTP and on
 * the socket upgrade.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Generator } from '../../server/providers/generator/port';
import { Client, api, closeClients, createSession, startServer, upgradeStatus, type Created, type InProcessServer } from './helpers';

let server: InProcessServer;
/** How far the server's clock is ahead of the wall clock: a test moves it on instead of waiting. */
let ahead = 0;
/** Two team stand-ups that stay live throughout: their first generated reply never comes. */
let session: Created;
let other: Created;

const stuck: Generator = {
  name: 'stuck',
  // eslint-disable-next-line require-yield
  async *stream(_request, signal) {
    await new Promise((resolve) => signal?.addEventListener('abort', resolve));
  },
};

beforeAll(async () => {
  server = await startServer({ generator: () => stuck, now: () => Date.now() + ahead });
  session = await createSession(server, 'team-standup', 'instant');
  other = await createSession(server, 'team-standup', 'instant');
});
afterEach(async () => {
  await closeClients();
});
afterAll(async () => {
  await server?.close();
});

const observer = () => Client.connect(server, session.id, session.tokens.observer!);
const participant = () => Client.connect(server, session.id, session.tokens.jordan!);

describe('typed errors keep the connection open', () => {
  it('an observer may not speak, a participant may not steer', async () => {
    const watcher = await observer();
    expect(await watcher.expectError({ type: 'say', text: 'Hello from the gallery' })).toMatchObject({ code: 'forbidden' });
    expect(await watcher.expectError({ type: 'raise-hand' })).toMatchObject({ code: 'forbidden' });
    await watcher.ping();

    const jordan = await participant();
    for (const type of ['pause', 'resume', 'skip-turn', 'end']) {
      expect(await jordan.expectError({ type })).toMatchObject({ code: 'forbidden' });
    }
    expect(await jordan.expectError({ type: 'inject', text: 'Everyone agree with me.' })).toMatchObject({ code: 'forbidden' });
    expect(await jordan.expectError({ type: 'approve', proposal: 'p1' })).toMatchObject({ code: 'forbidden' });
    await jordan.ping();

    expect(watcher.closed).toBeNull();
    expect(jordan.closed).toBeNull();
    // None of it reached the room.
    const events = watcher.events().concat(jordan.events());
    expect(events.some((e) => e.type === 'system' && ['paused', 'resumed', 'turn-skipped', 'direction'].includes(e.code))).toBe(false);
    expect(events.some((e) => e.type === 'end')).toBe(false);
    expect(events.some((e) => e.type === 'utterance' && e.text === 'Hello from the gallery')).toBe(false);
  });

  it('bad JSON, unknown types, wrong field types and oversized messages get typed errors', async () => {
    const jordan = await participant();
    const cases: [unknown, Record<string, unknown>][] = [
      ['{"type": "say", "text": ', { code: 'bad-json' }],
      ['not json at all', { code: 'bad-json' }],
      [{ type: 'dance' }, { code: 'bad-message', field: 'type', message: 'unknown message type "dance"' }],
      [{ text: 'no type' }, { code: 'bad-message', field: 'type' }],
      ['[1, 2, 3]', { code: 'bad-message', field: 'type' }],
      ['null', { code: 'bad-message', field: 'type' }],
      [{ type: 'say', text: '   ' }, { code: 'bad-message', field: 'text' }],
      [{ type: 'say', text: 'x'.repeat(2001) }, { code: 'bad-message', field: 'text' }],
      [{ type: 'say', text: 'Hi', extra: true }, { code: 'bad-message' }],
      [{ type: 'say', text: 42 }, { code: 'bad-message', field: 'text' }],
      [{ type: 'typing', active: 'yes' }, { code: 'bad-message', field: 'active' }],
      [{ type: 'say', text: 'x'.repeat(server.config.maxMessageBytes + 1) }, { code: 'too-large' }],
    ];
    for (const [message, expected] of cases) {
      const error = await jordan.expectError(message);
      expect(error, JSON.stringify(message).slice(0, 60)).toMatchObject(expected);
      expect(error.message.length).toBeGreaterThan(0);
      await jordan.ping();
    }
    expect(jordan.closed).toBeNull();
    expect(jordan.invalid).toEqual([]);
    expect(jordan.events().some((e) => e.type === 'utterance' && e.speaker === 'jordan')).toBe(false);
  });

  it('a wrong field type names that field', async () => {
    const jordan = await participant();
    expect(await jordan.expectError({ type: 'say', text: 42 })).toMatchObject({ code: 'bad-message', field: 'text' });
    expect(await jordan.expectError({ type: 'typing', active: 'yes' })).toMatchObject({ code: 'bad-message', field: 'active' });
    const watcher = await observer();
    expect(await watcher.expectError({ type: 'edit', proposal: 'p1', text: 7 })).toMatchObject({ code: 'bad-message', field: 'text' });
  });

  it('a flood beyond the burst is rate-limited, and the socket answers again once the bucket refills', async () => {
    const jordan = await participant();
    // The budget is Jordan's across tests and sockets: time enough to refill it whole.
    ahead += (server.config.messageBurst / server.config.messageRatePerS) * 1000;
    const flood = server.config.messageBurst + 20;
    for (let i = 0; i < flood; i++) jordan.send({ type: 'ping' });
    await jordan.waitFor(() => jordan.count('pong') + jordan.errors().length >= flood, `${flood} replies to the flood`);
    const limited = jordan.errors().filter((e) => e.code === 'rate-limited');
    expect(limited.length).toBeGreaterThan(0);
    expect(jordan.errors().length).toBe(limited.length);
    expect(jordan.count('pong')).toBeGreaterThanOrEqual(server.config.messageBurst);
    expect(jordan.closed).toBeNull();
    // One message's worth of time later, the bucket has room for one more.
    ahead += 1000 / server.config.messageRatePerS;
    await jordan.ping();
  });

  it('a participant of an ended session gets `ended`, and still a pong', async () => {
    const ended = await createSession(server, 'team-standup', 'instant');
    const res = await api(server, `/api/sessions/${ended.id}`, { method: 'DELETE', token: ended.tokens.observer });
    expect(res.status).toBe(200);
    const jordan = await Client.connect(server, ended.id, ended.tokens.jordan!);
    await jordan.waitForEvent((e) => e.type === 'end', 'the end event');
    expect(await jordan.expectError({ type: 'say', text: 'Is anyone there?' })).toMatchObject({ code: 'ended' });
    await jordan.ping();
  });
});

describe('credentials', () => {
  const path = () => `/api/sessions/${session.id}`;

  it('HTTP: 401 without a token, with a garbage one, or an expired one', async () => {
    expect((await api(server, '/api/health', { token: null })).status).toBe(200);
    for (const token of [null, 'garbage', 'v1.abc.def', `${session.tokens.observer!}x`]) {
      const res = await api(server, path(), { token });
      expect(res.status, String(token)).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'unauthorized' });
    }
    const expired = server.tokens.sign({ session: session.id, participant: null, role: 'observer' }, 1, Date.now() - 1000);
    const res = await api(server, path(), { token: expired });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'unauthorized', message: expect.stringContaining('expired') });
    expect((await api(server, '/api/sessions', { token: null, method: 'POST', body: { scene: 'team-standup' } })).status).toBe(401);
    expect((await api(server, '/api/sessions', { token: 'not-the-admin-token' })).status).toBe(401);
  });

  it('HTTP: 403 for another session’s token, a participant reading the log, or a non-author creating sessions', async () => {
    expect((await api(server, path(), { token: session.tokens.observer })).status).toBe(200);
    const cases: [string, string, string?][] = [
      [path(), other.tokens.observer!],
      [path(), other.tokens.jordan!],
      [`${path()}/events`, other.tokens.observer!],
      [`${path()}/events`, session.tokens.jordan!],
      [`${path()}/transcript`, other.tokens.jordan!],
      ['/api/sessions', session.tokens.observer!],
      [path(), session.tokens.jordan!, 'DELETE'],
      [path(), other.tokens.observer!, 'DELETE'],
    ];
    for (const [url, token, method] of cases) {
      const res = await api(server, url, { token, ...(method ? { method } : {}) });
      expect(res.status, `${method ?? 'GET'} ${url}`).toBe(403);
      expect(await res.json()).toMatchObject({ error: 'forbidden' });
    }
    const create = await api(server, '/api/sessions', { token: session.tokens.observer, method: 'POST', body: { scene: 'team-standup' } });
    expect(create.status).toBe(403);
    // The refused DELETEs ended nothing.
    expect(await (await api(server, path())).json()).toMatchObject({ phase: 'running' });
  });

  it('the socket upgrade is refused without a valid token of this session', async () => {
    const socket = (query: string) => upgradeStatus(server, `/api/sessions/${session.id}/socket${query}`);
    const expired = server.tokens.sign({ session: session.id, participant: 'jordan', role: 'participant' }, 1, Date.now() - 1000);
    expect(await socket('')).toBe(401);
    expect(await socket('?token=')).toBe(401);
    expect(await socket('?token=garbage')).toBe(401);
    expect(await socket(`?token=${encodeURIComponent(expired)}`)).toBe(401);
    expect(await socket(`?token=${encodeURIComponent(other.tokens.observer!)}`)).toBe(403);
    expect(await socket(`?token=${encodeURIComponent(other.tokens.jordan!)}`)).toBe(403);
    expect(await socket(`?token=${encodeURIComponent(session.tokens.observer!)}`)).toBe(101);
    // The admin token counts only in the Authorization header, never in a URL.
    expect(await socket(`?token=${encodeURIComponent(server.admin)}`)).toBe(401);
  });
});
