/**
 * Person: scene text is written about a persona ("She left the port tray ...", "Led a redesign
 * that cut missed deliveries by 11%"); the persona says it about themselves ("I left the port
 * tray ...", "I led a redesign ..."), and to the person it names ("a bottle for Vivian" said to
 * Vivian is "a bottle for you").
 *
 * ```ts
 * firstPerson("Her network's rate is 19%, and she has budget", pronounForms.f, ['Ruth']); // "My network's rate is 19%, and I have budget"
 * backstoryVoice('Led a reminder redesign that cut missed deliveries by 11%.'); // "I led a reminder redesign ..."
 * ```
 */
import { memoize } from '../../../engine/memo';
import type { Cue } from '../../../engine/requests';
import { capitalise, conjunctions, escapeRegExp, midAdverbs, prepositions, verbWords, wordSet } from './words';

type Gender = 'f' | 'm';

export const pronounForms = {
  f: wordSet("she her hers herself she's she'd she'll"),
  m: wordSet("he him his himself he's he'd he'll"),
  they: wordSet("they them their theirs themselves themself they're they'd they'll they've"),
};

const genderOf = (word: string): Gender | undefined => (pronounForms.f.has(word) ? 'f' : pronounForms.m.has(word) ? 'm' : undefined);

/** Words after which "her" is an object ("asked her to", "told her yesterday"), not a possessive ("her network"). */
const afterObjectHer = new Set([
  ...prepositions,
  ...conjunctions,
  ...wordSet('a an the this these those some any every each no to yesterday today tonight tomorrow again later earlier twice back away too it him her them me us you everything something nothing anything all alone they we i he she'),
]);

/** The verb after a new "I", agreeing with it: "is" to "am", "has" to "have", "knows" to "know". */
const agreeWithI = (word: string): string => {
  const lower = word.toLowerCase().replace(/’/g, "'");
  const irregular: Record<string, string> = {
    is: 'am', are: 'am', were: 'was', has: 'have', does: 'do', goes: 'go',
    "isn't": 'am not', "aren't": 'am not', "weren't": "wasn't", "hasn't": "haven't", "doesn't": "don't",
  };
  if (irregular[lower]) return irregular[lower]!;
  if (!/^[a-z]{3,}s$/.test(lower) || /(ss|us|is|was|has)$/.test(lower)) return word;
  if (/[^aeiou]ies$/.test(lower)) return `${lower.slice(0, -3)}y`;
  if (/(ch|sh|x|z)es$/.test(lower)) return lower.slice(0, -2);
  return lower.slice(0, -1);
};

/** The verb after a new "you": "understands" to "understand", "is" to "are", "was" to "were". */
const agreeWithYou = (word: string): string => {
  const irregular: Record<string, string> = { is: 'are', was: 'were', has: 'have', does: 'do', "isn't": "aren't", "wasn't": "weren't", "hasn't": "haven't", "doesn't": "don't" };
  const lower = word.toLowerCase();
  if (irregular[lower]) return irregular[lower]!;
  return lower === 'am' ? 'are' : agreeWithI(word);
};

/** The names someone may go by in a text, longest first: "Dr. Elena Marsh", "Dr. Marsh", "Elena". */
const namesOf = (name: string, shortName: string): string[] => {
  const parts = name.split(/\s+/);
  const titled = /^(dr|prof|professor|detective|mr|mrs|ms|miss|sir|dame)\.?$/i.test(parts[0] ?? '') && parts.length >= 3 ? [`${parts[0]} ${parts.at(-1)}`] : [];
  return [...new Set([name, ...titled, shortName])].filter(Boolean).sort((a, b) => b.length - a.length);
};

/** The speaker's own names as they may appear in their knowledge: "Rupert", "Rupert Vale", "Dr. Marsh". */
export const selfNames = (cue: Cue): string[] => namesOf(cue.speaker.name, cue.speaker.shortName);

/** A name as a whole word, compiled once per name. */
const namePattern = memoize((name: string) => new RegExp(`\\b${escapeRegExp(name)}(?![\\w-])`, 'g'), 1024);

/**
 * Rewrites a third-person text about the speaker in the first person: `forms` are the pronouns
 * that mean the speaker, `names` the speaker's names. Quoted speech is left as it is. "Dr. Marsh
 * asked her at 10:15" becomes "Dr. Marsh asked me at 10:15"; "for Henry to collect on his way
 * down" keeps "his" when only she/her mean the speaker.
 */
export const firstPerson = (text: string, forms: ReadonlySet<string>, names: readonly string[]): string => firstPersonFor(speakerKey(forms, names))(text);

