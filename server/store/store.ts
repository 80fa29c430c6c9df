/**
 * The session store's port (`Store`), and its embedded implementation: sessions and their
 * append-only event logs in one SQLite file, `<dir>/rehearsal.db`. The SQLite store answers at
 * once (`Store<'now'>`), like better-sqlite3 itself: a call returns once committed. The Postgres
 * store (postgres.ts, for several servers on one database) answers with promises
 * (`Store<'later'>`). The server takes either (`AnyStore`) and goes on at once when the answer is
 * already there (`after`), so the embedded default keeps its synchronous path: no promise, no
 * extra turn of the event loop per event.
 *
 * ```ts
 * const store = openStore(config.dataDir);
 * store.createSession({ id: 's1', scene: 'team-standup', seed: 7, pace: 'realtime', createdAt: Date.now() });
 * store.appendEvents('s1', events); // committed before they are broadcast
 * for (const row of store.unfinished()) resume(row, store.events(row.id));
 * ```
 *
 * Durability: WAL with `synchronous=NORMAL`. A commit appends to the WAL with write() before it
 * returns, so the data sits in the OS page cache and survives the process dying at any point
 * (kill -9, a crash): our requirement, tested below with SIGKILL. An OS crash or power cut can lose
 * what was committed since the WAL was last fsynced, at its last checkpoint (SQLite checkpoints
 * every 1,000 WAL pages: about 500 events, an event being one commit of about two pages; Linux
 * itself writes dirty pages back within about 30 s), never corrupt the file: the WAL's checksums
 * drop a torn tail.
 * `synchronous: 'FULL'` closes that gap with an fsync per commit, and `npm run bench -- store`
 * measures it: about 20 times fewer events a second, and each event then blocks the event loop for
 * a millisecond or more (p99 ~10 ms) while every room waits, so NORMAL stays the default.
 *
 * Purging: a deleted session's rows are overwritten with zeros (`secure_delete`) and the WAL,
 * which still holds the old pages, is checkpointed and truncated to nothing, so a purged log's
 * text is left in neither file once `deleteSession` returns.
 *
 * Locking: every write takes SQLite's write lock when it begins (IMMEDIATE), so a writer waits
 * for another connection's lock for up to `busyTimeoutMs` and then fails cleanly; a deferred
 * transaction would read first and fail at once when its upgrade to a write found the lock
 * taken. The wait is short because better-sqlite3 blocks the event loop while it waits; longer
 * outages are ridden out asynchronously by the journal (journal.ts), which retries and pauses.
 *
 * Scene versions: a session is stored with the scene it runs, as it was when it was made (its YAML
 * text and ETag, server/scene/versions.ts), so its review and its resume read that version whatever
 * the editor did to the scene since. A version many sessions ran is stored once; purging the last
 * session of a version purges the version too.
 *
 * Migrations: the schema is versioned (migrations/): a database made by an earlier version gets
 * the steps since when it is opened; one made by a newer server is refused (SchemaTooNewError).
 *
 * The files are the server's alone: the directory is made 0700, the database 0600, and SQLite
 * gives its WAL and shared-memory files the database's mode.
 */
import Database from 'better-sqlite3';
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { makeDataDir, privateFile } from './data-dir';
import { migrateSqlite } from './migrations/sqlite';
import type { Answer, Timing } from './answer';
import { LeaseLostError, type Fence, type Lease, type LeaseClaim } from './leases';

import type { Pace } from '../../shared/events';

export type { Pace };
export { after, type Answer, type Timing } from './answer';
export { LeaseLostError, type Fence, type Lease, type LeaseClaim } from './leases';

export interface NewSession {
  id: string;
  scene: string;
  seed: number;
  pace: Pace;
  createdAt: number;
  /** Participants present when the session was created. */
  present?: string[];
  /** Participants' microphones are recorded. Default false. */
  recording?: boolean;
  /** The scene's version the session runs; absent (tests, tools): read with the scene as it is now. */
  sceneVersion?: SceneVersion;
}

