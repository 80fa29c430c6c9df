/**
 * Issue 16, items 3, 6 and 11 over real sockets: limits per person, not per connection (many
 * sockets on one token share one budget and one place; a burst of lines cannot fast-forward a
 * scene), backpressure (a reader that falls behind is dropped, and nothing more is queued for it),
 * a heartbeat that cuts dead sockets, a token that expires on an open socket, schema-valid
 * messages for every `?after=`, and typed text stored and exported clean.
 *
 * The API's clock stands still unless a test moves it (`ahead`), so no budget refills behind a
 * test's back; the heartbeat beats every 500 ms, the send buffer's bound is 64 KB and a token holds
 * two sockets, so the tests see in moments what takes 15-30 s, 4 MB and 256 sockets in production.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { SessionEvent } from '../../shared/events';
import { ServerMessage } from '../../shared/protocol/messages';
import { Client, api, closeClients, createSession, expectContiguous, logOf, serverPerFile, until } from './helpers';

const T0 = Date.now();
let ahead = 0;

const server = serverPerFile({ now: () => T0 + ahead, sockets: { heartbeatMs: 500, maxBufferedBytes: 64 * 1024, maxSocketsPerToken: 2 } });
afterEach(async () => {
  await closeClients();
  // Every test starts with full budgets.
  ahead += 60_000;
});

const url = (session: string, token: string, query: Record<string, string> = {}) => `${server.wsBase}/api/sessions/${session}/socket?${new URLSearchParams({ token, ...query })}`;

/** A raw `ws` socket (options the helpers' client does not take), resolved once open. */
const rawSocket = async (session: string, token: string, options: WebSocket.ClientOptions = {}) => {
  const ws = new WebSocket(url(session, token), options);
  const messages: ServerMessage[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  ws.on('message', (data) => messages.push(ServerMessage.parse(JSON.parse(data.toString()))));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, messages, closed };
};

const count = (log: readonly SessionEvent[], match: (e: SessionEvent) => boolean) => log.filter(match).length;

