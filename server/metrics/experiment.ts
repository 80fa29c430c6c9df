/**
 * MMAgents' experiment (§4.1, results §5), analysed: the logs of one scene under the three
 * conditions, EQUAL (everyone once a round in a fresh random order), SS (bids only) and CSSN-or-SS
 * (the addressee of a first pair part speaks next, otherwise bids), N seeded runs each, run k of
 * every condition with the same seed. Per condition it reports what §4.2.1 and §5 measure:
 * utterances that lead to a dialogue breakdown per 10 turns (Figure 11) with a 95% percentile
 * bootstrap interval over runs, their types (Figure 14), and the Kruskal-Wallis test across the
 * conditions with Dunn's pairwise comparisons (Bonferroni); besides, how often the addressee of a
 * designated first pair part spoke next, how many designated questions their reply answered by
 * content (answers.ts: speaking next is not answering), and how long one speaker held the floor
 * (§5: "monopolizing turns"). The paper's LLM-as-a-judge scores and human evaluation are not reproduced.
 *
 * The runs themselves are simulated sessions, driven by the same shell as the simulator's
 * (conversation/experiment.ts, through conversation/drive.ts); this module only reads their logs.
 *
 * ```ts
 * const result = await runExperiment(scene, { runs: 20, seed: 1, generator: createScriptedGenerator() }); // conversation/experiment.ts
 * process.stdout.write(formatExperiment(result));
 * ```
 */
import type { EventOf, SessionEvent } from '../../shared/events';
import type { LoadedScene, Policy } from '../../shared/scene/schema';
import { breakdownUtterances, countKinds, taxonomy } from './breakdowns';
import { breakdownKinds, type BreakdownKind } from '../../shared/review/report';
import type { BreakdownJudge } from './judge';
import { runMetrics } from './metrics';
import { bootstrapInterval, dunn, kruskalWallis, mean, type Interval, type KruskalWallis } from './stats';

export const experimentNames = ['mmagents'] as const;
export type ExperimentName = (typeof experimentNames)[number];

export interface Condition {
  id: string;
  /** As the paper writes it. */
  name: string;
  policy: Policy;
}

/** MMAgents §4.1, in the paper's order, as the turn-taking policies that implement them. */
export const mmagentsConditions: readonly Condition[] = [
  { id: 'equal', name: 'EQUAL', policy: 'equal' },
  { id: 'ss', name: 'SS', policy: 'self-selection' },
  { id: 'cssn-or-ss', name: 'CSSN-or-SS', policy: 'cssn-or-ss' },
];

/** How the intervals are drawn; printed with every result. */
export const INTERVAL = { level: 0.95, resamples: 10_000, seed: 1 } as const;

export interface RunResult {
  seed: number;
  turns: number;
  /** Utterances that lead to a breakdown, each once. */
  breakdowns: number;
  breakdownsPer10: number;
  /** Breakdowns of each type (a line of two types counts under both). */
  kinds: Record<BreakdownKind, number>;
  /** Designated first pair parts whose addressee spoke next (runMetrics' adjacency completion); `null` without any. */
  answeredNext: number | null;
  /** Designated questions and requests answered by content (runMetrics' answeredByContent); `null` without any. */
  answeredByContent: number | null;
  longestRun: number;
  topSpeakerShare: number | null;
  /** Ten-turn samples the judge's model judged, and those the rules did. */
  judgedBy: { model: number; rules: number };
  notes: string[];
}

export interface ConditionResult extends Condition {
  runs: RunResult[];
  /** Mean turns per run. */
  turns: number;
  breakdownsPer10: Interval;
  /** Over the runs with a designated first pair part; `null` when none has one. */
  answeredNext: Interval | null;
  /** Likewise. */
  answeredByContent: Interval | null;
  /** The longest run of consecutive turns by one speaker: mean over runs, and the longest of all. */
  longestRun: { mean: number; max: number };
  /** Mean share of a run's turns taken by its most active speaker. */
  topSpeakerShare: number | null;
  /** Breakdowns of each type over all runs. */
  kinds: Record<BreakdownKind, number>;
}

/** What an experiment was run on and with, as its result states it. */
export interface ExperimentSetting {
  scene: string;
  /** The generator's name. */
  generator: string;
  /** The breakdown judge's name. */
  judge: string;
  runs: number;
  seed: number;
  /** The turn limit given, `null` for the scene's own length. */
  turns: number | null;
}

export interface ExperimentResult extends ExperimentSetting {
  experiment: ExperimentName;
  interval: string;
  conditions: ConditionResult[];
  /** Across conditions, on breakdowns per 10 turns; `null` when every run has the same value. */
  kruskalWallis: KruskalWallis | null;
  /** Pairwise, on breakdowns per 10 turns; p Bonferroni-adjusted. */
  dunn: { a: string; b: string; z: number; p: number }[];
}

const interval = (values: readonly number[]): Interval | null => (values.length > 0 ? bootstrapInterval(values, INTERVAL) : null);

const summarize = (condition: Condition, runs: RunResult[]): ConditionResult => {
  const defined = (values: (number | null)[]): number[] => values.filter((v): v is number => v !== null);
  const kinds = countKinds([]);
  for (const run of runs) for (const kind of breakdownKinds) kinds[kind] += run.kinds[kind];
  const shares = defined(runs.map((r) => r.topSpeakerShare));
  return {
    ...condition,
    runs,
    turns: mean(runs.map((r) => r.turns)),
    breakdownsPer10: interval(runs.map((r) => r.breakdownsPer10))!,
    answeredNext: interval(defined(runs.map((r) => r.answeredNext))),
    answeredByContent: interval(defined(runs.map((r) => r.answeredByContent))),
    longestRun: { mean: mean(runs.map((r) => r.longestRun)), max: Math.max(...runs.map((r) => r.longestRun)) },
    topSpeakerShare: shares.length > 0 ? mean(shares) : null,
    kinds,
  };
};

