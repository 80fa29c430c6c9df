/**
 * The clause chunker between the generator's text stream and speech synthesis: synthesis starts
 * on the first clause instead of waiting for the whole reply (DESIGN §3, "first audio after the
 * first clause"). Later clauses queue behind it without gaps.
 *
 * A clause ends at a sentence end (. ! ? …) followed by a space, or at a comma, semicolon, colon
 * or dash once it has at least `minWords` words (a two-word "Well, " is not worth a synthesis
 * round trip). Abbreviations ("Dr.", "e.g."), decimals ("3.5") and times ("9:30") never end one.
 * The first clause may be shorter (`firstMinWords`; a line's uses 1): a reply that opens with
 * "Nadia, …" or "Well, …" is heard as soon as that word is synthesized, while the rest of the
 * sentence is synthesized behind it, and a speaker pauses at that comma anyway.
 *
 * A line is chunked once (`lineChunker`): the conversation's screen reads its first clauses
 * (`enoughToScreen`: a sentence, or four words) before anything is shown or heard, and speech
 * (speech.ts) speaks the same clauses; a line the engine wrote itself is chunked whole (`clausesOf`).
 *
 * ```ts
 * const chunker = lineChunker();
 * for await (const delta of generator.stream(request)) for (const clause of chunker.push(delta)) speak(clause);
 * for (const clause of chunker.flush()) speak(clause);
 * ```
 */
import { countWords } from '../../shared/words';

const abbreviations = new Set(['dr', 'mr', 'mrs', 'ms', 'prof', 'st', 'vs', 'etc', 'e.g', 'i.e', 'approx', 'no', 'fig', 'jr', 'sr', 'mt']);

export interface ClauseChunker {
  /** Adds text; returns the clauses it completed, in order. */
  push(delta: string): string[];
  /** The rest of the text, as a last clause (if any). */
  flush(): string[];
}

export const createClauseChunker = (options: { minWords?: number; firstMinWords?: number } = {}): ClauseChunker => {
  const minWords = options.minWords ?? 4;
  const firstMinWords = options.firstMinWords ?? minWords;
  let buffer = '';
  let emitted = 0;

  /** Index just past the first clause boundary in `text` that is followed by more text, or -1. */
  const boundary = (text: string): number => {
    for (let i = 0; i < text.length - 1; i++) {
      const ch = text[i]!;
      const next = text[i + 1]!;
      if (!/\s/.test(next)) continue;
      if (ch === '.' || ch === '!' || ch === '?' || ch === '…') {
        if (ch === '.') {
          const word = /([\p{L}.]+)\.$/u.exec(text.slice(0, i + 1))?.[1] ?? '';
          if (abbreviations.has(word.toLowerCase()) || /^\p{Lu}$/u.test(word)) continue;
        }
        return i + 1;
      }
      if ((ch === ',' || ch === ';' || ch === ':' || ch === '—' || ch === '–') && countWords(text.slice(0, i)) >= (emitted === 0 ? firstMinWords : minWords)) return i + 1;
    }
    return -1;
  };

  return {
    push(delta) {
      buffer += delta;
      const clauses: string[] = [];
      for (let cut = boundary(buffer); cut >= 0; cut = boundary(buffer)) {
        const clause = buffer.slice(0, cut).trim();
        buffer = buffer.slice(cut).replace(/^\s+/, '');
        if (clause) clauses.push(clause);
        emitted += clause ? 1 : 0;
      }
      return clauses;
    },
    flush() {
      const rest = buffer.trim();
      buffer = '';
      emitted = 0;
      return rest ? [rest] : [];
    },
  };
};

/** A line's chunker: its first clause may be one word ("Nadia,"), so its first audio comes sooner. */
export const lineChunker = (): ClauseChunker => createClauseChunker({ firstMinWords: 1 });

/** A whole text's clauses, as a line's chunker cuts them. */
export const clausesOf = (text: string): string[] => {
  const chunker = lineChunker();
  return [...chunker.push(text), ...chunker.flush()];
};

/** The fewest words the screen judges a line's start by, unless a sentence ends sooner. */
export const SCREEN_MIN_WORDS = 4;

/** Whether a line's first clauses are enough for the screen to judge it: a whole sentence, or SCREEN_MIN_WORDS words. */
export const enoughToScreen = (clauses: readonly string[]): boolean =>
  clauses.length > 0 && (/[.!?…]$/.test(clauses.at(-1)!) || countWords(clauses.join(' ')) >= SCREEN_MIN_WORDS);
