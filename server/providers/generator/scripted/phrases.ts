/**
 * Phrases: the noun phrases a line refers back to ("the port decanter", "your reminder
 * redesign"), and the topic as a short phrase to mention in passing. What a speaker picks up from
 * someone's words is said from the speaker's side: "my redesign" heard from Alex is "your
 * redesign" said to Alex.
 *
 * ```ts
 * nounPhrases('I led our reminder redesign last year.', new Set(), 'speaker'); // ['your reminder redesign']
 * topicRef('the launch date for the Aurora app'); // "the launch date"
 * ```
 */
import { memoize, memoizeByIdentity } from '../../../engine/memo';
import {
  adverbs,
  conjunctions,
  describingWords,
  fillerWords,
  functionWords,
  midAdverbs,
  prepositions,
  verbWords,
  vagueNouns,
  wordCount,
  wordSet,
} from './words';

const numberWords = wordSet('one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty hundred thousand million first second third dozen');

/** Words that count rather than name: "the same time every night" has no phrase in "every". */
const quantifiers = wordSet('every each all both either neither several few many much such worth bit lot lots couple');


/** Head nouns that never name anything, even after another noun ("the barrel room one"). */
const empty = wordSet('one ones way ways thing things stuff kind sort part parts side sides');

/** Words that start an object, so what precedes them is a verb. */
const objectStarts = wordSet('the a an my your his her our their this that these those you me him them us it');

const determiners = /^(the|our|your|their|this|my|a|an|his|her)$/;

/**
 * Who the phrase is said to: `speaker` (the person who said it: "my" becomes "your", "your"
 * becomes "my"), or `other` (someone else: "my" becomes "the").
 */
export type Perspective = 'speaker' | 'other';

