/**
 * Issue 28, item 2 over real sockets: a headset wearer's pose is presence, not conversation. It
 * reaches every other viewer of the room (the other seat, an observer) as it was sent, never the
 * sender, never the stored log nor a later joiner's backlog; only the seat's own participant may
 * send it (another seat's or an observer's gets a typed error, and the socket stays); a malformed
 * one names its field; poses spend a budget of their own, not the one every other message shares.
 *
 * The API's clock stands still unless a test moves it, so no budget refills behind a test's back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PoseMessage } from '../../shared/protocol/messages';
import type { Generator } from '../../server/providers/generator/port';
import { Client, closeClients, createSession, logOf, serverPerFile } from './helpers';

const T0 = Date.now();
let ahead = 0;
/** Nothing is said: the room stays live and quiet while poses go round. */
const stuck: Generator = {
  name: 'stuck',
  // eslint-disable-next-line require-yield
  async *stream(_request, signal) {
    await new Promise((resolve) => signal?.addEventListener('abort', resolve));
  },
};
const server = serverPerFile({ generator: () => stuck, now: () => T0 + ahead });
afterEach(async () => {
  await closeClients();
  ahead += 60_000;
});

/** Riley's head turned `yaw` radians toward her left, at her seat's eye height; a marker in x to find it by. */
const pose = (participant: string, yaw: number, marker = 0.0421): PoseMessage => ({
  type: 'pose',
  participant,
  head: { p: [marker, 1.18, 0.05], q: [0, Math.sin((Math.PI + yaw) / 2), 0, Math.cos((Math.PI + yaw) / 2)] },
  left: null,
  right: { p: [-0.2, 0.9, 0.3], q: [0, 0, 0, 1] },
});

/** The sprint retro (two human seats: Riley, Casey) with both of them and an observer here. */
const retro = async () => {
  const created = await createSession(server, 'sprint-retro', 'realtime', 'lobby');
  const riley = await Client.connect(server, created.id, created.tokens.riley!);
  const casey = await Client.connect(server, created.id, created.tokens.casey!);
  const observer = await Client.connect(server, created.id, created.tokens.observer!);
  await observer.waitForEvent((e) => e.type === 'session-start', 'the session started with both humans here');
  return { created, riley, casey, observer };
};

const posesOf = (client: Client) => client.messages.filter((m): m is PoseMessage => m.type === 'pose');

describe("a headset wearer's pose", () => {
  it('reaches the other seat and the observers as it was sent, not the sender, and never the log', async () => {
    const { created, riley, casey, observer } = await retro();
    const sent = [pose('riley', 0.3), pose('riley', -0.2)];
    for (const message of sent) riley.send(message);
    await casey.waitFor(() => posesOf(casey).length === 2, 'both poses at Casey');
    await observer.waitFor(() => posesOf(observer).length === 2, 'both poses at the observer');
    expect(posesOf(casey)).toEqual(sent);
    expect(posesOf(observer)).toEqual(sent);
    await riley.ping();
    expect(posesOf(riley)).toEqual([]);
    expect(riley.errors()).toEqual([]);

    // Presence, not conversation: nothing of it is stored, and a later joiner's backlog has none.
    const log = await logOf(server, created.id);
    expect(log.length).toBeGreaterThan(0);
    expect(JSON.stringify(log)).not.toContain('0.0421');
    const late = await Client.connect(server, created.id, created.tokens.observer!);
    await late.ping();
    expect(posesOf(late)).toEqual([]);
    expect(late.events().length).toBe(log.length);
  });

  it("is refused from another seat and from an observer, with a typed error and the socket kept", async () => {
    const { riley, casey, observer } = await retro();
    expect(await casey.expectError(pose('riley', 0.5))).toMatchObject({ code: 'forbidden', field: 'participant' });
    expect(await observer.expectError(pose('riley', 0.5))).toMatchObject({ code: 'forbidden' });
    await casey.ping();
    await observer.ping();
    await riley.ping();
    expect(posesOf(riley)).toEqual([]);
    expect(posesOf(observer)).toEqual([]);
    expect([casey.closed, observer.closed]).toEqual([null, null]);
    // Casey's own pose still goes round.
    casey.send(pose('casey', 0.1));
    await riley.waitFor(() => posesOf(riley).length === 1, "Casey's pose at Riley");
  });

  it('a malformed pose names its field and goes nowhere', async () => {
    const { riley, casey } = await retro();
    const bent = { ...pose('riley', 0), head: { p: [0, 1.2, 0], q: [0.5, 0.5, 0.5, 0.9] } };
    expect(await riley.expectError(bent)).toMatchObject({ code: 'bad-message', field: 'head.q' });
    const far = { ...pose('riley', 0), head: { p: [0, 40, 0], q: [0, 0, 0, 1] } };
    expect(await riley.expectError(far)).toMatchObject({ code: 'bad-message', field: 'head.p.1' });
    await casey.ping();
    expect(posesOf(casey)).toEqual([]);
  });

  it('spends a budget of its own: a burst of poses leaves every other message its budget', async () => {
    const { riley, casey } = await retro();
    // The pose burst (30) at once, the clock standing still: all relayed, none refused.
    for (let i = 0; i < 30; i++) riley.send(pose('riley', i / 100));
    await casey.waitFor(() => posesOf(casey).length === 30, 'the burst of poses at Casey');
    expect(riley.errors()).toEqual([]);
    // The messages' whole burst still answers.
    for (let i = 0; i < server.config.messageBurst; i++) riley.send({ type: 'ping' });
    await riley.waitFor(() => riley.count('pong') + riley.errors().length >= server.config.messageBurst, 'the pings answered');
    expect(riley.errors()).toEqual([]);
    // One pose past the burst is refused, and the socket stays.
    expect(await riley.expectError(pose('riley', 1))).toMatchObject({ code: 'rate-limited' });
    ahead += 1000;
    riley.send(pose('riley', 0.7));
    await casey.waitFor(() => posesOf(casey).length === 31, 'a pose once the budget refilled');
  });
});
