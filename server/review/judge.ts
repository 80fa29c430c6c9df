/**
 * A pairwise judge of two runs of one scene (issue 17, compare: "with a generator key, a pairwise
 * judge of two runs on chosen criteria, run twice with the order swapped and ties allowed"). Not
 * metrics/judge.ts, which labels breakdowns in one conversation.
 *
 * A vendor is shown both runs' figures and transcripts as "Run A" and "Run B" and asked, per
 * criterion, which is better (A, B or tie) with a one-line reason; then asked again with the runs
 * swapped, because a model's verdict leans towards the run it reads first or second (position
 * bias: Zheng et al. 2023, "Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena", swap the two and count a win only when both
 * orders agree). Both orders agree: that verdict; they disagree: a tie, flagged position-inconsistent.
 * Offline (the scripted generator), or when either order fails (review/model.ts), each criterion
 * is decided from the figures by the rules below, and the judgement says so.
 *
 * ```ts
 * await judgePair({ label: 'Run 1', report: r1 }, { label: 'Run 2', report: r2 }, ['clarity', 'evenness'], generator);
 * // { by: 'model', vendor: 'gemini', criteria: [{ criterion: 'clarity', winner: 'a', reason, orders: { first, second }, positionInconsistent: false }, …] }
 * ```
 */
import { z } from 'zod';
import type { Generator } from '../providers/generator/port';
import { cleanText } from '../../shared/protocol/text';
import { criteria, type Criterion, type PairJudgement, type Verdict, type Winner } from '../../shared/review/answers';
import { askForJson, dataRule, isVendor, jsonIn, linesOf, quoteLine, untagged } from './model';
import type { Report } from '../../shared/review/report';

export interface Run {
  /** How the run is named to the reader: "Run 2", a file name. */
  label: string;
  report: Report;
}

/** Lines of each run's transcript quoted at most: two long runs would not fit, nor be read. */
export const MAX_LINES_PER_RUN = 120;

const figuresOf = (r: Report): string => {
  const people = r.participants.map((p) => `${untagged(p.name)} ${Math.round(p.speakingShare * 100)}% of the talk, ${p.turns} turns`).join('; ');
  return [
    `length ${Math.round(r.durationMs / 1000)} s, ${r.turns} turns, ${r.words} words`,
    `questions answered by the person asked: ${r.answeredNext === null ? 'none asked' : `${Math.round(r.answeredNext * 100)}%`}`,
    `evenness (spread of words per person, lower is more even): ${r.evenness === null ? 'not measured' : r.evenness.toFixed(1)}`,
    `interruptions ${r.interruptions}; breakdowns found by rules ${r.breakdowns.count}`,
    people ? `participants: ${people}` : '',
  ]
    .filter(Boolean)
    .join('\n');
};

const runBlock = (name: 'A' | 'B', r: Report): string => {
  const lines = linesOf(r);
  const shown = lines.slice(0, MAX_LINES_PER_RUN);
  return [
    `<run name="${name}">`,
    `Figures:\n${figuresOf(r)}`,
    `Transcript, times from the start:\n${shown.map(quoteLine).join('\n') || '(nobody spoke)'}${lines.length > shown.length ? `\n(… ${lines.length - shown.length} more lines not shown)` : ''}`,
    '</run>',
  ].join('\n');
};

export const judgePrompt = (first: Report, second: Report, asked: readonly Criterion[]) => ({
  system: [
    'You compare two rehearsals of the same meeting scene and judge which is better on each criterion. Judge only from what is shown. A tie is a good answer when neither is clearly better. The order in which the runs are shown says nothing about them.',
    dataRule,
    'Answer with JSON only, in this format, one entry per criterion:',
    '{"verdicts": [{"criterion": "<criterion id>", "winner": "A" | "B" | "tie", "reason": "<one line>"}]}',
  ].join('\n'),
  prompt: [
    `Criteria:\n${asked.map((c) => `- ${c}: ${criteria[c].question}`).join('\n')}`,
    runBlock('A', first),
    runBlock('B', second),
  ].join('\n\n'),
});

const Verdicts = z.object({ verdicts: z.array(z.object({ criterion: z.string(), winner: z.string(), reason: z.string().default('') })) });

/** The model's verdicts by criterion, as A/B/tie; null unless every criterion asked has a readable one. */
export const parseVerdicts = (text: string, asked: readonly Criterion[]): Map<Criterion, { winner: 'A' | 'B' | 'tie'; reason: string }> | null => {
  const parsed = Verdicts.safeParse(jsonIn(text));
  if (!parsed.success) return null;
  const found = new Map<Criterion, { winner: 'A' | 'B' | 'tie'; reason: string }>();
  for (const v of parsed.data.verdicts) {
    const criterion = v.criterion.trim().toLowerCase().replace(/[\s_]+/g, '-') as Criterion;
    const winner = v.winner.trim().toLowerCase().replace(/^run\s+/, '');
    if (!asked.includes(criterion) || !['a', 'b', 'tie'].includes(winner)) continue;
    found.set(criterion, { winner: winner === 'tie' ? 'tie' : (winner.toUpperCase() as 'A' | 'B'), reason: cleanText(v.reason) });
  }
  return asked.every((c) => found.has(c)) ? found : null;
};

