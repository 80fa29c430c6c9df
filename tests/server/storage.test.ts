/**
 * Issue 16, item 1: a failed event write never takes the server down. The store fails (every call
 * once; a lock another connection holds on the database; one session's writes only) and the
 * server stays up, the session pauses while its events cannot be stored and resumes by itself
 * once they can, other sessions go on, and every event a client received is in the log, in order,
 * with nothing shown before it was stored.
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { createRooms, savingFailedMessage } from '../../server/rooms/rooms';
import { openStore, type Store } from '../../server/store/store';
import { rmSync } from 'node:fs';
import { Client, api, closeClients, createSession, createValve, expectContiguous, logOf, startChild, startServer, tempDir, type InProcessServer, type TestServer } from './helpers';

const servers: InProcessServer[] = [];
const start = async (options: Parameters<typeof startServer>[0]) => {
  const server = await startServer(options);
  servers.push(server);
  return server;
};
afterEach(async () => {
  await closeClients();
  for (const server of servers.splice(0)) await server.close();
});

const isSystem = (code: string) => (e: SessionEvent) => e.type === 'system' && e.code === code;
const codes = (events: readonly SessionEvent[]) => events.flatMap((e) => (e.type === 'system' ? [e.code] : []));

/**
 * Every store call fails the first time it is made and succeeds when the same call comes again
 * (the same session, seq, id): a fault that passes, everywhere at once.
 */
const failingOnce = (store: Store): Store => {
  const tried = new Set<string>();
  const once =
    <A extends unknown[], R>(name: string, call: (...args: A) => R) =>
    (...args: A): R => {
      // A checkpoint goes with a batch and changes with each step: the batch's first seq names the write.
      const key = `${name} ${JSON.stringify(args.map((a) => (Array.isArray(a) ? (a[0] as { seq?: number })?.seq : typeof a === 'object' && a !== null && 'json' in a ? null : a)))}`;
      if (!tried.has(key)) {
        tried.add(key);
        throw Object.assign(new Error(`${name} failed (injected)`), { code: 'SQLITE_IOERR' });
      }
      return call(...args);
    };
  return {
    createSession: once('createSession', store.createSession),
    appendEvents: once('appendEvents', store.appendEvents),
    events: once('events', store.events),
    storedEvents: once('storedEvents', store.storedEvents),
    lastSeq: once('lastSeq', store.lastSeq),
    session: once('session', store.session),
    sessions: once('sessions', store.sessions),
    sceneText: once('sceneText', store.sceneText),
    markEnded: once('markEnded', store.markEnded),
    unfinished: once('unfinished', store.unfinished),
    unowned: once('unowned', store.unowned),
    claimLease: once('claimLease', store.claimLease),
    renewLeases: once('renewLeases', store.renewLeases),
    lease: once('lease', store.lease),
    checkpoint: once('checkpoint', store.checkpoint),
    deleteSession: once('deleteSession', store.deleteSession),
    close: store.close,
  };
};

/** GET until it answers 200 (a read the store failed answers 500, and the server goes on). */
const eventually = async (server: TestServer, path: string): Promise<{ failed: number; body: unknown }> => {
  for (let failed = 0; failed < 5; failed++) {
    const res = await api(server, path);
    if (res.status === 200) return { failed, body: res.headers.get('content-type')?.includes('json') && !path.endsWith('/events') ? await res.json() : await res.text() };
    expect(res.status).toBe(500);
  }
  throw new Error(`GET ${path} kept failing`);
};

