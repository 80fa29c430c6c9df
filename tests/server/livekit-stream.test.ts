/**
 * A participant whose live stream comes through LiveKit (`?stream=livekit`): the socket brings the
 * welcome and the backlog after a seq, takes their messages, and sends nothing live (no events,
 * deltas, audio or relayed voices), so nothing reaches them twice. Without LiveKit the flag is ignored.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Generator } from '../../server/providers/generator/port';
import { Client, closeClients, createSession, startServer, type InProcessServer } from './helpers';

const LIVEKIT = { LIVEKIT_URL: 'ws://127.0.0.1:1', LIVEKIT_API_KEY: 'devkey', LIVEKIT_API_SECRET: 'a-test-secret-that-is-at-least-32-characters' };

/** Replies never come: the room waits, so only what the test does happens. */
const stuck: Generator = {
  name: 'stuck',
  // eslint-disable-next-line require-yield
  async *stream(_request, signal) {
    await new Promise((resolve) => signal?.addEventListener('abort', resolve));
  },
};

/** Waits for the welcome and the backlog it announces (every event up to the snapshot's last seq). */
const welcomed = async (client: Client) => {
  await client.waitFor((m) => m[0]?.type === 'welcome', 'the welcome');
  const welcome = client.messages[0]!;
  if (welcome.type !== 'welcome') throw new Error('unreachable');
  const last = welcome.snapshot.lastSeq;
  await client.waitFor(() => (client.events().at(-1)?.seq ?? 0) >= last, `the backlog up to seq ${last}`);
};

const isAlexSaying = (e: { type: string; speaker?: string }) => e.type === 'utterance' && e.speaker === 'alex';

describe('the socket of a participant on LiveKit', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await startServer({ env: LIVEKIT, generator: () => stuck });
  });
  afterEach(() => closeClients());
  afterAll(() => server?.close());

  it('brings the welcome and the backlog, takes messages, and sends nothing live', async () => {
    const session = await createSession(server, 'job-interview', 'instant');
    const watcher = await Client.connect(server, session.id, session.tokens.observer!);
    const alex = await Client.connect(server, session.id, session.tokens.alex!, undefined, { stream: 'livekit' });
    await welcomed(alex);
    const backlog = alex.events().length;
    expect(backlog).toBeGreaterThan(0); // session-start and what followed

    alex.send({ type: 'say', text: 'Hello everyone, thanks for having me.' });
    await watcher.waitForEvent(isAlexSaying, "Alex's words, live to the observer");
    // Anything the room sent Alex live would be on the socket before the pong.
    await alex.ping();
    expect(alex.events()).toHaveLength(backlog);
    expect(alex.messages.filter((m) => m.type !== 'welcome' && m.type !== 'event' && m.type !== 'pong')).toEqual([]);
    expect(alex.invalid).toEqual([]);
    await alex.close();

    // Reconnecting after seq 0 fills the gap from the socket.
    const again = await Client.connect(server, session.id, session.tokens.alex!, 0, { stream: 'livekit' });
    await welcomed(again);
    expect(again.events().some(isAlexSaying)).toBe(true);
  });
});

describe('without LiveKit', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await startServer({ generator: () => stuck });
  });
  afterEach(() => closeClients());
  afterAll(() => server?.close());

  it('ignores ?stream=livekit: everything comes on the socket', async () => {
    const session = await createSession(server, 'job-interview', 'instant');
    const alex = await Client.connect(server, session.id, session.tokens.alex!, undefined, { stream: 'livekit' });
    alex.send({ type: 'say', text: 'Hello everyone, thanks for having me.' });
    await alex.waitForEvent(isAlexSaying, "Alex's words, live on the socket");
  });
});