/** A relative difference below this (or an absolute one below `floor`) is a tie for the rules. */
const MARGIN = 0.1;
const closeEnough = (x: number, y: number, floor: number) => Math.abs(x - y) <= Math.max(floor, MARGIN * Math.max(Math.abs(x), Math.abs(y)));

const perTurn = (n: number, r: Report) => (r.turns > 0 ? n / r.turns : 0);
const fillersPer100 = (r: Report) => (r.words > 0 ? (100 * r.participants.reduce((sum, p) => sum + p.fillers.count, 0)) / r.words : 0);
const kinds = (r: Report, ...names: (keyof Report['breakdowns']['kinds'])[]) => names.reduce((sum, k) => sum + (r.breakdowns.kinds[k] ?? 0), 0);

/**
 * The figure each criterion is decided by, lower better unless `higher`; the first figure that
 * differs decides, else a tie. The rules cannot read: they count what the report counts.
 */
const ruleFigures: Record<Criterion, { name: string; of: (r: Report) => number | null; higher?: boolean; floor: number; show: (x: number) => string }[]> = {
  clarity: [
    { name: 'unclear or incomplete utterances per turn', of: (r) => perTurn(kinds(r, 'unclear-intention', 'lack-of-information'), r), floor: 0.02, show: (x) => x.toFixed(2) },
    { name: 'fillers per 100 words', of: fillersPer100, floor: 0.3, show: (x) => x.toFixed(1) },
  ],
  'turn-taking': [
    { name: 'questions answered by the person asked', of: (r) => r.answeredNext, higher: true, floor: 0.05, show: (x) => `${Math.round(x * 100)}%` },
    { name: 'interruptions per turn', of: (r) => perTurn(r.interruptions, r), floor: 0.02, show: (x) => x.toFixed(2) },
  ],
  'on-topic': [
    { name: 'topic changes and ignored questions per turn', of: (r) => perTurn(kinds(r, 'topic-change', 'ignore-question', 'ignore-expectation'), r), floor: 0.02, show: (x) => x.toFixed(2) },
  ],
  evenness: [{ name: 'evenness (spread of words per person; lower is more even)', of: (r) => r.evenness, floor: 2, show: (x) => x.toFixed(1) }],
};

export const ruleVerdict = (criterion: Criterion, a: Run, b: Run): Verdict => {
  for (const figure of ruleFigures[criterion]) {
    const x = figure.of(a.report);
    const y = figure.of(b.report);
    if (x === null || y === null || closeEnough(x, y, figure.floor)) continue;
    const aBetter = figure.higher ? x > y : x < y;
    return { winner: aBetter ? 'a' : 'b', reason: `${aBetter ? a.label : b.label} is better on ${figure.name}: ${figure.show(aBetter ? x : y)} against ${figure.show(aBetter ? y : x)}.` };
  }
  const names = ruleFigures[criterion].map((f) => f.name).join(', then ');
  return { winner: 'tie', reason: `No clear difference in ${names}.` };
};

const byRules = (a: Run, b: Run, asked: readonly Criterion[], note?: string): PairJudgement => ({
  by: 'rules',
  ...(note ? { note } : {}),
  criteria: asked.map((criterion) => ({ criterion, label: criteria[criterion].label, ...ruleVerdict(criterion, a, b), orders: null, positionInconsistent: false })),
});

/** Judges `a` against `b` on `asked` (in the order given, each once): the model twice with the order swapped, else the rules. */
export const judgePair = async (a: Run, b: Run, asked: readonly Criterion[], generator: Generator, signal?: AbortSignal): Promise<PairJudgement> => {
  const wanted = [...new Set(asked)];
  if (!isVendor(generator)) return byRules(a, b, wanted);
  const ask = (first: Report, second: Report) => {
    const { system, prompt } = judgePrompt(first, second, wanted);
    return askForJson(generator, { system, prompt, maxTokens: 200 + 120 * wanted.length }, (text) => parseVerdicts(text, wanted), signal);
  };
  // One after the other, so the second is never read as an answer to the first.
  const ab = await ask(a.report, b.report);
  if (!ab.ok) return byRules(a, b, wanted, `${ab.why} (run a shown first); judged from the figures instead`);
  const ba = await ask(b.report, a.report);
  if (!ba.ok) return byRules(a, b, wanted, `${ba.why} (run b shown first); judged from the figures instead`);
  const inTermsOf = (winner: 'A' | 'B' | 'tie', aIs: 'A' | 'B'): Winner => (winner === 'tie' ? 'tie' : winner === aIs ? 'a' : 'b');
  return {
    by: 'model',
    vendor: generator.name,
    criteria: wanted.map((criterion) => {
      const one = ab.value.get(criterion)!;
      const two = ba.value.get(criterion)!;
      const first: Verdict = { winner: inTermsOf(one.winner, 'A'), reason: one.reason };
      const second: Verdict = { winner: inTermsOf(two.winner, 'B'), reason: two.reason };
      const agree = first.winner === second.winner;
      return {
        criterion,
        label: criteria[criterion].label,
        winner: agree ? first.winner : 'tie',
        reason: agree ? first.reason : `The two orders disagreed (${a.label} first: ${first.winner === 'tie' ? 'a tie' : first.winner === 'a' ? a.label : b.label}; ${b.label} first: ${second.winner === 'tie' ? 'a tie' : second.winner === 'a' ? a.label : b.label}), so it counts as a tie.`,
        orders: { first, second },
        positionInconsistent: !agree,
      };
    }),
  };
};
