/**
 * Issue 15, the session's lifecycle over real HTTP and WebSockets: a lobby until the humans are
 * here or the instructor starts with stand-ins; a seat that stays its human's through a drop (a
 * grace period, then a pause until they are back); stand-ins only on the instructor's word; a
 * reload that rejoins the same seat with the log so far; an ended session's summary.
 */
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events';
import { Client, api, createSession, logOf, serverPerFile, until } from './helpers';

const GRACE_MS = 400;

const server = serverPerFile({ env: { SEAT_GRACE_S: String(GRACE_MS / 1000) } });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const status = async (id: string, token: string) => ((await (await api(server, `/api/sessions/${id}`, { token })).json()) as { status: string; pausedFor?: unknown }).status;
const spoken = (log: readonly SessionEvent[], by?: string) => log.filter((e) => e.type === 'utterance' && (!by || e.speaker === by));

describe('the lobby', () => {
  it('keeps a new session silent until its human joins, then starts by itself', async () => {
    const created = await createSession(server, 'job-interview', 'instant', 'lobby');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    await sleep(300);
    expect(await status(created.id, created.tokens.observer!)).toBe('lobby');
    expect(spoken(await logOf(server, created.id))).toEqual([]);
    expect(observer.messages[0]).toMatchObject({ type: 'welcome', snapshot: { status: 'lobby', participants: expect.arrayContaining([expect.objectContaining({ id: 'alex', present: false })]) } });

    const alex = await Client.connect(server, created.id, created.tokens.alex!);
    await observer.waitForEvent((e) => e.type === 'system' && e.code === 'session-started', 'the session starting');
    await observer.waitForEvent((e) => e.type === 'utterance', 'the first line');
    expect(await status(created.id, created.tokens.alex!)).toBe('live');
    // Nobody speaks for Alex: the room waits for them when asked.
    await alex.waitForEvent((e) => e.type === 'human-input-required' && e.participant === 'alex', 'the floor to Alex');
    expect(spoken(await logOf(server, created.id), 'alex')).toEqual([]);
  });

  it('ends a session still in its lobby when the instructor ends it (DELETE), nobody having spoken', async () => {
    const created = await createSession(server, 'job-interview', 'realtime', 'lobby');
    expect((await api(server, `/api/sessions/${created.id}`, { method: 'DELETE', token: created.tokens.observer! })).status).toBe(200);
    await server.rooms.get(created.id)!.conversation.ended;
    expect(await status(created.id, created.tokens.observer!)).toBe('ended');
    const log = await logOf(server, created.id);
    expect(spoken(log)).toEqual([]);
    expect(log.at(-1)).toMatchObject({ type: 'end', reason: 'ended', turns: 0 });
  });

  it('refuses to start without the humans unless the instructor chooses stand-ins', async () => {
    const created = await createSession(server, 'sprint-retro', 'instant', 'lobby');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    const seat = Object.keys(created.tokens).find((k) => k !== 'observer')!;
    const participant = await Client.connect(server, created.id, created.tokens[seat]!);
    // A participant cannot speak yet; the instructor cannot start without everyone.
    const early = await participant.expectError({ type: 'say', text: 'Hello?' });
    expect(early).toMatchObject({ code: 'not-ready' });
    const refused = await observer.expectError({ type: 'start' });
    expect(refused).toMatchObject({ code: 'not-ready', message: expect.stringMatching(/start with stand-ins/) });
    expect(await status(created.id, created.tokens.observer!)).toBe('lobby');

    observer.send({ type: 'start', standIns: true });
    const started = await observer.waitForEvent((e) => e.type === 'system' && e.code === 'session-started', 'the start');
    expect(started).toMatchObject({ message: expect.stringMatching(/stand-ins for/) });
    // Said as the session starts, before anything of it: the first line came ahead of it once.
    const opening = observer.events().filter((e) => e.seq >= started.seq - 1).slice(0, 2);
    expect(opening.map((e) => e.type)).toEqual(['session-start', 'system']);
    // The seat nobody took is simulated; the one taken is its human's, and the room waits for them.
    const absent = Object.keys(created.tokens).find((k) => k !== 'observer' && k !== seat)!;
    const standIn = (e: SessionEvent) => (e.type === 'utterance' && e.speaker === absent) || (e.type === 'approval-needed' && e.participant === absent);
    const first = await observer.waitForEvent((e) => standIn(e) || (e.type === 'human-input-required' && e.participant === seat), 'a stand-in, or the floor to the human');
    if (!standIn(first)) participant.send({ type: 'say', text: 'Honestly, it felt rushed from the middle on.' });
    await observer.waitForEvent(
      (e) => (e.type === 'utterance' && e.speaker === absent) || (e.type === 'approval-needed' && e.participant === absent),
      'a stand-in line or proposal',
      0,
      30_000,
    );
    expect(spoken(await logOf(server, created.id), seat).filter((e) => e.type === 'utterance' && e.source !== 'human')).toEqual([]);
    const again = await observer.expectError({ type: 'start' });
    expect(again).toMatchObject({ code: 'not-in-lobby' });
    observer.send({ type: 'end' });
    await observer.waitForEvent((e) => e.type === 'end', 'the end');
  });
});

