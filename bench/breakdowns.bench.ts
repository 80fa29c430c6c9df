/**
 * How far the breakdown rules (server/metrics/breakdowns.ts) agree with a careful reader, on the
 * hand-labelled turns of tests/fixtures/breakdowns-labelled.jsonl (its .md says how they were made):
 *
 * - `breakdowns.precision` / `recall`: of the turns the rules flag, the share the annotator marked;
 *   of the marked turns, the share the rules flag.
 * - `breakdowns.kappa`: Cohen's kappa of the two yes/no labels per turn (1 agrees on everything, 0 is chance).
 * - `breakdowns.type_agreement`: of the turns both mark, the share where the rules' first type is the annotator's.
 *
 * Each on the whole fixture, and `_heldout` on the odd-numbered items the rules were not tuned on.
 */
import { readFileSync } from 'node:fs';
import { halfOf, parseLabelledTurns, scoreAgainst, type Agreement } from '../server/metrics/agreement';
import { breakdownsOf } from '../server/metrics/breakdowns';
import { repetitionOf } from '../server/metrics/repetition';
import { loadScenes } from '../server/scene/load';
import { round, type BenchResult } from './timing';

export default async (): Promise<BenchResult[]> => {
  const items = parseLabelledTurns(readFileSync(new URL('../tests/fixtures/breakdowns-labelled.jsonl', import.meta.url), 'utf8'));
  const scenes = new Map((await loadScenes(new URL('../scenes', import.meta.url).pathname)).map((s) => [s.id, s]));
  const classify = (utterances: Parameters<typeof breakdownsOf>[0], scene?: Parameters<typeof breakdownsOf>[2]) => breakdownsOf(utterances, repetitionOf(utterances), scene);
  const figures = (a: Agreement, suffix: string): BenchResult[] => [
    { name: `breakdowns.precision${suffix}`, value: round(a.precision, 3), unit: 'ratio' },
    { name: `breakdowns.recall${suffix}`, value: round(a.recall, 3), unit: 'ratio' },
    { name: `breakdowns.kappa${suffix}`, value: round(a.kappa, 3), unit: 'kappa' },
    { name: `breakdowns.type_agreement${suffix}`, value: round(a.typeAgreement, 3), unit: 'ratio' },
  ];
  return [
    ...figures(scoreAgainst(items, classify, scenes), ''),
    ...figures(scoreAgainst(items.filter((_, i) => halfOf(i) === 'held-out'), classify, scenes), '_heldout'),
  ];
};
