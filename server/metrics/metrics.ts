/**
 * Conversation metrics derived from a session's event log, for the batch simulator's summary and
 * the dashboard. Pure and browser-safe: events in, numbers out.
 *
 * Ratios whose denominator is empty (completion without designated utterances, evenness without
 * words) are `null`, not 0, so that they do not drag an aggregate toward a value nobody observed.
 * Measures that need the scene (leaks, role adherence, breakdowns off the scene's topic) are
 * `null`, or not counted, when it is not given.
 *
 * @example
 * const metrics = runMetrics(events, scene);
 * metrics.evenness; // 50 when three participants spoke 10, 20 and 30 words
 */
import type { EventOf, SessionEvent } from '../../shared/events';
import { maxSimilarity, REPETITION_THRESHOLD } from '../engine/similarity';
import { countWords, speakingMs } from '../../shared/words';
import type { LoadedScene } from '../../shared/scene/schema';
import { breakdownsOf, breakdownUtterances, countKinds, type Breakdown } from './breakdowns';
import { breakdownKinds, type BreakdownKind } from '../../shared/review/report';
import { countAnswers, nameWordsOf, questionsOf, type AnswerCount } from './answers';
import { leaksOf, type Leak } from './leaks';
import { meaningRepeatsOf, repetitionOf, topOpeningOf, type TopOpening } from './repetition';
import { roleAdherenceOf } from './roles';
import { mean, sampleStd } from './stats';

export interface ParticipantMetrics {
  /** Utterances spoken. */
  turns: number;
  words: number;
  /** The utterances' `durationMs` when logged, else estimated from words at the participant's speaking rate. */
  speakingMs: number;
  /** This participant's part of everyone's speaking time, 0..1 (0 when nobody spoke). */
  speakingShare: number;
}

export type EndReason = EventOf<'end'>['reason'];

