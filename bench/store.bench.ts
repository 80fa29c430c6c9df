/**
 * What durability costs (issue 26): events appended one transaction each, as the journal writes
 * them, with SQLite's `synchronous=FULL` (an fsync per commit: nothing a client received is lost
 * to a power cut) against `synchronous=NORMAL` (the WAL fsynced only at checkpoints). Each append
 * blocks the event loop for its whole commit (better-sqlite3 is synchronous), so the per-append
 * times are what every room on the server waits while one event is stored.
 *
 * The database is written under BENCH_DIR (default: the system's temporary directory); point it
 * at the disk DATA_DIR lives on, since an fsync costs what that disk makes it cost.
 *
 *   npm run bench -- store
 *   {"name":"store.full.events_per_s","value":1830,"unit":"events/s"}
 *   {"name":"store.full.append_p99_us","value":1204,"unit":"us"}
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type StoredEvent } from '../server/store/store';
import { percentile, round, timeEach, type BenchResult } from './timing';

const EVENTS = 2000;
const WARMUP = 200;

/** An utterance about the size of a real one (its JSON is ~400 bytes). */
const utterance = (seq: number): StoredEvent => ({
  seq,
  t: seq * 900,
  type: 'utterance',
  id: `u${seq}`,
  speaker: seq % 2 ? 'marco' : 'jordan',
  text: 'The deploy slipped to Thursday because the migration needs a second review; I will post the plan in the channel after this meeting.',
  addressee: null,
  pair: 'none',
  act: 'statement',
  snippet: 'updates',
  source: 'ai',
  durationMs: 7400,
  audience: 'all',
});

const measure = (mode: 'FULL' | 'NORMAL', parent: string): BenchResult[] => {
  const dir = mkdtempSync(join(parent, `store-bench-${mode.toLowerCase()}-`));
  try {
    const store = openStore(dir, { synchronous: mode });
    store.createSession({ id: 's', scene: 'team-standup', seed: 1, pace: 'realtime', createdAt: 0 });
    let seq = 0;
    const begin = process.hrtime.bigint();
    const us = timeEach(() => store.appendEvents('s', [utterance(++seq)]), { calls: EVENTS, warmup: WARMUP });
    const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
    store.close();
    const name = `store.${mode.toLowerCase()}`;
    return [
      { name: `${name}.events_per_s`, value: round((EVENTS + WARMUP) / seconds, 0), unit: 'events/s' },
      { name: `${name}.append_p50_us`, value: round(percentile(us, 50), 0), unit: 'us' },
      { name: `${name}.append_p99_us`, value: round(percentile(us, 99), 0), unit: 'us' },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export default async function storeBench(): Promise<BenchResult[]> {
  const parent = process.env.BENCH_DIR ?? tmpdir();
  return [...measure('NORMAL', parent), ...measure('FULL', parent)];
}
