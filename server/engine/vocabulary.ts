/**
 * Content words: what the leak, off-topic and self-contradiction heuristics compare. A content
 * word is a word of `wordsOf` (engine/novelty.ts) that is not a function word, a conversational
 * filler or a negation, with a possessive or contraction ending dropped and lightly stemmed
 * ("washed", "washing" and "washes" are all "wash"; "move", "moved" and "moving" all "mov"), so
 * that the same fact told in other words still shares its words. The stemmer is deliberately
 * crude: both sides of every comparison go through it, so its mistakes cancel more often than
 * they matter.
 *
 * ```ts
 * contentWords("No, she hasn't washed the decanter."); // ["wash", "decanter"]
 * isNegation("hasn't"); // true
 * ```
 */
import { memoize } from './memo';
import { wordsOf } from './novelty';
import type { LoadedScene } from '../../shared/scene/schema';

const stopwords = new Set(
  `a about above across after again against ago all almost along already also although always am among an and another any anybody
  anyone anything anyway are around as at away be became because become been before being below beside besides between both but by
  can could did do does doing done down during each either else enough even ever every everybody everyone everything few for from
  further get gets getting give given go goes going gone got gotten had has have having he her here hers herself him himself his how
  however i if in into is it its itself just least less let like likely made make makes making many may maybe me might mine more most
  much must my myself need needs next now of off often on once one only onto or other others otherwise our ours ourselves out over own
  per perhaps please quite rather really same say said saying says see seem seemed seems several shall she should since so some somebody
  someone something sometimes somewhat still such than that the their theirs them themselves then there these they thing things think
  this those though through thus to together too toward towards under until up upon us very via was way we well went were what whatever
  when where whether which while who whoever whom whose why will with within without would yes yet you your yours yourself yourselves
  ah oh okay ok um uh hmm mm yeah yep right sure thanks thank good great fine nice point kind sort lot bit actually basically
  honestly probably guess mean know want look take tell told ask asked come back first last time today`.split(/\s+/),
);

const negations = new Set(['no', 'not', 'never', 'nothing', 'nobody', 'none', 'neither', 'nor', 'cannot', 'nowhere']);

/** Whether a word (as `wordsOf` gives it) negates: "not", "never", "isn't"... */
export const isNegation = (word: string): boolean => negations.has(word) || word.endsWith("n't");

/** A consonant doubled before a suffix ("stirr", "plann"); not f, l, s or z, which stay doubled in the word itself ("staff", "call", "pass"). */
const undouble = (stem: string): string => (/([bcdgkmnprt])\1$/.test(stem) ? stem.slice(0, -1) : stem);

/** A crude suffix stripper: plurals, -ed, -ing and a final -e, so "move", "moved" and "moving" meet. */
export const stemOf = (word: string): string => {
  let stem = word;
  if (word.length > 4 && /ie[sd]$/.test(word)) stem = `${word.slice(0, -3)}y`;
  else if (word.length > 4 && /(sh|ch|x|ss|z)es$/.test(word)) stem = word.slice(0, -2);
  else if (word.length > 5 && word.endsWith('ing')) stem = undouble(word.slice(0, -3));
  else if (word.length > 4 && word.endsWith('ed')) stem = undouble(word.slice(0, -2));
  else if (word.length > 3 && word.endsWith('s') && !/(ss|us|is)$/.test(word)) stem = word.slice(0, -1);
  return stem.length > 3 && stem.endsWith('e') ? stem.slice(0, -1) : stem;
};

/** Stopwords as the stemmer leaves them, so that "times" (stem "tim") is as empty as "time". */
const stopStems = new Set([...stopwords].map(stemOf));

/**
 * Whether a word is a stop-word in some inflection ("times", "making"). By its dictionary forms
 * rather than its stem, so that "Sam" is not "same" and "mad" not "made" (they stem alike).
 */
const isStopword = (word: string, stem: string): boolean =>
  stopwords.has(word) ||
  [word.replace(/s$/, ''), word.replace(/es$/, ''), word.replace(/ed$/, ''), word.replace(/ed$/, 'e'), word.replace(/ing$/, ''), word.replace(/ing$/, 'e')].some((form) => form !== word && stopwords.has(form)) ||
  (stem.length >= 4 && stopStems.has(stem));

