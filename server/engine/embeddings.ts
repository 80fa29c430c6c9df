/**
 * Word vectors for sentence similarity (issue 14): the table similarity.ts compares with, and the
 * port through which the engine is given it. The table is a constant of the installation, read
 * from disk by the shell (providers/word-vectors.ts: GloVe 6B, 100 dimensions, all-but-the-top,
 * quantised); the engine never reads a file (STYLE.md, "functional core"), so every comparison
 * stays a pure function of its texts and the table.
 *
 * A program that runs the engine provides the table once, at start, before the first comparison;
 * until one does (the browser has none), texts are compared by their words.
 *
 * ```ts
 * provideWordVectors(installedWordVectors); // the server, the CLIs, the benches, the tests' setup
 * const table = wordVectors(); // null: compare by words
 * const row = table?.rowOf('greenhouse') ?? -1;
 * ```
 */

/** A table of word vectors, most frequent word first. */
export interface WordVectors {
  dims: number;
  rows: number;
  /** The row of a lower-case word, or -1 when the table does not know it. */
  rowOf(word: string): number;
  /** Adds `weight` times the vector of `row` to `into`. */
  addTo(into: Float32Array, row: number, weight: number): void;
  /** The word's rank by frequency in the source corpus (0 for "the"). */
  rankOf(row: number): number;
  /** How many words the source corpus ranks: what a frequency rank is out of. */
  sourceWords: number;
  /** The typical length of a word vector, for words the table does not know. */
  typicalNorm: number;
}

let provided: () => WordVectors | null = () => null;

/** Gives the engine its word vectors: `load` is asked on the first comparison (reading them takes a moment). */
export const provideWordVectors = (load: () => WordVectors | null): void => {
  provided = load;
};

/** The word vectors the engine was given; null when none were (texts are then compared by their words). */
export const wordVectors = (): WordVectors | null => provided();