describe('a seat that stays its human’s', () => {
  it('holds a dropped seat, pauses after the grace period, and resumes when the human is back with the log so far', async () => {
    const created = await createSession(server, 'job-interview', 'realtime', 'lobby');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    const alex = await Client.connect(server, created.id, created.tokens.alex!);
    await observer.waitForEvent((e) => e.type === 'utterance', 'the first line');
    await alex.close();
    await observer.waitForEvent((e) => e.type === 'system' && e.code === 'left' && e.participant === 'alex', 'Alex leaving');
    const empty = await observer.waitForEvent((e) => e.type === 'system' && e.code === 'seat-empty' && e.participant === 'alex', 'the seat left empty past its grace');
    await observer.waitForEvent((e) => e.type === 'system' && e.code === 'paused', 'the pause');
    expect(await status(created.id, created.tokens.observer!)).toBe('paused');
    const snapshot = (await (await api(server, `/api/sessions/${created.id}`, { token: created.tokens.observer! })).json()) as { pausedFor: unknown };
    expect(snapshot.pausedFor).toEqual({ reason: 'seat-empty', participants: ['alex'] });

    // A reload: the same seat, every event so far, then the session goes on.
    const back = await Client.connect(server, created.id, created.tokens.alex!);
    const welcome = back.messages[0]!;
    expect(welcome).toMatchObject({ type: 'welcome', you: { participant: 'alex' } });
    expect(back.events().some((e) => e.seq === empty.seq)).toBe(true);
    await observer.waitForEvent((e) => e.type === 'system' && e.code === 'seat-back', 'Alex back', empty.seq);
    await observer.waitForEvent((e) => e.type === 'system' && e.code === 'resumed', 'the session resuming', empty.seq);
    expect(await status(created.id, created.tokens.observer!)).toBe('live');
    // Never a stand-in line for Alex across the drop.
    expect(spoken(await logOf(server, created.id), 'alex').filter((e) => e.type === 'utterance' && e.source !== 'human')).toEqual([]);
  });

  it('lets the simulation speak for an empty seat only when the instructor says so', async () => {
    const created = await createSession(server, 'job-interview', 'instant', 'lobby');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    const alex = await Client.connect(server, created.id, created.tokens.alex!);
    await alex.waitForEvent((e) => e.type === 'human-input-required' && e.participant === 'alex', 'the floor to Alex');
    await alex.close();
    await observer.waitForEvent((e) => e.type === 'system' && e.code === 'seat-empty', 'the seat empty');
    observer.send({ type: 'stand-in', participant: 'alex' });
    // The notices name the seat, so every client can show whose seat is empty or stood in for.
    await observer.waitForEvent((e) => e.type === 'system' && e.code === 'stand-in' && e.participant === 'alex', 'the stand-in, for Alex');
    const line = await observer.waitForEvent((e) => e.type === 'utterance' && e.speaker === 'alex', 'a simulated line for Alex', 0, 30_000);
    expect(line).toMatchObject({ source: 'simulated-human' });
    const wrong = await observer.expectError({ type: 'stand-in', participant: 'hannah' });
    expect(wrong).toMatchObject({ code: 'bad-message' });
  });
});

describe('bad timing and a second tab', () => {
  it('gives the newer tab the seat and tells the older one why; a paused room keeps a line for the resume', async () => {
    const created = await createSession(server, 'job-interview', 'realtime', 'lobby');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    const first = await Client.connect(server, created.id, created.tokens.alex!);
    await observer.waitForEvent((e) => e.type === 'utterance', 'the first line');
    const second = await Client.connect(server, created.id, created.tokens.alex!);
    await first.waitFor((m) => m.some((x) => x.type === 'error' && x.code === 'replaced'), 'the older tab told why');
    await until(() => first.closed !== null, 'the older tab closed');
    // The seat never emptied: no `left`, no pause.
    await second.ping();
    expect((await logOf(server, created.id)).some((e) => e.type === 'system' && e.code === 'left')).toBe(false);

    observer.send({ type: 'pause' });
    await observer.waitForEvent((e) => e.type === 'system' && e.code === 'paused', 'the pause');
    second.send({ type: 'say', text: 'Can I go on?' });
    const held = await second.waitForEvent((e) => e.type === 'system' && e.code === 'line-held', 'the line kept for the resume');
    expect(held).toMatchObject({ participant: 'alex', message: expect.stringContaining('Can I go on?') });
    observer.send({ type: 'end' });
    await observer.waitForEvent((e) => e.type === 'end', 'the end');
    expect(await second.expectError({ type: 'say', text: 'Hello?' })).toMatchObject({ code: 'ended' });
  });

  it('never takes the answer the room waits for as a barge-in', async () => {
    const created = await createSession(server, 'job-interview', 'realtime', 'lobby');
    const alex = await Client.connect(server, created.id, created.tokens.alex!);
    const asked = await alex.waitForEvent((e) => e.type === 'human-input-required' && e.participant === 'alex', 'the floor to Alex', 0, 30_000);
    alex.send({ type: 'say', text: 'Thanks, happy to start with the reminder redesign.' });
    await alex.waitForEvent((e) => e.type === 'utterance' && e.speaker === 'alex', "Alex's answer", asked.seq);
    const log = await logOf(server, created.id);
    expect(log.filter((e) => e.type === 'interruption')).toEqual([]);
    expect(log.filter((e) => e.type === 'utterance' && e.interrupted)).toEqual([]);
  });
});

describe('an ended session', () => {
  it('reports what it was: duration, turns, participants', async () => {
    const created = await createSession(server, 'team-standup', 'instant');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    await observer.waitForEvent((e) => e.type === 'end', 'the end', 0, 60_000);
    const res = await api(server, `/api/sessions/${created.id}`, { token: created.tokens.jordan! });
    const summary = (await res.json()) as { status: string; turns: number; durationMs: number; participants: { id: string }[]; scene: { title: string } };
    expect(summary.status).toBe('ended');
    expect(summary.turns).toBe(spoken(await logOf(server, created.id)).length);
    expect(summary.durationMs).toBeGreaterThan(0);
    expect(summary.participants.map((p) => p.id)).toContain('gwen');
    expect(summary.scene.title).toMatch(/stand-up/i);
    expect((await api(server, '/api/sessions/no-such-session', { token: server.admin })).status).toBe(404);
  });
});
