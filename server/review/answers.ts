/**
 * What the review's language-model features answer (issue 17, parts 3 and 5): the debrief's
 * written feedback and its answers (review/feedback.ts), and the pairwise judge of two runs
 * (review/judge.ts), with the judge's criteria. Types and data only, browser-safe: the server's
 * routes (api/review-routes.ts) send these shapes and the client's pages read them.
 */

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