export interface RunMetrics {
  /** The seed from session-start, `null` for a log without one. */
  seed: number | null;
  /** Utterance events. */
  turns: number;
  words: number;
  /** MUCA Table 1 engagement (Engt.-Words/Utt.); `null` without utterances. */
  wordsPerTurn: number | null;
  /**
   * MUCA §4.3.3: the sample standard deviation of words per participant as a percentage of the
   * mean, over every participant listed in session-start (silent ones count with 0 words) plus
   * anyone else who spoke. Lower is more even. `null` with fewer than two participants or no words.
   */
  evenness: number | null;
  /** Gini coefficient of words per participant over the same population, 0 (equal) .. 1; `null` without words. */
  gini: number | null;
  /** Utterances with a designated addressee (`addressee` set and `pair` not `none`): first pair parts. */
  adjacencyPairs: number;
  /**
   * The share of those whose next utterance is spoken by the addressee (MMAgents §3.2.2,
   * current speaker selects next). One left unanswered at the end of the log counts as not completed.
   * `null` when there are none.
   */
  adjacencyCompletion: number | null;
  /**
   * Of the designated questions (`pair` question with an addressee), the share whose next
   * utterance is spoken by the addressee; one left unanswered at the end of the log counts as not
   * answered. `null` when there are none.
   */
  answeredNext: number | null;
  /**
   * The designated questions and requests (`pair` question or request with an addressee) by how
   * their addressee's reply answered them by content (answers.ts: `answerFit`); one nobody replied
   * to is not answered. Answered-next counts who spoke next; this, what they said.
   */
  answers: AnswerCount;
  /** Of those, the share answered by content; `null` when there are none. */
  answeredByContent: number | null;
  /** ...and the share answered only in part (some of what was asked, or an honest "I don't know"). */
  partlyAnswered: number | null;
  /** The longest stretch of consecutive utterances by one speaker (the first, on a tie). */
  longestRun: number;
  longestRunSpeaker: string | null;
  /** The share of utterances spoken by the one who spoke most (MMAgents §5: monopolised turns); `null` without utterances. */
  topSpeakerShare: number | null;
  /**
   * MPOD §3.2: the share of utterances whose similarity to one of the same speaker's previous
   * five utterances exceeds 0.5, recomputed from the texts. `null` without utterances.
   */
  repetitionRate: number | null;
  /** The share of utterances whose normalised text was already said in the run, by anyone (engine/novelty.ts). */
  repeatRate: number | null;
  /**
   * The share of utterances (all of them, as for `repeatRate`) that have four words or more and
   * share at least NEAR_DUPLICATE of their word set with one of the same speaker's earlier lines of
   * four words or more; verbatim repeats of one's own lines included.
   */
  nearDuplicateRate: number | null;
  /**
   * The share of utterances (all of them) that are a persona's line saying one of its own earlier
   * sentences again in other words (repetition.ts `meaningRepeatsOf`: sentences of five words or
   * more, similarity above REPETITION_THRESHOLD, verbatim repeats left out).
   */
  meaningRepeatRate: number | null;
  /** The most frequent opening of AI lines (source `ai`) and its share of them; `null` without AI lines. */
  topOpening: TopOpening | null;
  topOpeningShare: number | null;
  /** Generated lines that leak private knowledge (leaks.ts); `null` without the scene. */
  leaks: number | null;
  leakDetails: Leak[];
  /** Of the askers' designated questions, the share put to an answerer (roles.ts); `null` without the scene, roles or such questions. */
  roleAdherence: number | null;
  /** Designated questions in snippets with roles, by the parts of asker and addressee: `asker->answerer`... */
  questionsByPart: Record<string, number>;
  /**
   * Utterances that lead to a breakdown (breakdowns.ts: MMAgents Table 1, by rules), each once
   * however many types it has; lines off the scene's topic only with the scene.
   */
  breakdowns: number;
  /** Breakdowns of each type: a line of two types counts under both. */
  breakdownKinds: Record<BreakdownKind, number>;
  breakdownDetails: Breakdown[];
  interruptions: number;
  backchannels: number;
  impromptuPhases: number;
  /** Hands raised (not lowered or approved). */
  handRaises: number;
  /** Proposals put to a person for approval (DialogLab human-control). */
  approvals: number;
  /** Resolutions that let a proposal into the conversation: approved or edited. */
  approved: number;
  /** Turns the fallback generator wrote: `generator-fallback` (the vendor failed) and `generator-circuit-open` (it was not called). */
  fallbacks: number;
  /** Next speakers chosen at random because the LLM turn selector gave no valid answer (floor reason `llm-selector-fallback`). */
  selectorFallbacks: number;
  /** Conversation time of the last event. */
  durationMs: number;
  endReason: EndReason | null;
  /** Keyed by participant id, in session-start order, then speakers missing from it. */
  participants: Record<string, ParticipantMetrics>;
}

/** The run metrics that are aggregated as numbers. */
export const numericMetrics = [
  'turns',
  'words',
  'wordsPerTurn',
  'evenness',
  'gini',
  'adjacencyPairs',
  'adjacencyCompletion',
  'answeredNext',
  'answeredByContent',
  'partlyAnswered',
  'longestRun',
  'topSpeakerShare',
  'repetitionRate',
  'repeatRate',
  'nearDuplicateRate',
  'meaningRepeatRate',
  'topOpeningShare',
  'leaks',
  'roleAdherence',
  'breakdowns',
  'interruptions',
  'backchannels',
  'impromptuPhases',
  'handRaises',
  'approvals',
  'approved',
  'fallbacks',
  'selectorFallbacks',
  'durationMs',
] as const satisfies readonly (keyof RunMetrics)[];
export type NumericMetric = (typeof numericMetrics)[number];

const participantMetrics = ['turns', 'words', 'speakingMs', 'speakingShare'] as const satisfies readonly (keyof ParticipantMetrics)[];

/** Spread over runs; `std` is the sample standard deviation, 0 for a single value. */
export interface Stats {
  mean: number;
  std: number;
  min: number;
  max: number;
}