const nounish = (word: string, first: string | undefined, names: ReadonlySet<string>): boolean => {
  const lower = word.toLowerCase().replace(/’/g, "'");
  if (!/^[A-Za-z0-9]/.test(word)) return false;
  if (functionWords.has(lower) || prepositions.has(lower) || conjunctions.has(lower) || verbWords.has(lower) || fillerWords.has(lower)) return false;
  if (/ly$/.test(lower) || midAdverbs.has(lower) || adverbs.has(lower) || quantifiers.has(lower) || numberWords.has(lower) || names.has(lower.replace(/'s$/, ''))) return false;
  // "it's", "they're", "don't": contractions are no nouns.
  if (/'(s|re|ve|ll|d|t|m)$/.test(lower) && (functionWords.has(lower.split("'")[0]!) || /n't$/.test(lower))) return false;
  // A capitalised word after a lower-case one starts a name: "the winemaker Henry"; an acronym
  // does not ("the two-way SMS feature").
  return !(first && /^[A-Z][a-z]/.test(word) && /^[a-z]/.test(first));
};

const endsBadly = (w: string, before: string | undefined): boolean => {
  const lower = w.toLowerCase();
  if (empty.has(lower)) return true;
  // A vague head noun after a noun names something ("the barrel room"); after an adjective it does not ("the honest read").
  if (vagueNouns.has(lower)) return !before || describingWords.has(before.toLowerCase()) || /ed$/.test(before);
  return describingWords.has(lower) || numberWords.has(lower) || /(ed|'s|’s)$/i.test(w) || /[a-z]{3}est$/.test(lower) || (/ing$/i.test(w) && !!before) || /^\d/.test(w);
};

const trim = (words: string[], next: string | undefined): string[] => {
  const kept = [...words];
  // A word followed by a determiner or object is a verb: "does this match your experience".
  if (next && objectStarts.has(next.toLowerCase())) kept.pop();
  while (kept.length && endsBadly(kept.at(-1)!, kept.at(-2))) kept.pop();
  return kept;
};

const articleFor = (det: string, perspective: Perspective): string => {
  if (det === 'my' || det === 'our') return perspective === 'speaker' ? 'your' : 'the';
  if (det === 'your') return perspective === 'speaker' ? 'my' : 'the';
  if (det === 'this') return 'that';
  return 'the';
};

/**
 * Noun phrases of a text, best first: a determiner and up to three nounish words ("the port
 * decanter"), with an "of the" complement ("the state of the road"), then bare compounds of two
 * or three words ("clinic no-shows"). Never a vague noun ("the point"), a verb ("his father
 * meant") or a name.
 */
export const nounPhrases = (text: string, names: ReadonlySet<string>, perspective: Perspective = 'other'): string[] => {
  const withDeterminer: string[] = [];
  const bare: string[] = [];
  // Words, with a marker where punctuation breaks the phrase.
  const parts = text.replace(/["“”]/g, ' | ').match(/[A-Za-z0-9][A-Za-z0-9'’-]*%?|[^\sA-Za-z0-9]+/g) ?? [];
  const used = new Set<number>();
  for (let i = 0; i < parts.length; i++) {
    const det = parts[i]!.toLowerCase();
    if (!determiners.test(det)) continue;
    const words: string[] = [];
    let j = i + 1;
    // An -ing word after a plural is a verb ("your clinics sending reminders"), after a singular a noun ("the patient booking team").
    for (; j < parts.length && words.length < 3 && nounish(parts[j]!, words[0], names) && !(/s$/i.test(words.at(-1) ?? '') && /ing$/i.test(parts[j]!)); j++) words.push(parts[j]!);
    // Cut short by the length limit ("the table telling bad" of "the table telling bad jokes"): no phrase.
    if (words.length === 3 && j < parts.length && nounish(parts[j]!, words[0], names)) continue;
    // "the state of the road": a head noun with its "of the" complement.
    const of: string[] = [];
    if (words.length && parts[j]?.toLowerCase() === 'of' && parts[j + 1]?.toLowerCase() === 'the') {
      for (let k = j + 2; k < parts.length && of.length < 2 && nounish(parts[k]!, of[0], names); k++) of.push(parts[k]!);
    }
    const tail = trim(of, parts[j + 2 + of.length]);
    const head = tail.length ? words : trim(words, parts[j]);
    if (head.length === 0 || (head.length === 1 && (head[0]!.length < 4 || (det === 'this' && /s$/.test(head[0]!))))) continue;
    if (!tail.length && head.length === 1 && vagueNouns.has(head[0]!.toLowerCase())) continue;
    // "a time", "an idea": an indefinite single noun refers to nothing said.
    if ((det === 'a' || det === 'an' || det === 'his' || det === 'her') && head.length < 2) continue;
    for (let k = i; k < j; k++) used.add(k);
    const phrase = `${articleFor(det, perspective)} ${head.join(' ')}${tail.length ? ` of the ${tail.join(' ')}` : ''}`;
    if (!withDeterminer.includes(phrase)) withDeterminer.push(phrase);
  }
  // Bare compounds: "delivery scheduling experience", "two-way SMS".
  for (let i = 0; i < parts.length; i++) {
    if (used.has(i)) continue;
    // Only after a preposition ("about clinic no-shows"): elsewhere a first word may be a verb ("I trust timelines").
    const previous = parts[i - 1]?.toLowerCase();
    if (previous === undefined || !prepositions.has(previous)) continue;
    const words: string[] = [];
    let j = i;
    for (; j < parts.length && words.length < 3 && !used.has(j) && nounish(parts[j]!, words[0], names) && !/^\d/.test(parts[j]!); j++) words.push(parts[j]!);
    const head = trim(words, parts[j]);
    // A compound cut short ("online appointment" of "online appointment booking") is no phrase.
    if (head.length >= 2 && head.length === words.length && head.some((w) => w.length >= 5) && !/^[A-Z][a-z]/.test(head[0]!) && !/ing$/.test(head[0]!)) {
      const phrase = head.join(' ');
      if (!bare.includes(phrase)) bare.push(phrase);
      i = j;
    }
  }
  return [...withDeterminer, ...bare];
};

/**
 * The key phrases of what someone said, for picking up: those of its last question first (the
 * question being answered), then of the rest. Longer phrases (three words or more) are preferred.
 */
export const keyPhrases = (text: string, names: ReadonlySet<string>, perspective: Perspective = 'other'): readonly string[] =>
  keyPhrasesAmong(joinedNames(names))[perspective](text);

/** A room's name words as one memo key, once per set (a turn's names are its room's). */
const joinedNames = memoizeByIdentity((names: ReadonlySet<string>): string => [...names].join('\u0000'));

// What was said is picked up by everyone who speaks after it: read once per room (its names) and side.
const keyPhrasesAmong = memoize((joined: string): Record<Perspective, (text: string) => readonly string[]> => {
  const names = new Set(joined ? joined.split('\u0000') : []);
  const read = (perspective: Perspective) =>
    memoize((text: string): readonly string[] => {
      const questions = text.split(/(?<=[.!?])\s+/).filter((s) => s.includes('?'));
      const found = [...new Set([...(questions.length ? nounPhrases(questions.at(-1)!, names, perspective) : []), ...nounPhrases(text, names, perspective)])];
      // Stable: phrases of two words or more before single nouns ("the plan").
      return [...found.filter((p) => wordCount(p) >= 3), ...found.filter((p) => wordCount(p) < 3)];
    }, 1024);
  return { speaker: read('speaker'), other: read('other') };
}, 64);

const occasions = /^(stand-?ups?|meetings?|reviews?|interviews?|sessions?|talks?|q&a|lunch|dinner|critiques?|discussions?|conversations?|calls?|syncs?|questions|retros?|retrospectives?|workshops?|presentations?|visits?|parties|party)$/i;

const headStops = wordSet(
  'for of in on about with to and at from before after during by as is are was were will can should could would has have had which that who where while whose than or but',
);

/**
 * The topic as a short noun phrase to mention in passing, or nothing when it has none: "the launch
 * date for the Aurora app" gives "the launch date", "Whether the redesigned onboarding flow ... is
 * ready" gives "the redesigned onboarding flow"; "Getting to know strangers ..." and "Who killed
 * ..." give nothing.
 */
export const topicRef = memoize((topic: string): string | undefined => {
  const words = topic.trim().replace(/[.!?]+$/, '').split(/\s+/);
  let start = 0;
  const first = (words[0] ?? '').toLowerCase();
  if (/^(who|what|when|where|why|how|which)$/.test(first) || /ing$/.test(first)) return undefined;
  if (first === 'whether' || first === 'if') start = 1;
  const head: string[] = [];
  for (const word of words.slice(start)) {
    const bare = word.replace(/[,;:]$/, '');
    if (headStops.has(bare.toLowerCase())) break;
    head.push(bare);
    if (bare !== word) break;
  }
  if (head.length === 0) return undefined;
  const determiner = /^(the|a|an|our|their|this)$/i.test(head[0]!) ? head.shift()! : undefined;
  if (head.length === 0 || (!determiner && head.length < 2)) return undefined;
  // A topic named after the occasion ("the daily stand-up", "a year-end review") is not a subject to discuss.
  if (occasions.test(head.at(-1)!)) return undefined;
  const nouns = head.length > 3 ? head.slice(-2) : head;
  const noun = nouns.map((w, i) => (i === 0 && start === 0 && !determiner && /^[A-Z][a-z]/.test(w) ? w.toLowerCase() : w)).join(' ');
  const article = !determiner || /^(a|an)$/i.test(determiner) ? 'the' : determiner.toLowerCase();
  return `${article} ${noun}`;
});
