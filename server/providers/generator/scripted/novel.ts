/**
 * Choosing a line: acts draft candidates from the seeded randomness, best first, and the first one
 * that is new and safe is said. New and safe by the engine's own definitions (novelty.ts): not a
 * verbatim repeat of the speaker's lines or of what was just said, not a near-duplicate of one of
 * their lines, not close in meaning to one of their last five (MPOD), not quoting more than 8
 * words of private knowledge, no distinctive word of a secret; and it does what the plan asks: a
 * question asks the addressee (by the engine's designation detector), anything else opens no pair.
 *
 * When no draft passes, the one with the lightest faults is said: the engine screens it again.
 */
import { echoes } from '../../../engine/dialogue';
import { detectDesignation } from '../../../engine/designation';
import { NEAR_DUPLICATE, normalizeLine, OPENING_WORDS, tokenOverlap, wordsOf } from '../../../engine/novelty';
import { maxSimilarity, REPETITION_THRESHOLD } from '../../../engine/similarity';
import { fullName, type Turn } from './turn';
import { contentWords, tidy, wordCount } from './words';

/**
 * What the line must do: `ask` end in a question or request to the addressee (to the room when
 * there is none), `hand` give the addressee the floor (an invitation or a question), `close` open
 * no pair, `any` either (a returned greeting, a deviation).
 */
export type Expect = 'ask' | 'hand' | 'close' | 'any';

/** Fault weights: a hint at a secret is worst, a missed length target mildest. */
const faults = { secret: 100, quote: 60, pair: 25, verbatim: 20, near: 12, similar: 10, length: 1 } as const;

/** At most this many drafts are read per line: enough for variety, within the 2 ms budget. */
const MAX_DRAFTS = 32;

export type Drafts = Iterable<string | null | undefined>;

export const firstNovel = (turn: Turn, drafts: Drafts, expect: Expect): string => {
  const { cue } = turn;
  const said = new Set(cue.said.map(normalizeLine));
  for (const text of [cue.lastMessage?.text, cue.human?.text, cue.obligation?.text]) if (text) said.add(normalizeLine(text));
  const saidLong = cue.said.filter((s) => wordsOf(s).length >= OPENING_WORDS);
  // MPOD §3.2: the engine resamples a line too similar in meaning to one of the speaker's last five.
  const recentOwn = cue.said.slice(-5);
  const addressee = fullName(cue, cue.addressee?.id);
  const previous = cue.lastMessage && cue.lastMessage.speaker !== cue.speaker.id ? fullName(cue, cue.lastMessage.speaker) : null;
  const participants = cue.participants.map((p) => p.name);
  const target = cue.targetWords;
  const { avoid, quotes } = turn.gathered;
  // Saying again what was said, when asked to: only a verbatim repeat is a fault.
  const echo = !!cue.dialogue && echoes(cue.dialogue.task);

  /** The draft's faults, cheapest checks first; stops counting once it cannot beat `bound`. */
  const faultOf = (text: string, bound: number): number => {
    let fault = 0;
    const words = wordsOf(text);
    if (said.has(words.join(' '))) fault += faults.verbatim;
    if (target !== undefined) {
      const n = wordCount(text);
      if (n > Math.max(target * 1.6, target + 6) || n < Math.min(target * 0.4, 6)) fault += faults.length;
    }
    if (fault >= bound) return fault;
    if (avoid.size && [...contentWords(text)].some((w) => avoid.has(w))) fault += faults.secret;
    if (fault >= bound) return fault;
    if (!echo && words.length >= 4 && saidLong.some((s) => tokenOverlap(text, s) >= NEAR_DUPLICATE)) fault += faults.near;
    if (fault >= bound) return fault;
    if (!echo && maxSimilarity(text, recentOwn) > REPETITION_THRESHOLD) fault += faults.similar;
    if (fault >= bound) return fault;
    if (quotes(text)) fault += faults.quote;
    if (fault >= bound || expect === 'any') return fault;
    const designation = detectDesignation({ participants, speaker: cue.speaker.name, previousSpeaker: previous, text });
    const ok =
      expect === 'close'
        ? designation.pair === 'none' && !text.includes('?')
        : designation.pair !== 'none' && designation.next === addressee && (expect === 'hand' || text.trim().endsWith('?'));
    return ok ? fault : fault + faults.pair;
  };

  let best: { text: string; fault: number } | null = null;
  let read = 0;
  for (const draft of drafts) {
    if (!draft) continue;
    const text = tidy(draft);
    if (!text) continue;
    const fault = faultOf(text, best?.fault ?? Infinity);
    if (fault === 0) return text;
    if (!best || fault < best.fault) best = { text, fault };
    if (++read >= MAX_DRAFTS) break;
  }
  return best?.text ?? '';
};

/** Drafts from several sources, each source lazily, in order. */
export function* chain(...sources: (Drafts | (() => Drafts))[]): Generator<string | null | undefined> {
  for (const source of sources) yield* typeof source === 'function' ? source() : source;
}