/**
 * One run's figures from its log: the turns, the breakdowns `judge` finds (MMAgents §4.2.1: per
 * 10 turns, each utterance once), who answered and who held the floor.
 */
export const judgeRun = async (events: readonly SessionEvent[], scene: LoadedScene, judge: BreakdownJudge, seed: number): Promise<RunResult> => {
  const metrics = runMetrics(events, scene);
  const utterances = events.filter((e): e is EventOf<'utterance'> => e.type === 'utterance');
  const { breakdowns, judgedBy, notes } = await judge.judge(utterances, scene);
  const broken = breakdownUtterances(breakdowns);
  return {
    seed,
    turns: metrics.turns,
    breakdowns: broken,
    breakdownsPer10: metrics.turns > 0 ? (broken / metrics.turns) * 10 : 0,
    kinds: countKinds(breakdowns),
    answeredNext: metrics.adjacencyCompletion,
    answeredByContent: metrics.answeredByContent,
    longestRun: metrics.longestRun,
    topSpeakerShare: metrics.topSpeakerShare,
    judgedBy,
    notes,
  };
};

/** MMAgents' comparison of the conditions from their runs (mmagentsConditions' order): intervals, then the tests across them. */
export const compareConditions = (setting: ExperimentSetting, runs: ReadonlyArray<{ condition: Condition; runs: RunResult[] }>): ExperimentResult => {
  const conditions = runs.map(({ condition, runs }) => summarize(condition, runs));
  const per10 = conditions.map((c) => c.runs.map((r) => r.breakdownsPer10));
  return {
    experiment: 'mmagents',
    scene: setting.scene,
    generator: setting.generator,
    judge: setting.judge,
    runs: setting.runs,
    seed: setting.seed,
    turns: setting.turns,
    interval: `${INTERVAL.level * 100}% percentile bootstrap over runs (${INTERVAL.resamples} resamples, seed ${INTERVAL.seed})`,
    conditions,
    kruskalWallis: kruskalWallis(per10),
    dunn: dunn(per10).map(({ a, b, z, p }) => ({ a: conditions[a]!.name, b: conditions[b]!.name, z, p })),
  };
};

const pValue = (p: number): string => (p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`);
const percent = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** Text columns aligned with spaces: the first left, the others right. */
const columns = (rows: readonly (readonly string[])[]): string => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd()).join('\n');
};

/**
 * The result as text: a header line, a row per condition, the breakdown types per condition, and
 * the tests across conditions.
 */
export const formatExperiment = (result: ExperimentResult): string => {
  const { conditions } = result;
  const seeds = result.runs === 1 ? `seed ${result.seed}` : `seeds ${result.seed}-${result.seed + result.runs - 1}`;
  const length = result.turns === null ? 'whole sessions' : `at most ${result.turns} turns`;
  const judged = conditions.flatMap((c) => c.runs.map((r) => r.judgedBy)).reduce((sum, j) => ({ model: sum.model + j.model, rules: sum.rules + j.rules }), { model: 0, rules: 0 });
  const judge =
    result.judge === 'rules' ? 'breakdowns found by the rules' : `breakdowns judged by ${result.judge} (${judged.model} samples; ${judged.rules} left to the rules)`;
  const summary = columns([
    ['condition', 'turns', 'breakdowns/10 turns', '95% CI', 'answered-next', '95% CI', 'answered', '95% CI', 'longest monologue', 'max', 'top speaker'],
    ...conditions.map((c) => [
      c.name,
      c.turns.toFixed(1),
      c.breakdownsPer10.mean.toFixed(2),
      `[${c.breakdownsPer10.low.toFixed(2)}, ${c.breakdownsPer10.high.toFixed(2)}]`,
      c.answeredNext ? percent(c.answeredNext.mean) : '-',
      c.answeredNext ? `[${percent(c.answeredNext.low)}, ${percent(c.answeredNext.high)}]` : '',
      c.answeredByContent ? percent(c.answeredByContent.mean) : '-',
      c.answeredByContent ? `[${percent(c.answeredByContent.low)}, ${percent(c.answeredByContent.high)}]` : '',
      c.longestRun.mean.toFixed(2),
      String(c.longestRun.max),
      c.topSpeakerShare === null ? '-' : percent(c.topSpeakerShare),
    ]),
  ]);
  const types = columns([
    ['breakdown type (all runs)', ...conditions.map((c) => c.name)],
    ...breakdownKinds.map((kind) => [taxonomy[kind].name, ...conditions.map((c) => String(c.kinds[kind]))]),
  ]);
  const kw = result.kruskalWallis;
  const tests = kw
    ? [
        `Kruskal-Wallis on breakdowns per 10 turns: H = ${kw.h.toFixed(3)} (chi-squared, df = ${kw.df}), ${pValue(kw.p)}`,
        `Dunn (Bonferroni): ${result.dunn.map((d) => `${d.a} vs ${d.b} ${pValue(d.p)}`).join('; ')}`,
      ]
    : ['Kruskal-Wallis: not defined (every run has the same breakdowns per 10 turns)'];
  return [
    `MMAgents experiment on ${result.scene}: ${result.runs} ${result.runs === 1 ? 'run' : 'runs'} per condition (${seeds}), ${length}, ${result.generator} generator, ${judge}`,
    `answered-next: designated first pair parts whose addressee spoke next; answered: designated questions and requests the reply answered by content; longest monologue: consecutive turns by one speaker (mean over runs); CI: ${result.interval}`,
    '',
    summary,
    '',
    types,
    '',
    ...tests,
    '',
  ].join('\n');
};