export interface AggregateMetrics {
  runs: number;
  /** Over the runs where the metric is defined; `null` when it is defined in none. */
  metrics: Record<NumericMetric, Stats | null>;
  /** Keyed by participant id, over the runs the participant appears in. */
  participants: Record<string, Record<keyof ParticipantMetrics, Stats>>;
  /** Breakdowns of each kind per run; `null` for no runs. */
  breakdownKinds: Record<BreakdownKind, Stats | null>;
  /** How many runs ended for each reason; runs without an end event are not counted. */
  endReasons: Partial<Record<EndReason, number>>;
}

/** MPOD §3.2: the anti-repetition window (the threshold is the engine's). */
const repetitionWindow = 5;

/** Mean absolute difference over all ordered pairs, divided by twice the mean. */
const giniOf = (values: readonly number[]): number | null => {
  const total = values.reduce((sum, v) => sum + v, 0);
  if (total === 0) return null;
  let differences = 0;
  for (const a of values) for (const b of values) differences += Math.abs(a - b);
  return differences / (2 * values.length * total);
};

/** MUCA §4.3.3's evenness of these counts (see `RunMetrics.evenness`); the review's report shares it. */
export const evennessOf = (values: readonly number[]): number | null => {
  if (values.length < 2) return null;
  const m = mean(values);
  return m === 0 ? null : (sampleStd(values) / m) * 100;
};

export const runMetrics = (events: readonly SessionEvent[], scene?: LoadedScene): RunMetrics => {
  const start = events.find((e): e is EventOf<'session-start'> => e.type === 'session-start');
  const utterances = events.filter((e): e is EventOf<'utterance'> => e.type === 'utterance');
  const count = (predicate: (e: SessionEvent) => boolean): number => events.filter(predicate).length;

  const rates = new Map(start?.participants.map((p) => [p.id, p.speakingRate]));
  const participants: Record<string, ParticipantMetrics> = {};
  const tableOf = (id: string): ParticipantMetrics => (participants[id] ??= { turns: 0, words: 0, speakingMs: 0, speakingShare: 0 });
  for (const p of start?.participants ?? []) tableOf(p.id);

  const previousTexts = new Map<string, string[]>();
  let words = 0;
  let repeated = 0;
  let adjacencyPairs = 0;
  let completed = 0;
  let questions = 0;
  let answered = 0;
  let longestRun = 0;
  let longestRunSpeaker: string | null = null;
  let run = 0;

  utterances.forEach((u, i) => {
    const uWords = countWords(u.text);
    const table = tableOf(u.speaker);
    table.turns += 1;
    table.words += uWords;
    table.speakingMs += u.durationMs > 0 ? u.durationMs : speakingMs(uWords, rates.get(u.speaker));
    words += uWords;

    const previous = previousTexts.get(u.speaker) ?? [];
    if (maxSimilarity(u.text, previous.slice(-repetitionWindow)) > REPETITION_THRESHOLD) repeated += 1;
    previousTexts.set(u.speaker, [...previous, u.text].slice(-repetitionWindow));

    if (u.addressee !== null && u.pair !== 'none') {
      const addresseeNext = utterances[i + 1]?.speaker === u.addressee;
      adjacencyPairs += 1;
      if (addresseeNext) completed += 1;
      if (u.pair === 'question') {
        questions += 1;
        if (addresseeNext) answered += 1;
      }
    }

    run = utterances[i - 1]?.speaker === u.speaker ? run + 1 : 1;
    if (run > longestRun) {
      longestRun = run;
      longestRunSpeaker = u.speaker;
    }
  });

  const tables = Object.values(participants);
  const totalMs = tables.reduce((sum, p) => sum + p.speakingMs, 0);
  for (const p of tables) p.speakingShare = totalMs > 0 ? p.speakingMs / totalMs : 0;
  const wordsPer = tables.map((p) => p.words);
  const end = events.findLast((e): e is EventOf<'end'> => e.type === 'end');

  const share = (n: number): number | null => (utterances.length > 0 ? n / utterances.length : null);
  const repetition = repetitionOf(utterances);
  const answers = countAnswers(questionsOf(utterances, nameWordsOf((start?.participants ?? scene?.participants ?? []).map((p) => p.name))));
  const topOpening = topOpeningOf(utterances);
  const leakDetails = scene ? leaksOf(utterances, scene) : [];
  const roles = scene ? roleAdherenceOf(utterances, scene) : { adherence: null, questionsByPart: {} };
  const breakdownDetails = breakdownsOf(utterances, repetition, scene);
  const mostTurns = Math.max(0, ...tables.map((p) => p.turns));

  return {
    seed: start?.seed ?? null,
    turns: utterances.length,
    words,
    wordsPerTurn: utterances.length > 0 ? words / utterances.length : null,
    evenness: evennessOf(wordsPer),
    gini: giniOf(wordsPer),
    adjacencyPairs,
    adjacencyCompletion: adjacencyPairs > 0 ? completed / adjacencyPairs : null,
    answeredNext: questions > 0 ? answered / questions : null,
    answers,
    answeredByContent: answers.questions > 0 ? answers.answered / answers.questions : null,
    partlyAnswered: answers.questions > 0 ? answers.partly / answers.questions : null,
    longestRun,
    longestRunSpeaker,
    topSpeakerShare: share(mostTurns),
    repetitionRate: share(repeated),
    repeatRate: share(repetition.verbatim.filter(Boolean).length),
    nearDuplicateRate: share(repetition.nearDuplicate.filter(Boolean).length),
    meaningRepeatRate: share(meaningRepeatsOf(utterances).filter(Boolean).length),
    topOpening,
    topOpeningShare: topOpening?.share ?? null,
    leaks: scene ? leakDetails.length : null,
    leakDetails,
    roleAdherence: roles.adherence,
    questionsByPart: roles.questionsByPart,
    breakdowns: breakdownUtterances(breakdownDetails),
    breakdownKinds: countKinds(breakdownDetails),
    breakdownDetails,
    interruptions: count((e) => e.type === 'interruption'),
    backchannels: count((e) => e.type === 'backchannel'),
    impromptuPhases: count((e) => e.type === 'impromptu-start'),
    handRaises: count((e) => e.type === 'hand-raise' && e.action === 'raise'),
    approvals: count((e) => e.type === 'approval-needed'),
    approved: count((e) => e.type === 'approval-resolved' && (e.decision === 'approve' || e.decision === 'edit')),
    fallbacks: count((e) => e.type === 'system' && (e.code === 'generator-fallback' || e.code === 'generator-circuit-open')),
    selectorFallbacks: count((e) => e.type === 'floor' && e.reason === 'llm-selector-fallback'),
    durationMs: events.at(-1)?.t ?? 0,
    endReason: end?.reason ?? null,
    participants,
  };
};

