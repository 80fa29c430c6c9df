import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { openStore, type NewSession, type Store } from './store';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const tempDir = () => mkdtempSync(join(tmpdir(), 'store-'));
const standup: NewSession = { id: 's1', scene: 'team-standup', seed: 7, pace: 'instant', createdAt: 1000 };
const event = (seq: number, type = 'utterance') => ({ seq, t: seq * 100, type, text: `line ${seq}` });
const seqs = (events: unknown[]) => events.map((e) => (e as { seq: number }).seq);

// What every store does is specified once, for SQLite and Postgres alike: tests/store/store.test.ts.
describe('the SQLite store', () => {
  const open: Store[] = [];
  const openAt = (dir: string): Store => {
    const store = openStore(dir);
    open.push(store);
    return store;
  };
  afterEach(() => {
    for (const store of open.splice(0)) store.close();
  });

  it('creates its directory and reads back appended events whole, in seq order', () => {
    const dir = join(tempDir(), 'nested', 'data');
    const store = openAt(dir);
    expect(existsSync(join(dir, 'rehearsal.db-wal'))).toBe(true);
    store.createSession(standup);
    store.appendEvents('s1', [event(1, 'session-start'), event(2)]);
    store.appendEvents('s1', [event(3)]);
    expect(store.events('s1')).toEqual([event(1, 'session-start'), event(2), event(3)]);
    expect(store.lastSeq('s1')).toBe(3);
  });

  it('opens a database made before sessions had a recording column: its sessions do not record, new ones may', () => {
    const dir = tempDir();
    // The schema as the first version wrote it, with a session and its log.
    const old = new Database(join(dir, 'rehearsal.db'));
    old.exec(`
      CREATE TABLE sessions (id TEXT PRIMARY KEY, scene TEXT NOT NULL, seed INTEGER NOT NULL,
        pace TEXT NOT NULL CHECK (pace IN ('instant', 'realtime')), created_at INTEGER NOT NULL, present TEXT NOT NULL, ended_at INTEGER) STRICT;
      CREATE TABLE events (session TEXT NOT NULL REFERENCES sessions (id), seq INTEGER NOT NULL, t REAL NOT NULL, type TEXT NOT NULL,
        json TEXT NOT NULL, PRIMARY KEY (session, seq)) STRICT, WITHOUT ROWID;
      INSERT INTO sessions VALUES ('old', 'team-standup', 3, 'instant', 500, '[]', 900);
      INSERT INTO events VALUES ('old', 1, 100, 'utterance', '{"seq":1,"t":100,"type":"utterance","text":"line 1"}');
    `);
    old.close();
    const store = openAt(dir);
    expect(store.session('old')).toEqual({ id: 'old', scene: 'team-standup', seed: 3, pace: 'instant', createdAt: 500, present: [], endedAt: 900, recording: false, events: 1, sceneEtag: null });
    store.createSession({ ...standup, recording: true });
    expect(store.session('s1')?.recording).toBe(true);
    // And again: a migrated database opens as it is.
    store.close();
    open.splice(open.indexOf(store), 1);
    expect(openAt(dir).session('s1')?.recording).toBe(true);
    // Its version is read off its columns and recorded, with the steps after it.
    const versions = new Database(join(dir, 'rehearsal.db'), { readonly: true });
    expect(versions.prepare('SELECT version FROM schema_version ORDER BY version').all()).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }]);
    versions.close();
  });

  it('leaves a purged log\'s text in neither the WAL nor the database file, while the store stays open', () => {
    const dir = tempDir();
    const store = openAt(dir);
    const secret = 'Purged-line-zebra-7261';
    const kept = 'Kept-line-heron-4410';
    store.createSession(standup);
    store.createSession({ ...standup, id: 's2' });
    store.appendEvents('s1', Array.from({ length: 40 }, (_, i) => ({ seq: i + 1, t: i, type: 'utterance', text: `${secret} ${i}` })));
    store.appendEvents('s2', [{ seq: 1, t: 0, type: 'utterance', text: kept }]);
    const bytes = (file: string) => readFileSync(join(dir, file)).toString('latin1');
    // Before the purge the text is in the WAL, as every committed write is until a checkpoint.
    expect(bytes('rehearsal.db-wal')).toContain(secret);

    expect(store.deleteSession('s1')).toBe(true);
    expect(bytes('rehearsal.db-wal')).not.toContain(secret);
    expect(bytes('rehearsal.db')).not.toContain(secret);
    expect(bytes('rehearsal.db')).toContain(kept);
    // The store goes on as before: the other session is whole, and new writes land.
    expect(store.events('s2')).toEqual([{ seq: 1, t: 0, type: 'utterance', text: kept }]);
    store.appendEvents('s2', [event(2)]);
    expect(seqs(store.events('s2'))).toEqual([1, 2]);
  });

  it('keeps every event whose append returned when the process is killed with SIGKILL', async () => {
    const dir = tempDir();
    const printed = await new Promise<number[]>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'tests/fixtures/store-crash-writer.ts', dir], { cwd: repo });
      const lines: number[] = [];
      let buffer = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const complete = buffer.split('\n');
        buffer = complete.pop() ?? '';
        lines.push(...complete.map(Number));
        if (lines.length >= 300) child.kill('SIGKILL');
      });
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (_, signal) =>
        signal === 'SIGKILL' ? resolve(lines) : reject(new Error(`writer exited without being killed: ${stderr}`)),
      );
    });

    expect(printed.length).toBeGreaterThanOrEqual(300);
    const store = openAt(dir);
    const stored = seqs(store.events('crash'));
    // Every printed seq is there, and the log is whole: 1..n with no gap or torn batch.
    expect(stored.slice(0, printed.length)).toEqual(printed);
    expect(stored).toEqual(stored.map((_, i) => i + 1));
    expect(store.unfinished().map((s) => s.id)).toEqual(['crash']);
  });

  it('waits for another process that holds the write lock, instead of failing the append', async () => {
    const dir = tempDir();
    // A wait longer than the holder's, however loaded the machine (the server's default is short: see openStore).
    const store = openStore(dir, { busyTimeoutMs: 10_000 });
    open.push(store);
    store.createSession(standup);
    store.appendEvents('s1', [event(1)]);
    // Another process takes the write lock, writes, and commits a moment later.
    const holder = spawn(process.execPath, ['--input-type=module', '-e', lockHolder, join(dir, 'rehearsal.db')], { cwd: repo });
    await new Promise<void>((resolve, reject) => {
      holder.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve());
      holder.on('error', reject);
      holder.on('exit', (code) => reject(new Error(`the lock holder exited (${code}) before locking`)));
    });
    store.appendEvents('s1', [event(2)]);
    expect(seqs(store.events('s1'))).toEqual([1, 2]);
    expect(store.session('other')).toMatchObject({ id: 'other' });
  });

  it('keeps its files to the server: the directory 0700, the database and its WAL and shared memory 0600', () => {
    const dir = join(tempDir(), 'data');
    const store = openAt(dir);
    store.createSession(standup);
    store.appendEvents('s1', [event(1)]);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(dir);
    expect(files).toEqual(expect.arrayContaining(['rehearsal.db', 'rehearsal.db-wal', 'rehearsal.db-shm']));
    for (const file of files) expect(`${file} ${(statSync(join(dir, file)).mode & 0o777).toString(8)}`).toBe(`${file} 600`);
  });

  it('takes a database an older server left world-readable back to 0600, with its WAL and shared memory', () => {
    const dir = tempDir();
    openStore(dir).close();
    for (const file of ['rehearsal.db', 'rehearsal.db-wal', 'rehearsal.db-shm']) {
      if (!existsSync(join(dir, file))) writeFileSync(join(dir, file), '');
      chmodSync(join(dir, file), 0o644);
    }
    openAt(dir);
    for (const file of ['rehearsal.db', 'rehearsal.db-wal', 'rehearsal.db-shm']) expect(`${file} ${(statSync(join(dir, file)).mode & 0o777).toString(8)}`).toBe(`${file} 600`);
  });
});

/** A second process: takes SQLite's write lock with a write of its own, says so, and commits 150 ms later. */
const lockHolder = `
  import Database from 'better-sqlite3';
  const db = new Database(process.argv[1]);
  db.exec('BEGIN IMMEDIATE');
  db.prepare("INSERT INTO sessions (id, scene, seed, pace, created_at, present) VALUES ('other', 'team-standup', 1, 'instant', 1, '[]')").run();
  process.stdout.write('locked\\n');
  setTimeout(() => { db.exec('COMMIT'); db.close(); }, 150);
`;
