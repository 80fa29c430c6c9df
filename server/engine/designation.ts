/**
 * detectDesignation: does an utterance open an adjacency pair, of which type, and whom does it
 * select to speak next?
 *
 * MMAgents §3.2.4 asks an LLM this after every turn. This is a fast local detector (well under a
 * millisecond) so the pure engine can apply Sacks et al.'s "current speaker selects next" rule
 * (MMAgents §2.2, rule 1) on every utterance, in the simulator, the live room and the browser.
 *
 *   detectDesignation({ participants: ['Nora', 'Omar'], speaker: 'Nora', text: 'Omar, what did the client say?' })
 *   // → { next: 'Omar', pair: 'question' }
 *
 * Pipeline, top to bottom: fold the text and find participants' names in it, split it into
 * sentences and clauses, find the last first pair part (the obligation usually sits in the last
 * question or request of a turn), then find whom that part addresses: a vocative, else a group
 * (which selects nobody), else "you", meaning the previous speaker.
 */
import type { PairType } from './events';
import { memoize } from './memo';

export interface DesignationInput {
  /** Display names as given, e.g. "Nora", "Alexandra Kim", "Dr. Priya Raman". */
  participants: readonly string[];
  speaker: string;
  previousSpeaker?: string | null;
  text: string;
}

export interface Designation {
  /** The participant obliged to speak next, spelled exactly as in `participants`; null when nobody is selected. */
  next: string | null;
  pair: PairType;
}

// ---------------------------------------------------------------------------------------------
// Folding: one spelling for names and text alike, so "Zoë", "zoe" and "ZOE" meet, and so do
// "what’s", "what's" and the apostrophe-less "whats" of speech recognition.