/** A scene as a session ran it: its YAML text, and its ETag (a hash of the text: identical versions are one). */
export interface SceneVersion {
  etag: string;
  text: string;
}

export interface SessionRow {
  id: string;
  scene: string;
  seed: number;
  pace: Pace;
  createdAt: number;
  present: string[];
  endedAt: number | null;
  /** Participants' microphones are recorded (false for sessions made before it could be chosen). */
  recording: boolean;
  /** How many events the session's log holds. */
  events: number;
  /** The version of its scene it ran (`sceneText`), null for a session made before versions were kept. */
  sceneEtag: string | null;
}

/** What the store needs of an event (a `SessionEvent`); the whole object is kept as JSON. */
export interface StoredEvent {
  seq: number;
  t: number;
  type: string;
  readonly [field: string]: unknown;
}

/**
 * The engine's state after event `seq` of a session's log, as JSON (server/conversation/checkpoint.ts):
 * where a session whose server died resumes. Only the latest is kept, while the session runs.
 */
export interface Checkpoint {
  seq: number;
  json: string;
}

/** The session store: SQLite's (`Store`, synchronous), Postgres's (`Store<'later'>`), or either (`AnyStore`). */
export interface Store<When extends Timing = 'now'> {
  /** `owner`: the session's lease too (generation 1), in the same transaction, so no other node can take it meanwhile. */
  createSession(row: NewSession, owner?: LeaseClaim): Answer<void, When>;
  /**
   * Appends in one transaction; throws, appending nothing, unless the seqs continue the log one by
   * one. `fence`: also unless the session's lease is still the fence's node's at its generation
   * (else a `LeaseLostError`). `checkpoint`: replaces the session's checkpoint in the same
   * transaction; its seq must be the batch's last.
   */
  appendEvents(session: string, events: readonly StoredEvent[], fence?: Fence, checkpoint?: Checkpoint): Answer<void, When>;
  /** The session's latest checkpoint, if one was written and the session has not ended since. */
  checkpoint(session: string): Answer<Checkpoint | undefined, When>;
  /** The session's events with seq > afterSeq, in seq order. */
  events(session: string, afterSeq?: number): Answer<unknown[], When>;
  /** Up to `limit` of the session's events with seq > afterSeq, in seq order, as stored (JSON text): a long log read in pages, parsed elsewhere. */
  storedEvents(session: string, afterSeq: number, limit: number): Answer<{ seq: number; json: string }[], When>;
  /** The last seq appended, 0 for an empty log. */
  lastSeq(session: string): Answer<number, When>;
  session(id: string): Answer<SessionRow | undefined, When>;
  sessions(): Answer<SessionRow[], When>;
  /** The YAML text of scene `scene` at version `etag`, as a session stored it (its row's `sceneEtag`). */
  sceneText(scene: string, etag: string): Answer<string | undefined, When>;
  /**
   * Records when the session ended (its checkpoint goes: it will not resume); a second call keeps
   * the first time. `fence`: only while the lease is the fence's (else a `LeaseLostError`), and the
   * lease is let go with it.
   */
  markEnded(id: string, at: number, fence?: Fence): Answer<void, When>;
  /** Sessions never marked ended: the ones a crash interrupted, to recover at start-up. */
  unfinished(): Answer<SessionRow[], When>;
  /** Unfinished sessions whose lease expired or that never had one: a dead node's, to take over. */
  unowned(): Answer<SessionRow[], When>;
  /**
   * Takes the lease of an unfinished session whose lease is absent or expired, with a generation
   * one past the last; its generation, or null if the session is live elsewhere or finished.
   */
  claimLease(session: string, claim: LeaseClaim): Answer<number | null, When>;
  /** Extends the leases `claim.node` still holds at these generations by `claim.ttlMs`; the sessions renewed. */
  renewLeases(held: readonly { session: string; generation: number }[], claim: LeaseClaim): Answer<string[], When>;
  /** The session's lease, if it ever had one. */
  lease(session: string): Answer<Lease | undefined, When>;
  /**
   * Deletes the session and its log (and its scene's version, if no other session ran it), in one transaction, then leaves their text in no file: the
   * pages are zeroed and the WAL is checkpointed and truncated (SQLite; see postgres.ts for
   * Postgres). False if there was no such session.
   */
  deleteSession(id: string): Answer<boolean, When>;
  close(): Answer<void, When>;
}