describe('a store that fails', () => {
  it('every call failing once: the server lives, the session runs to its end, and the log holds everything clients saw', async () => {
    const server = await start({ openStore: (dir) => failingOnce(openStore(dir)), journal: { firstRetryMs: 5 } });
    const created = await createSession(server, 'team-standup', 'instant');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    await observer.waitForEvent((e) => e.type === 'end', 'the session to end');

    const events = await eventually(server, `/api/sessions/${created.id}/events`);
    expect(events.failed).toBeGreaterThan(0);
    const log = String(events.body)
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as SessionEvent);
    expect(expectContiguous(log)).toBeNull();
    expect(observer.events()).toEqual(log);
    // A write that fails once is retried at once, so the session never had to pause.
    expect(codes(log)).not.toContain('saving-failed');
    expect(observer.errors()).toEqual([]);
    const sessions = (await eventually(server, '/api/sessions')).body as { sessions: { id: string; endedAt: number | null }[] };
    expect(sessions.sessions.find((s) => s.id === created.id)?.endedAt).not.toBeNull();
    expect((await eventually(server, '/api/health')).body).toMatchObject({ status: 'ok' });
  });

  it('every call failing once: crash recovery at start-up still ends an interrupted session with its log', async () => {
    const dir = tempDir();
    const before = openStore(dir);
    before.createSession({ id: 'cut', scene: 'team-standup', seed: 1, pace: 'instant', createdAt: 0 });
    before.appendEvents('cut', [{ seq: 1, t: 0, type: 'session-start' }]);
    before.close();
    const store = failingOnce(openStore(dir));
    const rooms = createRooms({ store, scenes: new Map(), generator: () => createScriptedGenerator() });
    expect(rooms.recover()).toEqual(['cut']);
    store.close();
    const after = openStore(dir);
    expect(after.events('cut')).toMatchObject([{ seq: 1 }, { seq: 2, code: 'server-restarted' }, { seq: 3, type: 'end' }]);
    expect(after.session('cut')?.endedAt).not.toBeNull();
    after.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a session that cannot be created is the server failing (500), not an unknown scene; the server goes on', async () => {
    let broken = true;
    const server = await start({
      openStore: (dir) => {
        const store = openStore(dir);
        return {
          ...store,
          createSession(row) {
            if (broken) throw Object.assign(new Error('disk full (injected)'), { code: 'SQLITE_FULL' });
            store.createSession(row);
          },
        };
      },
    });
    const refused = await api(server, '/api/sessions', { method: 'POST', body: { scene: 'team-standup', pace: 'instant' } });
    expect(refused.status).toBe(500);
    broken = false;
    const created = await createSession(server, 'team-standup', 'instant');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    await observer.waitForEvent((e) => e.type === 'end', 'the session to run to its end');
    expect((await api(server, '/api/sessions', { method: 'POST', body: { scene: 'no-such-scene' } })).status).toBe(404);
  });

  it('a lock held on the database mid-session: the session pauses, shows nothing unstored, and resumes when the lock is released', async () => {
    const valve = createValve();
    const server = await start({
      generator: () => valve.generator(),
      openStore: (dir) => openStore(dir, { busyTimeoutMs: 20 }),
      journal: { firstRetryMs: 10, maxRetryMs: 40 },
    });
    valve.allow(2);
    const created = await createSession(server, 'team-standup', 'instant');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    await valve.held();
    await observer.waitFor(() => observer.events().at(-1)?.seq === server.store.lastSeq(created.id), 'every event so far');
    const before = observer.events();

    // Another connection (a backup, a curious sqlite3 shell) takes the write lock and keeps it.
    const other = new Database(join(server.dataDir, 'rehearsal.db'));
    other.exec('BEGIN IMMEDIATE');
    valve.allow(1);
    await observer.waitFor((messages) => messages.some((m) => m.type === 'error' && m.code === 'storage'), 'the clients to be told saving failed');
    expect(observer.errors()).toEqual([{ type: 'error', code: 'storage', message: savingFailedMessage }]);
    const room = server.rooms.get(created.id)!;
    expect(room.status()).toBe('paused');
    expect(room.conversation.state.seq).toBeGreaterThan(before.at(-1)!.seq);
    // Nothing that is not stored was shown: the client has exactly the stored log.
    await observer.ping();
    expect(observer.events()).toEqual(before);
    const stored = other.prepare('SELECT max(seq) AS last FROM events WHERE session = ?').get(created.id) as { last: number };
    expect(stored.last).toBe(before.at(-1)!.seq);
    // Someone joining now gets the stored log, and is told too.
    const late = await Client.connect(server, created.id, created.tokens.observer!);
    await late.waitFor((messages) => messages.some((m) => m.type === 'error'), 'the late observer to be told');
    expect(late.errors()).toEqual([{ type: 'error', code: 'storage', message: savingFailedMessage }]);
    expect(late.events()).toEqual(before);
    // Nobody restarts a session that cannot be saved.
    expect(await observer.expectError({ type: 'resume' })).toMatchObject({ code: 'storage' });
    expect((await api(server, '/api/health')).status).toBe(200);

    other.exec('ROLLBACK');
    other.close();
    const recovered = await observer.waitForEvent(isSystem('saving-recovered'), 'the session to recover');
    const during = observer.events().filter((e) => e.seq > before.at(-1)!.seq && e.seq <= recovered.seq);
    expect(during.some((e) => e.type === 'utterance')).toBe(true);
    expect(codes(during)).toEqual(expect.arrayContaining(['saving-failed', 'paused', 'saving-recovered']));
    await observer.waitForEvent((e) => isSystem('resumed')(e) && e.seq > recovered.seq, 'the session to resume by itself');

    valve.allow();
    await observer.waitForEvent((e) => e.type === 'end', 'the session to run to its end');
    const log = await logOf(server, created.id);
    expect(expectContiguous(log)).toBeNull();
    expect(observer.events()).toEqual(log);
    await late.waitForEvent((e) => e.type === 'end', 'the late observer to see the end');
    expect(late.events()).toEqual(log);
    expect(log.filter((e) => e.type === 'utterance' && e.seq > recovered.seq).length).toBeGreaterThan(0);
  });

  it("one session's failing writes pause only that session: another runs to its end meanwhile", async () => {
    const broken = new Set<string>();
    const valve = createValve();
    let generator = () => valve.generator();
    const server = await start({
      generator: () => generator(),
      openStore: (dir) => {
        const store = openStore(dir);
        return {
          ...store,
          appendEvents(session, events) {
            if (broken.has(session)) throw Object.assign(new Error('disk I/O error (injected)'), { code: 'SQLITE_IOERR' });
            store.appendEvents(session, events);
          },
        };
      },
      journal: { firstRetryMs: 5, maxRetryMs: 20 },
    });
    valve.allow(2);
    const failing = await createSession(server, 'team-standup', 'instant');
    const failingObserver = await Client.connect(server, failing.id, failing.tokens.observer!);
    await valve.held();
    broken.add(failing.id);
    valve.allow(1);
    await failingObserver.waitFor((messages) => messages.some((m) => m.type === 'error' && m.code === 'storage'), 'saving to fail');
    const shown = failingObserver.events();

    // Meanwhile another session runs from start to end, every event stored and shown.
    const other = createValve();
    generator = () => other.generator();
    other.allow();
    const healthy = await createSession(server, 'team-standup', 'instant');
    const healthyObserver = await Client.connect(server, healthy.id, healthy.tokens.observer!);
    await healthyObserver.waitForEvent((e) => e.type === 'end', 'the other session to end');
    const healthyLog = await logOf(server, healthy.id);
    expect(expectContiguous(healthyLog)).toBeNull();
    expect(healthyObserver.events()).toEqual(healthyLog);
    expect(codes(healthyLog)).not.toContain('saving-failed');
    expect(healthyObserver.errors()).toEqual([]);

    // The failing one stood still, then goes on once its writes are taken.
    await failingObserver.ping();
    expect(failingObserver.events()).toEqual(shown);
    expect(server.rooms.get(failing.id)!.status()).toBe('paused');
    broken.delete(failing.id);
    await failingObserver.waitForEvent(isSystem('resumed'), 'the failing session to resume');
    valve.allow();
    await failingObserver.waitForEvent((e) => e.type === 'end', 'the failing session to end');
    const failingLog = await logOf(server, failing.id);
    expect(expectContiguous(failingLog)).toBeNull();
    expect(failingObserver.events()).toEqual(failingLog);
    expect(codes(failingLog)).toEqual(expect.arrayContaining(['saving-failed', 'saving-recovered']));
  });
});