const APOSTROPHES = /[\u2018\u2019\u02BC\u2032\u00B4`]/g;
const QUOTES = /[\u201C\u201D\u201E\u00AB\u00BB]/g;
const MARKS = /\p{M}+/gu;
const LETTER_FOLDS: Readonly<Record<string, string>> = { ø: 'o', æ: 'ae', œ: 'oe', ß: 'ss', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };
const FOLDED_LETTERS = /[øæœßłđðþı]/g;

const fold = (s: string): string => foldDecomposed(s.normalize('NFD').replace(MARKS, ''));

/** `fold` of text already decomposed and without marks: the words of an utterance, which is decomposed once. */
const foldDecomposed = (s: string): string => {
  const lower = s.toLowerCase();
  // Most words are plain ASCII: nothing to fold letter by letter, no apostrophe to drop.
  return /^[a-z0-9]*$/.test(lower) ? lower : lower.replace(FOLDED_LETTERS, (c) => LETTER_FOLDS[c] ?? c).replace(/'/g, '');
};

const foldedWords = (s: string): string[] => fold(s.replace(APOSTROPHES, "'")).split(/[^\p{L}\p{N}]+/u).filter(Boolean);

// ---------------------------------------------------------------------------------------------
// Vocabulary shared by the rules below. Words are folded: lower case, no apostrophes.

const words = (list: string): ReadonlySet<string> => new Set(list.split(/\s+/).filter(Boolean));

const AUX_WORDS = words(`do does did is are was were am have has had can could will would should shall may might must
  dont doesnt didnt isnt arent wasnt werent havent hasnt hadnt cant cannot couldnt wont wouldnt shouldnt`);
const WH_WORDS = words('what where when why how who whom which whose');
const YOU_WORDS = words('you u ya');
/** Words after an auxiliary that make it a question to someone: "can you", "do we", "does anyone". */
const ADDRESS_WORDS = words('you u ya we i yall anyone anybody everyone everybody someone somebody');
/** "... before we start does everyone have the link": a group subject after an auxiliary asks the room. */
const GROUP_SUBJECTS = words('yall anyone anybody everyone everybody someone somebody');
/** Said to the whole group; selects nobody (Sacks et al.: the turn is open to self-selection). */
const GROUP_VOCATIVES = words('everyone everybody guys folks yall team gang friends colleagues');
/** Group vocatives that are also ordinary nouns ("the data team", "making friends"). */
const GROUP_NOUNS = words('team gang friends colleagues');
/** Determiners and prepositions that make the next noun a noun: "the team", "our new friends", "for sales team". */
const NOUN_CONTEXT = words(`the a an my our your their his her its this that these those every each whole entire other same
  for of with to on in at from by about into than`);
/** Discourse markers skipped at the start of a clause: "so, um, Omar, what ...". */
const MARKERS = words(`so ok okay okey alright allright well um umm uh uhh erm er hmm hm mm mmm oh ah ahh and but also now
  anyway anyways actually yeah yes yep yup no nope sure right great cool perfect fine then first firstly secondly lastly
  finally honestly basically sorry wait dear oops like`);
/** Words after which a new first pair part may start inside a clause of unpunctuated speech. */
const BREAKERS = words('but and so then okay ok well now anyway anyways also alright actually um uh erm like question sorry right yeah yes no course');
/** May stand next to a vocative in a clause that only addresses someone: "Hi Ben", "Thanks, Cleo". */
const ADDRESS_ONLY = words(`hi hello hey heya hiya dear thanks thank you so ok okay well oh and morning good evening afternoon
  welcome back bye goodbye yo um uh now sorry right yes yeah no sure great cool also then`);
/** A vocative chain is only bare when nothing else is said: "Ben?" */
const BARE_ONLY = words('and so ok okay um uh well oh hmm now then yes yeah dear');
/** Words that tie a name into the sentence as its subject or object, so it cannot be a vocative. */
const BLOCKERS = words(`to with about for from by at of on in into onto like than as and or nor but versus vs without except
  including between among behind after before near per via the a an my your our his her their its this that mr ms mrs dr prof
  ask asked asking tell told telling call called calling email emailed ping pinged cc thank thanked meet met meeting see saw seen
  know knew known invite invited include included hire hired help helped helping liked love loved trust believe involve
  involved introduce introduced pay paid give gave send sent show showed shown remind reminded contact contacted message messaged
  text texted hear heard loop looped be been being said says mention mentioned blame blamed miss missed let make made get got
  want need found join joined follow followed support supported replace replaced visit visited interview interviewed whom who
  whose which what every each any some whole entire if unless whether because since while when where ${[...AUX_WORDS].join(' ')}`);
/** Words that show an initial name addresses its bearer: "Ben what ...", "Ben, please ...". */
const VOCATIVE_NEXT = words(`${[...WH_WORDS].join(' ')} whats whos wheres whens whys hows howd whatd whered whod whyd whatre howre whatll wholl
  want wanna fancy you your youre youve youll youd yours its
  yourself u ya please i im ive id ill lets so just one quick sorry actually any anything thoughts thanks thank hi hello hey
  welcome good over go tell let here now ok okay um uh first great nice if when maybe perhaps hmm wait morning bye see congrats
  congratulations happy real quickly again`);
const THANKS_WORDS = words('thanks thank thx cheers');
const INVERTED_SUBJECTS = words('it this that the everything anything there these those your my our');
/** Predicates that end an unpunctuated yes/no question: "is the budget approved", "did the invoices go out". */
const PREDICATE_ENDS = words(`ready done final finished ok okay right correct true approved confirmed signed available working
  fixed live open booked possible enough good fine out in up over back on off there sent paid set scheduled shipped merged
  deployed tested complete completed sorted sure free clear through happening going coming started`);
const TRAILING_ADVERBS = words('yet now already today still too');
const THANKS_FILLER = words('you u so very much a lot again all');
const THANKED_GROUP = words('both everyone everybody guys folks team');
const TAG_ONLY = words('right correct yeah yes no ok okay true eh huh agreed yep sure');
const TITLE_ABBREVIATIONS = words('dr mr mrs ms mx prof st sr jr vs etc eg ie approx fig');

// ---------------------------------------------------------------------------------------------
// Name index: every way a participant may be called, ranked so that an exact first name beats
// someone else's nickname ("Ben" is Ben, not Benjamin).

interface Alias {
  readonly who: string;
  readonly folded: string;
  readonly rank: number;
}

interface NameIndex {
  readonly aliases: ReadonlyMap<string, readonly Alias[]>;
  /** The first word of every alias: a word that is none cannot start a name. */
  readonly firstWords: ReadonlySet<string>;
  /** Most words in one alias, e.g. 3 for "dr priya raman". */
  readonly longest: number;
}

const TITLE_FORMS: Readonly<Record<string, readonly string[]>> = {
  dr: ['dr', 'doctor'],
  doctor: ['dr', 'doctor'],
  prof: ['prof', 'professor'],
  professor: ['prof', 'professor'],
  mr: ['mr', 'mister'],
  mister: ['mr', 'mister'],
  mrs: ['mrs'],
  // Speech recognition hears "Ms." as "miss"; pupils call their teacher "miss".
  ms: ['ms', 'miss'],
  miss: ['miss', 'ms'],
  mx: ['mx'],
  sir: ['sir'],
  dame: ['dame'],
  rev: ['rev', 'reverend'],
  reverend: ['rev', 'reverend'],
  captain: ['captain', 'capt'],
  coach: ['coach'],
  // Roles used as titles, and the forms of address that go with them: "Nurse Joy Mensah" is "Joy",
  // "Judge Whitaker" is "Your Honor", "Mayor Gloria Thompson" is "Madam Mayor".
  nurse: ['nurse'],
  sister: ['sister'],
  father: ['father'],
  judge: ['judge', 'your honor', 'your honour'],
  justice: ['justice', 'your honor', 'your honour'],
  mayor: ['mayor', 'madam mayor', 'mr mayor'],
  chair: ['chair', 'madam chair', 'mr chair'],
  chairman: ['chairman', 'mr chairman'],
  chairwoman: ['chairwoman', 'madam chair'],
  president: ['president', 'madam president', 'mr president'],
  senator: ['senator'],
  councillor: ['councillor', 'councilor', 'cllr'],
  cllr: ['cllr', 'councillor', 'councilor'],
  councilman: ['councilman'],
  councilwoman: ['councilwoman'],
  inspector: ['inspector'],
  detective: ['detective'],
  officer: ['officer'],
  sergeant: ['sergeant', 'sarge'],
  agent: ['agent'],
  pastor: ['pastor'],
  rabbi: ['rabbi'],
  imam: ['imam'],
  sensei: ['sensei'],
  profesora: ['profesora', 'professor'],
  profesor: ['profesor', 'professor'],
};
/** "Mr. Fischer" or "Dr. Ward" work for anyone, titled in the participant list or not. */
const POLITE_TITLES = ['mr', 'mister', 'ms', 'mrs', 'miss', 'mx', 'dr', 'doctor', 'prof', 'professor'];

const NICKNAMES: Readonly<Record<string, readonly string[]>> = {
  abigail: ['abby', 'abi'],
  alexander: ['alex', 'xander', 'sasha'],
  alexandra: ['alex', 'lexi', 'sasha'],
  alejandro: ['alex', 'ale'],
  andrew: ['andy', 'drew'],
  anthony: ['tony'],
  benjamin: ['ben', 'benny'],
  catherine: ['kate', 'katie', 'cathy', 'cat'],
  charles: ['charlie', 'chuck'],
  christina: ['chris', 'tina'],
  christine: ['chris', 'tina'],
  christopher: ['chris', 'kit'],
  daniel: ['dan', 'danny'],
  deborah: ['deb', 'debbie'],
  edward: ['ed', 'eddie', 'ted'],
  elizabeth: ['liz', 'lizzie', 'beth', 'eliza'],
  francesca: ['fran', 'frankie'],
  frederick: ['fred', 'freddie'],
  gabriel: ['gabe'],
  gabriela: ['gabi', 'gaby'],
  gabriella: ['gabi', 'gaby'],
  isabel: ['izzy', 'isa'],
  isabella: ['izzy', 'bella'],
  jacob: ['jake'],
  james: ['jim', 'jimmy', 'jamie'],
  jennifer: ['jen', 'jenny'],
  jessica: ['jess', 'jessie'],
  jonathan: ['jon', 'jonny'],
  joseph: ['joe', 'joey'],
  joshua: ['josh'],
  katherine: ['kate', 'katie', 'kathy', 'kat'],
  kathryn: ['kate', 'katie', 'kathy'],
  margaret: ['maggie', 'meg', 'peggy'],
  matthew: ['matt'],
  michael: ['mike', 'mikey'],
  nathan: ['nate'],
  nathaniel: ['nate', 'nat'],
  nicholas: ['nick', 'nicky'],
  nicolas: ['nico', 'nick'],
  olivia: ['liv', 'livvy'],
  patricia: ['pat', 'patty', 'trish'],
  rebecca: ['becky', 'becca'],
  richard: ['rick', 'rich', 'richie'],
  robert: ['rob', 'bob', 'bobby', 'robbie'],
  samantha: ['sam', 'sammy'],
  samuel: ['sam', 'sammy'],
  stephanie: ['steph'],
  stephen: ['steve'],
  steven: ['steve'],
  susan: ['sue', 'susie'],
  theodore: ['theo', 'ted'],
  thomas: ['tom', 'tommy'],
  timothy: ['tim', 'timmy'],
  victoria: ['vicky', 'tori'],
  william: ['will', 'bill', 'billy', 'liam'],
  zachary: ['zach', 'zack'],
};

/** Single-letter names as speech recognition spells them (only spellings that are not common words). */
const LETTER_NAMES: Readonly<Record<string, readonly string[]>> = {
  b: ['bee'],
  c: ['cee'],
  d: ['dee'],
  j: ['jay'],
  k: ['kay'],
  v: ['vee'],
  z: ['zee', 'zed'],
};

/** Short words that must never be taken as a clipped first name ("Nor" for "Nora", "Fat" for "Fatima"). */
const NOT_A_CLIPPING = words(`${[...AUX_WORDS, ...BLOCKERS, ...MARKERS, ...ADDRESS_ONLY, ...VOCATIVE_NEXT].join(' ')}
  nor fat mar hug ale sat sun mon war car cat con pro art bit dam den hat jam kit lab lit mad met mil mis mod mom mud net nut ran
  red rod run sad set sit son tan tar ten tin top van vet win won yet man men can will her his not all any few new old own
  bar ban bet bid bin dim dig dot fan fin fit fix gap gas got gun hem hen him hip hit hot jet job lap led leg lid lip log lot mat
  map mix mob nap pad pan pen pet pin pit pot rag ram rat rib rim rip rot rub sap sew sin sip sum tab tap tip ton van wet wit
  mate ale via era ice age ode tea sea pie see use are ate one eve ore owe ape axe dye foe hue lie roe toe vie woe date
  gate late mere more sale tale wine mine fine line pine dine`);

const buildNameIndex = (participants: readonly string[]): NameIndex => {
  const aliases = new Map<string, Alias[]>();
  let longest = 1;
  const add = (key: string, who: string, rank: number): void => {
    if (!key) return;
    const list = aliases.get(key) ?? [];
    if (list.some((a) => a.who === who && a.rank <= rank)) return;
    list.push({ who, folded: fold(who), rank });
    aliases.set(key, list);
    longest = Math.max(longest, key.split(' ').length);
  };
  for (const who of participants) {
    const tokens = foldedWords(who);
    let t = 0;
    while (t < tokens.length - 1 && TITLE_FORMS[tokens[t] ?? '']) t++;
    const titles = tokens.slice(0, t).flatMap((title) => TITLE_FORMS[title] ?? []);
    const core = tokens.slice(t);
    const first = core[0];
    const last = core[core.length - 1];
    if (!first || !last) continue;
    add(tokens.join(' '), who, 0);
    add(core.join(' '), who, 0);
    for (const title of titles) add(`${title} ${core.join(' ')}`, who, 0);
    if (core.length > 1) {
      add(`${first} ${last}`, who, 0);
      add(core.slice(0, -1).join(' '), who, 1);
      add(first, who, 1);
      add(last, who, 2);
      for (const title of new Set([...titles, ...POLITE_TITLES])) {
        add(`${title} ${last}`, who, 2);
        // "Dr. Li" for "Li Jun": many names put the family name first.
        add(`${title} ${first}`, who, 3);
      }
    } else {
      for (const title of titles) add(`${title} ${first}`, who, 2);
    }
    for (const nickname of NICKNAMES[first] ?? []) add(nickname, who, 3);
    // "J." is heard as "jay".
    if (core.length === 1) for (const spoken of LETTER_NAMES[first] ?? []) add(spoken, who, 1);
    // Clipped first names ("Alex", "Sam", "Bea"): a prefix that is not an English word.
    for (let n = 3; n <= Math.min(5, first.length - 2); n++) {
      const clipped = first.slice(0, n);
      if (!NOT_A_CLIPPING.has(clipped)) add(clipped, who, 3);
    }
    // "Doctor, what do you think?" when only one participant holds the title.
    for (const title of titles) add(title, who, 4);
  }
  return { aliases, firstWords: new Set([...aliases.keys()].map((key) => key.split(' ')[0]!)), longest };
};

const nameIndexes = new Map<string, NameIndex>();

/** The name index for a participant list, built once per list (rooms keep their list for a session). */
const nameIndexFor = (participants: readonly string[]): NameIndex => {
  const key = participants.join('\u0000');
  const cached = nameIndexes.get(key);
  if (cached) return cached;
  const index = buildNameIndex(participants);
  if (nameIndexes.size >= 256) nameIndexes.delete(nameIndexes.keys().next().value ?? '');
  nameIndexes.set(key, index);
  return index;
};

/** Whom an alias names: one participant, null when several fit equally, 'self' when only the speaker does. */
const resolveAlias = (list: readonly Alias[], speaker: string): string | null | 'self' => {
  const best = Math.min(...list.map((a) => a.rank));
  const others = new Set(list.filter((a) => a.rank === best && a.folded !== speaker).map((a) => a.who));
  if (others.size === 0) return 'self';
  return others.size === 1 ? ([...others][0] ?? null) : null;
};

// ---------------------------------------------------------------------------------------------
// Tokens: words with the punctuation that follows them; participants' names collapse into one
// token `qqn<i>` (`qqp<i>` for a possessive "Nora's"), where i is the token's own index.

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

interface Span {
  readonly from: number;
  /** Exclusive. */
  readonly to: number;
}

interface Unit extends Span {
  /** The sentence ends with a question mark. */
  readonly asked: boolean;
  readonly clauses: readonly Span[];
}

/** An utterance as the rules read it: its words, and its sentence units split into clauses. */
interface ParsedUtterance {
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

const parseUtterance = (text: string, index: NameIndex, speaker: string): ParsedUtterance => {
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

const textOf = (t: ParsedUtterance, from: number, to: number): string => {
  if (from >= to) return '';
  const start = t.starts[from] ?? 0;
  const lastStart = t.starts[to - 1] ?? start;
  return t.joined.slice(start, lastStart + (t.words[to - 1]?.w.length ?? 0));
};

const wordAt = (t: ParsedUtterance, i: number): string => t.words[i]?.w ?? '';
const isName = (t: ParsedUtterance, i: number): boolean => {
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
const isVocativeWord = (t: ParsedUtterance, i: number): boolean => isName(t, i) || isGroupVocative(t, i);

// ---------------------------------------------------------------------------------------------
// First pair parts. Each rule is a regular expression anchored where a clause (or a part of an
// unpunctuated clause) starts. N stands for any participant's name.

const N = 'qqn\\d+';
const WH = '(?:what|where|when|why|how|who|whom|which|whose)';
const AUX = `(?:${[...AUX_WORDS].join('|')})`;
const YOU = '(?:you|u|ya)';
const PLURAL_YOU =
  '(?:yall|you all|you guys|you two|you both|you three|you folks|you lot|both of you|all of you|any of you|one of you|either of you|each of you|some of you|none of you)';
const GROUP = `(?:${PLURAL_YOU}|anyone|anybody|someone|somebody|everyone|everybody|no one|nobody|people|folks)`;
const ADDRESSEE = `(?:${GROUP}|${YOU})`;
const SUBJECT = `(?:${ADDRESSEE}|we|i|they|he|she|it|this|that|there|these|those|${N}|one|all|each|either|neither)`;
const DET = '(?:the|a|an|our|your|my|his|her|their|its|any|every|everything|anything|something|nothing|both)';
const ADV = '(?: (?:please|kindly|just|also|maybe|possibly|quickly|perhaps|actually|still|ever|even|now|again|briefly|real quick|by any chance))*';
const THOUGHTS =
  '(?:thoughts|views?|perspectives?|opinions?|ideas|take|update|story|stories|experiences?|reflections|insights|feedback|impressions|findings|results|side|answer)';
const FOOD =
  '(?:coffee|tea|water|cookies?|cake|snacks?|drinks?|biscuits?|bite|slice|piece|pizza|sandwich(?:es)?|refill|juice|beer|wine|fruit|dessert|donuts?|doughnuts?|croissants?|bagels?|chocolate|mints?|gum|lunch|breakfast|dinner|something to (?:eat|drink)|rice|soup|bread|salad|pasta|curry|cheese|fries|chips|crisps|potatoes|seconds|pie|tart|ice cream|popcorn|nuts|pastry|pastries|cupcakes?|muffins?|candy|sweets|lemonade|soda|milk|cocoa)';
const NEG_AUX = '(?:isnt|arent|wasnt|werent|dont|doesnt|didnt|havent|hasnt|hadnt|cant|couldnt|wont|wouldnt|shouldnt)';
/** Taking the floor, as opposed to taking a task: "would you like to go next" invites, "... to lead the retro" offers. */
const FLOOR_VERB =
  '(?:(?:take|talk|run|walk) (?:us|me|everyone|them|the group|the room) through|take (?:this|that|the) (?:one|question|next (?:one|question))|field (?:this|that|the) (?:one|question)|read (?:it |that |this )?(?:out|aloud)|read (?:the|this|that|our|your) (?:next |first |last )?(?:dialogue|passage|paragraph|poem|question|text|lines?|part|section|sentence|story|answer|essay|excerpt|extract|verse|message|letter|intro|introduction|announcements?|minutes|agenda|results|names|report|statement|comment)|try(?= *$)|have a try|give it a (?:go|try|shot)|go (?:first|next|ahead|on|now|last|second|third|after \\w+)|go(?! (?:to|get|grab|home|out|back|with|for)\\b)|(?:start|begin)(?! (?:the|a|an|working|on|writing|building|using))|kick(?: us| things)? off|say|speak|add|comment|share|respond|reply|answer|present|weigh in|chime in|jump in|pitch in|take the floor|introduce|continue|talk|tell (?:us|me|everyone|the group)|walk us|elaborate|expand|explain|ask|raise|lead off|open|sum up|wrap up|give us|react|follow up|make (?:a|an|your|the|some|any|a few)(?: (?:opening|closing|short|brief|final|quick|few))? (?:point|comment|statement|remarks?|case|pitch|speech|toast|announcement)|show (?:us|them|everyone|the group|the room|the team|the panel)|demo|demonstrate|close (?:us|things|the session|the meeting|the show) (?:out|off)|(?:plug|pitch|promote) (?:your|the|it|that|this)|say (?:hi|hello|a few words)|(?:come|step|get) (?:up|in|forward|on \\w+|to the \\w+) and (?:say|share|tell|introduce|talk)|have a go)';
const FLOOR_ACT = new RegExp(
  `^(?:go (?:first|next|ahead|on)|start us off|kick (?:us |things )?off|get us started|take the floor|say a few words|introduce (?:yourself|yourselves)|share (?:your|some|any) ${THOUGHTS}|(?:tell|give) (?:us|me|everyone|the group) (?:a bit |a little |a little bit |more |some more )?about|(?:start|begin|kick (?:us |things )?off|open) (?:by|with) (?:telling|introducing|sharing|giving|saying|walking|talking|describing)|tell (?:us|me) what you think|jump in|chime in|weigh in|lead off|(?:continue|carry on|keep going|proceed|start|begin)$)`,
);

const rule = (source: string): RegExp => new RegExp(`^(?:${source})\\b`);

const HOW_ARE_YOU = new RegExp(
  `^(?:how (?:are|r) (?:${PLURAL_YOU}|you|u|ya|things|everyone)|how(?:s| is) (?:it going|everyone|everybody|life)|how (?:have|ve) you been|howve you been|how you doing|whats up|sup)(?: doing| today| all| guys| both| holding up| feeling| this morning| keeping| going)*(?: ${N}(?: and ${N})*| everyone| everybody| all| guys| folks| team)?$`,
);

const GREETING = rule(
  [
    'good (?:morning|afternoon|evening|day|night)',
    // Not the answer "morning please" or "evening works".
    `(?:morning|afternoon|evening|night)(?= ${N}| everyone| all| guys| folks| team| (?!(?:please|works|is|would|sounds|then|slot|shift|session)$)\\w+$|$)`,
    'long time no see',
    '(?:ill|i will|we will|well) see (?:you|ya|u)(?: (?:all|guys|both|everyone|everybody))?(?: (?:tomorrow|soon|later|then|next|this|on|in|at|after|around|tonight)\\b.*)?$',
    'hi|hello|hey|hiya|heya|howdy|greetings|yo|welcome|bye|goodbye|good bye|bye bye|see (?:you|ya)|take care|goodnight|farewell',
    // Leave-takings: "talk to you tomorrow", "drive safe", "safe travels".
    '(?:talk|speak|chat) (?:to (?:you|ya|u) )?(?:soon|later|tomorrow|tmrw|next (?:week|time|month)|then|on \\w+day)|catch (?:you|ya|u) later|later (?:all|everyone|guys)',
    '(?:drive|travel|get home|fly|ride|cycle|walk home) safe(?:ly)?|safe (?:travels|trip|flight|journey|drive|ride|home)',
    // Greetings said in other languages in mixed-language rooms.
    'hola|buen(?:os|as) (?:dias|tardes|noches)|hasta (?:luego|manana|pronto|la vista|la proxima)|adios|chao|ciao|bonjour|bonsoir|salut|au revoir|a bientot|hallo|guten (?:morgen|tag|abend)|tschuss|auf wiedersehen|servus|moin|buongiorno|buonasera|arrivederci|namaste|salaam|salam|shalom|konnichiwa|ohayo|sayonara|annyeong|ni hao|ola|bom dia|boa (?:tarde|noite)|tchau|hej|god morgon|dzien dobry|privet|merhaba|jambo|habari',
    `(?:(?:its|it is|so|very|really|it was|was) )?(?:nice|good|great|lovely|pleased|glad|wonderful) to (?:meet|see|have) (?:you|${GROUP}|${N})`,
    `(?:(?:it was|was|its been|it has been|been) )?(?:(?:so|very|really) )?(?:nice|good|great|lovely|a pleasure|wonderful) (?:meeting|seeing|talking to|chatting with|working with) (?:you|${GROUP}|${N})`,
    '(?:thanks|thank you|thank u)(?: (?:so much|very much|all|everyone|both|again|guys|folks|a lot))* for (?:joining|coming|being here|your time|making it|attending|taking the time|making (?:the |some )?time|meeting with (?:me|us)|sitting down with (?:me|us)|dialing in|dialling in|jumping on|hopping on|getting on|showing up|being with us|tuning in|stopping by|dropping by|popping in|listening|watching|calling|visiting|coming by)',
    `(?:im |i am |were |so )?(?:glad|happy|great|so glad) (?:that )?(?:you|${N}|${GROUP}) (?:could|can|were able to|made it|came|joined|are here|re here)`,
    '(?:have a (?:(?:very|really|nice|good|great|lovely|wonderful|quiet|safe|restful|relaxing|fun|happy|fantastic|peaceful|productive|well deserved) )+|enjoy (?:the|your) (?:(?:nice|good|lovely|long|well deserved) )*)(?:day|weekend|evening|night|one|week|trip|holiday|holidays|break|vacation|shift|flight|lunch|rest of (?:the|your) (?:day|week|evening))',
  ].join('|'),
);

const OFFER = rule(
  [
    // Not "can I grab you for two minutes", which asks for the person's time.
    `(?:can|could|may|shall|should) i (?:get|grab|bring|fetch|pour|make|offer|order|buy|find|show|send|give|lend|pass|hand|email|forward) (?:${ADDRESSEE}|${N}|either|both)(?= \\w)(?! (?:for|after|before|later|quickly|real|tomorrow|today|tonight|at|in|on|when|once|sometime|briefly)\\b)`,
    '(?:can|could|may) i (?:help|assist)',
    'shall i',
    // "I can offer you a credit", "chase i'll trade you two sheep for a brick".
    `(?:i|we|id|ill|wed|well)(?: (?:can|could|would like to|like to|want to|will|am happy to|m happy to))? offer (?:${ADDRESSEE}|${N})`,
    `(?:ill|i will|i can|i could|id|i would|well|we will|we can|we could) (?:trade|swap|sell|lend|loan) (?:you|u|${N})`,
    'should i (?:send|share|take|grab|get|bring|book|order|start|set up|make|call|email|draft|write|prepare|schedule|organi[sz]e|print|forward|circulate|handle|pick up|put together|reserve|invite|host|drive|lead|present|update|fix|cover)',
    '(?:do you |would you |you )?(?:want|wanna|like|need) me to',
    '(?:how about|what if) i',
    `(?:how|what) about (?:some |a |another |more )?${FOOD}`,
    '(?:what|how) can i (?:get|do|help)',
    'is there anything (?:else )?(?:i|we) can',
    'anything (?:else )?(?:i|we) can (?:do|get|help)',
    `let me (?:get|grab|bring|fetch|pour|make|show|help|send|give|find|order|buy|pull up|print|walk) (?:${ADDRESSEE}|${N})`,
    'let me help(?: out)?$',
    // "I'm happy to take notes" (not "I'm happy to report that ..."); a bare "happy to" answers.
    `(?:im|i am|id be|i would be|ill be|i will be|were|we are|wed be|we would be)(?: (?:more than|really|very|always|also|totally|absolutely|definitely|so))? (?:happy|glad|willing|keen) to (?!(?:hear|say|report|announce|see|be|meet|know|confirm|share that|tell you that|help$|bet|admit|concede|accept|wait|listen|go along|agree|learn|discuss|talk|chat)\\b)\\w+`,
    '(?:let me|i can|i could|ill) (?:take|get) (?:that|it|this|those|these) off your plate',
    `care for (?:some |a |another |more )?${FOOD}`,
    `let me know if (?:${ADDRESSEE}|${N}) (?:need|needs|want|wants) (?:anything|help|a hand|any help|me to|something)`,
    'need (?:a hand|any help|help|anything|a ride|a lift|a copy)',
    '(?:want|wanna|fancy|need) (?:some|a|an|another|more|any)',
    `(?:please )?(?:help yourself|help yourselves|have|take|grab) (?:(?:to|some|a|another|more|a bit of|a little|a piece of|a slice of) )*(?:seat|chair|${FOOD})`,
  ].join('|'),
);

/** Pointing at someone in the audience: "yes, you in the blue shirt", "the gentleman in the front row". */
const POINTED =
  '(?:you|the (?:gentleman|gentlemen|lady|ladies|woman|women|man|men|person|guy|gal|young (?:man|woman|lady)|one|folks?|people|hand|colleague|student)) (?:in|at|with|on|over|by|near|up|down|wearing|holding|right) (?:the|a|an|there|front|back|here|middle|left|right)\\b';

const INVITATION = rule(
  [
    POINTED,
    '(?:please |so |ok |okay |now )?(?:go ahead|go on|carry on|keep going|go first|go next)',
    '(?:please )?(?:continue|proceed)(?: please)?$',
    'you (?:go |roll |play |move |bat |bowl |shoot |draw |deal |pick |throw )?(?:first|next)',
    '(?:you )?(?:can|may|could) (?:go ahead|start|begin|go first|go next|continue|proceed|take it away|take the floor|kick us off|start us off)',
    'feel free to (?:go ahead|start|begin|jump in|chime in|weigh in|speak|share|respond|add|comment|ask|continue|introduce)',
    '(?:please )?(?:introduce (?:yourself|yourselves)|say a few words|take the floor|start us off|kick (?:us|things) off|get us started|jump in|chime in|weigh in)',
    `(?:please )?(?:share|give us|tell us) (?:your|some|any|a few) ${THOUGHTS}`,
    '(?:please )?tell (?:us|me|everyone|the group) (?:a bit |a little |a little bit |more |some more )?about',
    // "Is there anything you'd like to add?", "anything else from you?"
    '(?:is there )?anything (?:else )?(?:you d|youd|you would|u d|you|u) (?:would )?(?:like|want|wanna|wanted|care) to (?:add|say|share|ask|mention)',
    `anything (?:else |more |further )?(?:from (?:you|${N})|to add)(?: (?:you|${N}))?$`,
    // "Please begin your presentation whenever you're ready."
    '(?:please )?(?:begin|start|go ahead|proceed|continue|present|fire away)\\b.*\\b(?:whenever|when|once) (?:you|u)(?:re| are| re| r) ready$',
    `(?:lets|let us) (?:hear|start with (?:you|${N})|begin with (?:you|${N})|go to|turn to|go around)`,
    '(?:whos|who is) (?:next|up|first|going (?:first|next)|starting)',
    // "Anything else before we wrap up?": the last call for the floor before closing.
    '(?:is there |does (?:anyone|anybody) have |(?:anyone|anybody) (?:have |got )?)?anything (?:else|more|further)(?: (?:from anyone|from anybody|from the (?:group|team|room)|anyone|to add))? before (?:we|i) (?:wrap|close|finish|end|stop|move on|go|sign off|break|adjourn|hang up|call it)',
    'last but not least',
    `care to ${FLOOR_VERB}`,
    `next (?:up )?(?:is |will be )?${N}`,
    '(?:(?:ok|okay|alright|right|yes|so) )*next (?:question|questions|speaker|caller|person|hand|one)(?: please)?$',
    'anything (?:else )?(?:you d|youd|you would|u d) (?:like|want|care) to (?:add|say|share|ask)',
    'anything (?:else )?(?:you|u) (?:want|wanna|wanted) to (?:add|say|share|ask)',
    'you (?:wanted|want|wanna|were going|were about) to (?:say|add|ask|share|comment|mention|respond|jump in|chime in|make a)',
    'you (?:had|have) (?:something|a question|a comment|a point|your hand up)',
    `(?:over|back) to (?:you|${N})`,
    `(?:why dont you|why not) ${FLOOR_VERB}`,
  ].join('|'),
);

const REQUEST = rule(
  [
    `(?:(?:i|we) (?:need|would like|want|would love|really need)|(?:id|wed) (?:like|love|really like)) (?:${ADDRESSEE}|${N}) to`,
    `(?:i|we|id|wed)(?: would)? (?:really )?appreciate (?:it )?if (?:${ADDRESSEE}|${N}) (?:could|can|would)`,
    `(?:it would|it d|itd|would|that would|thatd|it will|itll|it might) be (?:great|helpful|nice|good|awesome|amazing|useful|lovely|fantastic|perfect|ideal|brilliant|super helpful|really helpful) if (?:${ADDRESSEE}|${N}) (?:could|can|would|might)`,
    `if (?:${ADDRESSEE}|${N}) (?:could|can|would|might)(?: please| just| also| maybe| quickly)* \\w+`,
    `(?:i (?:was|am)|im|just|was) (?:wondering|hoping) if (?:${ADDRESSEE}|${N}) (?:could|can|would|might)`,
    `(?:would|do|does) ${ADDRESSEE} mind`,
    `(?:would|will) ${YOU} be (?:able|willing|so kind|kind enough)`,
    `(?:would|is) it (?:be )?possible (?:for (?:you|${N}) )?to`,
    // Asking permission: "can I borrow your slides", "may we start".
    '(?:can|could|may|might) (?:i|we)(?: please| just| quickly| also| maybe)* (?!be\\b|ask (?:(?:you|qqn\\d+) )?(?:if|whether|what|how|why|when|where|who|which)\\b)\\w+',
    `let (?:me|us|${N}|him|her|them|everyone) know`,
    'make sure|dont forget|do not forget|remember to|be sure to|please remember',
    `(?:you|u) (?:need|have|ve got|got|must|ll need|will need|ll have|will have) to`,
    `why dont ${YOU} \\w+`,
    'have a look',
    '(?:maybe|perhaps) (?:you|u) (?:could|can|would|might want to|should)',
    '(?:is it|would it be|will it be|its) (?:ok|okay|alright|all right|fine|cool) if (?:i|we)',
  ].join('|'),
);

const INDIRECT_QUESTION = rule(
  [
    // "So the real question, Amara, is whether ...": the question announced, then put to someone
    // ("The question is whether we can afford it." in one breath only muses).
    `(?:the|one|my|our) (?:(?:real|big|main|key|only|obvious|burning|bigger|important|million dollar|open|remaining|first|last|next) )?question(?: (?:for|to) (?:you|${N}))?$`,
    '(?:(?:i|we)(?: was| am| m| were| are| re)?(?: just| really| also)? (?:wondering|curious)|(?:just )?(?:wondering|curious)|i wonder) (?:if|whether|what|how|why|when|where|who|which)',
    '(?:(?:i|we)(?: would)?|id|wed) (?:like|love|want|wanted) to (?:know|understand|ask|check|confirm|clarify)',
    '(?:i|we) (?:have|ve got|got|had) (?:a|one|another|one more|a quick|a small|a follow up|a followup|some|a couple of|two|a few) (?:quick |small |follow up |followup |more )?questions?',
    '(?:my|one|a|quick|another|last|final|small|follow up|followup)(?: quick| small| last| final| more)? question',
    '(?:please )?tell (?:me|us)(?: please)? (?:if|whether|what|how|why|when|where|who|which)',
    'let me ask',
    // "May I ask Councillor Morgan what consultation was done?"
    `(?:can|could|may|might) (?:i|we) (?:just |quickly |also )?ask (?:(?:you|${N}) )?(?:if|whether|what|how|why|when|where|who|which)`,
    '(?:just )?(?:to (?:check|confirm|clarify|double check)|checking|quick check|sanity check)',
  ].join('|'),
);

const WH_QUESTION = rule(
  [
    `(?:how|what) about (?:you|u|yourself|${N})`,
    `${WH}(?: (?:else|exactly|then|now|again))? ${AUX}`,
    'whats|whos|wheres|whens|whys|hows|whatre|whatd|whod|howd|whered|wholl|whatll|whove|whatve|howre|whyd|whaddya|whatcha',
    'how (?:many|much|long|often|far|come|big|soon|old|well|close|sure|confident|likely|bad|good|fast|quickly|exactly|else|so)',
    // "whose turn is it", "which room are we in"
    `(?:which|whose) \\w+(?: \\w+)? ${AUX} (?:${SUBJECT}|${DET})`,
    `(?:what|which|whose) (?:time|day|date|kind|sort|type|ones?|versions?|options?|number|part|parts|way|size|colou?r|room|file|slide|page|model|approach|team|person|project|tool|week|month|year|price|budget|percentage|data|design|plan|steps?|format|deadline|topic|questions?|issues?|problems?|changes?) (?:${AUX}|of)`,
    'who (?:wants|has|knows|needs|else|agrees|disagrees|thinks|remembers|took|wrote|made|sent|owns|handles|gets|volunteers)',
    // "who left the milk out": who did it is asked, not said.
    'who (?:left|took|ate|broke|said|did|saw|told|wrote|put|forgot|drank|stole|moved|won|lost|got|sent|came|used|finished|spilled|spilt|invited|booked|ordered|called|started|turned|unplugged|deleted|\\w+ed)\\b',
    '(?:what|who) (?:happened|happens|changed|went|made|makes|brought|brings|led|caused|worked|works|surprised|stood|got|gets|drew|draws|inspired|inspires|motivated|motivates|prompted|kept|keeps|convinced|sparked|drove|drives|pushed|sold|struck|stands out|stood out|excites|excited|worries|worried|scares|scared|helped|helps)',
    'what if|why not|how about|what about',
  ].join('|'),
);

const AUX_QUESTION = rule(
  [
    `(?:is|are|was|were|isnt|arent|wasnt|werent) (?:${SUBJECT}|${DET})`,
    'am i',
    `(?:do|dont) (?:${ADDRESSEE}|we|they|i|${N}|any of|these|those)`,
    // Not "did it yesterday", the answer that drops its "I".
    `(?:does|doesnt|did|didnt|has|had|hasnt|hadnt) (?:${SUBJECT}|the|this|that|these|those|your|my|our|his|her|their|its)(?! (?:yesterday|today|already|again|earlier|before|last|myself|ourselves|too|once|twice)\\b)`,
    `(?:have|havent) (?:${ADDRESSEE}|we|they|i|${N})`,
    `(?:can|could|will|would|should|shall|may|might|must|cant|couldnt|wont|wouldnt|shouldnt) (?:${SUBJECT}|${DET})`,
  ].join('|'),
);

/** Speech recognition drops the auxiliary: "rosa you there", "you ready". */
const BARE_YOU_QUESTION = new RegExp(
  `^(?:${PLURAL_YOU}|you|u|everyone|everybody) (?:still |all )?(?:(?:got|have) (?:a (?:quick )?(?:sec|second|minute|min|moment)|(?:some |a little )?time)\\b|(?:there|ready|ok|okay|alright|good|sure|back|with me|with us|around|free|busy|done|awake)(?:$| (?:to|for|with|at|on|yet|now)\\b)|\\w+ing\\b)`,
);
/** "kofi your ankle okay": a yes/no question about someone's own state, auxiliary dropped. */
const BARE_YOUR_QUESTION = /^your (?!(?:is|are|was|were|looks|seems|feels)\b)\w+(?: (?!(?:is|are|was|were|looks|seems|feels|s)\b)\w+)? (?:still )?(?:ok|okay|alright|all right|good|better|fine|sorted|ready|done|working|holding up|feeling better)$/;
/** "anyone seen my keys": a question to the group without its auxiliary. */
const BARE_GROUP_QUESTION = /^(?:anyone|anybody|everyone|everybody|someone|somebody) (?:seen|got|know|have|heard|tried|noticed|checked|ready|free|around|else)\b/;

const OPEN_QUESTION = rule(
  `any (?:idea|clue|chance|word)|(?:any|your) (?:${THOUGHTS}|questions|comments|objections|concerns|ideas|luck|news|updates|progress|reactions|input|suggestions|takers|volunteers|corrections|amendments|additions|announcements|blockers|other (?:questions|thoughts|comments|business))|thoughts|anything (?:else|to add|from|on)`,
);

const IMPERATIVE_VERBS =
  'roll|sit|stand|stay|stick|watch|guard|defend|shoot|box out|hold down|come (?:here|in|over|back|sit)|empty|state|enter|choose|name|list|spell|translate|solve|calculate|conjugate|answer|define|label|circle|underline|highlight|sketch|draw|measure|lock|unlock|pull|mark|note|log|lead|chase|escalate|page|assign|triage|investigate|reproduce|rerun|revert|roll back|sign off|sign up|set up|look into|send|share|forward|email|mail|post|upload|download|give|pass|hand|bring|grab|fetch|take|put|set|move|open|close|shut|turn|switch|start|stop|pause|mute|unmute|check|look|review|read|write|draft|type|fill|sign|print|copy|paste|add|remove|delete|drop|update|fix|change|edit|rename|book|schedule|reschedule|cancel|call|phone|ring|ping|text|message|remind|keep|finish|complete|prepare|organi[sz]e|arrange|handle|cover|sort|summari[sz]e|recap|record|jot|show|walk|present|run|test|try|help|follow|reach|contact|circulate|distribute|collect|speak|slow|repeat|explain|clarify|elaborate|expand|describe|confirm|double check|tell|join|get|find|order|pick|loop|cc|include|invite|ask|raise|lower|flag|save|submit|approve|merge|push|deploy|install|restart|refresh|reload|zoom|scroll|click|hop|clean|tidy|make|hurry|note down|write down|go get';
const IMPERATIVE = new RegExp(
  `^(?:(?:please|kindly|just|pls|plz) )*(?:(?:stop|keep|start|quit) \\w+ing|listen|do (?:me|us) a (?:favou?r|solid)|(?:${IMPERATIVE_VERBS}) (?:me|us|him|her|them|it|this|that|these|those|the|a|an|my|your|our|his|their|its|some|any|all|everyone|everybody|up|out|over|back|down|in|on|off|through|around|to|with|for|again|yourself|yourselves|now|quickly|here|there|at|into|what|how|if|whether|when|where|why|who|which|more|something|anything|one|another|both|each|question|page|chapter|number|step|line|exercise|problem|slide|section|item|option|${N}))\\b`,
);
const YOU_TASK = new RegExp(
  `^(?:you|u) (?:take|grab|handle|cover|guard|watch|mark|lead|check|call|send|bring|book|drive|pick up|sort out|deal with|stick|keep an eye|run|draft|write up|stay on|box out|defend|inbound)(?: (?:the|their|our|your|my|his|her|this|that|these|those|a|an|it|them|him|her|on|with|to|out|up|number|point|ball|notes|minutes|lead)\\b)`,
);
const PLEASE_FIRST = /^(?:please|kindly|pls|plz) (?!qq[np]\d)\w+/;
const ECHO_WH = /\b(?:what|who|where|when|which|why|how)(?: exactly)?$/;
const FOOD_ASKED = new RegExp(`^(?:(?:more|some|a|another|any) )?${FOOD}(?: (?:anyone|anybody|everyone|someone|for (?:you|anyone)))?$`);

/** "Would you like / do you want / who wants ...": an offer of a thing or task, or an invitation to take the floor. */
const WANT = new RegExp(
  `^(?:(would|do|did|will|does|wouldnt|dont|didnt) )?(${ADDRESSEE}|who|whod|youd|which (?:one )?of you)(?: (?:please|just|also|maybe|perhaps|still|else))* (?:(would|d) )?(like|love|want|wants|wanna|care|cares|fancy|fancies|need|needs|mind|minds)\\b ?(.*)$`,
);
const GROUP_SUBJECT = new RegExp(`^(?:${PLURAL_YOU}|who|which|anyone|anybody|someone|somebody|everyone|everybody)`);
const BARE_WANT = /^(?:want|wanna|fancy|care) (to \w.*|\w+ing\b.*)$/;
const FLOOR_AFTER_WANT = new RegExp(`^(?:to )?${FLOOR_VERB}\\b`);
const NEED_OFFERED = /^(?:me to|us to|help|a hand|anything|something|a|an|some|any|another|more|water|coffee|tea)\b/;

const wantPair = (aux: string | undefined, subject: string, modal: string | undefined, verb: string, rest: string, asked: boolean): PairType | null => {
  const group = GROUP_SUBJECT.test(subject);
  // "you want to know what happened" is a statement; without an auxiliary only a group subject or "?" asks.
  if (!aux && !modal && !group && !asked) return null;
  if (verb.startsWith('mind')) return 'request';
  const polite = aux === 'would' || aux === 'wouldnt' || modal !== undefined;
  if ((verb === 'like' || verb === 'love') && !polite) return group ? 'offer' : 'question';
  if (verb.startsWith('need')) return NEED_OFFERED.test(rest) ? 'offer' : 'question';
  if (/^(?:me|us) to\b/.test(rest)) return 'offer';
  if (FLOOR_AFTER_WANT.test(rest)) return 'invitation';
  return 'offer';
};

/** "Can you / could you / would you + verb": a request by default; a question for perception, memory or opinion. */
const ASK_YOU = new RegExp(`^(can|could|would|will|wont|cant|couldnt|wouldnt)(?: not)? (${ADDRESSEE})${ADV} (\\w+) ?(.*)$`);
const ASK_VERBS = words('hear see believe remember recall imagine think guess understand confirm follow access feel live afford picture spot relate');
const OPINION_VERBS = words('say agree recommend prefer rather consider know expect describe rate call estimate choose vote go change trust have need');
const SPEECH_VERBS = words('tell explain clarify describe remind say confirm');
const WH_OR_IF = /^(?:(?:me|us|everyone|them|the group) )?(?:if|whether|what|how|why|when|where|who|which)\b/;

const askPair = (modal: string, verb: string, rest: string): PairType => {
  if (FLOOR_ACT.test(`${verb} ${rest}`.trim())) return 'invitation';
  if (verb === 'be') return /^(?:able|willing|so kind|kind enough)\b/.test(rest) ? 'request' : 'question';
  if (SPEECH_VERBS.has(verb) && WH_OR_IF.test(rest)) return 'question';
  if (verb === 'make' && /^it\b/.test(rest)) return 'question';
  if (verb === 'see' && /^(?:if|whether)\b/.test(rest)) return 'request';
  if (verb === 'follow' && /^up\b/.test(rest)) return 'request';
  if (verb === 'confirm' && /^with\b/.test(rest)) return 'request';
  if (ASK_VERBS.has(verb)) return 'question';
  if (/^(?:would|will|wont|wouldnt)$/.test(modal) && OPINION_VERBS.has(verb)) return 'question';
  return 'request';
};

/**
 * The first pair part that starts at the beginning of `tail`, if any. `free` says the position
 * starts a clause or follows a vocative, where a bare imperative ("send me the file") is a request.
 */
const pairAt = (tail: string, free: boolean, asked: boolean, called = false): PairType | null => {
  if (HOW_ARE_YOU.test(tail)) return 'greeting';
  if (OFFER.test(tail)) return 'offer';
  if (INVITATION.test(tail)) return 'invitation';
  const want = WANT.exec(tail);
  if (want) {
    const subject = want[2] ?? '';
    // "chris you wanna take us through the roadmap": after a vocative, "you want" asks without its auxiliary.
    const calledYou = called && /^(?:you|u|ya)$/.test(subject);
    const pair = wantPair(want[1], subject, subject.endsWith('d') ? 'd' : want[3], want[4] ?? '', want[5] ?? '', asked || calledYou);
    if (pair) return pair;
  }
  // "Aigerim, want to trade your property for my railroad?": the same offer without its "do you".
  const bare = BARE_WANT.exec(tail);
  if (bare && (asked || called)) return FLOOR_AFTER_WANT.test(bare[1] ?? '') ? 'invitation' : 'offer';
  const ask = ASK_YOU.exec(tail);
  if (ask) return askPair(ask[1] ?? '', ask[3] ?? '', ask[4] ?? '');
  if (REQUEST.test(tail)) return 'request';
  if (INDIRECT_QUESTION.test(tail)) return 'question';
  if (GREETING.test(tail)) return 'greeting';
  if ([WH_QUESTION, AUX_QUESTION, OPEN_QUESTION, BARE_YOU_QUESTION, BARE_YOUR_QUESTION, BARE_GROUP_QUESTION].some((re) => re.test(tail))) return 'question';
  if (asked && FOOD_ASKED.test(tail)) return 'offer';
  // "deshawn you take the inbound": a task handed out by name, with "you" for emphasis.
  if (called && !asked && YOU_TASK.test(tail)) return 'request';
  // "Help with what exactly?" echoes to ask, it does not direct.
  if (free && (IMPERATIVE.test(tail) || PLEASE_FIRST.test(tail))) return asked && ECHO_WH.test(tail) ? 'question' : 'request';
  return null;
};

/** "I handed it over to Nora last month" reports a hand-over; it does not make one. */
const HANDED_OVER = '(?<!\\b(?:handed|passed|turned|gave|given|went|came|moved|sent|got|get|switched|changed)(?: it| things| this| that| everything)? )';

/** Clause-wide patterns that need not start the clause: "I think it's your turn", "..., isn't it". */
const INVITATION_ANYWHERE = new RegExp(
  `\\b(?:your (?:turn|floor|go|move)|floor(?:s| is) (?:all )?yours|${HANDED_OVER}(?:over|back) to (?:you|${N})|you(?:re| are| re) (?:up|next|on deck|on the air|on air|live)|you(?:re| are| re) (?:the )?(?:last|final)(?: (?:one|person|speaker|up))?$|you(?:re| are| re) on$|(?:whenever|when|once) (?:you|u)(?:re| are| re| r) ready$|take it away|all yours|kick us off|start us off|get us started|you have the floor|stage is yours|say a few words|introduce (?:yourself|yourselves)|qqp\\d+ turn|${N} (?:is|s|will be) (?:up|next)|hear (?:more )?from (?:you|${N})|hear (?:your|what you|what ${N})|(?:hand|pass|turn)(?: it| things| the floor)?(?: over| back)? to (?:you|${N})|(?:start|begin) with (?:you|${N}))\\b`,
);
const OFFER_CONDITION = `(?:if (?:(?:you|youd|you would|${GROUP}|${N})(?: else)?(?: would)? (?:like|likes|want|wants|prefer|need|needs))|if (?:you think )?(?:that|it) (?:helps|would help|will help|might help|d help)|if (?:(?:you|${GROUP})(?: else)?(?:s|re| is| are| re| gets| get)|youre|(?:anyone|anybody|someone|somebody|everyone|everybody)(?: else)?s) (?:staying late|sticking around|working late|hungry|thirsty|cold|chilly|peckish|interested|keen|up for (?:it|that)|stuck|struggling))`;
/** "I can take that for you", "let me pull up the numbers for you" (not "I hope it gets better for you"). */
const DONE_FOR_YOU =
  '\\b(?:i|we)(?: (?:can|could|will|would|am happy to|m happy to|d be happy to|would be happy to|am going to|m gonna))? (?!hope|wish|think|feel|bet|guess|know|pray|am|m|was)\\w+(?: \\w+){0,6} for (?:you|u)\\b|\\b(?:ill|id|well|let me|happy to|glad to)(?: \\w+){1,6} for (?:you|u)\\b';
/** "I can send you my notes if you like", "if you want, I can walk you through it". */
const OFFER_ANYWHERE = new RegExp(
  `\\b(?:i|ive|im|ill|id|we|weve|let me|happy to|glad to)\\b.*\\b${OFFER_CONDITION}\\b|\\b${OFFER_CONDITION}\\b.*\\b(?:i|ill|let me|happy to)\\b|${DONE_FOR_YOU}`,
);
const TAG_QUESTION = new RegExp(
  `\\b(?:${NEG_AUX} (?:it|you|we|they|he|she|there|i|that|${N})|dont you think|wouldnt you say|or not|(?<=\\w \\w+ \\w+ )or|(?:is|isnt) (?:that|it) (?:right|correct|true|so)|(?:in|for|by|from|since|to|with|at|on) (?:what|which|whom|who|where|when)(?: \\w+)?)$`,
);
/** "you said tuesday right": a statement with a subject, then "right" as a tag (not "you're right"). */
const RIGHT_TAG = new RegExp(
  `\\b(?:you|u|we|were|they|theyre|he|she|i|im|${N}) \\w+(?: \\w+)* (?<!\\b(?:youre|are|is|thats|s|were|was|absolutely|exactly|quite|all|alright|so|be|just|that|this|it|them|things|everything|turn|the|your|my|our|his|her|their|its|to|on|of|in|at|go|do|done|get|got|doing) )(?<!\\bqqp\\d+ )(?:right|correct)$`,
);

// ---------------------------------------------------------------------------------------------
// Vocatives: names (or group words) that address rather than mention.

interface Vocative {
  readonly i: number;
  readonly clause: number;
  /** Right after "thanks": the one thanked for the last turn, not necessarily the one asked next. */
  readonly thanked: boolean;
}

/** Index after a chain of vocative words joined by "and" ("Ben and Cleo"), or `from` when there is none. */
const chainEnd = (t: ParsedUtterance, from: number, to: number): number => {
  let k = from;
  while (k < to && isVocativeWord(t, k)) {
    k++;
    if (k + 1 < to && (wordAt(t, k) === 'and' || wordAt(t, k) === '&') && isVocativeWord(t, k + 1)) k++;
  }
  return k;
};

/** Whether what follows a name at `k` shows the name addresses someone: "Ben, what ...", "ben can you ...". */
const addressesNext = (t: ParsedUtterance, k: number, to: number, asked: boolean): boolean => {
  if (k >= to) return true;
  const next = wordAt(t, k);
  if (VOCATIVE_NEXT.has(next)) return true;
  if (AUX_WORDS.has(next)) {
    const after = wordAt(t, k + 1);
    // "Ben can you ..." addresses Ben; "Ben can share his screen" talks about him.
    if (ADDRESS_WORDS.has(after)) return true;
    if (IMPERATIVE.test(textOf(t, k, to))) return true;
    if (!INVERTED_SUBJECTS.has(after)) return false;
    // "mr dube is there a tutoring programme": an existential question asks.
    if (/^(?:is|are|was|were)$/.test(next) && after === 'there' && THERE_ASKED.has(wordAt(t, k + 2))) return true;
    // "tariq is the budget approved" asks Tariq; "Quinn is the lead" talks about Quinn.
    const end = TRAILING_ADVERBS.has(wordAt(t, to - 1)) ? to - 1 : to;
    if (asked || PREDICATE_ENDS.has(wordAt(t, end - 1)) || (wordAt(t, end - 2) === 'or' && wordAt(t, end - 1) === 'not')) return true;
    // "kwabena was that your change": a demonstrative right after the auxiliary only inverts.
    if (/^(?:that|this|it)$/.test(after) && k + 2 < end && !/^(?:is|was|s)$/.test(wordAt(t, k + 2))) return true;
    // "bill is the contract six months or twelve": offering alternatives asks.
    for (let j = k + 2; j < end - 1; j++) if (wordAt(t, j) === 'or') return true;
    // "vic did your team see anything in the logs": "do" or a modal, a subject, then the bare verb
    // the auxiliary inverts ("Vic did your taxes", "Omar did the sign off" stay statements).
    if (/^(?:do|does|did|can|could|will|would|should)$/.test(next) && after !== 'there') {
      for (let j = k + 3; j < Math.min(end, k + 6); j++) {
        if (BASE_VERBS.has(wordAt(t, j)) && !INVERTED_SUBJECTS.has(wordAt(t, j - 1)) && !/^(?:a|an|to)$/.test(wordAt(t, j - 1))) return true;
      }
    }
    return false;
  }
  return IMPERATIVE.test(textOf(t, k, to)) || GREETING.test(textOf(t, k, to));
};

/** Bare verbs that follow an inverted subject: "did your team see ...", "can the vendor deliver ...". */
const BASE_VERBS = words(`see know get go come happen work say think want need like look hear find make take give send finish
  start end pass fail break change arrive show reply respond sign approve agree mention ask call fix run help cover include ship
  move update load crash build deploy merge match cost check notice catch deliver handle support cope manage reach meet hit
  fit scale improve increase drop slip land close open launch go out come back get back turn out mean matter`);

const THERE_ASKED = words('a an any anything anyone anybody some someone somebody something another enough room time way space');

const thankedAt = (t: ParsedUtterance, i: number): boolean => {
  for (let j = i - 1, steps = 0; j >= 0 && steps < 4; j--, steps++) {
    const w = wordAt(t, j);
    if (THANKS_WORDS.has(w)) return true;
    if (!THANKS_FILLER.has(w)) return false;
  }
  return false;
};

const isAddressOnly = (t: ParsedUtterance, c: Span): boolean => {
  let vocatives = 0;
  for (let i = c.from; i < c.to; i++) {
    if (isVocativeWord(t, i)) vocatives++;
    else if (!ADDRESS_ONLY.has(wordAt(t, i)) && wordAt(t, i) !== '&') return false;
  }
  return vocatives > 0;
};

const isBare = (t: ParsedUtterance, u: Span): boolean => {
  let vocatives = 0;
  for (let i = u.from; i < u.to; i++) {
    if (isName(t, i)) vocatives++;
    else if (!BARE_ONLY.has(wordAt(t, i))) return false;
  }
  return vocatives > 0;
};

/** Words after which a name is said to its bearer: "hi mr halloran", "morning everyone". */
const GREET_WORDS = words('hi hello hey heya hiya morning afternoon evening welcome bye goodbye night');
/** Verbs that take a person and then a question: "ask Omar what ...", "tell Pia where ...". */
const ASKING_VERBS = words('ask asked asking tell told telling show showed remind reminded');
/** Breakers after which a name may be called mid-clause: "... but professor can I push back". */
const CALL_BREAKERS = words('but so then okay ok well now anyway anyways also alright actually um uh erm sorry right yeah yes');

/**
 * Whether the words before a name at `i` leave it free to be a vocative: it starts the clause, or
 * only markers precede it ("and sergei you're ..."), or it follows a breaker in run-on speech
 * ("... mostly but professor can i ..."), or no word ties it into the sentence. A preposition before
 * it does not when a question follows ("before i dive in chase what are the ...").
 */
const freeBefore = (t: ParsedUtterance, from: number, i: number, end: number, to: number): boolean => {
  if (i === from) return true;
  const before = wordAt(t, i - 1);
  if (!BLOCKERS.has(before)) return true;
  // "... this week if you want amara": a name after the condition that closes an offer.
  if (end === to && /^if (?:you|u) (?:want|like|need|prefer|wish)$/.test(textOf(t, Math.max(from, i - 3), i))) return true;
  let k = from;
  while (k < i && MARKERS.has(wordAt(t, k))) k++;
  if (k === i) return true;
  if (CALL_BREAKERS.has(before) && !isVocativeWord(t, i - 2) && end < to && AUX_WORDS.has(wordAt(t, end)) && ADDRESS_WORDS.has(wordAt(t, end + 1))) return true;
  return WH_WORDS.has(wordAt(t, end)) && AUX_WORDS.has(wordAt(t, end + 1)) && !ASKING_VERBS.has(before) && !AUX_WORDS.has(before);
};

const NEW_SUBJECTS = words('the my our we this these those thats theres there were weve hes shes theyre he she they');
const leadIn = (t: ParsedUtterance, from: number, to: number): boolean => {
  for (let k = from; k < to; k++) if (!MARKERS.has(wordAt(t, k))) return false;
  return true;
};

/** Every vocative in a sentence, with the clause it sits in. */
const vocativesOf = (t: ParsedUtterance, u: Unit): Vocative[] => {
  const found: Vocative[] = [];
  const add = (i: number, clause: number): void => {
    if (found.some((v) => v.i === i) || wordAt(t, i) === 'and' || wordAt(t, i) === '&') return;
    found.push({ i, clause, thanked: thankedAt(t, i) });
  };
  u.clauses.forEach((c, clause) => {
    for (let i = c.from; i < c.to; i++) if (t.words[i]?.at && isName(t, i)) add(i, clause);
    if (isAddressOnly(t, c)) {
      for (let i = c.from; i < c.to; i++) if (isVocativeWord(t, i)) add(i, clause);
      return;
    }
    for (let i = c.from; i < c.to; i++) {
      if (!isVocativeWord(t, i) || (i > c.from && isVocativeWord(t, i - 1))) continue;
      const end = chainEnd(t, i, c.to);
      const free = freeBefore(t, c.from, i, end, c.to);
      // At the clause end ("what do you think ben") or before a first pair part ("ben what ...").
      const atEnd = end === c.to && i > c.from;
      const greeted = GREET_WORDS.has(wordAt(t, i - 1)) && isName(t, i);
      // "doctor kobayashi the family want ...": a name that opens the turn, followed by a new subject, calls.
      const opening = u.from === 0 && c.from === 0 && leadIn(t, 0, i) && NEW_SUBJECTS.has(wordAt(t, end)) && !t.words[end - 1]?.punct;
      if (greeted || opening || (free && (atEnd || addressesNext(t, end, c.to, u.asked)))) for (let k = i; k < end; k++) add(k, clause);
      i = end - 1;
    }
  });
  return found;
};

// ---------------------------------------------------------------------------------------------
// Finding the first pair part of a turn.

interface FirstPairPart {
  readonly pair: PairType;
  readonly unit: number;
  readonly clause: number;
  /** Word where the first pair part starts. */
  readonly at: number;
}

/** Skips discourse markers, thanks and vocatives at the start of a clause: "So, thanks Hugo, Iris, please go ahead". */
const skipLead = (t: ParsedUtterance, from: number, to: number, asked: boolean): number => {
  let p = from;
  while (p < to) {
    const w = wordAt(t, p);
    if (THANKS_WORDS.has(w)) {
      let k = p + 1;
      while (k < to && (THANKS_FILLER.has(wordAt(t, k)) || THANKED_GROUP.has(wordAt(t, k)))) k++;
      // "Thanks (all) for joining" is a greeting, not a lead-in.
      if (wordAt(t, k) === 'for') break;
      p = k;
      continue;
    }
    if (MARKERS.has(w)) {
      p++;
      continue;
    }
    const end = chainEnd(t, p, to);
    if (end > p && addressesNext(t, end, to, asked)) {
      p = end;
      continue;
    }
    break;
  }
  return p;
};

const EMBEDDING = words(`know knew known sure idea wonder wondering wondered ask asked asking tell told see saw understand remember
  decide decided explain figure show matter care mean about on of is was regardless guess imagine check find out if whether so
  than as that what where how why who when which them him her me us`);
const INVERTED_WH = new RegExp(`^${WH}(?: (?:much|many|long|often|far|soon|else|exactly)(?: \\w+)?)? ${AUX} (?:you|u|we|i|they|he|she|it|the|your|our|this|that|these|those|there|${N})\\b`);
const PLAN_CHECK = /^(?:work|works|sound|sounds|suit|suits|make sense|fit|fits|seem|help|be (?:ok|okay|alright|fine))\b/;
const SALUTES = words('hi hello hey hiya heya morning evening afternoon bye goodbye');
const COPULAS = words('is was were are am isnt wasnt werent arent');
const PERSONAL_SUBJECTS = words('i we they he she you it');
const STATED_SUBJECTS = words('it its that thats this there he she they we i');
const RUN_ON_WH = /^(?:what|who) (?:happened|changed|went wrong|broke|happens next|is going on|s going on|is wrong|s wrong|did (?:that|this|it))(?: (?:then|there|next|after(?:wards)?|exactly|with (?:it|that|them|the \w+)))?$/;
/** Words that take a wh-clause as their object or complement: "exactly what happened", "forgot who did it". */
const EMBEDDED_BY = words(`exactly precisely thats this heres theres whats knows sees tells explains shows asks understands
  understood wonders decides remembers forgets figured forgot forget forgotten remember heard hear learned learn saw seen found
  discover discovered describe explain tell told asked wondering wonder idea sure clear unclear obvious depends`);

/** Where a first pair part may start in a clause: its start, and after markers or names in run-on speech. */
const startsIn = (t: ParsedUtterance, c: Span, asked: boolean): Array<{ p: number; free: boolean }> => {
  const out: Array<{ p: number; free: boolean }> = [];
  const push = (p: number, free: boolean): void => {
    if (p < c.to && !out.some((s) => s.p === p)) out.push({ p, free });
  };
  push(skipLead(t, c.from, c.to, asked), true);
  for (let p = c.from + 1; p < c.to; p++) {
    const prev = wordAt(t, p - 1);
    const w = wordAt(t, p);
    if (BREAKERS.has(prev)) push(skipLead(t, p, c.to, asked), false);
    // "so the question is do we have enough money"
    else if (prev === 'is' && /^(?:question|thing|point)$/.test(wordAt(t, p - 2))) push(p, false);
    // After a name only when the name addresses: "thanks cleo ada would you ...", not "Kwame has the ...".
    // Not after a name tied into the sentence: "I'll let Priscilla answer that one".
    else if (isVocativeWord(t, p - 1) && freeBefore(t, c.from, p - 1, p, c.to) && addressesNext(t, p, c.to, asked)) push(skipLead(t, p, c.to, asked), true);
    // Speech recognition drops the punctuation before "did you ..." or "what do you ...".
    // Not "it was you" or "that was you", where the copula already has its subject.
    else if (AUX_WORDS.has(w) && (YOU_WORDS.has(wordAt(t, p + 1)) || GROUP_SUBJECTS.has(wordAt(t, p + 1))) && !(STATED_SUBJECTS.has(prev) && COPULAS.has(w))) push(p, false);
    // "let's start simple how much sleep do we need": an inverted wh-question starts a new question
    // in run-on speech ("I know what we need" does not invert; "ask her what ..." embeds).
    else if (WH_WORDS.has(w) && !EMBEDDING.has(prev) && !WH_WORDS.has(prev) && INVERTED_WH.test(textOf(t, p, c.to))) push(p, false);
    // "it's a sunny afternoon can we play outside": asking leave for the group.
    else if (/^(?:can|could|shall|may)$/.test(w) && /^(?:we|i)$/.test(wordAt(t, p + 1)) && !PERSONAL_SUBJECTS.has(prev) && !AUX_WORDS.has(prev) && !WH_WORDS.has(prev) && !EMBEDDING.has(prev)) push(p, false);
    // "... should do the pitch does that work for you ifeoma": checking a plan with the one it concerns.
    else if (/^(?:does|do|would|will|can|could|is)$/.test(w) && /^(?:that|this|it)$/.test(wordAt(t, p + 1)) && PLAN_CHECK.test(textOf(t, p + 2, c.to)) && !STATED_SUBJECTS.has(prev)) push(p, false);
    // "hope you've been quiet anything you want to add"
    else if (w === 'anything' && (YOU_WORDS.has(wordAt(t, p + 1)) || /^(?:youd|else)$/.test(wordAt(t, p + 1)))) push(p, false);
    // "and we're back welcome to episode forty"
    else if (w === 'welcome' && !STATED_SUBJECTS.has(prev) && !/^(?:youre|you|are|is|be|very|most|more|a|the|always|so|were|was)$/.test(prev) && /^(?:to|back|everyone|everybody|all|aboard)$/.test(wordAt(t, p + 1))) push(p, false);
    // "sorry i'm late hi everyone": a greeting at the end of a run-on turn, to names or the room.
    else if (SALUTES.has(w) && !/^(?:say|said|says|saying|to|a|the)$/.test(prev) && p + 1 < c.to && chainEnd(t, p + 1, c.to) === c.to) push(p, false);
    // "... my name is dana how can i help you", "... before we start what do we need"
    else if (WH_WORDS.has(w) && AUX_WORDS.has(wordAt(t, p + 1)) && ADDRESS_WORDS.has(wordAt(t, p + 2))) push(p, false);
    // "i missed it what happened": a short wh-question with the wh-word as subject closes a run-on
    // turn ("I know what happened", "that's what happened" embed it).
    // RUN_ON_WH opens with "what" or "who": only then is the rest of the clause cut out and tried.
    else if ((w === 'what' || w === 'who') && RUN_ON_WH.test(textOf(t, p, c.to)) && !EMBEDDING.has(prev) && !EMBEDDED_BY.has(prev) && !AUX_WORDS.has(prev)) push(p, false);
  }
  return out.sort((a, b) => a.p - b.p);
};

const clausePair = (t: ParsedUtterance, c: Span, asked: boolean): { pair: PairType; at: number } | null => {
  let greeting: { pair: PairType; at: number } | null = null;
  for (const { p, free } of startsIn(t, c, asked)) {
    const tail = textOf(t, p, c.to);
    const pair = pairAt(tail, free, asked, isName(t, p - 1) || (MARKERS.has(wordAt(t, p - 1)) && isName(t, p - 2)));
    if (!pair) continue;
    // A greeting opens the turn; what follows it in the same breath carries the obligation,
    // unless the greeting is the whole rest of the clause ("how are you doing").
    if (pair !== 'greeting' || HOW_ARE_YOU.test(tail)) return { pair, at: p };
    greeting ??= { pair, at: p };
  }
  if (greeting) return greeting;
  const text = textOf(t, c.from, c.to);
  // "Thanks all.", "cool that's everything thanks guys": thanking the room closes the meeting.
  if (THANKS_ROOM.test(text)) return { pair: 'greeting', at: c.from };
  if (INVITATION_ANYWHERE.test(text)) return { pair: 'invitation', at: c.from };
  if (OFFER_ANYWHERE.test(text)) return { pair: 'offer', at: c.from };
  if (TAG_QUESTION.test(text) || RIGHT_TAG.test(text)) return { pair: 'question', at: c.from };
  return null;
};

const THANKS_ROOM =
  /\b(?:thanks|thank you|thank u|thx|cheers)(?: (?:so|very) much| again| a lot)? (?:everyone|everybody|all|both|guys|folks|team|yall|you all|you both|you guys|all of you|both of you|you two|you three|y all)(?: (?:so much|again|very much|for everything))?(?:$| (?!(?:the|of)\b))/;

const saysSomething = (t: ParsedUtterance, c: Span): boolean => {
  for (let i = c.from; i < c.to; i++) if (!isVocativeWord(t, i) && !MARKERS.has(wordAt(t, i)) && !BARE_ONLY.has(wordAt(t, i))) return true;
  return false;
};

const NEED_STATED =
  /^(?:(?:i|we) (?:really |still |just |would |will )?(?:need|want|would like|would love)|(?:id|wed) (?:really )?(?:like|love)|(?:ill|well|im going to|im gonna|were going to|were gonna) (?:really |also |still )?need)(?: to (?:see|get|have|read|receive|review|look at|go over))? (?:those|the|that|these|this|your|it|them)\b/;
/** "Amara, let's you and I sync tomorrow": a proposal put to one person by name asks them to join in. */
const LETS = /^(?:lets|let us)\b/;
/** "Sure, take it.": granting what was asked for, not asking in turn. */
const GRANTED = /^(?:(?:sure|yes|yeah|yep|yup|of course|ok|okay|absolutely|no problem|no worries|go ahead|please|by all means|be my guest) )+(?:just )?(?:take|keep|have|use|borrow|grab)(?: (?:it|them|mine|one|those|these|that))?(?: (?:back|please|anytime|whenever))?$/;

/**
 * "I can take the export ticket": volunteering for a task offers it to the room. Not after "sure" or
 * "yeah", which accept a request ("Sure, I can do that"), nor for a task already named ("I can take it").
 */
const VOLUNTEERED =
  /^(?:(?:and|also|um|uh|so|oh|actually|well|i mean) )*i (?:can|could)(?: (?:also|easily|probably|definitely|totally|happily|just|always))? (?:take|grab|handle|cover|own|pick up|put together|draft|write up|type up|set up|send out|share|run|lead|organi[sz]e|coordinate|book|look into|follow up (?:on|with)|chase|prepare|host|bring|order|drive|check|reach out to|help with|review|test|do a first pass on|make a first pass at|sketch out|mock up|put up|schedule) (?!(?:it|that|this|them|those|these|one|care|place|part|over|off|a look at (?:it|that|this))\b)\w/;

/** Accepting an offer: "yeah please do", "please yes", "yes please love", "me please, pepperoni". */
const ACCEPTED =
  /^(?:(?:oh|ooh|ah|um|uh|yes|yeah|yep|yup|sure|ok|okay|absolutely|definitely|me|too|one|for) )*(?:please(?: (?:do|yes|yeah|yep))?|(?:me|yes|yeah|yep|sure|ok|okay)(?: too)? please)(?: (?:love|dear|mate|thanks|thank you|too|qqn\d+))*((?: \w+){0,2})$/;

const accepts = (t: ParsedUtterance, u: Unit): boolean => {
  const m = ACCEPTED.exec(textOf(t, u.from, u.to));
  if (!m) return false;
  const rest = (m[1] ?? '').trim();
  return !rest || (!IMPERATIVE.test(rest) && !AUX_WORDS.has(rest.split(' ')[0] ?? '') && !/^(?:qq|you|u)\b/.test(rest));
};

const MODAL_TAG = /^(?:would|will|can|could|wont|cant|wouldnt|couldnt) (?:you|u)(?: please)?$/;

/** "..., right?", "..., would you?": a tag that keeps the first pair part before it. */
const isTag = (t: ParsedUtterance, c: Span): boolean => {
  if (MODAL_TAG.test(textOf(t, c.from, c.to))) return true;
  for (let i = c.from; i < c.to; i++) if (!TAG_ONLY.has(wordAt(t, i)) && !isVocativeWord(t, i)) return false;
  return true;
};

/** The last first pair part of a sentence, if any. */
/**
 * Questions nobody is meant to answer: complaints ("Why do I always have to do the dishes?",
 * "who even reads these contracts"), musing ("I wonder if the client even looked") and
 * self-directed ones ("where was I").
 */
const RHETORICAL = new RegExp(
  [
    `^why (?:on earth |in the world |the hell )?(?:do|does|did|must|would|is|are|cant|cannot|wont|doesnt|dont|isnt|has|have) (?:i|we|this|it|that|everything|everyone|everybody|nobody|no one|people|every \\w+|these \\w+|they)\\b(?:.*\\b(?:always|never|even|ever|keep|keeps)\\b|(?<=every \\w+).*)`,
    '^(?:who|what|why) (?:even|ever|on earth|in the world) ',
    '^i (?:just |really |sometimes )?wonder (?:if|whether|what|how|why|who|when|where)\\b',
    '^(?:where was i|where were we|what was i (?:saying|going to say|gonna say|talking about|thinking)|what am i (?:doing|saying|missing)|why did i (?:say|do) that)\\b',
  ].join('|'),
);

const unitPair = (t: ParsedUtterance, u: Unit, unit: number): FirstPairPart | null => {
  const found = unitPairOf(t, u, unit);
  if (found?.pair !== 'question') return found;
  const text = textOf(t, skipLead(t, u.from, u.to, u.asked), u.to);
  return RHETORICAL.test(text) && !SINGULAR_YOU.test(text) && vocativesOf(t, u).length === 0 ? null : found;
};

const unitPairOf = (t: ParsedUtterance, u: Unit, unit: number): FirstPairPart | null => {
  let found: FirstPairPart | null = null;
  for (const [clause, c] of u.clauses.entries()) {
    if (found && isTag(t, c)) continue;
    const m = clausePair(t, c, u.asked);
    // "Bobby, you're up, show us the demo.": what the one given the floor is told to do keeps the invitation.
    if (m && found?.pair === 'invitation' && m.pair === 'request' && !u.asked) continue;
    if (m) found = { pair: m.pair, unit, clause, at: m.at };
  }
  if (found?.pair === 'request' && !u.asked && (GRANTED.test(textOf(t, u.from, u.to)) || accepts(t, u))) return null;
  const last = u.clauses.findLastIndex((c) => saysSomething(t, c));
  const lastClause = u.clauses[last];
  if (u.asked && lastClause) {
    // The question mark belongs to the last clause that says something: a declarative question
    // ("So you're saying the client never replied?") or a tag ("..., right?") keeps what came before.
    if (found && (found.pair !== 'greeting' || found.clause === last || isTag(t, lastClause))) return found;
    return { pair: 'question', unit, clause: last, at: lastClause.from };
  }
  if (found) return found;
  const text = textOf(t, u.from, u.to);
  if (OFFER_ANYWHERE.test(text) || VOLUNTEERED.test(text)) return { pair: 'offer', unit, clause: 0, at: u.from };
  // "Nora, I need those slides by noon: a want stated to someone by name is a request. (Who is
  // called is only looked for once something is wanted or proposed: most sentences are neither.)
  const wanted = u.clauses.findIndex((c) => NEED_STATED.test(textOf(t, skipLead(t, c.from, c.to, u.asked), c.to)));
  if (wanted >= 0 && vocativesOf(t, u).some((v) => isName(t, v.i))) return { pair: 'request', unit, clause: wanted, at: u.clauses[wanted]?.from ?? u.from };
  const proposed = u.clauses.findIndex((c) => LETS.test(textOf(t, skipLead(t, c.from, c.to, u.asked), c.to)));
  if (proposed >= 0 && selected(t, vocativesOf(t, u).filter((v) => !v.thanked))) return { pair: 'request', unit, clause: proposed, at: u.clauses[proposed]?.from ?? u.from };
  // "I need the numbers, please": a request without a request's grammar ("yes, please" accepts one).
  const please = u.clauses.findIndex((c) => / please\b/.test(` ${textOf(t, c.from, c.to)}`));
  const c = u.clauses[please];
  if (!c || /\b(?:yes|yeah|yep|sure|ok|okay|oh) please\b/.test(textOf(t, u.from, u.to)) || accepts(t, u)) return null;
  const saying = textOf(t, u.from, u.to).split(' ').filter((w) => !MARKERS.has(w) && !ADDRESS_ONLY.has(w) && w !== 'please' && !/^qq/.test(w));
  // "Please, Doris, you'll have your chance later.": a "please" that opens the sentence on its own
  // pleads; one that follows what is wanted ("The numbers, please") asks for it.
  const pleading = u.clauses.slice(0, please + 1).every((k) => isAddressOnly(t, k) || /^(?:(?:oh|ah|um|uh|no|now) )*please$/.test(textOf(t, k.from, k.to)));
  return !pleading && saying.length >= 2 ? { pair: 'request', unit, clause: please, at: c.from } : null;
};

// ---------------------------------------------------------------------------------------------
// The addressee.

const POINTED_AT = new RegExp(`^${POINTED}`);
const SINGULAR_YOU = /\b(?:you|your|yours|yourself|u|ya|youre|youve|youll|youd)\b/;
const PLURAL_YOU_ANYWHERE = new RegExp(`\\b${PLURAL_YOU}\\b`, 'g');
/**
 * Said to everyone: "does anybody ...", "are there any ...", "who wants ...". Selects nobody. Not "who's
 * doing the images?", which asks after a task already in hand (of the one who just spoke about it).
 */
const GROUP_CUE = new RegExp(
  `\\b(?:${PLURAL_YOU}|everyone|everybody|anyone|anybody|someone|somebody|guys|folks|ladies and gentlemen|(?:hi|hello|hey|morning|thanks|thank you|welcome|bye) all|any (?:more |other |further |last |final )?(?:questions|thoughts|comments|objections|concerns|ideas|feedback|takers|volunteers|suggestions|reactions|input|corrections|amendments|additions|announcements|blockers|other business|last words|final words)|next (?:question|questions|speaker|caller|person|hand)|a todos|tout le monde|(?:is|are|was|were) there(?= (?:any|anyone|anybody|anything|someone|somebody|something|other|more|further|people|volunteers?|questions?|comments?|objections?)\b)|who(?:s| is| wants| has| knows| needs| can| could| will| would| else| here)\\b(?! (?:${AUX} )?(?:you|u)\\b)(?<!\\bwho(?:s| is)(?= (?!going\\b)\\w+ing (?:the|it|that|this|these|those|them|our|their|his|her)\\b)))`,
);

const designees: ReadonlyArray<{ pairs: readonly PairType[]; re: RegExp }> = [
  {
    pairs: ['invitation'],
    re: /\b(?:(?:over|back) to|hear (?:more )?from|hear what|(?:start|begin|kick off|continue|go) with|(?:hand|pass|turn)(?: it| things| the floor)?(?: over| back)? to|next (?:up )?(?:is |will be )?)(?: )?(qq[np]\d+)|\b(qqn\d+) (?:is|s|will be) (?:up|next)|\b(qqp\d+) turn/g,
  },
  {
    pairs: ['question', 'request', 'offer', 'invitation'],
    re: /\b(?:question|one|this|that|these) (?:is |s |are )?for (qqn\d+)|\b(?:let me|i want to|i wanted to|id like to|i would like to|i wanna|ill|i will|im going to|im gonna|can i|may i|could i|allow me to|i need to|i have to) ask (qqn\d+)/g,
  },
  { pairs: ['request'], re: /\b(?:need|want|like|love) (qqn\d+) to\b/g },
];

/** Names the first pair part designates without a vocative: "over to Cleo", "my question is for Jules". */
const designeesOf = (t: ParsedUtterance, u: Unit, pair: PairType): number[] => {
  const text = textOf(t, u.from, u.to);
  const out: number[] = [];
  for (const { pairs, re } of designees) {
    if (!pairs.includes(pair)) continue;
    for (const m of text.matchAll(re)) {
      const token = m.slice(1).find(Boolean);
      if (token) out.push(Number(token.slice(3)));
    }
  }
  // "My question is for Jules:" with the colon that announces the question.
  for (let i = u.from + 1; i < u.to; i++) if (wordAt(t, i - 1) === 'for' && isName(t, i) && t.words[i]?.punct.includes(':')) out.push(i);
  return out;
};

/** The one participant a set of vocatives selects: undefined for an empty set, null for several, a group, or an ambiguous name. */
const selected = (t: ParsedUtterance, vocatives: readonly Vocative[]): string | null | undefined => {
  if (vocatives.length === 0) return undefined;
  const preferred = vocatives.some((v) => !v.thanked) ? vocatives.filter((v) => !v.thanked) : vocatives;
  const named = new Set<string>();
  for (const v of preferred) {
    const name = t.words[v.i]?.name;
    if (name === undefined || name === null) return null;
    named.add(name);
  }
  return named.size === 1 ? ([...named][0] ?? null) : null;
};

const addressee = (t: ParsedUtterance, fpp: FirstPairPart, previous: string | null): string | null => {
  const u = t.units[fpp.unit];
  if (!u) return null;
  // "I have one question for Nadia. Why did we switch vendors?": the announcement designates.
  // "I wanted to ask Ahmed something, is he still there?" asks about him, so not him.
  const aboutThem = /\b(?:is|was|does|did|has|can|could|will|would|isnt|wasnt|doesnt|didnt|hasnt) (?:he|she|they)\b/.test(textOf(t, fpp.at, u.to));
  for (let k = fpp.unit; k >= 0 && !aboutThem; k--) {
    const fixed = designeesOf(t, t.units[k] ?? u, fpp.pair);
    if (fixed.length > 0) return selected(t, fixed.map((i) => ({ i, clause: fpp.clause, thanked: false }))) ?? null;
  }

  // MMAgents §3.2.4 "estimates the agent addressed": the vocative attached to the first pair part
  // wins ("Thanks, Cleo. Ada, would you like to go next?" selects Ada), then any vocative of its sentence.
  const all = vocativesOf(t, u);
  let from = fpp.clause;
  while (from > 0 && u.clauses[from - 1] && isAddressOnly(t, u.clauses[from - 1] as Span)) from--;
  let to = fpp.clause;
  while (u.clauses[to + 1] && isAddressOnly(t, u.clauses[to + 1] as Span)) to++;
  const own = selected(t, all.filter((v) => v.clause >= from && v.clause <= to));
  if (own !== undefined) return own;
  const inSentence = selected(t, all);
  if (inSentence !== undefined) return inSentence;

  const text = textOf(t, u.from, u.to);
  const youSingular = SINGULAR_YOU.test(text.replace(PLURAL_YOU_ANYWHERE, ''));
  const tail = textOf(t, fpp.at, u.to);
  if (!youSingular && GROUP_CUE.test(text)) return null;

  // "What do you think? Ben?": a bare vocative right after, else the last one addressed before.
  const after = t.units[fpp.unit + 1];
  if (after && isBare(t, after)) {
    const bare = selected(t, vocativesOf(t, after));
    if (bare !== undefined) return bare;
  }
  for (let k = fpp.unit - 1; k >= 0; k--) {
    const before = t.units[k];
    const v = before ? selected(t, vocativesOf(t, before)) : undefined;
    if (v !== undefined) return v;
  }
  for (let k = fpp.unit + 1; k < t.units.length; k++) {
    const later = t.units[k];
    const v = later ? selected(t, vocativesOf(t, later)) : undefined;
    if (v !== undefined) return v;
  }

  // No name: "you" is the previous speaker (the one the turn responds to). A question about a third
  // person ("What did Omar say?") is put to the previous speaker too; a stated offer without "you"
  // ("I'm happy to take notes") is to the room.
  // "Yes, you in the blue shirt." points at someone who is not in the room's list.
  if (fpp.pair === 'invitation' && POINTED_AT.test(tail)) return null;
  switch (fpp.pair) {
    case 'offer':
      return youSingular || u.asked || /^(?:shall|should|can|could|may|would|do|did|will|want|wanna|need|how|what)\b/.test(tail)
        ? previous
        : null;
    default:
      return previous;
  }
};

// ---------------------------------------------------------------------------------------------

const NONE: Designation = { next: null, pair: 'none' };

/**
 * Detects whether `text` is a first pair part (question, request, offer, greeting, invitation)
 * and which participant it selects as next speaker. Pure and deterministic.
 */
export const detectDesignation = (input: DesignationInput): Designation =>
  detectRemembered([input.participants.join('\u0000'), input.speaker, input.previousSpeaker ?? '', input.text].join('\u0001'));

// A generated line is read when it is drafted and again when it is said: one reading serves both.
const detectRemembered = memoize((key: string): Designation => {
  // The text comes last and may hold any character: only the first three separators split.
  const [participants, speaker, previousSpeaker] = key.split('\u0001', 3) as [string, string, string];
  const text = key.slice(participants.length + speaker.length + previousSpeaker.length + 3);
  return Object.freeze(detect({ participants: participants ? participants.split('\u0000') : [], speaker, previousSpeaker: previousSpeaker || null, text }));
}, 1024);

/**
 * MMAgents: naming someone obliges them even without a question. A turn that opens by calling one
 * person and goes on to talk to "you" ("Masato, I saw you near the lounge last night") invites
 * their reply; a third-person designation ("Takeshi should tell us what he saw", "Yukiko would
 * know") asks them to speak. Only when one participant, not the speaker, is so named.
 */
const namedObligation = (input: DesignationInput): Designation | null => {
  const speaker = fold(input.speaker);
  const text = fold(input.text.replace(APOSTROPHES, "'").trim());
  const hits: Designation[] = [];
  for (const name of input.participants) {
    const { folded, vocative, third, knows } = obligationPatterns(name);
    if (folded === speaker) continue;
    if (vocative.test(text)) hits.push({ next: name, pair: 'invitation' });
    else if (third.test(text)) hits.push({ next: name, pair: 'request' });
    else if (knows.test(text)) hits.push({ next: name, pair: 'invitation' });
  }
  return hits.length === 1 ? hits[0]! : null;
};

// A room keeps its names for the whole session: each name's patterns are compiled once, not per line read.
const obligationPatterns = memoize((name: string) => {
  const forms = [...new Set([name, name.split(/\s+/)[0]!])].map((n) => escapeName(fold(n))).join('|');
  return {
    folded: fold(name),
    vocative: new RegExp(`^(?:(?:so|well|now|and|okay|ok|right|look|listen|honestly)[, ]+)?(?:${forms}),(?=[^.?!]*\\b(?:you|your|youre|youve|youd|yourself)\\b)`),
    third: new RegExp(`\\b(?:${forms}) (?:(?:should|must|could|can|might|may) (?:probably |really |maybe )?|needs to |has to |ought to |(?:might|may) want to )(?:tell|explain|answer|say|share|walk|describe|clarify|show|confirm|speak|fill|talk|give|comment|weigh|account)\\b`),
    knows: new RegExp(`\\b(?:${forms}) (?:would know|knows (?:more|best|the answer)|can answer that|is the one to ask)\\b`),
  };
}, 1024);

const escapeName = (name: string): string => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const detect = (input: DesignationInput): Designation => {
  const speaker = fold(input.speaker);
  const t = parseUtterance(input.text, nameIndexFor(input.participants), speaker);
  if (t.words.length === 0) return NONE;

  // The obligation sits in the turn's last first pair part (a bare "Ben?" only points at someone):
  // read from the end, the sentences before it need no reading.
  let found: FirstPairPart | null = null;
  for (let unit = t.units.length - 1; unit >= 0 && !found; unit--) {
    const u = t.units[unit]!;
    if (!isBare(t, u)) found = unitPair(t, u, unit);
  }
  const prev = input.previousSpeaker;
  const previous = prev && input.participants.includes(prev) && fold(prev) !== speaker ? prev : null;

  if (!found) {
    // A turn that ends by calling someone ("Ben?", "Yes, Daniel.") hands them the floor; a call
    // followed by more talk ("Nonna! We've been dating for three months.") only exclaims.
    const last = t.units[t.units.length - 1];
    const called =
      last && isBare(t, last) && (/[?!]/.test(t.words[last.to - 1]?.punct ?? '') || wordAt(t, last.from) === 'yes') ? last : undefined;
    const next = called ? selected(t, vocativesOf(t, called)) : undefined;
    return next ? { next, pair: 'invitation' } : (namedObligation(input) ?? NONE);
  }
  const next = addressee(t, found, previous);
  // Never the speaker, even when two participants' names fold to the same spelling.
  return { next: next !== null && fold(next) !== speaker ? next : null, pair: found.pair };
};