describe('limits per person, not per connection', () => {
  it('a flood from one token over twenty sockets commits no more than one budget, and the newest sockets stay open', async () => {
    const created = await createSession(server, 'team-standup', 'realtime');
    const steering = (e: SessionEvent) => e.type === 'system' && (e.code === 'paused' || e.code === 'resumed');
    const before = count(await logOf(server, created.id), steering);
    const sockets = await Promise.all(Array.from({ length: 20 }, () => Client.connect(server, created.id, created.tokens.observer!)));
    for (const socket of sockets) for (let i = 0; i < 60; i++) socket.send({ type: i % 2 ? 'resume' : 'pause' });
    await until(() => sockets.filter((s) => s.closed === null).length <= 2, 'the older sockets closed');
    const open = sockets.filter((s) => s.closed === null);
    await open[0]!.waitFor(() => open[0]!.errors().some((e) => e.code === 'rate-limited'), 'the budget running out');
    // With the clock standing still, every socket together got one burst.
    const committed = count(await logOf(server, created.id), steering) - before;
    expect(committed).toBeGreaterThan(0);
    expect(committed).toBeLessThanOrEqual(server.config.messageBurst);
    for (const socket of sockets) if (!open.includes(socket)) expect(socket.closed?.code).toBe(4409);
  });

  it('a seat holds one socket: twenty on one seat leave the newest, and the flood commits one budget at most', async () => {
    const created = await createSession(server, 'team-standup', 'realtime');
    const before = count(await logOf(server, created.id), (e) => e.type === 'hand-raise');
    const sockets = await Promise.all(Array.from({ length: 20 }, () => Client.connect(server, created.id, created.tokens.jordan!)));
    for (const socket of sockets) for (let i = 0; i < 60; i++) socket.send({ type: i % 2 ? 'lower-hand' : 'raise-hand' });
    await until(() => sockets.filter((s) => s.closed === null).length <= 1, 'the older sockets closed');
    const survivor = sockets.find((s) => s.closed === null)!;
    await survivor.waitFor(() => survivor.errors().some((e) => e.code === 'rate-limited'), 'the budget running out');
    const hands = count(await logOf(server, created.id), (e) => e.type === 'hand-raise') - before;
    expect(hands).toBeLessThanOrEqual(server.config.messageBurst);
    for (const socket of sockets) if (socket !== survivor) expect(socket.closed?.code).toBe(4409);
  });

  it("an observer's token holds its sockets up to the bound: one more replaces the oldest, and their budget is shared", async () => {
    const created = await createSession(server, 'team-standup', 'realtime');
    const first = await Client.connect(server, created.id, created.tokens.observer!);
    const second = await Client.connect(server, created.id, created.tokens.observer!);
    await second.ping();
    expect(first.closed).toBeNull();
    const third = await Client.connect(server, created.id, created.tokens.observer!);
    await first.waitFor(() => first.errors().some((e) => e.code === 'replaced'), 'the oldest told why');
    await until(() => first.closed !== null, 'the oldest closed');
    expect(first.closed?.code).toBe(4409);
    await third.ping();
    expect(second.closed).toBeNull();
    // One budget for both: the burst spent on one socket leaves nothing on the other.
    for (let i = 0; i < server.config.messageBurst; i++) second.send({ type: 'ping' });
    await second.waitFor(() => second.count('pong') + second.errors().length >= server.config.messageBurst, 'the burst answered');
    expect(await third.expectError({ type: 'ping' })).toMatchObject({ code: 'rate-limited' });
  });

  it('a burst of lines does not fast-forward the scene: three are said, the rest are refused until time passes', async () => {
    const created = await createSession(server, 'team-standup', 'realtime', 'lobby');
    const jordan = await Client.connect(server, created.id, created.tokens.jordan!);
    await jordan.waitForEvent((e) => e.type === 'utterance', 'the first line');
    const snippets = count(await logOf(server, created.id), (e) => e.type === 'snippet-start');
    for (let i = 0; i < 30; i++) jordan.send({ type: 'say', text: `Line number ${i} from me.` });
    await jordan.waitFor(() => jordan.errors().filter((e) => e.code === 'rate-limited').length >= 27, 'the lines past the burst refused');
    // A line typed over a persona's speech is logged once that speech has stopped (a barge-in,
    // conversation.ts), after the refusals went out: under load a pong can come first.
    await jordan.waitFor(() => jordan.events().filter((e) => e.type === 'utterance' && e.speaker === 'jordan').length >= 3, 'the three lines said');
    await jordan.ping();
    const log = await logOf(server, created.id);
    expect(count(log, (e) => e.type === 'utterance' && e.speaker === 'jordan')).toBe(3);
    expect(count(log, (e) => e.type === 'snippet-start')).toBe(snippets);
    expect(log.some((e) => e.type === 'end')).toBe(false);
    // Two seconds later, one more line.
    ahead += 2000;
    jordan.send({ type: 'say', text: 'One more, after a breath.' });
    await jordan.waitForEvent((e) => e.type === 'utterance' && e.speaker === 'jordan' && e.text === 'One more, after a breath.', 'the next line');
  });
});

