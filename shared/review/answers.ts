/**
 * What the review's features answer (issue 17, parts 3 and 5): the trainee's debrief
 * (server/review/debrief.ts), its written feedback and answers (server/review/feedback.ts), and the
 * pairwise judge of two runs (server/review/judge.ts), with the judge's criteria. Types, data and formatting only,
 * browser-safe: the server's routes (server/api/review.ts) send these shapes and the client's pages
 * read them.
 */
import type { Answers, ParticipantReport } from './report';

/** 192000 → "3:12" (whole seconds elapsed, as a player shows). */
export const clock = (ms: number): string => {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
};

/** The first words of a line, for naming a moment. */
export const gist = (text: string | undefined, words = 12): string => {
  const all = (text ?? '').trim().split(/\s+/).filter(Boolean);
  return all.length <= words ? all.join(' ') : `${all.slice(0, words).join(' ')}…`;
};

/** The comfortable pace band, words per minute. */
export const comfortablePace = { low: 140, high: 160 } as const;

/** A time in the session the debrief points to (the page links it into the review). */
export interface Moment {
  startMs: number;
  label: string;
}

export interface Observation {
  id:
    | 'share-high' | 'share-low' | 'pace-fast' | 'pace-slow' | 'fillers' | 'slow-response' | 'dodged' | 'unanswered' | 'interruptions' | 'long-turns' | 'silent' | 'typed'
    | 'pace-ok' | 'share-ok' | 'questions-ok' | 'fillers-ok' | 'latency-ok' | 'no-interruptions';
  /** `note`: a fact without a judgement (nobody spoke, the lines were typed). */
  tone: 'positive' | 'improve' | 'note';
  text: string;
  /** At least one: what the observation is about. */
  moments: Moment[];
  /** How far from comfortable: the three highest are shown. */
  weight: number;
}

/**
 * What became of a question or request put to the seat by name. `non-answer`: the reply declined
 * ("Pass.", "No comment", "I'd rather not say"); `evasive`: it turned the question aside without
 * giving anything ("It depends", "That's a big question"); `not`: its words did not give what was
 * asked; `no-reply`: the seat never replied to it.
 */
export type Outcome = 'answered' | 'partly' | 'non-answer' | 'evasive' | 'not' | 'no-reply';

export interface QuestionPut {
  startMs: number;
  asker: string;
  askerName: string;
  text: string;
  reply: { startMs: number; endMs: number; text: string } | null;
  outcome: Outcome;
}

/** Figures measured on the seat's speech only (transcribed lines): typed and simulated lines have no pace, fillers or pauses. */
export interface SpeechFigures {
  turns: number;
  words: number;
  speakingMs: number;
  wordsPerMinute: number | null;
  fillers: ParticipantReport['fillers'];
  fillersPerMinute: number | null;
  /** From the end of another's line to their first word, less instructor pauses and approval waits; replies after a skip are left out. */
  responseMs: { median: number | null; p90: number | null; samples: number };
  longestPause: { ms: number; atMs: number; after: { participant: string; name: string; text: string; startMs: number } } | null;
}

export interface Debrief {
  you: ParticipantReport;
  /** The share of the talk a participant is expected to take, and why. */
  expectedShare: number;
  expectedBasis: string;
  /** How the seat's lines came in. `unknown`: a report from before it was recorded. */
  lines: { speech: number; typed: number; simulated: number; instructor: number; unknown: number };
  speech: SpeechFigures;
  /** Why pace, fillers and pauses were not measured, in words for the page ("typed — no pace measured"); null when they were. */
  unmeasured: string | null;
  /** Kept for the page: fillers a minute of speech (speech.fillersPerMinute). */
  fillersPerMinute: number | null;
  /**
   * Questions put to them by name: how many, after how many they spoke next, how their replies
   * answered them by content (`byContent`, null in a report without it), and each with its outcome.
   */
  questions: { received: number; answeredNext: number; byContent: Answers | null; put: QuestionPut[]; dodged: number };
  observations: Observation[];
}

export interface Feedback {
  paragraph: string;
  moments: { startMs: number; text: string }[];
  /** `model`: written by `vendor`; `rules`: from the figures (debrief.ts), and `note` says why when a vendor was asked. */
  by: 'model' | 'rules';
  vendor?: string;
  note?: string;
}

/** A question is a sentence or two: longer text is cut to this. */
export const MAX_QUESTION_CHARS = 300;

export interface Answer {
  answer: string;
  moments: { startMs: number; endMs: number; text: string; speaker: string; name: string }[];
  by: 'model' | 'rules';
  vendor?: string;
  note?: string;
}

/** The judge's criteria: what it is asked about each, and how a page names it. */
export const criteria = {
  clarity: { label: 'clarity', question: 'Which run has clearer talk: points made plainly, questions easy to follow, little that is vague or missing?' },
  'turn-taking': { label: 'turn-taking', question: 'Which run has better turn-taking: the person asked answers, few interruptions, nobody cut off or left waiting?' },
  'on-topic': { label: 'staying on topic', question: 'Which run stays on topic better: the meeting works through its subject without drifting or abrupt changes?' },
  evenness: { label: 'evenness', question: 'Which run shares the talk more evenly among the participants?' },
} as const;
export type Criterion = keyof typeof criteria;
export const criterionIds = Object.keys(criteria) as Criterion[];

export type Winner = 'a' | 'b' | 'tie';

export interface Verdict {
  winner: Winner;
  reason: string;
}

export interface CriterionJudgement extends Verdict {
  criterion: Criterion;
  label: string;
  /** The model's two verdicts, in the request's terms (a, b): `first` with run a shown first, `second` with run b first. */
  orders: { first: Verdict; second: Verdict } | null;
  /** The two orders disagreed, so the verdict is a tie. */
  positionInconsistent: boolean;
}

export interface PairJudgement {
  by: 'model' | 'rules';
  vendor?: string;
  /** Why the rules judged when a vendor was asked. */
  note?: string;
  criteria: CriterionJudgement[];
}
