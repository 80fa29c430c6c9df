/**
 * Issue 30, a stale owner: two nodes' rooms on one database (the SQLite store here; the fencing
 * itself is specified for every store in leases.test.ts). Node A runs a session and stops renewing
 * its lease (a long pause); node B takes the session over once the lease ran out. When A wakes and
 * writes, the database refuses it: A's room stops there, its clients are closed with
 * CLOSE_LEASE_LOST, one line says why, and the log holds B's ending once, nothing of A's after it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOwnership } from '../../server/cluster/ownership';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { createRooms, type Client } from '../../server/rooms/rooms';
import { loadScenes } from '../../server/scene/load';
import { openStore } from '../../server/store/store';
import type { SessionEvent } from '../../shared/events';
import { CLOSE_LEASE_LOST } from '../../shared/protocol/messages';
import { createValve, expectContiguous } from '../server/helpers';
import { until } from '../until';

const repoRoot = new URL('../..', import.meta.url).pathname;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a node that paused past its lease', () => {
  it('is refused by the database once another node took the session over, and stops the room there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'takeover-'));
    const store = openStore(dir);
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => store.close());
    const scenes = new Map((await loadScenes(join(repoRoot, 'scenes'))).map((s) => [s.id, s]));
    // A's lease runs out at once and is never renewed (its beat is not started): A is "paused".
    const a = createOwnership({ store, node: 'a', url: 'http://a.test', ttlMs: 100 });
    const b = createOwnership({ store, node: 'b', url: 'http://b.test', ttlMs: 60_000 });
    const linesA: string[] = [];
    const valve = createValve();
    const roomsA = createRooms({ store, scenes, generator: () => valve.generator(), ownership: a, log: (line) => linesA.push(line) });
    const roomsB = createRooms({ store, scenes, generator: () => createScriptedGenerator(), ownership: b });

    valve.allow(2);
    const room = roomsA.create('team-standup', { pace: 'instant', standIns: true });
    cleanups.push(async () => {
      if (!room.ended()) room.conversation.send({ type: 'end' });
      await room.conversation.ended;
    });
    const shown: SessionEvent[] = [];
    let closed: { code: number; reason: string } | null = null;
    const observer: Client = {
      role: 'observer',
      participant: null,
      send: (message) => void (message.type === 'event' && shown.push(message.event)),
      close: (how) => void (closed = how ?? null),
    };
    room.join(observer, 0);
    await valve.held();
    const seen = shown.at(-1)!.seq;
    expect(store.lease(room.id)).toMatchObject({ node: 'a', generation: 1 });

    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await roomsB.recover()).toEqual([room.id]);
    expect(store.lease(room.id)).toMatchObject({ node: 'b', generation: 2 });

    // A wakes: its next reply is written, and refused.
    valve.allow(5);
    await until(() => closed !== null, "A's clients to be closed");
    expect(closed).toEqual({ code: CLOSE_LEASE_LOST, reason: 'moved to another server' });
    expect(roomsA.get(room.id)).toBeUndefined();
    expect(linesA.filter((line) => line.includes('another server took this session over'))).toHaveLength(1);
    expect(linesA.some((line) => /ended after/.test(line))).toBe(false);

    const log = store.events(room.id) as SessionEvent[];
    expect(expectContiguous(log)).toBeNull();
    expect(log.slice(0, seen)).toEqual(shown.slice(0, seen));
    // B resumed it from its checkpoint: its notice comes right after what A's clients saw, and nothing of A's after.
    expect(log[seen]).toMatchObject({ type: 'system', code: 'session-resumed' });
    expect(log.some((e) => e.type === 'system' && e.code === 'server-restarted')).toBe(false);
    expect(shown.every((e) => e.seq <= seen)).toBe(true);
    expect(roomsB.get(room.id)?.ended()).toBe(false);
    roomsB.get(room.id)!.end('the test');
  });
});
