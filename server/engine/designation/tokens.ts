/**
 * Stage 2 of detectDesignation (index.ts): an utterance as the rules read it. Tokens are words
 * with the punctuation that follows them; participants' names (names.ts) collapse into one token
 * `qqn<i>` (`qqp<i>` for a possessive "Nora's"), where i is the token's own index, so a rule
 * can say "a name" without knowing who is in the room. The words are split into sentence units
 * and clauses, since a first pair part starts where a clause starts (pair-rules.ts).
 *
 *   parseUtterance('Nora, can you check? Thanks.', nameIndexFor(['Nora', 'Omar']), 'omar');
 *   // joined 'qqn0 can you check thanks', two units, the first asked with two clauses
 */
import { APOSTROPHES, AUX_WORDS, BLOCKERS, foldDecomposed, GROUP_NOUNS, GROUP_VOCATIVES, MARKERS, MARKS, NOUN_CONTEXT, QUOTES, TITLE_ABBREVIATIONS, WH_WORDS, words } from './lexicon';
import { type NameIndex, POLITE_TITLES, resolveAlias, TITLE_FORMS } from './names';


interface Word {
  /** Folded word, or `qqn<i>` / `qqp<i>` for a name. */
  readonly w: string;
  /** Punctuation right after the word, without spaces. */
  readonly punct: string;
  /** Whitespace follows the word (so "3.5" does not end a sentence). */
  readonly spaced: boolean;
  /** Written as "@name". */
  readonly at: boolean;
  /** The participant a name token refers to; null when the name is ambiguous; undefined for other words. */
  readonly name?: string | null;
  readonly possessive?: boolean;
}

export interface Span {
  readonly from: number;
  /** Exclusive. */
  readonly to: number;
}

export interface Unit extends Span {
  /** The sentence ends with a question mark. */
  readonly asked: boolean;
  readonly clauses: readonly Span[];
}

/** An utterance as the rules read it: its words, and its sentence units split into clauses. */
export interface ParsedUtterance {
  readonly words: readonly Word[];
  /** All words joined by single spaces; the rules are regular expressions over slices of it. */
  readonly joined: string;
  readonly starts: readonly number[];
  readonly units: readonly Unit[];
}

