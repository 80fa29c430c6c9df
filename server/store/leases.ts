/**
 * Session leases: which node runs a session, for several servers on one database. A node claims
 * a session's lease (a new session's comes with its row), renews it in the background
 * (server/cluster/ownership.ts), and writes the session's log fenced by the lease's generation:
 * the database refuses an append or an end from a node that no longer holds the lease at that
 * generation (`LeaseLostError`), in the same statement (Postgres) or transaction (SQLite) as the
 * write. A claim succeeds only on a lease that is absent or expired, and bumps the generation in
 * one statement, so two nodes claiming one session at once: exactly one wins.
 *
 * ```ts
 * const generation = await store.claimLease('s1', { node: 'n2', url: 'https://n2.example.org', ttlMs: 15_000 });
 * if (generation !== null) await store.appendEvents('s1', events, { node: 'n2', generation });
 * ```
 */

/** Who may write a session's log: the node holding its lease, at the generation it claimed. */
export interface Fence {
  node: string;
  generation: number;
}

/** What a node claims a lease with: itself, where it is reached, and for how long. */
export interface LeaseClaim {
  node: string;
  /** The node's public URL, where the others send the session's clients; null: not reachable from them. */
  url: string | null;
  ttlMs: number;
}

/** A session's lease as stored. */
export interface Lease {
  session: string;
  node: string;
  url: string | null;
  generation: number;
  /** Milliseconds since 1970 on the database's clock (Postgres) or the server's (SQLite). */
  expiresAt: number;
  /** Not yet expired: its node runs the session, nobody else may take it. */
  live: boolean;
}

/** A write refused by the database: the writer's fence no longer matches the session's lease. */
export class LeaseLostError extends Error {
  override name = 'LeaseLostError';
  constructor(
    readonly session: string,
    readonly fence: Fence,
  ) {
    super(`session "${session}": node ${fence.node} no longer holds its lease at generation ${fence.generation}; the write was refused`);
  }
}