describe('backpressure', () => {
  it('drops a reader that stops reading once its send buffer passes the bound, and queues nothing more for it', async () => {
    const created = await createSession(server, 'sprint-retro', 'realtime', 'lobby');
    const casey = await Client.connect(server, created.id, created.tokens.casey!);
    const riley = await rawSocket(created.id, created.tokens.riley!);
    await until(() => riley.messages.some((m) => m.type === 'welcome'), "Riley's welcome");
    // Riley's client stops reading; Casey talks (each second of microphone audio is relayed to Riley).
    (riley.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const room = server.rooms.get(created.id)!;
    const second = new Int16Array(16_000).fill(300);
    const left = () => server.store.events(created.id).some((e) => (e as SessionEvent).type === 'system' && (e as SessionEvent & { code: string }).code === 'left' && (e as SessionEvent & { participant?: string }).participant === 'riley');
    let sent = 0;
    while (!left() && sent < 4000) {
      room.hear('casey', second);
      sent++;
      if (sent % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(left()).toBe(true);
    // Casey goes on talking; none of it is queued for Riley any more.
    for (let i = 0; i < 200; i++) room.hear('casey', second);
    (riley.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    const { code, reason } = await riley.closed;
    expect([4408, 1006]).toContain(code);
    if (code === 4408) expect(reason).toMatch(/after=/);
    expect(riley.messages.filter((m) => m.type === 'voice').length).toBeLessThan(sent);
    // Casey, reading, was never dropped; Riley rejoins after the last event seen.
    await casey.ping();
    expect(casey.closed).toBeNull();
    const lastSeen = riley.messages.flatMap((m) => (m.type === 'event' ? [m.event.seq] : [])).at(-1) ?? 0;
    const back = await Client.connect(server, created.id, created.tokens.riley!, lastSeen);
    await back.ping();
    expect(expectContiguous(back.events(), lastSeen + 1)).toBeNull();
  });
});

describe('the heartbeat', () => {
  it('cuts a socket that stops answering pings, and keeps one that answers', async () => {
    const created = await createSession(server, 'team-standup', 'realtime');
    const dead = await rawSocket(created.id, created.tokens.observer!, { autoPong: false });
    const alive = await rawSocket(created.id, created.tokens.observer!);
    let pings = 0;
    alive.ws.on('ping', () => pings++);
    const { code } = await dead.closed;
    expect(code).toBe(1006);
    await until(() => pings >= 4, 'four pings answered');
    expect(alive.ws.readyState).toBe(WebSocket.OPEN);
    alive.ws.close();
  });
});

describe('tokens that expire on an open socket', () => {
  it('closes the socket when its token runs out, with a clear error', async () => {
    const created = await createSession(server, 'team-standup', 'realtime');
    const shortLived = server.tokens.sign({ session: created.id, participant: null, role: 'observer' }, 60_000, T0 + ahead);
    const watcher = await Client.connect(server, created.id, shortLived);
    await watcher.ping();
    ahead += 60_001;
    await watcher.waitFor(() => watcher.errors().some((e) => e.code === 'token-expired'), 'the token-expired error');
    await until(() => watcher.closed !== null, 'the socket closed');
    expect(watcher.closed).toMatchObject({ code: 4401, reason: 'token expired' });
  });
});

describe('?after=', () => {
  it('yields schema-valid messages for any value: negative, not a number, huge, fractional, past the end', async () => {
    const created = await createSession(server, 'team-standup', 'instant');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    await observer.waitForEvent((e) => e.type === 'end', 'the end');
    const last = server.store.lastSeq(created.id);
    for (const after of ['-5', 'NaN', 'abc', '', '1e309', '99999999999999999999', '1.5', ' 3', '0x10', 'Infinity', String(last + 100), '3']) {
      const client = await Client.connect(server, created.id, created.tokens.jordan!, undefined, { after });
      await client.ping();
      expect(client.invalid, `after=${after}`).toEqual([]);
      const welcome = client.messages[0];
      expect(welcome?.type, `after=${after}`).toBe('welcome');
      if (welcome?.type !== 'welcome') continue;
      expect(welcome.resumedFrom).toBe(after === '3' ? 3 : after === String(last + 100) ? last : 0);
      expect(client.events().every((e) => e.seq > welcome.resumedFrom)).toBe(true);
      await client.close();
    }
    const res = await api(server, `/api/sessions/${created.id}/events?after=-1e999`, { token: created.tokens.observer });
    expect(res.status).toBe(200);
  });
});

describe('text from people, end to end', () => {
  it('stores and shows a typed line clean, and a transcript prints an old log clean', async () => {
    const created = await createSession(server, 'team-standup', 'realtime', 'lobby');
    const jordan = await Client.connect(server, created.id, created.tokens.jordan!);
    await jordan.waitForEvent((e) => e.type === 'utterance', 'the first line');
    jordan.send({ type: 'say', text: 'Cafe\u0301 \u202eevil\u202c 👩‍💻\n[00:00] Gwen: I quit\u001b[2J' });
    const said = await jordan.waitForEvent((e) => e.type === 'utterance' && e.speaker === 'jordan', "Jordan's line");
    expect(said).toMatchObject({ text: 'Café evil 👩‍💻 [00:00] Gwen: I quit[2J' });

    // A log written before cleaning existed: its export prints clean.
    const id = 'old-raw-log';
    server.store.createSession({ id, scene: 'team-standup', seed: 1, pace: 'instant', createdAt: T0 });
    server.store.appendEvents(id, [
      { seq: 1, t: 0, type: 'session-start', scene: 'team-standup', title: 'Stand-up', seed: 1, policy: 'round-robin', participants: [{ id: 'jordan', name: 'Jordan', kind: 'human', present: true, speakingRate: 150 }] },
      { seq: 2, t: 1000, type: 'utterance', id: 'u1', speaker: 'jordan', text: 'ok\u202e\r\n[00:09] Gwen: fired\u0007', addressee: null, pair: 'none', act: 'statement', snippet: 's', source: 'human', durationMs: 500 },
    ]);
    const transcript = await (await api(server, `/api/sessions/${id}/transcript`)).text();
    expect(transcript).toContain('Jordan: ok [00:09] Gwen: fired\n');
    expect(transcript).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202a-\u202e]/);
  });
});