const WORD = /[\p{L}\p{N}]+(?:'[\p{L}\p{N}]+)*/gu;
/** Function words that are also names ("Will", "May") count as names only when written like one. */
const FUNCTION_NAMES = new Set([...AUX_WORDS, ...MARKERS, ...BLOCKERS, ...WH_WORDS]);

interface RawWord {
  readonly text: string;
  readonly w: string;
  readonly punct: string;
  readonly spaced: boolean;
  readonly at: boolean;
}

/** A quotation inside a turn: 'Marcus, please fix the logo' or "can you hear me". */
const QUOTED = /(?<=^|[\s([{:,\u2014\u2013-])(['"])(?=[\p{L}\p{N}])((?:[^'"]|(?<=[\p{L}\p{N}])'(?=[\p{L}\p{N}]))*?)(?<=[\p{L}\p{N}.!?,])\1(?=$|[\s.,!?;:)\]}\u2014\u2013-])/gu;
const QUOTE_MARKS = /['"]/g;

/**
 * Quoted words ("The client wrote 'Marcus, please fix the logo'") report someone else's turn: they
 * collapse into one placeholder word, so their names and first pair parts do not count. A turn that
 * is all quotation is read as it is.
 */
const unquote = (words: readonly RawWord[], spans: ReadonlyArray<readonly [number, number]>, starts: readonly number[]): RawWord[] => {
  const inside = (k: number): boolean => spans.some(([a, b]) => (starts[k] ?? -1) >= a && (starts[k] ?? -1) < b);
  if (words.every((_, k) => inside(k))) return [...words];
  const out: RawWord[] = [];
  for (let k = 0; k < words.length; k++) {
    const word = words[k];
    if (!word) continue;
    if (!inside(k)) {
      out.push(word);
      continue;
    }
    let end = k;
    while (end + 1 < words.length && inside(end + 1)) end++;
    const before = out[out.length - 1];
    if (before) out[out.length - 1] = { ...before, punct: before.punct.replace(QUOTE_MARKS, '') };
    const last = words[end] ?? word;
    // Keep only what follows the closing mark: the quotation's own "?" does not ask anything.
    const after = last.punct.slice(Math.max(last.punct.lastIndexOf("'"), last.punct.lastIndexOf('"')) + 1);
    out.push({ text: 'qquote', w: 'qquote', punct: after, spaced: last.spaced, at: false });
    k = end;
  }
  return out;
};

const rawWords = (text: string): RawWord[] => {
  const clean = text.replace(APOSTROPHES, "'").replace(QUOTES, '"').normalize('NFD').replace(MARKS, '');
  const matches = [...clean.matchAll(WORD)];
  const spans = /['"]/.test(clean) ? [...clean.matchAll(QUOTED)].map((m) => [m.index ?? 0, (m.index ?? 0) + m[0].length] as const) : [];
  const words = matches.map((m, i) => {
    const start = m.index ?? 0;
    const end = start + m[0].length;
    const previous = matches[i - 1];
    const before = clean.slice(previous ? (previous.index ?? 0) + previous[0].length : 0, start);
    const gap = clean.slice(end, matches[i + 1]?.index ?? clean.length);
    // Most words are followed by a single space.
    const plain = gap === ' ';
    return {
      text: m[0],
      w: foldDecomposed(m[0]),
      punct: plain ? '' : gap.replace(/\s+/g, '').replace(/@$/, ''),
      spaced: plain || /\s/.test(gap) || i === matches.length - 1,
      at: before !== ' ' && before.trimEnd().endsWith('@'),
    };
  });
  return collapseRepeats(expandContractions(spans.length > 0 ? unquote(words, spans, matches.map((m) => m.index ?? 0)) : words));
};

/** "we'll" folds to the marker "well": spell it out so "we'll circle back" stays a statement. */
const expandContractions = (words: RawWord[]): RawWord[] => {
  if (!words.some((r) => r.w === 'well' && r.text.includes("'"))) return words;
  return words.flatMap((r) =>
    r.w === 'well' && r.text.includes("'")
      ? [
          { ...r, text: 'we', w: 'we', punct: '', spaced: true },
          { ...r, text: 'will', w: 'will', at: false },
        ]
      : [r],
  );
};

/**
 * Speech recognition keeps disfluent repetitions: "can can you", "did did aigerim", "was that was
 * that". A word or pair of words said twice in one breath counts once.
 */
const collapseRepeats = (words: RawWord[]): RawWord[] => {
  const out: RawWord[] = [];
  for (let i = 0; i < words.length; i++) {
    const r = words[i];
    if (!r) continue;
    const last = out[out.length - 1];
    if (last && last.w === r.w && last.punct === '' && /^[\p{L}]/u.test(r.w)) {
      out[out.length - 1] = { ...r, at: last.at || r.at };
      continue;
    }
    const twoBack = out[out.length - 2];
    const next = words[i + 1];
    if (twoBack && last && next && twoBack.w === r.w && last.w === next.w && twoBack.punct === '' && last.punct === '' && r.punct === '') {
      out[out.length - 1] = { ...next, at: last.at || next.at };
      i++;
      continue;
    }
    out.push(r);
  }
  return out;
};

const markNames = (raw: readonly RawWord[], index: NameIndex, speaker: string): Word[] => {
  const out: Word[] = [];
  for (let i = 0; i < raw.length; ) {
    let matched = 0;
    // Most words start no name (a possessive "noras" may end one: "nora").
    const w = raw[i]!.w;
    const starts = index.firstWords.has(w) || index.firstWords.has(w.slice(0, -1));
    for (let n = starts ? Math.min(index.longest, raw.length - i) : 0; n >= 1 && !matched; n--) {
      const run = raw.slice(i, i + n);
      if (run.slice(0, -1).some((r) => !/^[.-]?$/.test(r.punct))) continue;
      const last = run[run.length - 1];
      const first = run[0];
      if (!last || !first) continue;
      const key = run.map((r) => r.w).join(' ');
      const possessive = /'s$/i.test(last.text);
      const list = index.aliases.get(key) ?? (possessive ? index.aliases.get(key.slice(0, -1)) : undefined);
      if (!list) continue;
      if (n === 1 && FUNCTION_NAMES.has(key) && !writtenAsName(raw, i) && !calledByPosition(raw, i)) continue;
      if (partOfAnotherName(raw, i, index)) continue;
      if (n === 1 && usedAsWord(raw, i)) continue;
      const who = resolveAlias(list, speaker);
      if (who === 'self') break;
      const k = out.length;
      out.push({
        w: `${possessive ? 'qqp' : 'qqn'}${k}`,
        punct: last.punct,
        spaced: last.spaced,
        at: first.at,
        name: who,
        possessive,
      });
      matched = n;
    }
    if (matched) {
      i += matched;
      continue;
    }
    const r = raw[i];
    if (r) out.push({ w: r.w, punct: r.punct, spaced: r.spaced, at: r.at });
    i++;
  }
  return out;
};

/** Subjects and determiners after which a lower-case name that is also a word is that word: "I hope", "we bill", "the summer". */
const WORD_CONTEXT = words('i we they he she ill id well wed youll theyll ive weve the a an this that last next every our my your his her their its');

/** "i hope you like it", "we bill monthly", "this summer": a participant's name used as the word it also is. */
const usedAsWord = (raw: readonly RawWord[], i: number): boolean => {
  const previous = raw[i - 1];
  const r = raw[i];
  if (!previous || !r || r.at || previous.punct !== '' || !WORD_CONTEXT.has(previous.w) || TITLE_FORMS[r.w]) return false;
  // Written with a capital mid-sentence ("I asked Hope", "the Summer Reyes report") it stays a name.
  return !/^\p{Lu}/u.test(r.text);
};

/**
 * "Henry Ashcombe" is not Vivian Ashcombe: a name preceded, with nothing between, by a capitalised
 * word that is not itself a participant's name or a title belongs to someone else.
 */
const partOfAnotherName = (raw: readonly RawWord[], i: number, index: NameIndex): boolean => {
  const previous = raw[i - 1];
  if (!previous || previous.punct !== '' || previous.at || !/^\p{Lu}\p{Ll}/u.test(previous.text)) return false;
  const sentenceStart = i - 1 === 0 || /[.!?:]/.test(raw[i - 2]?.punct ?? '');
  if (sentenceStart) return false;
  return !index.aliases.has(previous.w) && !POLITE_TITLES.includes(previous.w) && !TITLE_ABBREVIATIONS.has(previous.w);
};

/** "Will, can you ..." or "@will" is a name; "will you ..." is not. */
const writtenAsName = (raw: readonly RawWord[], i: number): boolean => {
  const r = raw[i];
  if (!r) return false;
  if (r.at) return true;
  if (!/^\p{Lu}/u.test(r.text)) return false;
  const sentenceStart = i === 0 || /[.!?]/.test(raw[i - 1]?.punct ?? '');
  return !sentenceStart || /[,:!?]/.test(r.punct);
};

/** Subjects that make "will can you ..." a name and a question: an auxiliary cannot follow "will" or "miss". */
const CALLED_SUBJECTS = words('you u ya i we it this that the there everyone anyone everybody anybody someone somebody your');

/**
 * "will can you deal this round", "miss can i go first": unpunctuated speech loses the capital and
 * the comma, but a word that is also a name, said first and followed by a question's auxiliary and
 * subject, can only be calling someone ("will do" and "will you two stop" stay verbs).
 */
const calledByPosition = (raw: readonly RawWord[], i: number): boolean => {
  const next = raw[i + 1];
  if (!next || raw[i]?.punct) return false;
  const previous = raw[i - 1];
  if (previous && !/[.!?,:;]/.test(previous.punct) && !MARKERS.has(previous.w)) return false;
  if (WH_WORDS.has(next.w) || /^(?:whats|whos|wheres|whens|whys|hows)$/.test(next.w)) return true;
  return AUX_WORDS.has(next.w) && !next.punct && CALLED_SUBJECTS.has(raw[i + 2]?.w ?? '');
};

const endsSentence = (word: Word, isLast: boolean): boolean => {
  if (/[!?;…]/.test(word.punct)) return true;
  if (!word.punct.includes('.')) return false;
  if (word.punct === '.' && (TITLE_ABBREVIATIONS.has(word.w) || /^\p{L}$/u.test(word.w))) return false;
  return word.spaced || isLast;
};

const endsClause = (word: Word): boolean => /[,:()"[\]{}—–/]/.test(word.punct) || (word.punct.includes('-') && word.spaced);

export const parseUtterance = (text: string, index: NameIndex, speaker: string): ParsedUtterance => {
  const ws = markNames(rawWords(text), index, speaker);
  const starts: number[] = [];
  let joined = '';
  for (const word of ws) {
    if (joined) joined += ' ';
    starts.push(joined.length);
    joined += word.w;
  }
  const units: Unit[] = [];
  let from = 0;
  let clauseFrom = 0;
  let clauses: Span[] = [];
  ws.forEach((word, i) => {
    const last = i === ws.length - 1;
    if (endsSentence(word, last) || last) {
      clauses.push({ from: clauseFrom, to: i + 1 });
      units.push({ from, to: i + 1, asked: word.punct.includes('?'), clauses });
      from = clauseFrom = i + 1;
      clauses = [];
    } else if (endsClause(word)) {
      clauses.push({ from: clauseFrom, to: i + 1 });
      clauseFrom = i + 1;
    }
  });
  return { words: ws, joined, starts, units };
};

export const textOf = (t: ParsedUtterance, from: number, to: number): string => {
  if (from >= to) return '';
  const start = t.starts[from] ?? 0;
  const lastStart = t.starts[to - 1] ?? start;
  return t.joined.slice(start, lastStart + (t.words[to - 1]?.w.length ?? 0));
};

export const wordAt = (t: ParsedUtterance, i: number): string => t.words[i]?.w ?? '';
export const isName = (t: ParsedUtterance, i: number): boolean => {
  const word = t.words[i];
  return word?.name !== undefined && !word.possessive;
};
/**
 * "team" or "friends" address the room ("thanks team", "what do you think team"), except as the
 * noun of a phrase: "for the data team", "is she making friends".
 */
const isGroupVocative = (t: ParsedUtterance, i: number): boolean => {
  const w = wordAt(t, i);
  if (!GROUP_VOCATIVES.has(w)) return false;
  if (!GROUP_NOUNS.has(w)) return true;
  const before = t.words[i - 1];
  if (!before || before.punct !== '') return true;
  if (NOUN_CONTEXT.has(before.w) || before.w.endsWith('ing')) return false;
  const twoBack = t.words[i - 2];
  return !(twoBack && twoBack.punct === '' && NOUN_CONTEXT.has(twoBack.w));
};
export const isVocativeWord = (t: ParsedUtterance, i: number): boolean => isName(t, i) || isGroupVocative(t, i);
