/**
 * The session store on Postgres, for several servers sharing one database (`DATABASE_URL`); the
 * same port as the embedded SQLite store (store.ts), answering with promises (`Store<'later'>`).
 * The `pg` driver, a pool of connections; the schema is migrated when the store opens
 * (migrations/), and a database migrated by a newer server is refused.
 *
 * ```ts
 * const store = await openPostgresStore('postgres://rehearsal@db.internal/rehearsal');
 * await store.createSession({ id: 's1', scene: 'team-standup', seed: 7, pace: 'realtime', createdAt: Date.now() });
 * await store.appendEvents('s1', events); // committed before they are broadcast
 * ```
 *
 * Each write is one statement, so atomic without a transaction held across round trips: an
 * append inserts its whole batch only if the log's last seq is the one before the batch's first
 * (two writers racing for the same seq: the primary key lets one through); a purge deletes the log
 * and the row together.
 *
 * Faults: a query the server does not answer within `queryTimeoutMs` fails, as does one made while
 * the server is down; the rooms' journal (journal.ts) holds the events, pauses the session, and
 * retries until Postgres is back. A connection the server drops while idle is only a log line:
 * the pool makes a new one for the next query.
 *
 * Purging: the rows are gone from every query once `deleteSession` returns. Postgres keeps the
 * deleted rows' bytes in the table's free space until (auto)vacuum reuses it, and in its write-ahead
 * log and backups for as long as those are kept: an operator who must erase a purged text at once
 * runs `VACUUM FULL events` and follows the WAL archive's and backups' retention.
 */
import pg from 'pg';
import { SchemaTooNewError } from './migrations/index';
import { migratePostgres } from './migrations/postgres';
import { LeaseLostError, type Fence, type Lease } from './leases';
import type { Checkpoint, Pace, SessionRow, Store, StoredEvent } from './store';

export interface PostgresStoreOptions {
  /** Connections in the pool. Default 10. */
  connections?: number;
  /** How long a query waits for an answer before it fails (the journal then retries). Default 5 s. */
  queryTimeoutMs?: number;
  /** How long opening a connection may take. Default 5 s. */
  connectTimeoutMs?: number;
  /** The server's log: a line when an idle connection is lost. */
  log?: (line: string) => void;
}

/** The database could not be opened: unreachable, refused, or its schema could not be migrated. */
export class DatabaseError extends Error {
  override name = 'DatabaseError';
}

/** The URL without its password: what the log and errors may show. */
export const describeDatabase = (url: string): string => {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(DATABASE_URL is not a URL)';
  }
};

/** An error's own words; a connection refused on every address of a host is an AggregateError with none. */
const reasonOf = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  const inner = (error as Partial<AggregateError>).errors;
  if (!error.message && Array.isArray(inner)) return inner.map((e: unknown) => reasonOf(e)).join('; ');
  return error.message || String((error as { code?: unknown }).code ?? error.name);
};

interface SessionRecord {
  id: string;
  scene: string;
  seed: string;
  pace: Pace;
  created_at: string;
  present: string;
  ended_at: string | null;
  recording: boolean;
  events: string;
  scene_etag: string | null;
}

// BIGINT comes back as text (it may not fit a double); ours are times and seeds, which do.
const toRow = (r: SessionRecord): SessionRow => ({
  id: r.id,
  scene: r.scene,
  seed: Number(r.seed),
  pace: r.pace,
  createdAt: Number(r.created_at),
  present: JSON.parse(r.present) as string[],
  endedAt: r.ended_at === null ? null : Number(r.ended_at),
  recording: r.recording,
  events: Number(r.events),
  sceneEtag: r.scene_etag,
});

const selectSessions = `
  SELECT s.*, (SELECT count(*) FROM events e WHERE e.session = s.id) AS events FROM sessions s`;

/**
 * Now on the database's clock, in ms: every node reads leases' expiry on the same clock, so a node
 * whose own clock runs fast cannot take a lease early.
 */
const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/**
 * The fence, inside a write's statement: the lease row still this node's at this generation. FOR
 * SHARE: a claim bumping the generation meanwhile waits for the write, or the write re-reads the
 * row the claim committed and finds it no longer its own.
 */
const holdsLease = (session: string, node: string, generation: string) =>
  `EXISTS (SELECT 1 FROM leases l WHERE l.session = ${session} AND l.node = ${node} AND l.generation = ${generation} FOR SHARE)`;

interface LeaseRecord {
  session: string;
  node: string;
  url: string | null;
  generation: number;
  expires_at: string;
  live: boolean;
}

