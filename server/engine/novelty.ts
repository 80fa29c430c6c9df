/**
 * What makes a line new: the definitions the engine screens each generated line with, the
 * scripted generator writes to, and the simulator's metrics measure by, so the three agree.
 *
 * - a **verbatim repeat** is a line whose normalised text (lower case, words only) was already
 *   said in the session, by anyone;
 * - a **near-duplicate** shares ≥ 0.8 of its word set with one of the same speaker's earlier
 *   lines (the overlap coefficient |A∩B| / min(|A|, |B|), stricter than Jaccard);
 * - an **opening** is a line's first four words: measured (the most frequent one's share), not
 *   screened: banning a reused opening only moved a stock phrase into the middle of the line;
 * - **quoting** private knowledge is saying more than 8 consecutive words of it.
 *
 * ```ts
 * openingOf('Alex, what did you make of it?'); // "alex what did you"
 * tokenOverlap('I agree with Raj.', 'I agree with Raj on that.'); // 1
 * longestSharedRun('She saw a lamp in the barrel room', 'I saw a lamp in the barrel room window'); // 7
 * ```
 */
import { maxSimilarity, REPETITION_THRESHOLD } from './similarity';
import { memoize } from './memo';

export const NEAR_DUPLICATE = 0.8;
export const OPENING_WORDS = 4;
/** A first clause this long that begins one of the speaker's own lines is taken for a repeat before it is voiced. */
const PARTIAL_REPEAT_WORDS = 6;
/** Private knowledge is said in one's own words: at most this many consecutive words of the scene's text. */
export const MAX_QUOTED_WORDS = 8;

/** Lower-case words (letters, digits, inner apostrophes), punctuation dropped. */
export const wordsOf: (text: string) => readonly string[] = memoize(
  (text) => text.toLowerCase().replace(/[’‘]/g, "'").match(/[\p{L}\p{N}]+(?:'[\p{L}\p{N}]+)*/gu) ?? [],
);

const wordSetOf = memoize((text: string): ReadonlySet<string> => new Set(wordsOf(text)));

/** The normal form of a line: every line said is compared with every line before it, so each is normalised once. */
export const normalizeLine: (text: string) => string = memoize((text) => wordsOf(text).join(' '));

/** The first four words, lower case: what "the same opening" compares. */
export const openingOf = (text: string): string => wordsOf(text).slice(0, OPENING_WORDS).join(' ');

/** The overlap coefficient of two texts' word sets, 0..1 (0 when either has no words). */
export const tokenOverlap = (a: string, b: string): number => {
  const x = wordSetOf(a);
  const y = wordSetOf(b);
  if (x.size === 0 || y.size === 0) return 0;
  let shared = 0;
  for (const w of x) if (y.has(w)) shared++;
  return shared / Math.min(x.size, y.size);
};

/** The longest run of consecutive words `text` shares with `source`. */
export const longestSharedRun = (text: string, source: string): number => {
  const a = wordsOf(text);
  const b = wordsOf(source);
  if (a.length === 0 || b.length === 0) return 0;
  // Dynamic programming over the two word lists, one row at a time.
  let previous = new Uint16Array(b.length + 1);
  let best = 0;
  for (let i = 1; i <= a.length; i++) {
    const row = new Uint16Array(b.length + 1);
    for (let j = 1; j <= b.length; j++) {
      if (a[i - 1] === b[j - 1]) {
        row[j] = previous[j - 1]! + 1;
        if (row[j]! > best) best = row[j]!;
      }
    }
    previous = row;
  }
  return best;
};

/** A line as the screen keeps it: its text and, computed once, its normal form. */
export interface SpokenLine {
  speaker: string;
  text: string;
  ai: boolean;
  normal: string;
}

export const spokenLine = (speaker: string, text: string, ai: boolean): SpokenLine => ({ speaker, text, ai, normal: normalizeLine(text) });

/**
 * A protected text's parts outside quotation marks. Someone's words quoted in a fact ("Henry told
 * her, "Elena and I need to talk…"") are what a persona who heard them says again, word for word;
 * the rest of the fact is not.
 */
export const unquotedParts = (text: string): string[] => text.split(/["“”][^"“”]*["“”]/);

/** The word runs one longer than may be quoted, of each protected text: a line containing one quotes too much. */
export const quotableRuns = (texts: readonly string[]): Set<string> => {
  const runs = new Set<string>();
  for (const text of texts) {
    for (const part of unquotedParts(text)) {
      const words = wordsOf(part);
      for (let i = 0; i + MAX_QUOTED_WORDS < words.length; i++) runs.add(words.slice(i, i + MAX_QUOTED_WORDS + 1).join(' '));
    }
  }
  return runs;
};

const quotes = (words: readonly string[], runs: ReadonlySet<string>): boolean => {
  if (runs.size === 0) return false;
  for (let i = 0; i + MAX_QUOTED_WORDS < words.length; i++) if (runs.has(words.slice(i, i + MAX_QUOTED_WORDS + 1).join(' '))) return true;
  return false;
};

/** What the screen compares a line with. */
export interface ScreenContext {
  /** Every line said this session so far, in order. */
  spoken: readonly SpokenLine[];
  /** Runs of MAX_QUOTED_WORDS + 1 words of the texts nobody may quote (private knowledge, anyone's): see `quotableRuns`. */
  protectedRuns: ReadonlySet<string>;
}

export type ScreenVerdict =
  | { ok: true; similarity: number }
  | { ok: false; similarity: number; reason: 'verbatim' | 'near-duplicate' | 'similar' | 'quotes-knowledge' };

/**
 * Whether `speaker` may say `text` now. `partial`: only the beginning of the line is known (the
 * first clause, before it is voiced), so only what a beginning can already fail is judged: a
 * quotation, and a beginning that repeats one of the speaker's own lines word for word.
 */
export const screenLine = (context: ScreenContext, speaker: string, text: string, partial = false): ScreenVerdict => {
  const own: string[] = [];
  for (const line of context.spoken) if (line.speaker === speaker) own.push(line.text);
  const similarity = partial ? 0 : maxSimilarity(text, own.slice(-5));
  const words = wordsOf(text);
  if (words.length === 0) return { ok: true, similarity };
  if (partial) {
    // A beginning of six words or more that begins one of the speaker's own lines word for word is that line again.
    const start = words.join(' ');
    if (words.length >= PARTIAL_REPEAT_WORDS && context.spoken.some((line) => line.speaker === speaker && line.normal.startsWith(start))) return { ok: false, similarity, reason: 'verbatim' };
  } else {
    const normal = words.join(' ');
    if (context.spoken.some((line) => line.normal === normal)) return { ok: false, similarity, reason: 'verbatim' };
    // A short acknowledgement ("Yes, exactly.") is judged by its opening; a near-duplicate needs substance.
    if (words.length >= 4 && own.some((earlier) => wordsOf(earlier).length >= 4 && tokenOverlap(text, earlier) >= NEAR_DUPLICATE)) {
      return { ok: false, similarity, reason: 'near-duplicate' };
    }
    if (similarity > REPETITION_THRESHOLD) return { ok: false, similarity, reason: 'similar' };
  }
  if (quotes(words, context.protectedRuns)) return { ok: false, similarity, reason: 'quotes-knowledge' };
  return { ok: true, similarity };
};
