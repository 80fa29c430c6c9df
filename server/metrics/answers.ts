/**
 * Whether designated questions were answered by their content, not only by who spoke next:
 * answered-next (metrics.ts) counts a question as answered when its addressee takes the next turn,
 * whatever they say; this reads the reply with engine/understanding.ts's `answerFit`, the same
 * reading the engine's dialogue state keeps, so the figures and the conversation cannot disagree.
 *
 * A designated question is an utterance with `pair` question or request and an addressee, other
 * than an offer to be asked (`offersQuestions`: "What else can I tell you?"). Its
 * reply is the addressee's utterance that says it answers it (`replyTo`), else the addressee's
 * next utterance, unless that one answers another question; a question nobody replied to is not
 * answered.
 *
 * ```ts
 * const asked = questionsOf(utterances, nameWordsOf(['Ada Park', 'Bea Lim']));
 * countAnswers(asked); // { questions: 4, answered: 1, partly: 1, not: 2 }
 * ```
 */
import type { UtteranceEvent } from '../../shared/events';
import { answerFit, type Fit } from '../engine/understanding';
import { contentWords } from '../engine/vocabulary';

export interface Asked {
  /** The question's utterance id. */
  utterance: string;
  asker: string;
  addressee: string;
  /** The reply's utterance id; `null` when the addressee never replied. */
  reply: string | null;
  fit: Fit;
}

export interface AnswerCount {
  questions: number;
  answered: number;
  partly: number;
  not: number;
}

/** The participants' name words, as content words: what a question is addressed with, never what it is about (engine/turn.ts reads them so). */
export const nameWordsOf = (names: readonly string[]): ReadonlySet<string> => new Set(names.flatMap((n) => [...contentWords(n)]));

/**
 * An offer to be asked ("What else can I tell you, Kit?", "Do you have any questions for us?"):
 * its answer is a question, not content, so it is no question put to anyone. Every question of the
 * line must be one.
 */
const OFFER =
  /\b(?:what else (?:can|could|shall|should|do you want|would you like) (?:i|we)(?: to)? (?:tell|say|share|show|help)|anything else (?:(?:that )?you(?:'d| would)? (?:want|need|like|wish) to (?:know|ask)|(?:i|we) (?:can|could) (?:tell|help|do|answer))|(?:do|did) you have any (?:more |other |further |final |last )?questions|(?:any|got any) (?:more |other |further |final |last )?questions(?: (?:for|about|on)\b|\s*[?,])|what (?:else )?(?:would|do) you (?:like|want) to (?:know|ask)|how (?:else )?can (?:i|we) help)/i;
export const offersQuestions = (text: string): boolean => {
  const asked = text.match(/[^.!?]*\?/g)?.filter((s) => s.trim()) ?? [];
  return asked.length > 0 && asked.every((q) => OFFER.test(q));
};

const designated = (u: UtteranceEvent): u is UtteranceEvent & { addressee: string } =>
  u.addressee !== null && u.addressee !== u.speaker && (u.pair === 'question' || u.pair === 'request') && !offersQuestions(u.text);

/** Every designated question in `utterances`, in order, with its reply and how well that answers it. */
export const questionsOf = (utterances: readonly UtteranceEvent[], names: ReadonlySet<string> = new Set()): Asked[] => {
  // The addressee's own word on what they answered comes first.
  const byReplyTo = new Map<string, UtteranceEvent>();
  for (const u of utterances) if (u.replyTo !== undefined && !byReplyTo.has(`${u.replyTo} ${u.speaker}`)) byReplyTo.set(`${u.replyTo} ${u.speaker}`, u);
  // Otherwise the addressee's next line: questions wait here for their addressee to speak.
  const waiting = new Map<string, UtteranceEvent[]>();
  const next = new Map<string, UtteranceEvent | null>();
  for (const u of utterances) {
    const pending = waiting.get(u.speaker);
    if (pending) {
      for (const q of pending) next.set(q.id, u.replyTo === undefined || u.replyTo === q.id ? u : null);
      waiting.delete(u.speaker);
    }
    if (designated(u)) waiting.set(u.addressee, [...(waiting.get(u.addressee) ?? []), u]);
  }

  return utterances.filter(designated).map((q) => {
    const reply = byReplyTo.get(`${q.id} ${q.addressee}`) ?? next.get(q.id) ?? null;
    return { utterance: q.id, asker: q.speaker, addressee: q.addressee, reply: reply?.id ?? null, fit: reply ? answerFit(q.text, reply.text, names) : 'not' };
  });
};

export const countAnswers = (asked: readonly Asked[]): AnswerCount => {
  const count: AnswerCount = { questions: asked.length, answered: 0, partly: 0, not: 0 };
  for (const a of asked) count[a.fit] += 1;
  return count;
};