export const openPostgresStore = async (url: string, options: PostgresStoreOptions = {}): Promise<Store<'later'>> => {
  const where = describeDatabase(url);
  const log = options.log ?? (() => {});
  const pool = new pg.Pool({
    connectionString: url,
    max: options.connections ?? 10,
    query_timeout: options.queryTimeoutMs ?? 5000,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
  });
  // Unhandled, an idle connection's error (the server restarted, the network dropped) would end the process.
  pool.on('error', (error) => log(`database ${where}: an idle connection was lost (${reasonOf(error)}); the next query opens a new one`));
  try {
    await migratePostgres(pool, where);
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (error instanceof SchemaTooNewError) throw error;
    throw new DatabaseError(`could not open the database ${where} (DATABASE_URL): ${reasonOf(error)}`);
  }

  let ending: Promise<void> | null = null;
  const query = async <R extends pg.QueryResultRow>(text: string, values: unknown[]) => pool.query<R>(text, values);
  const lastSeq = async (session: string) =>
    (await query<{ last: number }>('SELECT coalesce(max(seq), 0) AS last FROM events WHERE session = $1', [session])).rows[0]!.last;

  /** Why a fenced write changed nothing: the lease is another's now (else null: the caller says why). */
  const lostLease = async (session: string, fence: Fence | undefined): Promise<LeaseLostError | null> => {
    if (!fence) return null;
    const lease = (await query<{ node: string; generation: number }>('SELECT node, generation FROM leases WHERE session = $1', [session])).rows[0];
    return lease?.node === fence.node && lease.generation === fence.generation ? null : new LeaseLostError(session, fence);
  };

  return {
    async createSession({ id, scene, seed, pace, createdAt, present = [], recording = false, sceneVersion }, owner) {
      const row = [id, scene, seed, pace, createdAt, JSON.stringify(present), recording, sceneVersion?.etag ?? null, sceneVersion?.text ?? null];
      // One statement: the scene's version (kept once per text), the row, and with an owner its lease, so no
      // other node sees the session unowned, nor a session without the version it names.
      const made = `WITH version AS (INSERT INTO scene_versions (scene, etag, text) SELECT $2, $8, $9 WHERE $8::text IS NOT NULL ON CONFLICT DO NOTHING),
        s AS (INSERT INTO sessions (id, scene, seed, pace, created_at, present, recording, scene_etag) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id)`;
      if (!owner) return void (await query(`${made} SELECT id FROM s`, row));
      await query(`${made} INSERT INTO leases (session, node, url, generation, expires_at) SELECT id, $10, $11, 1, ${NOW_MS} + $12 FROM s`, [...row, owner.node, owner.url, owner.ttlMs]);
    },
    async appendEvents(session, events: readonly StoredEvent[], fence, checkpoint?: Checkpoint) {
      const first = events[0];
      if (!first) return;
      if (checkpoint && checkpoint.seq !== events.at(-1)!.seq) throw new Error(`session "${session}": a checkpoint at seq ${checkpoint.seq} must follow the batch's last event (${events.at(-1)!.seq})`);
      for (const [i, event] of events.entries()) {
        if (i > 0 && event.seq !== first.seq + i) {
          throw new Error(`session "${session}": event seq ${event.seq} does not follow ${first.seq + i - 1} (expected ${first.seq + i})`);
        }
      }
      // One statement: the checkpoint is replaced only when the batch went in, so never ahead of the log.
      const inserted = await query<{ count: number }>(
        `WITH batch AS (
           INSERT INTO events (session, seq, t, type, json)
           SELECT $1, e.seq, e.t, e.type, e.json FROM unnest($2::int[], $3::float8[], $4::text[], $5::text[]) AS e (seq, t, type, json)
           WHERE (SELECT coalesce(max(seq), 0) FROM events WHERE session = $1) = $6
             AND ($7::text IS NULL OR ${holdsLease('$1', '$7', '$8')})
           RETURNING seq),
         resumable AS (
           INSERT INTO checkpoints (session, seq, json) SELECT $1, $9::int, $10::text WHERE $9::int IS NOT NULL AND EXISTS (SELECT 1 FROM batch)
           ON CONFLICT (session) DO UPDATE SET seq = excluded.seq, json = excluded.json)
         SELECT count(*)::int AS count FROM batch`,
        [session, events.map((e) => e.seq), events.map((e) => e.t), events.map((e) => e.type), events.map((e) => JSON.stringify(e)), first.seq - 1, fence?.node ?? null, fence?.generation ?? null, checkpoint?.seq ?? null, checkpoint?.json ?? null],
      );
      if (inserted.rows[0]?.count === events.length) return;
      const lost = await lostLease(session, fence);
      if (lost) throw lost;
      const last = await lastSeq(session);
      throw new Error(`session "${session}": event seq ${first.seq} does not follow ${last} (expected ${last + 1})`);
    },
    async checkpoint(session) {
      return (await query<Checkpoint>('SELECT seq, json FROM checkpoints WHERE session = $1', [session])).rows[0];
    },
    async events(session, afterSeq = 0) {
      const { rows } = await query<{ json: string }>('SELECT json FROM events WHERE session = $1 AND seq > $2 ORDER BY seq', [session, afterSeq]);
      return rows.map((r) => JSON.parse(r.json) as unknown);
    },
    async storedEvents(session, afterSeq, limit) {
      return (await query<{ seq: number; json: string }>('SELECT seq, json FROM events WHERE session = $1 AND seq > $2 ORDER BY seq LIMIT $3', [session, afterSeq, limit])).rows;
    },
    lastSeq,
    async session(id) {
      const record = (await query<SessionRecord>(`${selectSessions} WHERE s.id = $1`, [id])).rows[0];
      return record && toRow(record);
    },
    async sessions() {
      return (await query<SessionRecord>(`${selectSessions} ORDER BY s.created_at, s.id`, [])).rows.map(toRow);
    },
    async sceneText(scene, etag) {
      return (await query<{ text: string }>('SELECT text FROM scene_versions WHERE scene = $1 AND etag = $2', [scene, etag])).rows[0]?.text;
    },
    async markEnded(id, at, fence) {
      const updated = fence
        ? // The lease is let go in the same statement, only if it is still this node's.
          await query(
            `WITH lease AS (UPDATE leases SET expires_at = 0 WHERE session = $2 AND node = $3 AND generation = $4 RETURNING session),
             resumable AS (DELETE FROM checkpoints WHERE session = $2 AND EXISTS (SELECT 1 FROM lease))
             UPDATE sessions SET ended_at = coalesce(ended_at, $1) WHERE id = $2 AND EXISTS (SELECT 1 FROM lease)`,
            [at, id, fence.node, fence.generation],
          )
        : await query('WITH resumable AS (DELETE FROM checkpoints WHERE session = $2) UPDATE sessions SET ended_at = coalesce(ended_at, $1) WHERE id = $2', [at, id]);
      if (updated.rowCount !== 0) return;
      const lost = await lostLease(id, fence);
      if (lost) throw lost;
      throw new Error(`no session "${id}" to mark ended`);
    },
    async unfinished() {
      return (await query<SessionRecord>(`${selectSessions} WHERE s.ended_at IS NULL ORDER BY s.created_at, s.id`, [])).rows.map(toRow);
    },
    async unowned() {
      const unleased = `NOT EXISTS (SELECT 1 FROM leases l WHERE l.session = s.id AND l.expires_at > ${NOW_MS})`;
      return (await query<SessionRecord>(`${selectSessions} WHERE s.ended_at IS NULL AND ${unleased} ORDER BY s.created_at, s.id`, [])).rows.map(toRow);
    },
    async claimLease(session, { node, url, ttlMs }) {
      // One statement: a first lease, or the expired one's generation bumped. Two nodes claiming at
      // once: the second waits for the first's row, finds it live again, and changes nothing.
      const claimed = await query<{ generation: number }>(
        `INSERT INTO leases (session, node, url, generation, expires_at)
         SELECT id, $2, $3, 1, ${NOW_MS} + $4 FROM sessions WHERE id = $1 AND ended_at IS NULL
         ON CONFLICT (session) DO UPDATE SET node = excluded.node, url = excluded.url, generation = leases.generation + 1, expires_at = excluded.expires_at
         WHERE leases.expires_at <= ${NOW_MS}
         RETURNING generation`,
        [session, node, url, ttlMs],
      );
      return claimed.rows[0]?.generation ?? null;
    },
    async renewLeases(held, { node, ttlMs }) {
      if (held.length === 0) return [];
      const renewed = await query<{ session: string }>(
        `UPDATE leases l SET expires_at = ${NOW_MS} + $4 FROM unnest($2::text[], $3::int[]) AS h (session, generation)
         WHERE l.session = h.session AND l.generation = h.generation AND l.node = $1 RETURNING l.session`,
        [node, held.map((h) => h.session), held.map((h) => h.generation), ttlMs],
      );
      return renewed.rows.map((r) => r.session);
    },
    async lease(session): Promise<Lease | undefined> {
      const record = (await query<LeaseRecord>(`SELECT *, expires_at > ${NOW_MS} AS live FROM leases WHERE session = $1`, [session])).rows[0];
      return record && { session, node: record.node, url: record.url, generation: record.generation, expiresAt: Number(record.expires_at), live: record.live };
    },
    async deleteSession(id) {
      // One statement: the log and the row go together, or neither does; the scene's version goes with
      // them unless another session ran it. (A session of that very version made at the same moment may
      // then find it gone, and is read with the library's scene: the same version, unless edited since.)
      const deleted = await query<{ count: number }>(
        `WITH log AS (DELETE FROM events WHERE session = $1), lease AS (DELETE FROM leases WHERE session = $1), resumable AS (DELETE FROM checkpoints WHERE session = $1),
         gone AS (DELETE FROM sessions WHERE id = $1 RETURNING scene, scene_etag),
         unused AS (DELETE FROM scene_versions v USING gone WHERE v.scene = gone.scene AND v.etag = gone.scene_etag
           AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.scene = gone.scene AND s.scene_etag = gone.scene_etag AND s.id <> $1))
         SELECT count(*)::int AS count FROM gone`,
        [id],
      );
      return (deleted.rows[0]?.count ?? 0) > 0;
    },
    close() {
      // A second close (a test's cleanup after a shutdown) waits for the first.
      ending ??= pool.end();
      return ending;
    },
  };
};