/** What the server is given: either store. */
export type AnyStore = Store<Timing>;

interface LeaseRecord {
  session: string;
  node: string;
  url: string | null;
  generation: number;
  expires_at: number;
}

interface SessionRecord {
  id: string;
  scene: string;
  seed: number;
  pace: Pace;
  created_at: number;
  present: string;
  ended_at: number | null;
  recording: number;
  events: number;
  scene_etag: string | null;
}

const toRow = (r: SessionRecord): SessionRow => ({
  id: r.id,
  scene: r.scene,
  seed: r.seed,
  pace: r.pace,
  createdAt: r.created_at,
  present: JSON.parse(r.present) as string[],
  endedAt: r.ended_at,
  recording: r.recording === 1,
  events: r.events,
  sceneEtag: r.scene_etag,
});

const selectSessions = `
  SELECT s.*, (SELECT count(*) FROM events e WHERE e.session = s.id) AS events FROM sessions s`;

export interface StoreOptions {
  /**
   * How long a write waits for another connection's lock before it fails, blocking the event loop
   * meanwhile. Default 50 ms: brief contention is waited out; the journal rides out the rest.
   */
  busyTimeoutMs?: number;
  /**
   * SQLite's `synchronous` in WAL mode. NORMAL (the default): no fsync per commit; the process
   * dying loses nothing, a power cut may lose the commits since the last checkpoint. FULL: each
   * commit is fsynced before it returns, so not even a power cut loses an event a client received.
   */
  synchronous?: 'FULL' | 'NORMAL';
}

