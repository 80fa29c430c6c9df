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
import type { Pace, SessionRow, Store, StoredEvent } from './store';

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
});

const selectSessions = `
  SELECT s.*, (SELECT count(*) FROM events e WHERE e.session = s.id) AS events FROM sessions s`;

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

  return {
    async createSession({ id, scene, seed, pace, createdAt, present = [], recording = false }) {
      await query('INSERT INTO sessions (id, scene, seed, pace, created_at, present, recording) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        id,
        scene,
        seed,
        pace,
        createdAt,
        JSON.stringify(present),
        recording,
      ]);
    },
    async appendEvents(session, events: readonly StoredEvent[]) {
      const first = events[0];
      if (!first) return;
      for (const [i, event] of events.entries()) {
        if (i > 0 && event.seq !== first.seq + i) {
          throw new Error(`session "${session}": event seq ${event.seq} does not follow ${first.seq + i - 1} (expected ${first.seq + i})`);
        }
      }
      const inserted = await query(
        `INSERT INTO events (session, seq, t, type, json)
         SELECT $1, e.seq, e.t, e.type, e.json FROM unnest($2::int[], $3::float8[], $4::text[], $5::text[]) AS e (seq, t, type, json)
         WHERE (SELECT coalesce(max(seq), 0) FROM events WHERE session = $1) = $6`,
        [session, events.map((e) => e.seq), events.map((e) => e.t), events.map((e) => e.type), events.map((e) => JSON.stringify(e)), first.seq - 1],
      );
      if (inserted.rowCount === events.length) return;
      const last = await lastSeq(session);
      throw new Error(`session "${session}": event seq ${first.seq} does not follow ${last} (expected ${last + 1})`);
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
    async markEnded(id, at) {
      const updated = await query('UPDATE sessions SET ended_at = coalesce(ended_at, $1) WHERE id = $2', [at, id]);
      if (updated.rowCount === 0) throw new Error(`no session "${id}" to mark ended`);
    },
    async unfinished() {
      return (await query<SessionRecord>(`${selectSessions} WHERE s.ended_at IS NULL ORDER BY s.created_at, s.id`, [])).rows.map(toRow);
    },
    async deleteSession(id) {
      // One statement: the log and the row go together, or neither does.
      const deleted = await query('WITH log AS (DELETE FROM events WHERE session = $1) DELETE FROM sessions WHERE id = $1', [id]);
      return (deleted.rowCount ?? 0) > 0;
    },
    close() {
      // A second close (a test's cleanup after a shutdown) waits for the first.
      ending ??= pool.end();
      return ending;
    },
  };
};
