/**
 * A database of its own on the real PostgreSQL server of TEST_DATABASE_URL, for one test file: made
 * on that server (named after the URL's database, this process and a random suffix) and dropped
 * when the file is done. Two test files run at once (two workers), and each empties its database
 * between tests: on one shared database one file's emptying broke the other's leases in CI.
 *
 * ```ts
 * const db = await scratchDatabase(process.env.TEST_DATABASE_URL!);
 * await openPostgresStore(db.url);
 * await db.drop();
 * ```
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

const onServer = async (serverUrl: string, text: string) => {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
};

export const scratchDatabase = async (serverUrl: string): Promise<ScratchDatabase> => {
  const base = new URL(serverUrl);
  const name = `${base.pathname.slice(1) || 'rehearsal'}_${process.pid}_${randomBytes(4).toString('hex')}`.replace(/[^\w]/g, '_').toLowerCase();
  await onServer(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => onServer(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
};
