import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createJournal, type SessionLogHandlers } from './journal';
import { openStore, type Store, type StoredEvent } from './store';

const event = (seq: number): StoredEvent => ({ seq, t: seq, type: 'utterance', text: `line ${seq}` });
const seqs = (events: readonly unknown[]) => events.map((e) => (e as StoredEvent).seq);

/** What a room sees of its log: the events told, and when it was told to pause and resume. */
const watch = () => {
  const told: StoredEvent[] = [];
  const calls: string[] = [];
  let settle: (() => void) | null = null;
  const handlers: SessionLogHandlers = {
    committed: (events) => {
      told.push(...events);
      settle?.();
    },
    failing: (error) => {
      calls.push(`failing: ${error.message}`);
      settle?.();
    },
    recovered: () => {
      calls.push('recovered');
      settle?.();
    },
  };
  /** Resolves once `check` holds (checked after each handler call). */
  const settled = (check: () => boolean) =>
    new Promise<void>((resolve) => {
      settle = () => check() && resolve();
      settle();
    });
  return { told, calls, handlers, settled };
};

describe('the journal', () => {
  const stores: Store[] = [];
  const open = (options = {}) => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const store = openStore(dir, options);
    stores.push(store);
    return { dir, store };
  };
  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
  });

  it('tells each event once it is stored, at once when the store takes it', () => {
    const { store } = open();
    store.createSession({ id: 's', scene: 'x', seed: 1, pace: 'instant', createdAt: 0 });
    const room = watch();
    const log = createJournal(store).open('s', room.handlers);
    log.append(event(1));
    expect(seqs(room.told)).toEqual([1]);
    log.append(event(2), 99);
    expect(seqs(room.told)).toEqual([1, 2]);
    expect(store.session('s')?.endedAt).toBe(99);
  });

  it('holds what it cannot store, in order, tells nothing of it, and tells it all once a retry gets through', async () => {
    const { store } = open();
    store.createSession({ id: 's', scene: 'x', seed: 1, pace: 'instant', createdAt: 0 });
    let broken = true;
    const faulty: Store = {
      ...store,
      appendEvents: (session, events) => {
        if (broken) throw new Error('disk full (injected)');
        store.appendEvents(session, events);
      },
    };
    const room = watch();
    const log = createJournal(faulty, { firstRetryMs: 1, maxRetryMs: 4 }).open('s', room.handlers);
    for (const seq of [1, 2, 3]) log.append(event(seq));
    expect(room.told).toEqual([]);
    await room.settled(() => room.calls.length > 0);
    expect(room.calls).toEqual(['failing: disk full (injected)']);
    expect(log.failing).toBe(true);
    log.append(event(4));
    expect(store.events('s')).toEqual([]);

    broken = false;
    await room.settled(() => room.calls.includes('recovered'));
    expect(seqs(room.told)).toEqual([1, 2, 3, 4]);
    expect(seqs(store.events('s'))).toEqual([1, 2, 3, 4]);
    expect(log.failing).toBe(false);
  });

  it('while another connection holds the database, one probe tries for every session; all pause, and all go on when it is released', async () => {
    const { dir, store } = open({ busyTimeoutMs: 5 });
    const sessions = ['a', 'b', 'c', 'd', 'e'];
    for (const id of sessions) store.createSession({ id, scene: 'x', seed: 1, pace: 'instant', createdAt: 0 });
    let writes = 0;
    const counted: Store = { ...store, appendEvents: (session, events) => (writes++, store.appendEvents(session, events)) };
    const journal = createJournal(counted, { firstRetryMs: 2, maxRetryMs: 8 });
    const rooms = sessions.map(() => watch());
    const logs = sessions.map((id, i) => journal.open(id, rooms[i]!.handlers));

    const other = new Database(join(dir, 'rehearsal.db'));
    other.exec('BEGIN IMMEDIATE');
    for (const log of logs) log.append(event(1));
    await Promise.all(rooms.map((room) => room.settled(() => room.calls.length > 0)));
    for (const room of rooms) expect(room.calls).toEqual([expect.stringMatching(/^failing: .*locked/)]);
    // Only the first session met the lock itself; after that only the probe waited for it.
    const probes = writes - 1;
    expect(probes).toBeGreaterThanOrEqual(2);
    for (const log of logs) log.append(event(2));
    expect(writes).toBe(probes + 1);

    other.exec('ROLLBACK');
    other.close();
    await Promise.all(rooms.map((room) => room.settled(() => room.calls.includes('recovered'))));
    for (const [i, id] of sessions.entries()) {
      expect(seqs(rooms[i]!.told)).toEqual([1, 2]);
      expect(seqs(store.events(id))).toEqual([1, 2]);
    }
  });
});
