/**
 * Issue 3, durability: the real server (`node --import tsx server/main.ts`) is killed with SIGKILL
 * in the middle of a session and started again on the same data directory. Every event a client
 * had received is in the log, unchanged, and the session is closed with `server-restarted` then
 * `end`; a session that had finished before the crash is left alone.
 */
import { rmSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events';
import { Client, api, closeClients, createSession, expectContiguous, logOf, startChild, tempDir, until, type ChildServer } from './helpers';

const dataDir = tempDir();
const children: ChildServer[] = [];
/** Durability does not depend on voices: text-only rooms keep the two servers quick. */
const textOnly = { env: { SYNTHESIZER: 'none' } };

afterEach(async () => {
  await closeClients();
});
afterAll(async () => {
  for (const child of children) await child.kill9();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a server killed mid-session', () => {
  // Two servers start as child processes (each compiles the server with tsx): slow on a loaded machine.
  it('keeps every event a client received, and ends the session with server-restarted on restart', { timeout: 120_000 }, async () => {
    const first = await startChild(dataDir, textOnly);
    children.push(first);
    expect(await (await api(first, '/api/health', { token: null })).json()).toMatchObject({ status: 'ok', providers: { generator: 'scripted' } });

    // A session that finishes before the crash: recovery must not touch it.
    const finished = await createSession(first, 'team-standup', 'instant');
    const finishedObserver = await Client.connect(first, finished.id, finished.tokens.observer!);
    await finishedObserver.waitForEvent((e) => e.type === 'end', 'the instant session to end');
    const finishedLog = await logOf(first, finished.id);

    // A realtime session runs at speaking pace: Gwen's opening line is logged at once, and Marco's
    // reply waits for her to finish speaking (seconds), so the server dies mid-session.
    const live = await createSession(first, 'team-standup', 'realtime');
    const observer = await Client.connect(first, live.id, live.tokens.observer!);
    await observer.waitFor(
      () => observer.events().some((e) => e.type === 'utterance') && observer.events().at(-1)?.type === 'floor',
      'an utterance and the next floor decision',
    );
    await first.kill9();
    await until(() => observer.closed !== null, 'the socket to drop');
    const received = observer.events();
    expect(received.some((e) => e.type === 'end')).toBe(false);
    expect(expectContiguous(received)).toBeNull();

    const second = await startChild(dataDir, textOnly);
    children.push(second);
    expect(second.stdout.join('\n')).toContain(`marked 1 interrupted session(s) as ended: ${live.id}`);

    const log = await logOf(second, live.id);
    expect(expectContiguous(log)).toBeNull();
    for (const event of received) expect(log[event.seq - 1], `seq ${event.seq}`).toEqual(event);
    const [restarted, end] = log.slice(-2) as [SessionEvent, SessionEvent];
    expect(restarted).toMatchObject({ type: 'system', level: 'warn', code: 'server-restarted', seq: log.length - 1 });
    expect(end).toMatchObject({ type: 'end', reason: 'ended', seq: log.length, turns: log.filter((e) => e.type === 'utterance').length });
    expect(log.filter((e) => e.type === 'end')).toHaveLength(1);
    expect(log.length).toBeGreaterThanOrEqual(received.length + 2);

    // Tokens handed out before the crash still work (the secret is kept in the data directory).
    const snapshot = await api(second, `/api/sessions/${live.id}`, { token: live.tokens.observer });
    expect(snapshot.status).toBe(200);
    expect(await snapshot.json()).toMatchObject({ session: live.id, phase: 'ended', lastSeq: log.length });
    expect(await logOf(second, live.id, live.tokens.observer)).toEqual(log);
    const transcript = await (await api(second, `/api/sessions/${live.id}/transcript`, { token: live.tokens.jordan })).text();
    expect(transcript).toContain('The server stopped during this session');

    // The room is not live on the new server: the socket says so and closes.
    const late = await Client.connect(second, live.id, live.tokens.observer!);
    await until(() => late.closed !== null, 'the socket to a dead room to close');
    expect(late.errors()).toEqual([expect.objectContaining({ code: 'ended' })]);
    expect(late.closed).toMatchObject({ code: 4404 });

    // The finished session is as it was.
    expect(await logOf(second, finished.id)).toEqual(finishedLog);
    const sessions = (await (await api(second, '/api/sessions')).json()) as { sessions: { id: string; endedAt: number | null }[] };
    expect(sessions.sessions.map((s) => s.id).sort()).toEqual([finished.id, live.id].sort());
    expect(sessions.sessions.every((s) => s.endedAt !== null)).toBe(true);

    await second.close();
    expect(second.child.exitCode).toBe(0);
  });
});
