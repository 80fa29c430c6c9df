/**
 * Postgres for tests, in this process: PGlite (Postgres compiled to WebAssembly) served over the
 * wire protocol by pglite-socket, so the store under test talks to it through the real `pg`
 * driver, as it talks to a PostgreSQL server. `stop` closes the listening socket and every
 * connection, as a database going away does; `restart` serves the same database on the same port
 * again, with everything committed before.
 *
 * ```ts
 * const postgres = await startPgliteServer();
 * const store = await openPostgresStore(postgres.url);
 * await postgres.stop(); // queries now fail: connection refused
 * await postgres.restart(); // and succeed again
 * await postgres.close();
 * ```
 */
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface PgliteServer {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  readonly url: string;
  /** The database itself, for a test to set up what no store would (a newer schema). */
  readonly db: PGlite;
  stop(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

export const startPgliteServer = async (): Promise<PgliteServer> => {
  const db = await PGlite.create();
  // PGlite runs one query at a time; the socket server queues the connections' queries for it.
  const serve = async (port: number) => {
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port, maxConnections: 100 });
    await server.start();
    return server;
  };
  let server: PGLiteSocketServer | null = await serve(0);
  const port = Number(server.getServerConn().split(':').at(-1));
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    db,
    async stop() {
      await server?.stop();
      server = null;
    },
    async restart() {
      server ??= await serve(port);
    },
    async close() {
      await server?.stop();
      server = null;
      await db.close();
    },
  };
};
