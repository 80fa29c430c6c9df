/**
 * The migrations (index.ts) applied to a Postgres database, in one transaction: every pending step
 * and its `schema_version` row, or none of them. Several servers starting on one database at once
 * take turns (an advisory lock held until the transaction ends): the first migrates, the others
 * then find nothing left to do.
 *
 * ```ts
 * await migratePostgres(pool, 'postgres://rehearsal@db/rehearsal'); // the schema's version, now the latest
 * ```
 */
import type { Pool } from 'pg';
import { pendingFrom } from './index';

/** The advisory lock's key: any constant no other application on the database uses ("rhrs"). */
const MIGRATION_LOCK = 0x72687273;

export const migratePostgres = async (pool: Pool, database: string, now = Date.now): Promise<number> => {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
    let current = Number((await client.query<{ version: number }>('SELECT coalesce(max(version), 0) AS version FROM schema_version')).rows[0]!.version);
    for (const step of pendingFrom(current, database)) {
      await client.query(step.postgres);
      await client.query('INSERT INTO schema_version (version, name, applied_at) VALUES ($1, $2, $3)', [step.version, step.name, now()]);
      current = step.version;
    }
    await client.query('COMMIT');
    return current;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
};
