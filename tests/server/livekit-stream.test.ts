/**
 * A participant whose live stream comes through LiveKit (`?stream=livekit`): the socket brings the
 * welcome and the backlog after a seq, takes their messages, and sends nothing live (no events,
 * deltas, audio or relayed voices), so nothing reaches them twice. Without LiveKit the flag is ignored.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Generator } from '../../server/providers/generator/port';
import { ServerMessage } from '../../server/protocol/messages';
import { Client, closeClients, createSession, sleep, startServer, type InProcessServer } from './helpers';

const LIVEKIT = { LIVEKIT_URL: 'ws://127.0.0.1:1', LIVEKIT_API_KEY: 'devkey', LIVEKIT_API_SECRET: 'a-test-secret-that-is-at-least-32-characters' };

/** Replies never come: the room waits, so only what the test does happens. */
const stuck: Generator = {
  name: 'stuck',
  // eslint-disable-next-line require-yield
  async *stream(_request, signal) {
    await new Promise((resolve) => signal?.addEventListener('abort', resolve));
  },
};

const raw = async (server: InProcessServer, session: string, token: string, query: Record<string, string>) => {
  const messages: ServerMessage[] = [];
  const ws = new WebSocket(`${server.wsBase}/api/sessions/${session}/socket?${new URLSearchParams({ token, ...query })}`);
  ws.on('message', (data) => messages.push(ServerMessage.parse(JSON.parse(data.toString()))));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, messages };
};

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
    const alex = await raw(server, session.id, session.tokens.alex!, { stream: 'livekit' });
    await sleep(100);
    expect(alex.messages[0]?.type).toBe('welcome');
    const backlog = alex.messages.filter((m) => m.type === 'event').length;
    expect(backlog).toBeGreaterThan(0); // session-start and what followed

    alex.ws.send(JSON.stringify({ type: 'say', text: 'Hello everyone, thanks for having me.' }));
    await watcher.waitForEvent((e) => e.type === 'utterance' && e.speaker === 'alex', "Alex's words, live to the observer");
    await sleep(100);
    expect(alex.messages.filter((m) => m.type === 'event')).toHaveLength(backlog);
    alex.ws.close();

    // Reconnecting after seq 0 fills the gap from the socket.
    const again = await raw(server, session.id, session.tokens.alex!, { stream: 'livekit', after: '0' });
    await sleep(100);
    expect(again.messages.some((m) => m.type === 'event' && m.event.type === 'utterance' && m.event.speaker === 'alex')).toBe(true);
    again.ws.close();
  });
});

describe('without LiveKit', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await startServer({ generator: () => stuck });
  });
  afterAll(() => server?.close());

  it('ignores ?stream=livekit: everything comes on the socket', async () => {
    const session = await createSession(server, 'job-interview', 'instant');
    const alex = await raw(server, session.id, session.tokens.alex!, { stream: 'livekit' });
    alex.ws.send(JSON.stringify({ type: 'say', text: 'Hello everyone, thanks for having me.' }));
    await sleep(200);
    expect(alex.messages.some((m) => m.type === 'event' && m.event.type === 'utterance' && m.event.speaker === 'alex')).toBe(true);
    alex.ws.close();
  });
});