describe('the real server (npm start), its defaults', () => {
  it('another process locking the database mid-session pauses the session; it resumes when the lock goes, nothing lost', { timeout: 120_000 }, async () => {
    const dataDir = tempDir();
    const server = await startChild(dataDir, { env: { SYNTHESIZER: 'none' } });
    try {
      const live = await createSession(server, 'team-standup', 'realtime');
      const observer = await Client.connect(server, live.id, live.tokens.observer!);
      await observer.waitForEvent((e) => e.type === 'utterance', 'a first utterance');

      // A separate process (like a sqlite3 shell) takes the write lock until told to let go.
      const holder = spawn(process.execPath, ['--input-type=module', '-e', lockHolder, join(dataDir, 'rehearsal.db')], { stdio: ['pipe', 'pipe', 'inherit'] });
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve());
        holder.on('exit', (code) => reject(new Error(`the lock holder exited (${code}) before locking`)));
      });
      await observer.waitFor((messages) => messages.some((m) => m.type === 'error' && m.code === 'storage'), 'the clients to be told saving failed', 60_000);
      expect((await api(server, '/api/health', { token: null })).status).toBe(200);
      const shown = observer.events().length;

      holder.stdin.end('release\n');
      await observer.waitForEvent((e) => e.type === 'system' && e.code === 'saving-recovered', 'the session to recover', shown);
      await observer.waitForEvent((e) => e.type === 'system' && e.code === 'resumed', 'the session to resume', shown);
      // In realtime the next line comes once the lines before it have been read out (a stand-up's can take 20 s).
      await observer.waitForEvent((e) => e.type === 'utterance', 'the conversation to go on', observer.events().length, 60_000);
      observer.send({ type: 'end' });
      await observer.waitForEvent((e) => e.type === 'end', 'the end');
      const log = await logOf(server, live.id);
      expect(expectContiguous(log)).toBeNull();
      expect(observer.events()).toEqual(log);
      expect(server.child.exitCode).toBeNull();
      // The server's log says it in two lines, no stack trace.
      expect(server.stderr).toEqual(expect.arrayContaining([expect.stringMatching(/^session \S+: saving failed \d+ times \(.*locked\)/), expect.stringMatching(/^session \S+: saving works again/)]));
      expect(server.stderr.filter((line) => /^\s+at /.test(line))).toEqual([]);
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** Holds SQLite's write lock on the database (argv[1]) from "locked" until a line arrives on stdin. */
const lockHolder = `
  import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
  const db = new Database(process.argv[1]);
  db.exec('BEGIN IMMEDIATE');
  process.stdout.write('locked\\n');
  process.stdin.once('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });
`;