const statsOf = (values: readonly number[]): Stats => ({
  mean: mean(values),
  std: sampleStd(values),
  min: Math.min(...values),
  max: Math.max(...values),
});

export const aggregateMetrics = (runs: readonly RunMetrics[]): AggregateMetrics => {
  const metrics = {} as Record<NumericMetric, Stats | null>;
  for (const name of numericMetrics) {
    const values = runs.map((r) => r[name]).filter((v): v is number => v !== null);
    metrics[name] = values.length > 0 ? statsOf(values) : null;
  }

  const ids = [...new Set(runs.flatMap((r) => Object.keys(r.participants)))];
  const participants: AggregateMetrics['participants'] = {};
  for (const id of ids) {
    const tables = runs.flatMap((r) => r.participants[id] ?? []);
    const table = {} as Record<keyof ParticipantMetrics, Stats>;
    for (const name of participantMetrics) table[name] = statsOf(tables.map((t) => t[name]));
    participants[id] = table;
  }

  const kinds = {} as Record<BreakdownKind, Stats | null>;
  for (const kind of breakdownKinds) kinds[kind] = runs.length > 0 ? statsOf(runs.map((r) => r.breakdownKinds[kind])) : null;

  const endReasons: AggregateMetrics['endReasons'] = {};
  for (const r of runs) if (r.endReason !== null) endReasons[r.endReason] = (endReasons[r.endReason] ?? 0) + 1;

  return { runs: runs.length, metrics, participants, breakdownKinds: kinds, endReasons };
};
