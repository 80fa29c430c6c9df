/**
 * Words: the small vocabulary the scripted generator reads scenes with (function words, verbs,
 * vague nouns) and the string helpers it writes with (sentences, clauses, tidy punctuation).
 *
 * ```ts
 * contentWords('The cellar was unlocked'); // Set { 'cellar', 'unlock' }
 * sentence('the road is closed'); // "The road is closed."
 * clause('The road is closed.'); // "the road is closed"
 * ```
 */
import { memoize } from '../../../engine/memo';
import { contentWords as engineContentWords } from '../../../engine/vocabulary';

export const wordSet = (list: string): Set<string> => new Set(list.split(/\s+/).filter(Boolean));

export const functionWords = wordSet(
  'myself yourself himself herself itself ourselves yourselves themselves a an the our your their my his her its this that these those we you they it there here to of in on for with and or but if whether how what why when where which who should could would can will is are was were be being been do does did not no all some any more most much many very just also so as at by from into about than then i me us them he she him',
);

export const prepositions = wordSet(
  'about above across after against along among around at before behind below beneath beside between beyond by despite down during except for from in inside into like near of off on onto out outside over past per since through throughout till to toward towards under until up upon via with within without',
);

export const conjunctions = wordSet('and or but nor so yet because although though while whereas if unless when whenever where once than that which who whom whose as');

/** Words too common to be what a message is about. */
export const fillerWords = wordSet(
  'please think really going maybe thanks thank know like want need said something thing things good great right well yeah okay sure actually pretty quite kind sort everyone anyone ahead point handle make made take give have done ready able',
);

/** Nouns too vague to refer back to ("the point", "the honest read", "the practical one"). */
export const vagueNouns = wordSet(
  'one ones way ways part parts point points thing things bit lot lots kind sort rest same other others answer answers question questions floor time times moment side sides take read view views thought thoughts idea ideas lead end start case fact facts stuff detail details matter issue issues everyone everything something nothing anything record turn chance sense reason word words hand hands number people person room day days week weeks year years minute minutes version short long goal goals trade-offs meeting session experience perspective opinion angle input update quarter month months hour hours morning evening night risk risks picture truth job work version problem',
);

/** Adverbs that end a noun phrase: "that again", "the cellar now". */
export const adverbs = wordSet('again twice still now then there here too either anyway instead yet soon later earlier today tonight tomorrow yesterday ago back away');

/** Adverbs that may stand between a subject and its verb: "she also has", "he never carried". */
export const midAdverbs = wordSet(
  'also still never always only already often usually really just even then later once now sometimes quietly actually apparently probably certainly finally nearly almost recently rarely barely hardly',
);

/** Words that describe rather than name, so a reference cannot end on them. */
export const describingWords = wordSet(
  'honest real practical short main same new good great best worst clear whole only first last next big small little other own various certain current previous former latest early late right wrong true false key major minor simple hard easy quick slow',
);

/** Verbs, so that a reference stops before them: "the CTO rewrote", "his father meant", "the city chose". */
export const verbWords = wordSet(
  'redid redo redone undid overdid outdid chose led fed met shot drew flew grew showed shut sold stuck broke dealt dug fled froze hung laid lent lit quit rang sank shook slid sought spun swept swung wept rewrote wrote took gave told brought bought caught taught kept sent spent built held stood understood began drank drove ate fell forgot hid lost paid rode rose sang sat slept spoke stole struck threw woke wore won meant said knew went came found left saw heard thought got made felt put ran ' +
    'share measure break affect explain prove decide happen matter hurt slip survive scale fail fails failed land lands ' +
    'taken given written broken chosen spoken forgotten stolen eaten driven done gone known shown thrown grown drawn hidden shaken fallen beaten risen ' +
    'fit fits holds shows uses gets helps starts happens depends matters tends turns moves works means says tells was were is are be been has had have did does do know knows go goes come comes take takes find finds leave leaves see sees hear hears asked asks wanted wants can could will would should may might must get make makes let seen say tell think thinks need needs feel feels keep keeps sounds sound seems seem looks look write writes run runs worked happened decided decide cut cuts build builds ship ships fix fixes handle handled owned owns',
);

export const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** Capitalised words that are only capitalised because they start the sentence. */
const sentenceStarters = wordSet(
  "the a an my our your their this that these those it there here we you they he she in at on from after before during when while if as for with by since until walking one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty hundred eighteen nineteen some each every any no not what why how where which who whom whose whether to let lets company legal also and but so however still just honestly well frankly yes nobody everyone someone anyone most half all both " +
    'is are was were do does did can could would will should shall may might must have has had am be being been ' +
    'sorry lovely okay ok right sure thanks thank good great noted exactly agreed same hmm look plainly bluntly strictly going careful oh ha very indeed um funny picking coming thinking speaking something according remember partly mostly simply step practically roughly of happy quick wait hold hang absolutely building random off actually suppose say tell walk give imagine really now then again perhaps maybe',
);

