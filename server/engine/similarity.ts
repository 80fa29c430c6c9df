/**
 * Local text similarity: the stand-in for sentence embeddings in the anti-repetition constraint
 * (MPOD §3.2) and long-term memory retrieval (MMAgents §3.1.2, Eq. 4). Bag of content-word
 * stems plus word bigrams, cosine similarity. Pure and fast; no model download.
 */
import { memoize } from './memo';

const stopwords = new Set(
  ('a an the and or but if so of to in on at by for with from as is are was were be been being am do does did ' +
    'i you he she it we they me him her us them my your his its our their this that these those there here ' +
    'what which who whom how when where why not no yes just very really also too then than can could would should ' +
    'will shall may might must have has had im youre its thats dont doesnt isnt arent wasnt lets about into over ' +
    'up down out off again more most some any all each every both few such only own same other oh um uh well okay ok').split(' '),
);

/** MPOD §3.2: an utterance more similar than this to one of the speaker's last five is a repetition. */
export const REPETITION_THRESHOLD = 0.5;

/** A sparse term-frequency vector. */
export type TermVector = ReadonlyMap<string, number>;

const stem = (word: string): string => word.replace(/(ing|ed|es|s|ly)$/, '') || word;

// Vectors of recent texts are reused: memories and history are compared again every turn.
export const vectorize = memoize((text: string): TermVector => computeVector(text));

const computeVector = (text: string): TermVector => {
  const words = text
    .toLowerCase()
    .replace(/['’]/g, '')
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !stopwords.has(w))
    .map(stem);
  const vector = new Map<string, number>();
  for (let i = 0; i < words.length; i++) {
    vector.set(words[i]!, (vector.get(words[i]!) ?? 0) + 1);
    if (i > 0) {
      const bigram = `${words[i - 1]} ${words[i]}`;
      vector.set(bigram, (vector.get(bigram) ?? 0) + 1);
    }
  }
  return vector;
};

export const cosine = (a: TermVector, b: TermVector): number => {
  if (a.size === 0 || b.size === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [term, weight] of a) {
    na += weight * weight;
    const other = b.get(term);
    if (other !== undefined) dot += weight * other;
  }
  for (const weight of b.values()) nb += weight * weight;
  return dot / Math.sqrt(na * nb);
};

export const similarity = (a: string, b: string): number => cosine(vectorize(a), vectorize(b));

/** The highest similarity of `text` to any of `others` (0 when there are none). */
export const maxSimilarity = (text: string, others: readonly string[]): number => {
  const v = vectorize(text);
  let max = 0;
  for (const other of others) max = Math.max(max, cosine(v, vectorize(other)));
  return max;
};
