/**
 * How far a breakdown classifier agrees with hand labels: precision, recall and Cohen's kappa of
 * the yes/no "this line leads to a breakdown" per turn, and how often both name the same type.
 * The labels are tests/fixtures/breakdowns-labelled.jsonl (its .md says how they were made): each
 * item is a turn with up to four lines before it, from a simulator run or written by hand, and an
 * annotator's label following MMAgents Table 1 and the definitions of Figure 6.
 *
 * The rules see each item as a conversation of its context and its turn, and only the turn is
 * scored: a line of the context may well be a breakdown, but nobody labelled it.
 *
 * ```ts
 * scoreAgainst(items, (utterances, scene) => breakdownsOf(utterances, repetitionOf(utterances), scene), scenes);
 * // { turns: 233, precision: 0.71, recall: 0.64, kappa: 0.55, typeAgreement: 0.6, ... }
 * ```
 */
import { z } from 'zod';
import { UtteranceEvent, type PairType } from '../../shared/events';
import type { LoadedScene } from '../../shared/scene/schema';
import { type Breakdown } from './breakdowns';
import { breakdownKinds, type BreakdownKind } from '../../shared/review/report';

const Line = z.object({
  id: z.string().optional(),
  speaker: z.string(),
  addressee: z.string().nullable(),
  text: z.string(),
  source: UtteranceEvent.shape.source.default('ai'),
  act: UtteranceEvent.shape.act.default('statement'),
  pair: UtteranceEvent.shape.pair.optional(),
  replyTo: z.string().optional(),
  interrupted: z.boolean().optional(),
  impromptu: z.boolean().optional(),
});

/** One hand-labelled turn. */
export const LabelledTurn = z.object({
  id: z.string(),
  scene: z.string(),
  context: z.array(Line),
  turn: Line,
  label: z.boolean(),
  type: z.enum(breakdownKinds).nullable(),
  why: z.string(),
});
export type LabelledTurn = z.infer<typeof LabelledTurn>;

/** Parses a JSON-lines file of labelled turns; a bad line throws naming its number. */
export const parseLabelledTurns = (text: string): LabelledTurn[] =>
  text
    .split('\n')
    .map((line, i) => ({ line, number: i + 1 }))
    .filter(({ line }) => line.trim() !== '')
    .map(({ line, number }) => {
      const parsed = LabelledTurn.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`line ${number}: ${parsed.error.issues[0]?.message}`);
      return parsed.data;
    });

/** A first pair part's kind when a line was written without one: what its act begins. */
const pairOfAct = (act: string): PairType => (['question', 'request', 'offer', 'greeting', 'invitation'].includes(act) ? (act as PairType) : 'none');

/** An item's lines as the utterance events of a log, the turn last. */
export const utterancesOf = (item: LabelledTurn): UtteranceEvent[] =>
  [...item.context, item.turn].map((line, i) => ({
    type: 'utterance',
    seq: i + 1,
    t: i * 1000,
    id: line.id ?? `u${i + 1}`,
    speaker: line.speaker,
    text: line.text,
    addressee: line.addressee,
    pair: line.pair ?? pairOfAct(line.act),
    act: line.act,
    snippet: 'main',
    source: line.source,
    durationMs: 1000,
    ...(line.replyTo !== undefined ? { replyTo: line.replyTo } : {}),
    ...(line.interrupted ? { interrupted: true } : {}),
    ...(line.impromptu ? { impromptu: true } : {}),
  }));

/**
 * Cohen's kappa of two raters' yes/no labels: (observed - chance agreement) / (1 - chance), with
 * chance from each rater's own rate of yes. 1 when they agree on everything, 0 when no better than
 * chance; when both give one label to every item (chance agreement 1), 1 if they agree, else 0.
 */
export const cohensKappa = (a: readonly boolean[], b: readonly boolean[]): number => {
  if (a.length !== b.length) throw new Error(`cohensKappa: ${a.length} labels against ${b.length}`);
  const n = a.length;
  if (n === 0) return Number.NaN;
  const observed = a.filter((x, i) => x === b[i]).length / n;
  const yesA = a.filter(Boolean).length / n;
  const yesB = b.filter(Boolean).length / n;
  const chance = yesA * yesB + (1 - yesA) * (1 - yesB);
  if (chance === 1) return observed === 1 ? 1 : 0;
  return (observed - chance) / (1 - chance);
};

/** The first of a turn's types in Table 1's order, or null. */
export const firstKind = (breakdowns: readonly Breakdown[], utterance: string): BreakdownKind | null =>
  breakdownKinds.find((kind) => breakdowns.some((b) => b.utterance === utterance && b.kind === kind)) ?? null;

export interface Agreement {
  turns: number;
  /** Turns the annotator marked, the classifier flagged, and both. */
  labelled: number;
  flagged: number;
  both: number;
  /** Of the flagged turns, the share the annotator marked too (NaN with none flagged). */
  precision: number;
  /** Of the marked turns, the share the classifier flagged (NaN with none marked). */
  recall: number;
  kappa: number;
  /** Of the turns both marked, the share where the classifier's first type is the annotator's. */
  typeAgreement: number;
  /** Per item, what the classifier said: for reading its mistakes. */
  verdicts: { id: string; label: boolean; type: BreakdownKind | null; predicted: boolean; predictedType: BreakdownKind | null }[];
}

export type Classifier = (utterances: readonly UtteranceEvent[], scene?: LoadedScene) => Breakdown[];

/** Scores `classify` on the items; `scenes` by id gives the rules the scene each item comes from. */
export const scoreAgainst = (items: readonly LabelledTurn[], classify: Classifier, scenes: ReadonlyMap<string, LoadedScene> = new Map()): Agreement => {
  const verdicts = items.map((item) => {
    const utterances = utterancesOf(item);
    const turn = utterances.at(-1)!;
    const predictedType = firstKind(classify(utterances, scenes.get(item.scene)), turn.id);
    return { id: item.id, label: item.label, type: item.type, predicted: predictedType !== null, predictedType };
  });
  const labelled = verdicts.filter((v) => v.label).length;
  const flagged = verdicts.filter((v) => v.predicted).length;
  const both = verdicts.filter((v) => v.label && v.predicted);
  return {
    turns: verdicts.length,
    labelled,
    flagged,
    both: both.length,
    precision: flagged === 0 ? Number.NaN : both.length / flagged,
    recall: labelled === 0 ? Number.NaN : both.length / labelled,
    kappa: cohensKappa(
      verdicts.map((v) => v.label),
      verdicts.map((v) => v.predicted),
    ),
    typeAgreement: both.length === 0 ? Number.NaN : both.filter((v) => v.type === v.predictedType).length / both.length,
    verdicts,
  };
};

/** The half an item belongs to: items at even positions in the file tune the rules, odd ones are held out. */
export const halfOf = (index: number): 'tune' | 'held-out' => (index % 2 === 0 ? 'tune' : 'held-out');
