/**
 * Version 3: session leases, for several servers on one database (server/cluster/). A running
 * session's row names the node that owns it, where that node is reached, a generation bumped by
 * every claim, and when the lease runs out unless renewed. Every write to the session's log is
 * fenced by the generation (store.ts, postgres.ts), so an owner that lost its lease (a long pause,
 * a clock running slow) cannot write after the next owner started. A lease is never deleted while
 * its session lives, so a generation never repeats.
 */
import type { Migration } from './migration';

export default {
  version: 3,
  name: 'session leases: owner node, generation, expiry',
  sqlite: `
    CREATE TABLE leases (
      session TEXT PRIMARY KEY,
      node TEXT NOT NULL,
      url TEXT,
      generation INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    ) STRICT;`,
  postgres: `
    CREATE TABLE leases (
      session TEXT PRIMARY KEY,
      node TEXT NOT NULL,
      url TEXT,
      generation INTEGER NOT NULL,
      expires_at BIGINT NOT NULL
    );`,
} satisfies Migration;
