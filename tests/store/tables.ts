/**
 * Emptying a Postgres database of the store's schema, so that a test starts from nothing: every
 * table a migration creates (read from the migrations themselves, so a new one is never left behind
 * to make the next start's migration fail with "already exists") and `schema_version`.
 *
 * ```ts
 * await client.query(dropStoreTables);
 * ```
 */
import { migrations } from '../../server/store/migrations/index';

const created = migrations.flatMap((m) => [...m.postgres.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(\w+)/gi)].map((match) => match[1]!));

export const dropStoreTables = `DROP TABLE IF EXISTS ${[...new Set([...created, 'schema_version'])].join(', ')} CASCADE`;
