/**
 * Paraphrase: private knowledge is said in the persona's own words, never more than
 * `MAX_QUOTED_WORDS` consecutive words of the scene's text (novelty.ts). A fact is restructured
 * the way people retell things: one part of it at a time, the time first ("At half past nine, I
 * ..."), clock times and percentages as they are spoken, an everyday word for one of the scene's
 * ("the police arrived"), and, as a last resort, a hedge ("..., as far as I know, ...").
 *
 * ```ts
 * retellings('I left the cellar at 9:35; Henry was alive and angry', quoting(sources), rng);
 * // ['At twenty-five to ten, I left the cellar; Henry was alive and angry.', 'Henry was alive and angry. ...', ...]
 * ```
 */
import { memoize } from '../../../engine/memo';
import { MAX_QUOTED_WORDS, unquotedParts, wordsOf } from '../../../engine/novelty';
import type { Rng } from '../../../../shared/rng';
import { capitalise, clause, sentence, verbWords, wordCount } from './words';

const small = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'quarter', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty'];

const numberWord = (n: number): string => (n <= 20 ? small[n]! : n < 30 ? `twenty-${small[n - 20]}` : String(n));

const hourWord = (h: number): string => small[((h + 11) % 12) + 1]!;

/** A clock time as it is said: "9:35" is "twenty-five to ten", "10:15" "quarter past ten". */
const spokenTime = (hours: number, minutes: number): string => {
  if (minutes === 0) return `${hourWord(hours)} o'clock`;
  if (minutes === 30) return `half past ${hourWord(hours)}`;
  if (minutes < 30) return `${minutes === 15 ? 'quarter' : numberWord(minutes)} past ${hourWord(hours)}`;
  const to = 60 - minutes;
  return `${to === 15 ? 'quarter' : numberWord(to)} to ${hourWord(hours + 1)}`;
};

/** A percentage as a proportion: "19%" is "almost one in five", "8%" "about one in twelve". */
const spokenShare = (percent: number): string | undefined => {
  if (percent <= 0 || percent >= 50) return undefined;
  const n = Math.round(100 / percent);
  const exact = 100 / n;
  const hedge = Math.abs(exact - percent) < 0.5 ? 'one in' : exact > percent ? 'almost one in' : 'a bit more than one in';
  return `${hedge} ${numberWord(n)}`;
};

/** Numbers said the way people say them, which also breaks the scene's wording. */
// Memoised: a persona's knowledge is retold on every turn it may be said.
const speakNumbers = memoize((text: string): string =>
  text
    .replace(/\b(?:at )?(?:about|around|roughly) (\d{1,2})[:.](\d{2})(?:\s?(am|pm))?\b/gi, (_, h: string, m: string) => `around ${spokenTime(Number(h), Number(m))}`)
    .replace(/\b(\d{1,2})[:.](\d{2})(?:\s?(am|pm))?\b/gi, (_, h: string, m: string) => spokenTime(Number(h), Number(m)))
    .replace(/\b(\d{1,2}(?:\.\d)?)%(?= of\b)/g, (whole, p: string) => spokenShare(Number(p)) ?? whole)
    .replace(/\b(\d{1,2})%/g, (_, p: string) => `${p} percent`)
    .replace(/\b(\d{1,2})\s?(am|pm)\b/gi, (_, h: string, half: string) => `${hourWord(Number(h))} in the ${half.toLowerCase() === 'am' ? 'morning' : Number(h) >= 6 && Number(h) < 12 ? 'evening' : 'afternoon'}`),
);

