/**
 * Issue 30, the Postgres store's faults: Postgres unreachable when the server starts (one clear
 * line, exit 1, no password shown), a database migrated by a newer server (refused, both versions
 * named), and Postgres lost mid-session (the session pauses, shows nothing unstored, resumes by
 * itself once the database is back, and its log holds every event exactly once), all through the
 * real `pg` driver against PGlite served over the wire (tests/fakes/pglite-server.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events';
import type { ServerMessage } from '../../shared/protocol/messages';
import { loadScenes } from '../../server/scene/load';
import { createRooms, savingFailedMessage, type Client } from '../../server/rooms/rooms';
import { createJournal } from '../../server/store/journal';
import { DatabaseError, openPostgresStore } from '../../server/store/postgres';
import type { Store } from '../../server/store/store';
import { startPgliteServer, type PgliteServer } from '../fakes/pglite-server';
import { nodeArgs } from '../server/bundle';
import { createValve, expectContiguous } from '../server/helpers';
import { until } from '../until';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const pglite = async (): Promise<PgliteServer> => {
  const server = await startPgliteServer();
  cleanups.push(() => server.close());
  return server;
};

/** A port nothing listens on: taken, then let go. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/** `npm start` with `env`: its exit code and what it wrote, once it exits (or once it listens, then stopped). */
const startServer = (env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pg-start-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const child = spawn(process.execPath, nodeArgs('server/main.ts'), {
      cwd: repoRoot,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN: 'admin-token-for-tests', GENERATOR: 'scripted', SYNTHESIZER: 'none', TRANSCRIBER: 'none', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('LISTENING')) child.kill('SIGTERM');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });

describe('the server on Postgres (DATABASE_URL)', () => {
  it('starts on a reachable database, migrating it, and stops cleanly', async () => {
    const postgres = await pglite();
    const started = await startServer({ DATABASE_URL: postgres.url });
    expect(started.stderr).toBe('');
    expect(started.stdout).toContain(`sessions: ${postgres.url}`);
    expect(started.code).toBe(0);
    expect((await postgres.db.query<{ version: number }>('SELECT max(version) AS version FROM schema_version')).rows).toEqual([{ version: 5 }]);
  }, 60_000);

  it('will not start when Postgres is unreachable: one line naming the database without its password, exit 1', async () => {
    const port = await closedPort();
    const started = await startServer({ DATABASE_URL: `postgres://rehearsal:hunter2-secret@127.0.0.1:${port}/rehearsal` });
    expect(started.code).toBe(1);
    expect(started.stderr).toBe(`could not open the database postgres://rehearsal@127.0.0.1:${port}/rehearsal (DATABASE_URL): connect ECONNREFUSED 127.0.0.1:${port}\n`);
    expect(started.stdout).not.toContain('hunter2');
  }, 60_000);

  it('will not start on a database a newer server migrated, naming both versions, and changes nothing', async () => {
    const postgres = await pglite();
    await openPostgresStore(postgres.url).then((store) => store.close());
    await postgres.db.query("INSERT INTO schema_version VALUES (7, 'from a newer server', 0)");
    const started = await startServer({ DATABASE_URL: postgres.url });
    expect(started.code).toBe(1);
    expect(started.stderr).toBe(`the database ${postgres.url} is at schema version 7, newer than this server's 5: run the server version that migrated it (or a later one), or point it at another database\n`);
    expect((await postgres.db.query('SELECT version FROM schema_version ORDER BY version')).rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 7 }]);
  }, 60_000);

  it('says why a database refuses the connection, as an error of its own', async () => {
    const port = await closedPort();
    await expect(openPostgresStore(`postgresql://someone:pw@127.0.0.1:${port}/db`, { connectTimeoutMs: 500 })).rejects.toThrow(DatabaseError);
  });
});