export const openStore = (dir: string, options: StoreOptions = {}): Store => {
  makeDataDir(dir);
  const file = join(dir, 'rehearsal.db');
  // Before SQLite opens it: new WAL and shared-memory files copy the database file's mode.
  privateFile(file);
  for (const companion of [`${file}-wal`, `${file}-shm`]) if (existsSync(companion)) chmodSync(companion, 0o600);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
  // A purged session leaves no text behind in the database's free pages.
  db.pragma('secure_delete = ON');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 50}`);
  try {
    migrateSqlite(db, file);
  } catch (error) {
    db.close();
    throw error;
  }

  const insertSession = db.prepare<[string, string, number, Pace, number, string, number, string | null]>(
    'INSERT INTO sessions (id, scene, seed, pace, created_at, present, recording, scene_etag) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const insertVersion = db.prepare<[string, string, string]>('INSERT INTO scene_versions (scene, etag, text) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
  const selectVersion = db.prepare<[string, string], { text: string }>('SELECT text FROM scene_versions WHERE scene = ? AND etag = ?');
  const selectVersionOf = db.prepare<[string], { scene: string; scene_etag: string | null }>('SELECT scene, scene_etag FROM sessions WHERE id = ?');
  const deleteUnusedVersion = db.prepare<{ scene: string; etag: string }>(
    'DELETE FROM scene_versions WHERE scene = @scene AND etag = @etag AND NOT EXISTS (SELECT 1 FROM sessions WHERE scene = @scene AND scene_etag = @etag)',
  );
  const deleteEvents = db.prepare<[string]>('DELETE FROM events WHERE session = ?');
  const deleteLease = db.prepare<[string]>('DELETE FROM leases WHERE session = ?');
  const deleteCheckpoint = db.prepare<[string]>('DELETE FROM checkpoints WHERE session = ?');
  const upsertCheckpoint = db.prepare<[string, number, string]>(
    'INSERT INTO checkpoints (session, seq, json) VALUES (?, ?, ?) ON CONFLICT (session) DO UPDATE SET seq = excluded.seq, json = excluded.json',
  );
  const selectCheckpoint = db.prepare<[string], Checkpoint>('SELECT seq, json FROM checkpoints WHERE session = ?');
  const deleteSessionRow = db.prepare<[string]>('DELETE FROM sessions WHERE id = ?');
  const remove = db.transaction((id: string) => {
    const ran = selectVersionOf.get(id);
    deleteEvents.run(id);
    deleteLease.run(id);
    deleteCheckpoint.run(id);
    const deleted = deleteSessionRow.run(id).changes > 0;
    if (ran?.scene_etag) deleteUnusedVersion.run({ scene: ran.scene, etag: ran.scene_etag });
    return deleted;
  });
  const selectLease = db.prepare<[string], LeaseRecord>('SELECT * FROM leases WHERE session = ?');
  const upsertLease = db.prepare<[string, string, string | null, number, number]>(
    `INSERT INTO leases (session, node, url, generation, expires_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (session) DO UPDATE SET node = excluded.node, url = excluded.url, generation = excluded.generation, expires_at = excluded.expires_at`,
  );
  const selectEndedAt = db.prepare<[string], { ended_at: number | null }>('SELECT ended_at FROM sessions WHERE id = ?');
  const extendLease = db.prepare<[number, string, string, number]>('UPDATE leases SET expires_at = ? WHERE session = ? AND node = ? AND generation = ?');
  const expireLease = db.prepare<[string]>('UPDATE leases SET expires_at = 0 WHERE session = ?');
  const insertEvent = db.prepare<[string, number, number, string, string]>(
    'INSERT INTO events (session, seq, t, type, json) VALUES (?, ?, ?, ?, ?)',
  );
  const selectLastSeq = db.prepare<[string], { last: number }>(
    'SELECT coalesce(max(seq), 0) AS last FROM events WHERE session = ?',
  );
  const selectEvents = db.prepare<[string, number], { json: string }>(
    'SELECT json FROM events WHERE session = ? AND seq > ? ORDER BY seq',
  );
  const selectStoredEvents = db.prepare<[string, number, number], { seq: number; json: string }>(
    'SELECT seq, json FROM events WHERE session = ? AND seq > ? ORDER BY seq LIMIT ?',
  );
  const selectSession = db.prepare<[string], SessionRecord>(`${selectSessions} WHERE s.id = ?`);
  const selectAll = db.prepare<[], SessionRecord>(`${selectSessions} ORDER BY s.created_at, s.id`);
  const selectUnfinished = db.prepare<[], SessionRecord>(
    `${selectSessions} WHERE s.ended_at IS NULL ORDER BY s.created_at, s.id`,
  );
  const selectUnowned = db.prepare<[number], SessionRecord>(
    `${selectSessions} WHERE s.ended_at IS NULL AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.session = s.id AND l.expires_at > ?) ORDER BY s.created_at, s.id`,
  );
  const updateEnded = db.prepare<[number, string]>('UPDATE sessions SET ended_at = coalesce(ended_at, ?) WHERE id = ?');

  const lastSeq = (session: string): number => selectLastSeq.get(session)?.last ?? 0;

  /** Throws unless the session's lease is the fence's: called inside the write's transaction. */
  const fenced = (session: string, fence: Fence | undefined) => {
    if (!fence) return;
    const lease = selectLease.get(session);
    if (lease?.node !== fence.node || lease.generation !== fence.generation) throw new LeaseLostError(session, fence);
  };

  const append = db.transaction((session: string, events: readonly StoredEvent[], fence: Fence | undefined, checkpoint: Checkpoint | undefined) => {
    fenced(session, fence);
    let expected = lastSeq(session) + 1;
    for (const event of events) {
      if (event.seq !== expected) {
        throw new Error(`session "${session}": event seq ${event.seq} does not follow ${expected - 1} (expected ${expected})`);
      }
      insertEvent.run(session, event.seq, event.t, event.type, JSON.stringify(event));
      expected += 1;
    }
    if (checkpoint) {
      if (checkpoint.seq !== expected - 1) throw new Error(`session "${session}": a checkpoint at seq ${checkpoint.seq} must follow the batch's last event (${expected - 1})`);
      upsertCheckpoint.run(session, checkpoint.seq, checkpoint.json);
    }
  });

  const create = db.transaction((row: NewSession, owner: LeaseClaim | undefined) => {
    const { id, scene, seed, pace, createdAt, present = [], recording = false, sceneVersion } = row;
    if (sceneVersion) insertVersion.run(scene, sceneVersion.etag, sceneVersion.text);
    insertSession.run(id, scene, seed, pace, createdAt, JSON.stringify(present), recording ? 1 : 0, sceneVersion?.etag ?? null);
    if (owner) upsertLease.run(id, owner.node, owner.url, 1, Date.now() + owner.ttlMs);
  });
  const end = db.transaction((id: string, at: number, fence: Fence | undefined) => {
    fenced(id, fence);
    if (updateEnded.run(at, id).changes === 0) throw new Error(`no session "${id}" to mark ended`);
    deleteCheckpoint.run(id);
    if (fence) expireLease.run(id);
  });
  const claim = db.transaction((session: string, { node, url, ttlMs }: LeaseClaim): number | null => {
    const now = Date.now();
    if (selectEndedAt.get(session)?.ended_at !== null) return null;
    const current = selectLease.get(session);
    if (current && current.expires_at > now) return null;
    const generation = (current?.generation ?? 0) + 1;
    upsertLease.run(session, node, url, generation, now + ttlMs);
    return generation;
  });
  const renew = db.transaction((held: readonly { session: string; generation: number }[], { node, ttlMs }: LeaseClaim) => {
    const until = Date.now() + ttlMs;
    return held.filter(({ session, generation }) => extendLease.run(until, session, node, generation).changes > 0).map((h) => h.session);
  });

  return {
    createSession(row, owner) {
      create.immediate(row, owner);
    },
    appendEvents(session, events, fence, checkpoint) {
      append.immediate(session, events, fence, checkpoint);
    },
    checkpoint: (session) => selectCheckpoint.get(session),
    events(session, afterSeq = 0) {
      return selectEvents.all(session, afterSeq).map((r) => JSON.parse(r.json) as unknown);
    },
    storedEvents: (session, afterSeq, limit) => selectStoredEvents.all(session, afterSeq, limit),
    lastSeq,
    session(id) {
      const record = selectSession.get(id);
      return record && toRow(record);
    },
    sessions() {
      return selectAll.all().map(toRow);
    },
    sceneText: (scene, etag) => selectVersion.get(scene, etag)?.text,
    markEnded(id, at, fence) {
      end.immediate(id, at, fence);
    },
    unfinished() {
      return selectUnfinished.all().map(toRow);
    },
    unowned() {
      return selectUnowned.all(Date.now()).map(toRow);
    },
    claimLease: (session, lease) => claim.immediate(session, lease),
    renewLeases: (held, lease) => renew.immediate(held, lease),
    lease(session) {
      const record = selectLease.get(session);
      return record && { session, node: record.node, url: record.url, generation: record.generation, expiresAt: record.expires_at, live: record.expires_at > Date.now() };
    },
    deleteSession(id) {
      const deleted = remove.immediate(id);
      // The WAL still holds the log's old pages until a checkpoint copies the zeroed ones over them;
      // TRUNCATE then empties the file. Only another connection reading at this very moment can
      // keep it from finishing, and the next purge's checkpoint clears what it left.
      if (deleted) db.pragma('wal_checkpoint(TRUNCATE)');
      return deleted;
    },
    close() {
      db.close();
    },
  };
};
