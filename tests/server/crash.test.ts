/**
 * Issue 3, durability, and issue 30, the conversation resumes: the real server (`node --import tsx
 * server/main.ts`) is killed with SIGKILL in the middle of a session and started again on the same
 * data directory. Every event a client had received is in the log, unchanged; the session resumes
 * from its checkpoint (a `session-resumed` notice, then new lines, the last turn not said again,
 * no seq missing or twice), and a client reconnecting after its last seq gets the backlog and goes
 * on; a session that had finished before the crash is left alone.
 */
import { rmSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
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
  it('keeps every event a client received, and resumes the session where it was on restart', { timeout: 120_000 }, async () => {
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
    expect(second.stdout.join('\n')).toContain(`session ${live.id}: resumed after its server stopped`);
    expect(second.stdout.join('\n')).toContain(`recovered 1 interrupted session(s), each resumed or ended as said above: ${live.id}`);

    // The observer reconnects after the last event it saw (tokens handed out before the crash still
    // work: the secret is kept in the data directory), gets what it missed, and the talk goes on.
    const lastSeen = received.at(-1)!.seq;
    const again = await Client.connect(second, live.id, live.tokens.observer!, lastSeen);
    const resumed = await again.waitForEvent((e) => e.type === 'system' && e.code === 'session-resumed', 'the session-resumed notice');
    expect(resumed).toMatchObject({ level: 'info', message: 'The server restarted; the session resumes where it was.' });
    const next = await again.waitForEvent((e) => e.type === 'utterance' && e.seq > resumed.seq, 'a new utterance after the restart');
    expect(again.events()[0]?.seq).toBe(lastSeen + 1);
    expect(expectContiguous(again.events(), lastSeen + 1)).toBeNull();

    const log = await logOf(second, live.id);
    expect(expectContiguous(log)).toBeNull();
    for (const event of received) expect(log[event.seq - 1], `seq ${event.seq}`).toEqual(event);
    expect(log.some((e) => e.type === 'system' && e.code === 'server-restarted')).toBe(false);
    expect(log.filter((e) => e.type === 'system' && e.code === 'session-resumed')).toHaveLength(1);
    // The engine went on from its turn: the line before the crash is not said again.
    const lines = log.flatMap((e) => (e.type === 'utterance' ? [e] : []));
    const before = lines.filter((e) => e.seq < resumed.seq);
    expect(next).not.toMatchObject({ speaker: before.at(-1)!.speaker, text: before.at(-1)!.text });
    expect(new Set(lines.map((e) => e.text)).size).toBe(lines.length);
    expect(new Set(lines.map((e) => e.id)).size).toBe(lines.length);
    const snapshot = await api(second, `/api/sessions/${live.id}`, { token: live.tokens.observer });
    expect(snapshot.status).toBe(200);
    expect(await snapshot.json()).toMatchObject({ session: live.id, status: 'live' });

    // The finished session is as it was.
    expect(await logOf(second, finished.id)).toEqual(finishedLog);
    const sessions = (await (await api(second, '/api/sessions')).json()) as { sessions: { id: string; endedAt: number | null }[] };
    expect(sessions.sessions.map((s) => s.id).sort()).toEqual([finished.id, live.id].sort());
    expect(sessions.sessions.find((s) => s.id === finished.id)?.endedAt).not.toBeNull();
    expect(sessions.sessions.find((s) => s.id === live.id)?.endedAt).toBeNull();

    await second.close();
    expect(second.child.exitCode).toBe(0);
  });
});
