/**
 * The migrations (index.ts) applied to a SQLite database, in one IMMEDIATE transaction: every
 * pending step and its `schema_version` row, or none of them.
 *
 * A database made before versions were recorded has the tables and no `schema_version`: its
 * version is read off its columns (the `recording` column came with version 2) and recorded.
 *
 * ```ts
 * migrateSqlite(new Database(file), file); // the schema's version, now the latest
 * ```
 */
import type Database from 'better-sqlite3';
import { migrations, pendingFrom } from './index';

/** The version of a database made before `schema_version` existed: 0 for an empty one. */
const versionOfUnrecorded = (db: Database.Database): number => {
  const columns = db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('sessions')").all().map((c) => c.name);
  if (columns.length === 0) return 0;
  return columns.includes('recording') ? 2 : 1;
};

export const migrateSqlite = (db: Database.Database, database: string, now = Date.now): number =>
  db
    .transaction(() => {
      db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT');
      const record = db.prepare<[number, string, number]>('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)');
      let current = db.prepare<[], { version: number }>('SELECT coalesce(max(version), 0) AS version FROM schema_version').get()!.version;
      if (current === 0) {
        current = versionOfUnrecorded(db);
        for (const step of migrations.filter((m) => m.version <= current)) record.run(step.version, step.name, now());
      }
      for (const step of pendingFrom(current, database)) {
        db.exec(step.sqlite);
        record.run(step.version, step.name, now());
        current = step.version;
      }
      return current;
    })
    .immediate();
