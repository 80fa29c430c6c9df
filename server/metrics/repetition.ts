/**
 * Repetition as the engine's novelty screen defines it (engine/novelty.ts), measured after the
 * fact: which lines repeat an earlier one verbatim or nearly, and how often AI lines open alike;
 * and, beyond the screen's wording, which persona lines say one of their own earlier sentences
 * again in other words (engine/similarity.ts).
 *
 * ```ts
 * const { verbatim, nearDuplicate } = repetitionOf(utterances);
 * meaningRepeatsOf(utterances); // [false, false, true]: the third line rephrases the first
 * topOpeningOf(utterances); // { phrase: 'that is a fair', lines: 4, share: 0.2 }
 * ```
 */
import type { UtteranceEvent } from '../../shared/events';
import { NEAR_DUPLICATE, normalizeLine, OPENING_WORDS, openingOf, wordsOf } from '../engine/novelty';
import { REPETITION_THRESHOLD, similarityTo } from '../engine/similarity';
import { contentWords } from '../engine/vocabulary';

/** Lines shorter than this are acknowledgements, too short to nearly duplicate anything (the screen's rule). */
const NEAR_DUPLICATE_MIN_WORDS = 4;

export interface Repetition {
  /** Per utterance: its normalised text was already said in the run, by anyone. */
  verbatim: boolean[];
  /**
   * Per utterance: it has at least four words and shares at least NEAR_DUPLICATE of its word set
   * with one of the same speaker's earlier lines of at least four words. A verbatim repeat of one's
   * own line of four words or more is also a near-duplicate: the flags overlap, as the screen's rules do.
   */
  nearDuplicate: boolean[];
}

/**
 * Per utterance, whether it repeats an earlier one verbatim or nearly (see `Repetition`).
 *
 * Comparing each line with every earlier one of its speaker grows with the square of the session
 * (a 10,000-line one: some ten million pairs, seconds of work). Instead each speaker's lines are
 * indexed by their words, and a line counts through the index the words it shares with each
 * earlier line that shares any; lines sharing none cannot be near it. The overlap is that count
 * over the smaller word set's size, divided as engine/novelty.ts's `tokenOverlap` divides, so the
 * threshold's rounding is the same (repetition.test.ts compares the two over every pair).
 */
export const repetitionOf = (utterances: readonly UtteranceEvent[]): Repetition => {
  const said = new Set<string>();
  const bySpeaker = new Map<string, { sizes: number[]; byWord: Map<string, number[]> }>();
  const verbatim: boolean[] = [];
  const nearDuplicate: boolean[] = [];
  // By an earlier line's place in its speaker's index: the words it shares with the line at hand (`countedFor`: which line that is).
  const shared = new Int32Array(utterances.length);
  const countedFor = new Int32Array(utterances.length).fill(-1);
  utterances.forEach((u, i) => {
    const words = wordsOf(u.text);
    const normal = normalizeLine(u.text);
    verbatim.push(normal !== '' && said.has(normal));
    said.add(normal);
    if (words.length < NEAR_DUPLICATE_MIN_WORDS) {
      nearDuplicate.push(false);
      return;
    }
    const set = new Set(words);
    const mine = bySpeaker.get(u.speaker) ?? { sizes: [], byWord: new Map<string, number[]>() };
    bySpeaker.set(u.speaker, mine);
    const touched: number[] = [];
    for (const word of set) {
      for (const j of mine.byWord.get(word) ?? []) {
        if (countedFor[j] !== i) {
          countedFor[j] = i;
          shared[j] = 0;
          touched.push(j);
        }
        shared[j]! += 1;
      }
    }
    nearDuplicate.push(touched.some((j) => shared[j]! / Math.min(set.size, mine.sizes[j]!) >= NEAR_DUPLICATE));

    const at = mine.sizes.push(set.size) - 1;
    for (const word of set) {
      const lines = mine.byWord.get(word);
      if (lines) lines.push(at);
      else mine.byWord.set(word, [at]);
    }
  });
  return { verbatim, nearDuplicate };
};

/** Sentences shorter than this say too little to be a repeat by meaning ("Yes, that's right."). */
const MEANING_MIN_WORDS = 5;
/** ...and so do those with fewer content words, however long: "Oh, thank you, Sam; yes." / "Thanks, all, this was fun." score 0.52. */
const MEANING_MIN_CONTENT_WORDS = 2;

/** A line's sentences, split after their end marks. */
const sentencesOf = (text: string): string[] => (text.match(/[^.!?]+[.!?]*/g) ?? []).map((s) => s.trim()).filter(Boolean);

/**
 * Per utterance: a persona's line (source `ai`) with a sentence of five words or more that says
 * one of the same speaker's earlier sentences (five words or more, authored lines included) again
 * in other words: more similar than REPETITION_THRESHOLD (MPOD §3.2's bar), not word for word the
 * same (that is a verbatim repeat). A question is compared with questions and a statement with
 * statements: "What does your data say about why patients miss appointments?" and the asker's own
 * answer to it later score 0.5 on shared topic alone. Each sentence is read once (similarity.ts
 * memoises readings by text) and compared only with its speaker's.
 */
export const meaningRepeatsOf = (utterances: readonly UtteranceEvent[]): boolean[] => {
  const earlier = new Map<string, { normal: string; text: string; asks: boolean }[]>();
  return utterances.map((u) => {
    const own = earlier.get(u.speaker) ?? [];
    earlier.set(u.speaker, own);
    const sentences = sentencesOf(u.text)
      .filter((text) => wordsOf(text).length >= MEANING_MIN_WORDS && contentWords(text).length >= MEANING_MIN_CONTENT_WORDS)
      .map((text) => ({ normal: normalizeLine(text), text, asks: text.endsWith('?') }));
    const repeats =
      u.source === 'ai' &&
      sentences.some((s) => {
        if (own.some((o) => o.normal === s.normal)) return false;
        const to = similarityTo(s.text);
        return own.some((o) => o.asks === s.asks && to(o.text) > REPETITION_THRESHOLD);
      });
    own.push(...sentences);
    return repeats;
  });
};

export interface TopOpening {
  /** The most frequent opening (first four words, lower case), on a tie the first to reach that count; `null` when no AI line has four words. */
  phrase: string | null;
  lines: number;
  /** `lines` over every AI line, short ones included. */
  share: number;
}

/**
 * The most frequent opening among AI lines: those a generator wrote for an AI persona (source
 * `ai`). Authored lines (`scripted`) and people's (`human`, `simulated-human`) are left out, as the
 * screen's opening rule leaves them out. Lines shorter than four words have no opening but count
 * in the share's denominator. `null` without AI lines.
 */
export const topOpeningOf = (utterances: readonly UtteranceEvent[]): TopOpening | null => {
  const counts = new Map<string, number>();
  let aiLines = 0;
  let top: string | null = null;
  for (const u of utterances) {
    if (u.source !== 'ai') continue;
    aiLines += 1;
    if (wordsOf(u.text).length < OPENING_WORDS) continue;
    const opening = openingOf(u.text);
    const count = (counts.get(opening) ?? 0) + 1;
    counts.set(opening, count);
    if (top === null || count > counts.get(top)!) top = opening;
  }
  if (aiLines === 0) return null;
  const lines = top === null ? 0 : counts.get(top)!;
  return { phrase: top, lines, share: lines / aiLines };
};
