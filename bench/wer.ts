/**
 * Word error rate, as speech recognition papers report it: (substitutions + deletions +
 * insertions) / words in the reference, over words compared after the usual normalisation
 * (lower case, punctuation out, hyphens and apostrophes' variants folded), so "Hello, Nora!"
 * and "hello nora" agree.
 *
 * ```ts
 * wordErrors('The budget is ready.', 'the budget was ready'); // { errors: 1, words: 4 }
 * wordErrorRate([{ reference: 'a b c d', hypothesis: 'a b d' }]); // 0.25
 * ```
 */

/** Words of a transcript, normalised for comparison. */
export const wordsOf = (text: string): string[] =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[’‘`]/g, "'")
    .replace(/[-–—/]/g, ' ')
    .replace(/[^\p{L}\p{N}'\s]/gu, ' ')
    .split(/\s+/)
    .map((word) => word.replace(/^'+|'+$/g, ''))
    .filter(Boolean);

/** The fewest word substitutions, deletions and insertions that turn `reference` into `hypothesis` (Levenshtein over words). */
export const wordErrors = (reference: string, hypothesis: string): { errors: number; words: number } => {
  const [ref, hyp] = [wordsOf(reference), wordsOf(hypothesis)];
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const row = [i];
    for (let j = 1; j <= hyp.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return { errors: previous[hyp.length]!, words: ref.length };
};

/** Corpus WER: all errors over all reference words (not the mean of each clip's rate). */
export const wordErrorRate = (pairs: readonly { reference: string; hypothesis: string }[]): number => {
  let errors = 0;
  let words = 0;
  for (const { reference, hypothesis } of pairs) {
    const counted = wordErrors(reference, hypothesis);
    errors += counted.errors;
    words += counted.words;
  }
  if (words === 0) throw new Error('wordErrorRate: the references have no words');
  return errors / words;
};