/** Lower-cases a sentence's first letter so it can follow a comma or colon, unless it starts with "I", an acronym or a name. */
export const lowerFirst = (text: string, proper?: ReadonlySet<string>): string => {
  const opening = openingOf(text);
  if (opening === null) return text;
  // A capitalised word the scene never capitalises mid-sentence, and not followed by another ("Northwind Health"), is a plain word.
  const known = proper ? opening.plainCapital && !proper.has(opening.bare) : false;
  return opening.starter || known ? text.charAt(0).toLowerCase() + text.slice(1) : text;
};

/**
 * How a text opens, for `lowerFirst`: null when it must keep its capital ("I", an acronym);
 * `bare`, its first word in lower case; `starter`, a word capitalised only for starting the
 * sentence; `plainCapital`, a capitalised word not followed by another. Read once per text: the
 * scene's sentences are embedded again every turn.
 */
const openingOf = memoize((text: string): { bare: string; starter: boolean; plainCapital: boolean } | null => {
  const first = text.split(/\s+/)[0] ?? '';
  if (/^I('|’|$)/.test(first) || /^[A-Z0-9]{2,}/.test(first)) return null;
  const bare = first.replace(/['’].*$/, '').replace(/[^A-Za-z-]/g, '').toLowerCase();
  const second = (text.split(/\s+/)[1] ?? '').replace(/^I(['’]\w+)?$/, 'i');
  return { bare, starter: sentenceStarters.has(bare), plainCapital: /^[A-Z][a-z-]+$/.test(first.replace(/['’].*$|[^A-Za-z-]+$/g, '')) && !/^[A-Z]/.test(second) };
});

/** Words written with a capital inside a sentence somewhere in `texts`: names, places, brands ("Henry", "Phoenix"). */
export const properNouns = (texts: readonly string[]): Set<string> => {
  const found = new Set<string>();
  for (const text of texts) for (const noun of properNounsIn(text)) found.add(noun);
  return found;
};

const properNounsIn = memoize((text: string): readonly string[] => [...text.matchAll(/(?<=[a-z0-9,;:)"”]\s+)([A-Z][a-z][A-Za-z-]*)/g)].map((m) => m[1]!.toLowerCase()));

// The helpers below are memoised: a scene's texts are read again on every turn.

export const tokens: (text: string) => readonly string[] = memoize((text) => text.toLowerCase().replace(/’/g, "'").match(/[a-z0-9]+(?:'[a-z]+)?/g) ?? []);

export const wordCount: (text: string) => number = memoize((text) => text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length);

export const sentencesOf: (text: string) => readonly string[] = memoize((text) =>
  text
    .split(/(?<=[.!?]["”]?)\s+(?=["“]?[A-Z0-9])/)
    .map((s) => s.trim())
    .filter(Boolean),
);

/**
 * Content words of a text, stemmed: to tell whether two texts are about the same thing. The
 * engine's (engine/vocabulary.ts), as a set: the generator, the dialogue state and the figures
 * compare lines by the same words (a "key" or a "job" counts; "9:30" and "half past nine" meet).
 */
export const contentWords: (text: string) => ReadonlySet<string> = memoize((text) => new Set(engineContentWords(text)));

/** How many of `a`'s words are in `b`. */
export const shared = (a: ReadonlySet<string>, b: ReadonlySet<string>): number => {
  // The same count either way round: the smaller set is walked (a line's words against a long one's).
  const few = a.size <= b.size ? a : b;
  const many = few === a ? b : a;
  let n = 0;
  for (const w of few) if (many.has(w)) n++;
  return n;
};

export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const mentions = (text: string, name: string): boolean => wordPattern(name).test(text);

const wordPattern = memoize((name: string) => new RegExp(`\\b${escapeRegExp(name)}\\b`, 'i'), 1024);

/** Tidies punctuation where a slot's own ending met a frame's: `board.".` to `board."`, `..` to `.`, `,?` to `?`. */
export const tidy = (text: string): string =>
  text
    .replace(/([.!?]["”])[.]/g, '$1')
    .replace(/[.,;:]+([?!])/g, '$1')
    .replace(/([!?])\./g, '$1')
    .replace(/\.{2,}/g, '.')
    .replace(/,\./g, '.')
    .replace(/([,;:])[,;:]+/g, '$1')
    .replace(/\s+([,.;:?!])/g, '$1')
    .replace(/\s{2,}/g, ' ')
    .replace(/(^|[.!?]\s+)([a-z])/g, (_, lead: string, letter: string) => `${lead}${letter.toUpperCase()}`)
    .trim();

/** A sentence from a phrase: capitalised, ending with a full stop unless it has its own ending. */
export const sentence = (text: string): string => {
  const trimmed = text.trim().replace(/[;:,—–-]+$/, '').trim();
  return capitalise(/[.!?]["”]?$/.test(trimmed) ? trimmed : `${trimmed}.`);
};

/** A phrase to embed mid-sentence: no final full stop, first letter lowered unless it starts with a name (`proper`). */
export const clause = (text: string, proper?: ReadonlySet<string>): string => lowerFirst(text.trim().replace(/[.;:,!]+$/, ''), proper);

/** A question from a phrase: capitalised, ending with one question mark. */
export const question = (text: string): string => capitalise(`${text.trim().replace(/[.;:,!?]+$/, '')}?`);

export const normalizeSpace = (text: string): string => text.replace(/\s+/g, ' ').trim();
