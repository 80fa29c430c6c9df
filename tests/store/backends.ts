/**
 * The stores the store suite runs against: SQLite (the embedded default), Postgres served by
 * PGlite in this process and reached through the real `pg` driver over a socket, and, when
 * TEST_DATABASE_URL is set (CI sets it to a real PostgreSQL server it installed), that server too.
 * Each gives a store on a fresh, empty database, another store on the same database (a restart,
 * a second server), and the database's recorded schema version.
 *
 * ```ts
 * describe.each(storeBackends())('the session store on $name', (backend) => {
 *   beforeAll(backend.start);
 *   afterEach(backend.closeStores);
 *   afterAll(backend.stop);
 *   it('…', async () => { const store = await backend.fresh(); … });
 * });
 * ```
 */
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openPostgresStore } from '../../server/store/postgres';
import { openStore, type AnyStore } from '../../server/store/store';
import { startPgliteServer, type PgliteServer } from '../fakes/pglite-server';
import { scratchDatabase } from './scratch-database';
import { dropStoreTables } from './tables';

export interface StoreBackend {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** A new, empty database (nothing of an earlier test's left), no store open on it yet. */
  empty(): Promise<void>;
  /** A store on a new, empty database. */
  fresh(): Promise<AnyStore>;
  /** Another store on the database of the last `empty` or `fresh`: a restarted server, or a second one. */
  again(): Promise<AnyStore>;
  /** The highest version in the database's `schema_version`. */
  version(): Promise<number>;
  /** Records `version` as applied, as a newer server migrating the database would. */
  migratedBy(version: number): Promise<void>;
  closeStores(): Promise<void>;
}

const sqlite = (): StoreBackend => {
  let dir = '';
  const opened: AnyStore[] = [];
  const open = () => {
    const store = openStore(dir);
    opened.push(store);
    return store;
  };
  const withDb = <T>(use: (db: Database.Database) => T): T => {
    const db = new Database(join(dir, 'rehearsal.db'));
    try {
      return use(db);
    } finally {
      db.close();
    }
  };
  return {
    name: 'SQLite',
    start: async () => {},
    stop: async () => {},
    async empty() {
      dir = mkdtempSync(join(tmpdir(), 'store-suite-'));
    },
    async fresh() {
      dir = mkdtempSync(join(tmpdir(), 'store-suite-'));
      return open();
    },
    again: async () => open(),
    version: async () => withDb((db) => db.prepare<[], { v: number }>('SELECT max(version) AS v FROM schema_version').get()!.v),
    migratedBy: async (version) => void withDb((db) => db.prepare("INSERT INTO schema_version VALUES (?, 'from a newer server', 0)").run(version)),
    async closeStores() {
      for (const store of opened.splice(0)) store.close();
    },
  };
};

const postgres = (name: string, serve: () => Promise<{ url: string; stop(): Promise<void> }>): StoreBackend => {
  let server: { url: string; stop(): Promise<void> } | null = null;
  const opened: AnyStore[] = [];
  const url = () => server!.url;
  const sql = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: url() });
    await client.connect();
    try {
      return (await client.query<R>(text, values)).rows;
    } finally {
      await client.end();
    }
  };
  const open = async () => {
    const store = await openPostgresStore(url(), { connections: 4 });
    opened.push(store);
    return store;
  };
  return {
    name,
    async start() {
      server = await serve();
    },
    async stop() {
      await server?.stop();
    },
    async empty() {
      await sql(dropStoreTables);
    },
    async fresh() {
      await sql(dropStoreTables);
      return open();
    },
    again: open,
    version: async () => (await sql<{ v: number }>('SELECT max(version) AS v FROM schema_version'))[0]!.v,
    migratedBy: async (version) => void (await sql("INSERT INTO schema_version VALUES ($1, 'from a newer server', 0)", [version])),
    async closeStores() {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    },
  };
};

export const storeBackends = (env: Record<string, string | undefined> = process.env): StoreBackend[] => [
  sqlite(),
  postgres('Postgres (PGlite over the wire)', async () => {
    const served: PgliteServer = await startPgliteServer();
    return { url: served.url, stop: served.close };
  }),
  // The real server: transactions, locks and concurrency as production has them (.ci/run sets it), on a database of this file's own.
  ...(env.TEST_DATABASE_URL
    ? [
        postgres('PostgreSQL (TEST_DATABASE_URL)', async () => {
          const db = await scratchDatabase(env.TEST_DATABASE_URL!);
          return { url: db.url, stop: db.drop };
        }),
      ]
    : []),
];
