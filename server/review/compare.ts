/**
 * Sessions of one scene side by side (issue 17, compare): the figures of each session's report,
 * each scaled 0..1 across the compared sessions, and the largest relative differences as sentences.
 * A simulated run compares the same way from its report file (`file`: its name; POST /api/compare).
 * Pure and browser-safe: reports in, a `Comparison` out (GET /api/compare, client/src/compare/page.tsx).
 *
 * Figures are keyed (`turns`, `p:<participant>:speakingShare`, …) and listed in `figures` in a fixed
 * order: the session's own, then each participant's. A figure a session lacks (no utterances: no
 * evenness, no pace) is null, shown as "—", left out of the scaling and of the differences.
 * Normalised: min-max over the sessions that have it; all equal gives 0.5 for each.
 * Runs are numbered as compared: run 1 is the first id asked for.
 *
 * ```ts
 * compareOf([{ id: 'a', createdAt, status: 'ended', report }, { id: 'b', … }]);
 * // { sessions: [...], figures: [{ key: 'interruptions', label: 'interruptions', unit: 'count' }, …],
 * //   normalised: { interruptions: [0, 1], … }, differences: ['Run 2 had 2.4x the interruptions of run 1 (12 vs 5)',
//   'Run 2 was more even than run 1: spread 49.9 vs 63.5, lower is more even'] }
 * ```
 */
import type { Report } from '../../shared/review/report';
import { formatFigure, type ComparedParticipant, type ComparedSession, type Comparison, type Figure } from '../../shared/review/comparison';

export interface CompareInput {
  id: string;
  file?: string;
  createdAt: number;
  status: string;
  report: Report;
}

/** Differences called out: at most this many, largest first. */
export const MAX_DIFFERENCES = 6;
/** A difference smaller than this ratio (largest over smallest) is not called out. */
export const MIN_RATIO = 1.2;

const sessionFigures: Figure[] = [
  { key: 'durationMs', label: 'length', unit: 'ms' },
  { key: 'turns', label: 'turns', unit: 'count' },
  { key: 'answeredNext', label: 'share of questions answered next', unit: 'share' },
  // metrics.ts's evenness is a spread (MUCA §4.3.3): 0 when everyone said as much, larger as the talk is less even.
  { key: 'evenness', label: 'evenness (spread: lower is more even)', unit: 'score' },
  { key: 'breakdowns', label: 'breakdowns', unit: 'count' },
  { key: 'interruptions', label: 'interruptions', unit: 'count' },
];

const participantFigures = [
  { field: 'speakingShare', label: 'talk share', unit: 'share', plural: false },
  { field: 'turns', label: 'turns', unit: 'count', plural: true },
  { field: 'wordsPerMinute', label: 'words per minute', unit: 'wpm', plural: false },
  { field: 'responseLatencyMedianMs', label: 'median response latency', unit: 'ms', plural: false },
] as const;

const compared = (input: CompareInput): ComparedSession => {
  const r = input.report;
  const participants = r.participants.map((p) => ({
    id: p.id,
    name: p.name,
    kind: p.kind,
    speakingShare: p.speakingShare,
    turns: p.turns,
    wordsPerMinute: p.wordsPerMinute,
    responseLatencyMedianMs: p.responseLatencyMs.median,
  }));
  const session = { durationMs: r.durationMs, turns: r.turns, answeredNext: r.answeredNext, evenness: r.evenness, breakdowns: r.breakdowns.count, interruptions: r.interruptions };
  const values: Record<string, number | null> = { ...session };
  for (const p of participants) for (const f of participantFigures) values[`p:${p.id}:${f.field}`] = p[f.field];
  return { id: input.id, ...(input.file !== undefined ? { file: input.file } : {}), createdAt: input.createdAt, status: input.status, ...(r.pace ? { pace: r.pace } : {}), ...session, participants, values };
};