const hourWords = ['twelve', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven'];
const HOUR = `(${hourWords.join('|')}|1[0-2]|[1-9])`;
const minuteWords: Record<string, number> = { five: 5, ten: 10, quarter: 15, twenty: 20, 'twenty-five': 25, 'twenty five': 25, half: 30 };
const hourOf = (word: string): number => (/^\d+$/.test(word) ? Number(word) % 12 : hourWords.indexOf(word.toLowerCase()));
const clock = (hour: number, minute: number): string => ` t${String(((hour % 12) + 12) % 12 || 12).padStart(2, '0')}${String(minute).padStart(2, '0')} `;
const spokenMinutes: Record<string, number> = { 'o\'clock': 0, fifteen: 15, thirty: 30, 'forty-five': 45, 'forty five': 45, 'thirty-five': 35, 'thirty five': 35, twenty: 20, ten: 10, 'oh five': 5, 'fifty': 50 };

/**
 * Times of day in one form, whichever way they are written: "9:30", "9.30pm", "half past nine",
 * "nine thirty" and "half nine" are all the word `t0930`; "quarter to ten" and "9:45" are `t0945`.
 * A fact and a question about the same moment then share a word however each was phrased.
 */
export const canonicalTimes = (text: string): string =>
  text
    .replace(/(?<![$£€\d.:])\b(1[0-2]|0?[1-9]):([0-5]\d)\s*(?:[ap]\.?m\b\.?)?/gi, (_, h: string, m: string) => clock(Number(h), Number(m)))
    // "9.30" is a time after "at", "by", "around"... or before "am"/"pm"; "2.50" alone is a price or a figure.
    .replace(/(?<![$£€\d.])\b(1[0-2]|0?[1-9])\.([0-5]\d)\s*[ap]\.?m\b\.?/gi, (_, h: string, m: string) => clock(Number(h), Number(m)))
    .replace(/\b(at|by|around|about|until|till|from|before|after|since) (1[0-2]|0?[1-9])\.([0-5]\d)\b(?!\.\d)/gi, (_, at: string, h: string, m: string) => `${at}${clock(Number(h), Number(m))}`)
    .replace(/\b(1[0-2]|[1-9])\s*([ap])\.?m\b\.?/gi, (_, h: string) => clock(Number(h), 0))
    .replace(new RegExp(`\\b(five|ten|quarter|twenty-five|twenty five|twenty|half) (past|after|to) ${HOUR}\\b`, 'gi'), (_, m: string, dir: string, h: string) => {
      const minutes = minuteWords[m.toLowerCase()]!;
      return /to/i.test(dir) ? clock(hourOf(h) - 1, 60 - minutes) : clock(hourOf(h), minutes);
    })
    .replace(new RegExp(`\\bhalf ${HOUR}\\b`, 'gi'), (_, h: string) => clock(hourOf(h), 30))
    .replace(new RegExp(`\\b${HOUR} (o'clock|forty-five|forty five|thirty-five|thirty five|thirty|fifteen|oh five|fifty)\\b`, 'gi'), (_, h: string, m: string) => clock(hourOf(h), spokenMinutes[m.toLowerCase()]!));

/** The content words of `text`, stemmed, in order (repeats kept); a time of day is one word (`canonicalTimes`). */
export const contentWords: (text: string) => readonly string[] = memoize((text) => {
  const content: string[] = [];
  for (const word of wordsOf(/\d|past|to |o'clock|half|thirty|fifteen|forty/i.test(text) ? canonicalTimes(text) : text)) {
    if (isNegation(word)) continue;
    const base = word.replace(/'(s|re|ll|ve|d|m)$/, '');
    if (base.length < 2) continue;
    const stem = stemOf(base);
    if (!isStopword(base, stem)) content.push(stem);
  }
  return content;
});

const vocabularies = new WeakMap<LoadedScene, ReadonlySet<string>>();

/**
 * What everyone in the scene may say without having been told a secret: the content words of
 * the title, topic, context and shared contents, every participant's name, role and backstory,
 * every party, and every snippet's title, goal and scripted lines (which are said aloud).
 */
export const publicVocabulary = (scene: LoadedScene): ReadonlySet<string> => {
  const cached = vocabularies.get(scene);
  if (cached) return cached;
  const texts = [
    scene.title,
    scene.topic,
    scene.context,
    ...scene.contents.flatMap((c) => [c.title, c.summary, ...c.sections]),
    ...scene.participants.flatMap((p) => [p.name, p.shortName ?? '', p.role ?? '', p.persona?.backstory ?? '']),
    ...scene.parties.flatMap((p) => [p.name ?? '', p.role]),
    ...scene.snippets.flatMap((s) => [s.title ?? '', s.goal, ...s.lines.map((l) => l.text)]),
  ];
  const vocabulary = new Set(texts.flatMap(contentWords));
  vocabularies.set(scene, vocabulary);
  return vocabulary;
};
