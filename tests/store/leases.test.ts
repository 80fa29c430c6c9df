/**
 * Issue 30, session ownership: the leases and the fencing of every write, one specification for
 * every store (backends.ts): SQLite, Postgres through PGlite over the wire, and a real PostgreSQL
 * server when TEST_DATABASE_URL is set. A stale owner's write is refused by the database itself;
 * two nodes claiming one session: exactly one wins.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LeaseLostError, type NewSession } from '../../server/store/store';
import { storeBackends } from './backends';

const standup: NewSession = { id: 's1', scene: 'team-standup', seed: 7, pace: 'realtime', createdAt: 1000 };
const event = (seq: number) => ({ seq, t: seq * 100, type: 'utterance', text: `line ${seq}` });
const seqs = (events: unknown[]) => events.map((e) => (e as { seq: number }).seq);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const n1 = { node: 'n1', url: 'http://n1.test', ttlMs: 60_000 };
const n2 = { node: 'n2', url: 'http://n2.test', ttlMs: 60_000 };
/** A lease that runs out almost at once: its node "died". */
const brief = (claim: typeof n1) => ({ ...claim, ttlMs: 150 });

describe.each(storeBackends())('session leases on $name', (backend) => {
  beforeAll(backend.start, 60_000);
  afterEach(backend.closeStores);
  afterAll(backend.stop);

  it('gives a new session its creator\'s lease at generation 1, and no other node can claim it while it lives', async () => {
    const store = await backend.fresh();
    await store.createSession(standup, n1);
    expect(await store.lease('s1')).toMatchObject({ session: 's1', node: 'n1', url: 'http://n1.test', generation: 1, live: true });
    expect(await store.claimLease('s1', n2)).toBeNull();
    expect(await store.unowned()).toEqual([]);
    await store.appendEvents('s1', [event(1)], { node: 'n1', generation: 1 });
    expect(seqs(await store.events('s1'))).toEqual([1]);
  });

  it("refuses a stale owner's append once another node took the expired lease over, appending nothing", async () => {
    const store = await backend.fresh();
    await store.createSession(standup, brief(n1));
    await store.appendEvents('s1', [event(1)], { node: 'n1', generation: 1 });
    await sleep(300);
    expect((await store.unowned()).map((row) => row.id)).toEqual(['s1']);
    expect(await store.claimLease('s1', n2)).toBe(2);
    // n1 wakes from its pause and writes the next seq: the database refuses it.
    const stale = Promise.resolve().then(() => store.appendEvents('s1', [event(2)], { node: 'n1', generation: 1 }));
    await expect(stale).rejects.toBeInstanceOf(LeaseLostError);
    await expect(stale).rejects.toThrow('node n1 no longer holds its lease at generation 1');
    // The new owner continues the log where the old one stopped.
    await store.appendEvents('s1', [event(2), event(3)], { node: 'n2', generation: 2 });
    expect(seqs(await store.events('s1'))).toEqual([1, 2, 3]);
    // n2 runs n1's node id again after a restart: the generation still tells them apart.
    await expect(Promise.resolve().then(() => store.appendEvents('s1', [event(4)], { node: 'n2', generation: 1 }))).rejects.toBeInstanceOf(LeaseLostError);
    expect(await store.lastSeq('s1')).toBe(3);
  });

  it("refuses a stale owner's end, and the new owner's end lets the lease go", async () => {
    const store = await backend.fresh();
    await store.createSession(standup, brief(n1));
    await sleep(300);
    expect(await store.claimLease('s1', n2)).toBe(2);
    await expect(Promise.resolve().then(() => store.markEnded('s1', 5000, { node: 'n1', generation: 1 }))).rejects.toBeInstanceOf(LeaseLostError);
    expect((await store.session('s1'))?.endedAt).toBeNull();
    await store.markEnded('s1', 6000, { node: 'n2', generation: 2 });
    expect((await store.session('s1'))?.endedAt).toBe(6000);
    expect(await store.lease('s1')).toMatchObject({ node: 'n2', generation: 2, live: false });
    // Ended: nobody takes it over.
    expect(await store.unowned()).toEqual([]);
    expect(await store.claimLease('s1', n1)).toBeNull();
  });

  it('lets exactly one of two nodes claiming one expired session at once win', async () => {
    const store = await backend.fresh();
    const other = await backend.again();
    await store.createSession(standup, brief(n1));
    await store.createSession({ ...standup, id: 's2' });
    await sleep(300);
    for (const session of ['s1', 's2']) {
      const claims = await Promise.all([store.claimLease(session, n2), other.claimLease(session, { ...n1, node: 'n3' })]);
      expect(claims.filter((generation) => generation !== null), session).toHaveLength(1);
      const winner = claims[0] !== null ? 'n2' : 'n3';
      expect(await store.lease(session), session).toMatchObject({ node: winner, generation: session === 's1' ? 2 : 1, live: true });
    }
  });

  it('renews only the leases a node still holds at its generations', async () => {
    const store = await backend.fresh();
    await store.createSession(standup, brief(n1));
    await store.createSession({ ...standup, id: 's2' }, brief(n1));
    await sleep(300);
    expect(await store.claimLease('s2', n2)).toBe(2);
    const renewed = await store.renewLeases([{ session: 's1', generation: 1 }, { session: 's2', generation: 1 }], n1);
    expect(renewed).toEqual(['s1']);
    expect(await store.lease('s1')).toMatchObject({ node: 'n1', generation: 1, live: true });
    expect(await store.lease('s2')).toMatchObject({ node: 'n2', generation: 2, live: true });
    expect(await store.renewLeases([], n1)).toEqual([]);
  });

  it('deletes a purged session\'s lease with it', async () => {
    const store = await backend.fresh();
    await store.createSession(standup, n1);
    expect(await store.deleteSession('s1')).toBe(true);
    expect(await store.lease('s1')).toBeUndefined();
  });
});