describe('Postgres lost mid-session', () => {
  it('pauses the session, shows nothing unstored, and resumes once the database is back, with every event stored once', async () => {
    const postgres = await pglite();
    const store: Store<'later'> = await openPostgresStore(postgres.url, { queryTimeoutMs: 2000, connectTimeoutMs: 500 });
    cleanups.push(() => store.close());
    const scenes = new Map((await loadScenes(join(repoRoot, 'scenes'))).map((s) => [s.id, s]));
    const valve = createValve();
    const rooms = createRooms({ store, scenes, generator: () => valve.generator(), journal: createJournal(store, { firstRetryMs: 10, maxRetryMs: 50 }) });
    valve.allow(2);
    const room = await rooms.create('team-standup', { pace: 'instant', standIns: true });
    cleanups.push(async () => {
      if (!room.ended()) room.conversation.send({ type: 'end' });
      await room.conversation.ended;
    });
    /** A client of the room: the events it was shown, and the errors it was told. */
    const watcher = () => {
      const events: SessionEvent[] = [];
      const errors: ServerMessage[] = [];
      const client: Client = {
        role: 'observer',
        participant: null,
        send: (message) => {
          if (message.type === 'event') events.push(message.event);
          if (message.type === 'error') errors.push(message);
        },
      };
      return { client, events, errors };
    };
    const observer = watcher();
    room.join(observer.client, 0);
    await valve.held();
    await until(() => observer.events.at(-1)?.seq === room.conversation.state.seq, 'every event so far shown');
    const before = [...observer.events];

    await postgres.stop();
    valve.allow(1);
    await until(() => observer.errors.length > 0, 'the clients to be told saving failed');
    expect(observer.errors).toEqual([{ type: 'error', code: 'storage', message: savingFailedMessage }]);
    expect(room.status()).toBe('paused');
    expect(room.conversation.state.seq).toBeGreaterThan(before.at(-1)!.seq);
    expect(observer.events).toEqual(before);

    await postgres.restart();
    await until(() => observer.events.some((e) => e.type === 'system' && e.code === 'saving-recovered'), 'the session to recover', 20_000);
    const recovered = observer.events.find((e) => e.type === 'system' && e.code === 'saving-recovered')!;
    await until(() => observer.events.some((e) => e.type === 'system' && e.code === 'resumed' && e.seq > recovered.seq), 'the session to resume by itself');
    // One who joins now reads the log from Postgres while the session goes on: nothing missed, nothing twice.
    const late = watcher();
    room.join(late.client, 0);
    valve.allow();
    await until(() => observer.events.some((e) => e.type === 'end'), 'the session to run to its end', 20_000);
    await until(() => late.events.some((e) => e.type === 'end'), 'the late observer to see the end');
    await until(() => room.ended(), 'the room to end');
    let ended: number | null = null;
    // Each poll asks again without waiting for the last; one still asking when the database closes fails, and that is no failure of the test.
    await until(() => (void store.session(room.id).then((row) => (ended = row?.endedAt ?? null), () => {}), ended !== null), 'the end to be stored');

    const log = (await store.events(room.id)) as SessionEvent[];
    expect(expectContiguous(log)).toBeNull();
    expect(observer.events).toEqual(log);
    expect(late.events).toEqual(log);
    expect(log.filter((e) => e.type === 'system').map((e) => (e as { code: string }).code)).toEqual(expect.arrayContaining(['saving-failed', 'paused', 'saving-recovered', 'resumed']));
    expect(log.filter((e) => e.type === 'utterance' && e.seq > recovered.seq).length).toBeGreaterThan(0);
  }, 60_000);

  it('holds what the journal could not write while the database was down, and writes it in order when it is back', async () => {
    const postgres = await pglite();
    const store = await openPostgresStore(postgres.url, { queryTimeoutMs: 2000, connectTimeoutMs: 500 });
    cleanups.push(() => store.close());
    await store.createSession({ id: 's', scene: 'x', seed: 1, pace: 'instant', createdAt: 0 });
    const told: number[] = [];
    const calls: string[] = [];
    const log = createJournal(store, { firstRetryMs: 10, maxRetryMs: 50 }).open('s', {
      committed: (events) => told.push(...events.map((e) => e.seq)),
      failing: () => calls.push('failing'),
      recovered: () => calls.push('recovered'),
    });
    const event = (seq: number) => ({ seq, t: seq, type: 'utterance', text: `line ${seq}` });
    for (const seq of [1, 2, 3]) log.append(event(seq));
    await until(() => told.length === 3, 'the first events to be stored');
    await postgres.stop();
    for (const seq of [4, 5, 6, 7]) log.append(event(seq));
    await until(() => calls.includes('failing'), 'the log to start failing');
    log.append(event(8), 99);
    expect(told).toEqual([1, 2, 3]);
    await postgres.restart();
    await until(() => calls.includes('recovered'), 'the log to recover');
    expect(told).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((await store.events('s')).map((e) => (e as { seq: number }).seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await until(() => !log.failing, 'saving to work');
    let endedAt: number | null = null;
    await until(() => (void store.session('s').then((row) => (endedAt = row?.endedAt ?? null), () => {}), endedAt !== null), 'the end to be stored');
    expect(endedAt).toBe(99);
    expect(calls).toEqual(['failing', 'recovered']);
  }, 30_000);
});
