/**
 * Stage 1 of detectDesignation (index.ts): the name index, every way a participant may be called
 * (first name, full name, title and surname, a nickname, a clipped first name, the title alone
 * when only one holds it), ranked so that an exact first name beats someone else's nickname
 * ("Ben" is Ben, not Benjamin). A vocative is how a current speaker selects the next (Sacks et
 * al.'s rule 1, MMAgents §2.2), so the detector must recognise a name however it is said.
 *
 *   nameIndexFor(['Benjamin Hart', 'Ben Ode']).aliases.get('ben'); // Ben Ode's first name ranks first
 */
import { ADDRESS_ONLY, AUX_WORDS, BLOCKERS, fold, foldedWords, MARKERS, VOCATIVE_NEXT, words } from './lexicon';

interface Alias {
  readonly who: string;
  readonly folded: string;
  readonly rank: number;
}

export interface NameIndex {
  readonly aliases: ReadonlyMap<string, readonly Alias[]>;
  /** The first word of every alias: a word that is none cannot start a name. */
  readonly firstWords: ReadonlySet<string>;
  /** Most words in one alias, e.g. 3 for "dr priya raman". */
  readonly longest: number;
}

export const TITLE_FORMS: Readonly<Record<string, readonly string[]>> = {
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
export const POLITE_TITLES = ['mr', 'mister', 'ms', 'mrs', 'miss', 'mx', 'dr', 'doctor', 'prof', 'professor'];

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
export const nameIndexFor = (participants: readonly string[]): NameIndex => {
  const key = participants.join('\u0000');
  const cached = nameIndexes.get(key);
  if (cached) return cached;
  const index = buildNameIndex(participants);
  if (nameIndexes.size >= 256) nameIndexes.delete(nameIndexes.keys().next().value ?? '');
  nameIndexes.set(key, index);
  return index;
};

/** Whom an alias names: one participant, null when several fit equally, 'self' when only the speaker does. */
export const resolveAlias = (list: readonly Alias[], speaker: string): string | null | 'self' => {
  const best = Math.min(...list.map((a) => a.rank));
  const others = new Set(list.filter((a) => a.rank === best && a.folded !== speaker).map((a) => a.who));
  if (others.size === 0) return 'self';
  return others.size === 1 ? ([...others][0] ?? null) : null;
};