/** A time said first: "Dr. Marsh asked me at 10:15 to wash it" is "At 10:15, Dr. Marsh asked me to wash it". */
const frontAdverbial = (text: string): string | undefined => {
  const m = text.match(
    /^(.{8,}?)\s+((?:at|around|by|before|after|on|until|since) (?:about |around )?(?:\d{1,2}[:.]\d{2}(?:\s?[ap]m)?|\d{1,2}\s?[ap]m|noon|midnight|dinner|\w+day(?: noon| morning| afternoon| evening| night)?|last night|next \w+|(?:quarter|half|twenty|ten|five|twenty-five)[\w-]* (?:past|to) \w+|\w+ o'clock)|(?:\w+|a) (?:weeks?|days?|months?|years?|hours?) (?:before|after|ago)(?: (?:it|he|she|they|we|I) \w+(?: out| up| down| in)?)?)\b(.*)$/i,
  );
  if (!m) return undefined;
  const [, body, adverbial, tail] = m;
  return `${capitalise(adverbial!)}, ${clause(body!)}${tail!.replace(/^,/, '')}`.replace(/\s{2,}/g, ' ');
};

const startsWithVerb = (clause: string): boolean => {
  const first = clause.split(/\s+/)[0]?.toLowerCase() ?? '';
  return verbWords.has(first) || /^[a-z]{3,}ed$/.test(first) || /^(did|never|then)$/.test(first);
};

/** A clause that leans on the one before it ("there is none in Sam's file", "which ..."): not said on its own. */
const dangling = /^(there (is|are|was|were) none|it|this|that|these|those|they|which|so|he|she|him|her)\b/i;

/**
 * Clauses of a text: "A; B", "A, and B", "A because B", "I did A and did not do B" (the second
 * clause takes the first one's subject: "I did not do B").
 */
const clausesOf = (text: string): string[] => {
  const subject = text.match(/^(I|We|My \w+)\b/)?.[1];
  return text
    .replace(/[.!]+$/, '')
    .split(/\s*;\s*|,\s+(?=(?:and|but|so|though|which|as always)\b)|\.\s+|\s+(?=because\b)|\s+and\s+(?=(?:did|was|had|have|never|then|put|left|went|told|took|saw|heard)\b)/)
    .map((c) => c.replace(/^(and|but|so|though)\s+/i, '').trim())
    // A part that starts with a verb takes the first part's subject, or is not said alone.
    .map((c) => (startsWithVerb(c) ? (subject ? `${subject} ${c}` : '') : c))
    .filter((c) => wordCount(c) >= 3);
};

/**
 * Everyday substitutes for words a retelling would otherwise share with the scene's text: the
 * first way to break a long run ("the police came" becomes "the police arrived").
 */
const synonyms: Record<string, string> = {
  came: 'arrived', saw: 'noticed', asked: 'told', heard: 'caught', quietly: 'softly',
  wash: 'rinse', washed: 'rinsed', carrying: 'holding', carried: 'brought', recognised: 'knew', recognized: 'knew', unlocked: 'open',
  surprised: 'startled', checked: 'looked at', started: 'began', requires: 'needs', require: 'need', wants: 'would like', must: 'has to',
  because: 'since', already: 'by then', only: 'just', found: 'discovered', took: 'picked up', planned: 'scheduled', nobody: 'no one',
  sometimes: 'at times', skipped: 'passed on', refused: 'turned down', includes: 'counts', include: 'count', exclude: 'leave out',
  excludes: 'leaves out', exactly: 'right',
  staffed: 'assigned', joined: 'came in', likely: 'apt', three: '3', two: '2', four: '4', five: '5',
  quit: 'left', repeated: 'constant', clashes: 'run-ins', rewrote: 'redid', telling: 'warning', told: 'said to', internal: 'in-house',
  final: 'last', may: 'might', impressed: 'convinced', appointment: 'meeting', passed: 'went past', walking: 'heading', knew: 'realised',
  hoped: 'expected', emailed: 'written to', reply: 'answer', filed: 'raised', concern: 'complaint', identify: 'name', absorb: 'take',
  budget: 'money', pilot: 'trial', rate: 'figure', errors: 'failures', added: 'put in', company: 'firm', rather: 'prefer',
  yesterday: 'the other day', noon: 'midday', colleague: 'contact', houses: 'homes', newer: 'more recent', units: 'systems',
  students: 'people', close: 'quit', asks: 'wants', slip: 'move', estimate: 'forecast', release: 'launch', removed: 'got rid of',
  positions: 'places', get: 'receive', got: 'received', also: 'as well', need: 'have', talk: 'speak',
  change: 'update', cut: 'dropped', promised: 'committed', sold: 'pitched', keeps: 'goes on', believes: 'thinks',
  worried: 'concerned', afraid: 'scared', angry: 'furious', argued: 'quarrelled', argument: 'row', shouting: 'yelling',
  wanted: 'hoped', decided: 'chose', missed: 'skipped', wrote: 'put down', showed: 'made clear', signed: 'agreed',
  toward: 'towards', towards: 'toward', hall: 'hallway', door: 'doorway',
};

// Not "if I remember right": its "right" reads as a tag question ("…, right?") and the line as a question.
const hedges = ['as far as I know', 'if I remember correctly', 'I think', 'mind you'];

const hedgesIn = (text: string): number => hedges.filter((h) => text.includes(`, ${h},`)).length;

/** Whether a retelling needed a hedge to avoid quoting. */
export const isHedged = (text: string): boolean => hedgesIn(text) > 0;

const boundary = /^(in|on|at|to|for|from|with|by|about|over|after|before|because|and|but|so|when|while|which|that|who|though|although|until|since|without|toward|towards|into|through|during|i|he|she|we|they)$/;

const wordSpans = (text: string): { word: string; index: number }[] =>
  [...text.matchAll(/[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu)].map((m) => ({ word: m[0].toLowerCase().replace(/’/g, "'"), index: m.index! }));

const insideQuote = (text: string, index: number): boolean => (text.slice(0, index).match(/["“”]/g)?.length ?? 0) % 2 === 1;

/** Whether a text quotes more than `MAX_QUOTED_WORDS` consecutive words of any of the sources it was made for. */
export interface Quoting {
  (text: string): boolean;
  /** The word index where the first quoted run starts in `text`, or -1. */
  at(text: string): number;
}

const GRAM = MAX_QUOTED_WORDS + 1;

/** A source's (n+1)-grams, built once per source: a persona's knowledge is checked against on every turn. */
const gramsOf = memoize((source: string): ReadonlySet<string> => {
  const grams = new Set<string>();
  for (const part of unquotedParts(source)) {
    const words = wordsOf(part);
    for (let i = 0; i + GRAM <= words.length; i++) grams.add(words.slice(i, i + GRAM).join(' '));
  }
  return grams;
});

/**
 * A quote check by the sources' (n+1)-grams: linear in the text. One per set of sources (a
 * persona's knowledge), so what is retold from them is remembered with it.
 */
export const quoting = (sources: readonly string[]): Quoting => quotingOf(sources.join('\u0000'));

const quotingOf = memoize((joined: string): Quoting => {
  const grams = (joined ? joined.split('\u0000') : []).map(gramsOf).filter((g) => g.size > 0);
  const at = (text: string): number => {
    if (!grams.length) return -1;
    const words = wordsOf(text);
    for (let i = 0; i + GRAM <= words.length; i++) {
      const gram = words.slice(i, i + GRAM).join(' ');
      if (grams.some((g) => g.has(gram))) return i;
    }
    return -1;
  };
  return Object.assign((text: string) => at(text) >= 0, { at });
}, 256);

/**
 * Breaks every quoted run: a word in the run's middle swapped for an everyday substitute, else a
 * hedge inserted there (never inside a quotation or after a determiner). Undefined when a run
 * cannot be broken.
 */
const breakRuns = (text: string, quotes: Quoting, rng: Rng): string | undefined => {
  let said = text;
  for (let round = 0; round < 4; round++) {
    const start = quotes.at(said);
    if (start < 0) return said;
    const spans = wordSpans(said);
    const middle = [4, 3, 5, 2, 6, 1, 7].map((k) => start + k).filter((i) => i < spans.length);
    const swap = middle.find((i) => synonyms[spans[i]!.word] && !insideQuote(said, spans[i]!.index));
    if (swap !== undefined) {
      const { word, index } = spans[swap]!;
      const substitute = synonyms[word]!;
      const cased = /^[A-Z]/.test(said.charAt(index)) ? capitalise(substitute) : substitute;
      said = `${said.slice(0, index)}${cased}${said.slice(index + word.length)}`;
      continue;
    }
    // A hedge goes between phrases: before a preposition, a conjunction or a pronoun, never inside a noun phrase.
    const gap = middle.find((i) => i > 0 && !insideQuote(said, spans[i]!.index) && boundary.test(spans[i]!.word));
    if (gap === undefined) return undefined;
    const index = spans[gap]!.index;
    said = `${said.slice(0, index).replace(/[,\s]+$/, '')}, ${rng.pick(hedges)}, ${said.slice(index)}`;
  }
  return quotes(said) ? undefined : said;
};

/**
 * Ways to retell a first-person text without quoting its sources at length: the whole of it
 * restructured, its parts in reverse order, and each part on its own. Each is a sentence; empty
 * when nothing can be said without quoting.
 */
export const retellings = (text: string, quotes: Quoting, rng: Rng): readonly string[] => {
  let known = settled.get(quotes);
  if (!known) settled.set(quotes, (known = new Map()));
  const remembered = known.get(text);
  if (remembered) return remembered;
  const before = rng.state;
  const told = retell(text, quotes, rng);
  // Unless a hedge had to be drawn by chance, a text is retold the same way on every turn.
  if (rng.state === before) known.set(text, told);
  return told;
};

/** Retellings that drew no chance, by the quote check they were made for and the text retold. */
const settled = new WeakMap<Quoting, Map<string, readonly string[]>>();

const retell = (text: string, quotes: Quoting, rng: Rng): string[] => {
  const parts = clausesOf(text);
  const whole = speakNumbers(text.replace(/[.!]+$/, ''));
  const drafts = [frontAdverbial(whole) ?? whole];
  if (parts.length > 1) {
    drafts.push(
      [...parts]
        .reverse()
        .map((p) => sentence(speakNumbers(p)))
        .join(' '),
    );
    for (const part of parts) {
      const spoken = speakNumbers(part);
      drafts.push(frontAdverbial(spoken) ?? spoken);
    }
  }
  const passing = drafts
    .filter((d) => !dangling.test(d))
    .map((d) => breakRuns(sentence(d), quotes, rng))
    .filter((d): d is string => !!d);
  // The fewer hedges the better; two make a retelling sound evasive.
  // Two hedges are kept only when nothing else says the fact: better evasive than silent about it.
  const told = [...new Set(passing)].sort((a, b) => hedgesIn(a) - hedgesIn(b));
  const plain = told.filter((d) => hedgesIn(d) < 2);
  return plain.length ? plain : told.slice(0, 1);
};
