/**
 * This node's share of the sessions, when several servers run on one database (DATABASE_URL): each
 * running session is leased to the node that runs it (store/leases.ts), and the node renews the
 * leases it holds in the background, every `renewMs`, for `ttlMs` more each time. A node that dies
 * stops renewing; once its leases run out another node takes its sessions over (`takeOver`, also
 * every `renewMs`: rooms.ts `recover`).
 *
 * Safety does not rest on clocks: every write to a session's log is fenced by the lease's
 * generation inside the database, so an owner that paused past its lease (a GC pause, a clock
 * running slow, a network partition) has its next write refused once another node claimed the
 * lease. A renewal that finds a lease gone tells its session at once (`lost`), without waiting
 * for the next write. A renewal that fails (the database is away) changes nothing: the lease is
 * kept by its generation, and if nobody claimed it meanwhile the next renewal extends it again.
 *
 * ```ts
 * const ownership = createOwnership({ store, node: 'node-a', url: 'https://a.rehearse.example.org', ttlMs: 15_000, renewMs: 5_000 });
 * const fence = ownership.hold(session, 1, (why) => room.close({ code: CLOSE_LEASE_LOST, reason: why }));
 * ownership.start(() => rooms.recover());
 * ```
 */
import type { AnyStore, Fence, Lease, LeaseClaim } from '../store/store';

export interface OwnershipOptions {
  store: AnyStore;
  /** This node's id (NODE_ID): unique among the nodes on the database. */
  node: string;
  /** Where clients reach this node (PUBLIC_URL), for the others' redirects; null: they cannot send clients here. */
  url: string | null;
  /** How long a lease lasts unless renewed (LEASE_TTL_S). Default 15 s. */
  ttlMs?: number;
  /** How often leases are renewed and dead nodes' sessions looked for (LEASE_RENEW_S). Default 5 s. */
  renewMs?: number;
  /** The server's log: a line when a renewal fails, and when it works again. */
  log?: (line: string) => void;
}

export interface Ownership {
  /** What this node claims leases with. */
  readonly claim: LeaseClaim;
  /**
   * This node runs `session` under its lease at `generation`: the lease is renewed until `drop`;
   * `lost` is told once if another node holds it now. Returns the fence its writes carry.
   */
  hold(session: string, generation: number, lost: (why: string) => void): Fence;
  /** The session ended here, or was lost: its lease is no longer renewed. */
  drop(session: string): void;
  /** The live lease of a session another node runs, or null (this node's, expired, ended, or none). */
  elsewhere(session: string): Promise<Lease | null>;
  /** Starts the renewals, and `takeOver` on the same beat (never two at once). */
  start(takeOver: () => unknown): void;
  stop(): void;
}

export const createOwnership = (options: OwnershipOptions): Ownership => {
  const { store, node, url } = options;
  const claim: LeaseClaim = { node, url, ttlMs: options.ttlMs ?? 15_000 };
  const renewMs = options.renewMs ?? 5_000;
  const log = options.log ?? (() => {});
  const held = new Map<string, { generation: number; lost: (why: string) => void }>();
  let timer: ReturnType<typeof setInterval> | null = null;
  let renewing = false;
  let takingOver = false;
  let failing = false;

  const renew = async () => {
    if (renewing || held.size === 0) return;
    renewing = true;
    const asked = [...held].map(([session, { generation }]) => ({ session, generation }));
    try {
      const renewed = new Set(await store.renewLeases(asked, claim));
      if (failing) log(`node ${node}: leases renewed again (${renewed.size})`);
      failing = false;
      for (const { session, generation } of asked) {
        const holding = held.get(session);
        if (renewed.has(session) || holding?.generation !== generation) continue;
        held.delete(session);
        holding.lost('another server took this session over');
      }
    } catch (error) {
      if (!failing) log(`node ${node}: renewing ${asked.length} lease(s) failed (${(error as Error).message}); their sessions keep them unless another node claims them once they run out`);
      failing = true;
    } finally {
      renewing = false;
    }
  };

  return {
    claim,
    hold(session, generation, lost) {
      held.set(session, { generation, lost });
      return { node, generation };
    },
    drop: (session) => void held.delete(session),
    async elsewhere(session) {
      const lease = await store.lease(session);
      return lease && lease.live && lease.node !== node ? lease : null;
    },
    start(takeOver) {
      timer ??= setInterval(() => {
        void renew();
        if (takingOver) return;
        takingOver = true;
        void Promise.resolve()
          .then(takeOver)
          .catch((error: unknown) => log(`node ${node}: looking for sessions to take over failed: ${(error as Error).message}`))
          .finally(() => (takingOver = false));
      }, renewMs);
      timer.unref?.();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
};