/** Who a speaker is to the rewriting functions: their pronouns and their names, as one memo key. */
const speakerKey = (forms: ReadonlySet<string>, names: readonly string[]): string => `${[...forms].join(' ')}\u0001${names.join('\u0000')}`;

const speakerOf = (key: string): { forms: ReadonlySet<string>; names: readonly string[] } => {
  const [forms, names] = key.split('\u0001') as [string, string];
  return { forms: new Set(forms.split(' ').filter(Boolean)), names: names ? names.split('\u0000') : [] };
};

// The speaker's knowledge is retold every turn: each text is rewritten once per speaker.
const firstPersonFor = memoize((key: string): ((text: string) => string) => {
  const { forms, names } = speakerOf(key);
  return memoize((text) =>
    text
      .split(/(["“][^"”]*["”])/)
      .map((segment, i) => (i % 2 === 1 ? segment : firstPersonSegment(segment, forms, names)))
      .join(''),
  );
}, 256);

const firstPersonSegment = (segment: string, forms: ReadonlySet<string>, names: readonly string[]): string => {
  let text = segment;
  const placeholder = '\u0000SELF\u0000';
  for (const name of names) text = text.replace(namePattern(name), placeholder);
  const parts = text.match(/\u0000SELF\u0000(?:['’]s\b)?|[A-Za-z][A-Za-z'’-]*|[^A-Za-z\u0000]+/g) ?? [];
  const out: string[] = [];
  let verbDue = false;
  const nextWord = (i: number): string | undefined => (/^\s+$/.test(parts[i + 1] ?? '') ? parts[i + 2]?.toLowerCase() : undefined);
  const atStart = (): boolean => /(^|[.!?]["”]?\s+)$/.test(out.join(''));
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part.startsWith(placeholder)) {
      if (part.length > placeholder.length) {
        out.push(atStart() ? 'My' : 'my');
        continue;
      }
      const next = nextWord(i);
      const subject = next !== undefined && /^[a-z]/.test(next) && !prepositions.has(next) && !conjunctions.has(next) && next !== 'to';
      out.push(subject ? 'I' : atStart() ? 'Me' : 'me');
      verbDue = subject;
      continue;
    }
    if (!/^[A-Za-z]/.test(part)) {
      out.push(part);
      if (/[^\s]/.test(part)) verbDue = false;
      continue;
    }
    const lower = part.toLowerCase().replace(/’/g, "'");
    if (verbDue) {
      if (midAdverbs.has(lower)) {
        out.push(part);
        continue;
      }
      out.push(agreeWithI(part));
      verbDue = false;
      continue;
    }
    if (!forms.has(lower)) {
      out.push(part);
      continue;
    }
    const cap = (word: string) => (/^[A-Z]/.test(part) ? capitalise(word) : word);
    const next = nextWord(i);
    if (lower === 'she' || lower === 'he' || lower === 'they') {
      out.push('I');
      verbDue = true;
    } else if (/^(she|he|they)'(s|re)$/.test(lower)) {
      out.push(next && /^(been|got|had|done|seen|gone|never|already)$/.test(next) ? "I've" : "I'm");
    } else if (/^(she|he|they)'(d|ll|ve)$/.test(lower)) {
      out.push(`I'${lower.split("'")[1]}`);
    } else if (lower === 'her') {
      out.push(cap(next === undefined || afterObjectHer.has(next) || /ly$/.test(next) ? 'me' : 'my'));
    } else if (lower === 'his' || lower === 'their') {
      out.push(cap(next === undefined ? 'mine' : 'my'));
    } else if (lower === 'hers' || lower === 'theirs') {
      out.push(cap('mine'));
    } else if (lower === 'him' || lower === 'them') {
      out.push(cap('me'));
    } else {
      out.push(cap('myself'));
    }
  }
  return out.join('');
};

/** A pronoun's gender where it opens the text (its first three words) or, weaker, anywhere. */
const pronounEvidence = memoize((text: string): { gender: Gender; strong: boolean } | null => {
  const unquoted = text.replace(/["“][^"”]*["”]/g, ' ');
  const words = unquoted.toLowerCase().match(/[a-z']+/g) ?? [];
  const index = words.findIndex((w) => genderOf(w));
  return index < 0 ? null : { gender: genderOf(words[index]!)!, strong: index < 3 };
});

/** Someone other than the speaker a later pronoun may stand for: "the last PM ... without telling her". */
const otherPerson = /\bthe (last |previous |new |other |former )?(pm|cto|ceo|cfo|manager|candidate|director|engineer|nurse|doctor|patient|woman|man|girl|boy|colleague|friend|mother|father|wife|husband|sister|brother|daughter|son|boss|founder|student|owner)\b/i;

/**
 * The speaker's pronouns, from all their private knowledge and goals taken together: a text that
 * opens with "She" or "His" says it firmly, a pronoun in a goal well, one inside a sentence
 * weakly. A text whose only evidence is its own inner pronoun after another person ("the last PM
 * ... telling her") is left in the third person.
 */
export const speakerForms = (cue: Cue, text: string): ReadonlySet<string> => {
  const votes = { f: 0, m: 0 };
  for (const other of [...cue.facts, ...cue.secrets]) {
    if (other === text) continue;
    const evidence = pronounEvidence(other);
    if (evidence) votes[evidence.gender] += evidence.strong ? 3 : 1;
  }
  for (const goal of cue.goals) {
    const evidence = pronounEvidence(goal);
    if (evidence) votes[evidence.gender] += 2;
  }
  const own = pronounEvidence(text);
  let gender: Gender | undefined = votes.f > votes.m ? 'f' : votes.m > votes.f ? 'm' : undefined;
  if (!gender && own && (own.strong || !otherPerson.test(text))) gender = own.gender;
  return gender ? pronounForms[gender] : new Set();
};

/**
 * Knowledge or a goal said to someone it names: "a bottle for Vivian" to Vivian is "a bottle for
 * you", "Vivian's car" is "your car", "make sure Sam understands" is "make sure you understand".
 */
export const toAddressee = (text: string, names: readonly string[]): string => (names.length ? toAddresseeFor(names.join('\u0000'))(text) : text);

// The same knowledge is said to the same listener turn after turn: rewritten once per listener,
// whose patterns are compiled once (`replace` restarts a global pattern).
const toAddresseeFor = memoize((joined: string): ((text: string) => string) => {
  const n = `(?:${joined.split('\u0000').map(escapeRegExp).join('|')})`;
  const possessive = new RegExp(`\\b${n}['’]s\\b`, 'g');
  const object = new RegExp(`\\b(for|to|with|from|at|about|asked|tell|told|saw|passed|met|called|gave|showed|behind|beside|like|likes|trust|respect|hired|promoted|helped|know) ${n}\\b`, 'g');
  const subject = new RegExp(`(^|[.;]\\s+|\\b(?:that|and|but|when|because|sure|if)\\s+)${n} ([a-z][a-z'’]*)`, 'g');
  return memoize((text) =>
    text
      .split(/(["“][^"”]*["”])/)
      .map((segment, i) =>
        i % 2 === 1
          ? segment
          : segment
              .replace(possessive, 'your')
              .replace(object, '$1 you')
              .replace(subject, (_, lead: string, verb: string) => `${lead}${lead.trim() ? 'you' : 'You'} ${agreeWithYou(verb)}`),
      )
      .join(''),
  );
}, 256);

/** Whom the speaker talks to: the addressee, else the person they reply to. */
export const listenerOf = (cue: Cue): string[] => {
  const id = cue.addressee?.id ?? (cue.lastMessage && cue.lastMessage.speaker !== cue.speaker.id ? cue.lastMessage.speaker : undefined);
  const listener = cue.participants.find((p) => p.id === id);
  return listener ? namesOf(listener.name, listener.shortName) : [];
};

/**
 * The pronouns a backstory uses for its persona: those of their knowledge and goals, else those
 * the backstory itself uses ("told her"), else a subject "they" ("where they owned ...", not
 * "keeps them blameless", where "them" is the retrospectives).
 */
export const backstoryForms = (cue: Cue): ReadonlySet<string> => {
  const known = speakerForms(cue, '');
  if (known.size) return known;
  const evidence = pronounEvidence(cue.speaker.backstory ?? '');
  return evidence ? pronounForms[evidence.gender] : wordSet("they they're they'd they'll they've");
};

/** Past participles that describe a state, so a fragment starting with one takes "I was": "Married to Henry ...". */
const states = wordSet('married promoted trained stranded sent based born raised hired employed stuck known recruited posted assigned seconded trapped');

/** Adjectives that open a character note ("Resentful and quick to ...", "Dignified in public"): not something one says of oneself. */
const adjective =
  /^(\w{3,}(ful|ous|ive|ent|ant|ble|ish|less|ic|al|ly)|dignified|charming|calm|warm|kind|shy|proud|loyal|quiet|friendly|talkative|pragmatic|supportive|ruthless|tired|resentful|nervous|confident|funny|eager|neutral)$/i;

const numbers = /^(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|\d+)$/i;

/** Verbs a backstory joins to its first with "and" or "but": "... and is worried it shows" is "... and am worried it shows". */
const joinedVerbs = wordSet(
  'is has does goes believes finds cares notices worries says wants thinks feels likes loves hates keeps runs owns manages leads speaks asks writes reads relies softens knows needs trusts respects tends attends spends misses holds builds works suspects fears hopes',
);

const agreeJoined = (text: string): string =>
  text.replace(/\b(and|but) (still |also |never |now |often |rarely )?([a-z]+)\b/g, (whole, conjunction: string, adverb: string | undefined, verb: string) =>
    joinedVerbs.has(verb) ? `${conjunction} ${adverb ?? ''}${agreeWithI(verb)}` : whole,
  );

/** A letter's name starts with a vowel sound: "an IT director", "a VP". */
const article = (word: string): string =>
  /^[AEFHILMNORSX][A-Z]/.test(word) || (/^[aeiou]/i.test(word) && !/^[A-Z]{2}/.test(word) && !/^u[^aeiou][aeiou]/i.test(word)) ? 'an' : 'a';

/**
 * A backstory sentence in the persona's own voice, or nothing when it is a character note.
 * Backstories are written as fragments without a subject: "Led a redesign ..." (a verb: "I
 * led"), "Product manager with six years ..." (a noun: "I'm a product manager ..."), "Married to
 * Henry ..." (a state: "I was married to Henry ...").
 */
export const backstoryVoice = (text: string, forms: ReadonlySet<string>, names: readonly string[]): string | undefined => backstoryVoiceFor(speakerKey(forms, names))(text);

// A backstory is voiced on every turn its persona speaks: each sentence is converted once per speaker.
const backstoryVoiceFor = memoize((key: string): ((text: string) => string | undefined) => {
  const { forms, names } = speakerOf(key);
  return memoize((text) => voicedBackstory(text, forms, names));
}, 256);

const voicedBackstory = (text: string, forms: ReadonlySet<string>, names: readonly string[]): string | undefined => {
  const converted = firstPerson(text.trim(), forms, names);
  const words = converted.split(/\s+/);
  const first = (words[0] ?? '').replace(/[,;:]$/, '');
  const lower = first.toLowerCase();
  const rest = words.slice(1).join(' ');
  const second = words[1] ?? '';
  if (/^(I|I'm|I've|I'd|My)$/.test(first)) return converted;
  if (numbers.test(first)) return `I've had ${lower} ${rest}`;
  if (states.has(lower)) return agreeJoined(`I was ${lower} ${rest}`);
  const linking = (word: string) => prepositions.has(word.toLowerCase()) || conjunctions.has(word.toLowerCase()) || word.toLowerCase() === 'to';
  // "Scouting for academic partners": a participle; "Marketing lead": a noun.
  if (/^[A-Z][a-z]+ing$/.test(first) && linking(second)) return agreeJoined(`I'm ${lower} ${rest}`);
  // "Dignified in public": a listed adjective, not a verb.
  if (/^(dignified|charming|calm|warm|kind|shy|proud|loyal|quiet|friendly|talkative|pragmatic|supportive|ruthless|tired|resentful|nervous|confident|funny|eager|neutral)$/i.test(lower)) return undefined;
  const auxiliary = /^(has|is|was|had|does|did|can|cannot|will|would|never|still|also|now|often|always|only|just)$/.test(lower);
  const verb = verbWords.has(lower) || joinedVerbs.has(lower) || (/^[a-z]+(ed|s)$/.test(lower) && !/(ss|us|is|ics|ness|ous)$/.test(lower) && /^[a-z]/.test(second));
  if (auxiliary || (verb && /^[A-Z][a-z]+$/.test(first))) {
    const said = midAdverbs.has(lower) || lower === 'never' ? `${lower} ${words[1] ? agreeWithI(words[1]) : ''} ${words.slice(2).join(' ')}` : `${agreeWithI(lower)} ${rest}`;
    return agreeJoined(`I ${said}`.replace(/\s{2,}/g, ' '));
  }
  // "Supportive of the research area", "Charming, talks fast": a character note.
  if (adjective.test(first) && (/,$/.test(words[0] ?? '') || linking(second))) return undefined;
  if (/^(The|A|An)$/.test(first)) return `I'm ${lower} ${rest}`;
  if (/^[A-Z]{2,}$/.test(first)) return `I'm ${article(first)} ${first} ${rest}`;
  if (/^[A-Z][a-z]+['’]s$/.test(first)) return `I'm ${converted}`;
  if (/^[A-Z][a-z-]+$/.test(first) && /^[a-z]/.test(second)) return `I'm ${article(lower)} ${lower} ${rest}`;
  return undefined;
};
