/**
 * The store's schema, version by version: each migration is one step, written for SQLite and for
 * Postgres, applied in order when a store opens (sqlite.ts, postgres.ts) and recorded in the
 * database's `schema_version` table (one row per version applied, with when). A step is never
 * edited once released: a change to the schema is a new file here and a new entry below.
 *
 * A database already at a version this server does not know (a newer server migrated it) is
 * refused before anything is written: `SchemaTooNewError` names both versions.
 *
 * ```ts
 * const current = migrateSqlite(db, 'data/rehearsal.db'); // 5: every step applied, or throws SchemaTooNewError
 * ```
 */
import initial from './001-sessions-and-events';
import recording from './002-recording';
import leases from './003-leases';
import checkpoints from './004-checkpoints';
import sceneVersions from './005-scene-versions';
import type { Migration } from './migration';

export type { Migration };

export const migrations: readonly Migration[] = [initial, recording, leases, checkpoints, sceneVersions];

/** The version this server's schema is at once every step is applied. */
export const latestVersion = migrations.at(-1)!.version;

/** The database was migrated by a newer server: this one would misread or damage it. */
export class SchemaTooNewError extends Error {
  override name = 'SchemaTooNewError';
  constructor(
    readonly database: string,
    readonly found: number,
    readonly known: number = latestVersion,
  ) {
    super(`the database ${database} is at schema version ${found}, newer than this server's ${known}: run the server version that migrated it (or a later one), or point it at another database`);
  }
}

/** The steps a database at version `current` still needs, in order; throws if it is past them all. */
export const pendingFrom = (current: number, database: string): readonly Migration[] => {
  if (current > latestVersion) throw new SchemaTooNewError(database, current);
  return migrations.filter((m) => m.version > current);
};