/** Min-max over the values present; all equal (or one present) gives 0.5. */
export const normalise = (values: readonly (number | null)[]): (number | null)[] => {
  const present = values.filter((v): v is number => v !== null);
  const min = Math.min(...present);
  const max = Math.max(...present);
  return values.map((v) => (v === null ? null : max === min ? 0.5 : Math.round(((v - min) / (max - min)) * 1000) / 1000));
};

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const ratioText = (ratio: number): string => `${ratio >= 10 ? Math.round(ratio) : Math.round(ratio * 10) / 10}x`;

/**
 * The largest relative differences: for each figure, its largest value against its smallest
 * (ratio largest/smallest; a smallest of 0 against a positive largest ranks above any ratio).
 * Ties keep the figures' order.
 */
export const differencesOf = (sessions: readonly ComparedSession[], figures: readonly Figure[]): string[] => {
  const found: { score: number; order: number; text: string }[] = [];
  figures.forEach((figure, order) => {
    const runs = sessions.map((s, i) => ({ run: i + 1, value: s.values[figure.key] ?? null })).filter((r): r is { run: number; value: number } => r.value !== null);
    if (runs.length < 2) return;
    // First largest and first smallest: the earliest run wins a tie, so sentences are stable.
    const high = runs.reduce((a, b) => (b.value > a.value ? b : a));
    const low = runs.reduce((a, b) => (b.value < a.value ? b : a));
    if (high.value <= 0 || high.value === low.value) return;
    const values = `(${formatFigure(high.value, figure.unit)} vs ${formatFigure(low.value, figure.unit)})`;
    // Evenness is a spread: the lower run was the more even one.
    if (figure.key === 'evenness') {
      const spread = `spread ${formatFigure(low.value, figure.unit)} vs ${formatFigure(high.value, figure.unit)}, lower is more even`;
      const ratio = low.value <= 0 ? Infinity : high.value / low.value;
      if (ratio < MIN_RATIO) return;
      found.push({ score: ratio, order, text: `Run ${low.run} was ${low.value <= 0 ? 'perfectly even' : `more even than run ${high.run}`}: ${spread}` });
      return;
    }
    // A participant's figure names them ("Ben's turns"), which reads better as the subject.
    if (low.value <= 0) {
      const text = figure.participant ? `${capitalised(figure.label)} in run ${high.run}, none in run ${low.run} ${values}` : `Run ${high.run} had ${figure.label} where run ${low.run} had none ${values}`;
      found.push({ score: Infinity, order, text });
      return;
    }
    const ratio = high.value / low.value;
    if (ratio < MIN_RATIO) return;
    const text = figure.participant
      ? `${capitalised(figure.label)} in run ${high.run} ${figure.plural ? 'were' : 'was'} ${ratioText(ratio)} ${figure.plural ? 'those' : 'that'} in run ${low.run} ${values}`
      : `Run ${high.run} had ${ratioText(ratio)} the ${figure.label} of run ${low.run} ${values}`;
    found.push({ score: ratio, order, text });
  });
  return found
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, MAX_DIFFERENCES)
    .map((d) => d.text);
};

export const compareOf = (inputs: readonly CompareInput[]): Comparison => {
  const sessions = inputs.map(compared);
  // Participants in the order the first report that has them lists them (same scene: the same seats).
  const people = new Map<string, ComparedParticipant>();
  for (const s of sessions) for (const p of s.participants) if (!people.has(p.id)) people.set(p.id, p);
  const figures: Figure[] = [
    ...sessionFigures,
    ...[...people.values()].flatMap((p) => participantFigures.map((f) => ({ key: `p:${p.id}:${f.field}`, label: `${p.name}'s ${f.label}`, unit: f.unit, participant: p.id, ...(f.plural ? { plural: true } : {}) }))),
  ];
  const normalised = Object.fromEntries(figures.map((f) => [f.key, normalise(sessions.map((s) => s.values[f.key] ?? null))]));
  return { scene: inputs[0]?.report.scene ?? null, title: inputs[0]?.report.title ?? null, sessions, figures, normalised, differences: differencesOf(sessions, figures) };
};
