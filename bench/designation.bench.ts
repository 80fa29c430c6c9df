/**
 * Addressee detection latency (DESIGN §10: the local next-speaker decision stays under 1 ms).
 * Replays the public dev set, plus the held-out fixture when present, round-robin over
 * at least 20 000 calls.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { detectDesignation } from '../server/engine/designation';
import { percentile, round, timeEach, type BenchResult } from './timing';

type Case = Parameters<typeof detectDesignation>[0];

const root = fileURLToPath(new URL('..', import.meta.url));
const sets = ['tests/fixtures/designation-dev.jsonl', 'tests/fixtures/designation-heldout.jsonl', 'tests/fixtures/designation-fresh.jsonl', 'tests/fixtures/designation-fresh2.jsonl', 'tests/fixtures/designation-fresh3.jsonl'];

const readCases = (file: string): Case[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const { participants, speaker, previousSpeaker, text } = JSON.parse(line) as Case;
      return { participants, speaker, previousSpeaker, text };
    });

export default async function designationBench(): Promise<BenchResult[]> {
  const cases = sets
    .map((set) => resolve(root, set))
    .filter((file) => existsSync(file))
    .flatMap(readCases);
  if (cases.length === 0) throw new Error(`no designation cases found in ${sets.join(' or ')} (relative to ${root})`);

  const calls = Math.max(20_000, cases.length * 10);
  const micros = timeEach((i) => detectDesignation(cases[i % cases.length]!), { calls, warmup: 5000 });
  return [
    { name: 'designation.p50_us', value: round(percentile(micros, 50)), unit: 'us' },
    { name: 'designation.p99_us', value: round(percentile(micros, 99)), unit: 'us' },
  ];
}
