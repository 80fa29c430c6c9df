/**
 * The words every stage of detectDesignation reads (index.ts), in one spelling: folding makes
 * "Zoë", "zoe" and "ZOE" meet, and so do "what’s", "what's" and the apostrophe-less "whats" of
 * speech recognition. Names (names.ts) and text (tokens.ts) are folded alike, so a name is found
 * however it was typed or transcribed. The word lists below are folded already.
 *
 *   fold("Zoë's"); // 'zoes'
 *   MARKERS.has('um'); // true: skipped at the start of a clause
 */
export const APOSTROPHES = /[\u2018\u2019\u02BC\u2032\u00B4`]/g;
export const QUOTES = /[\u201C\u201D\u201E\u00AB\u00BB]/g;
export const MARKS = /\p{M}+/gu;
const LETTER_FOLDS: Readonly<Record<string, string>> = { ø: 'o', æ: 'ae', œ: 'oe', ß: 'ss', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };
const FOLDED_LETTERS = /[øæœßłđðþı]/g;

export const fold = (s: string): string => foldDecomposed(s.normalize('NFD').replace(MARKS, ''));

/** `fold` of text already decomposed and without marks: the words of an utterance, which is decomposed once. */
export const foldDecomposed = (s: string): string => {
  const lower = s.toLowerCase();
  // Most words are plain ASCII: nothing to fold letter by letter, no apostrophe to drop.
  return /^[a-z0-9]*$/.test(lower) ? lower : lower.replace(FOLDED_LETTERS, (c) => LETTER_FOLDS[c] ?? c).replace(/'/g, '');
};

export const foldedWords = (s: string): string[] => fold(s.replace(APOSTROPHES, "'")).split(/[^\p{L}\p{N}]+/u).filter(Boolean);

// ---------------------------------------------------------------------------------------------
// Vocabulary shared by the stages. Words are folded: lower case, no apostrophes.

export const words = (list: string): ReadonlySet<string> => new Set(list.split(/\s+/).filter(Boolean));

export const AUX_WORDS = words(`do does did is are was were am have has had can could will would should shall may might must
  dont doesnt didnt isnt arent wasnt werent havent hasnt hadnt cant cannot couldnt wont wouldnt shouldnt`);
export const WH_WORDS = words('what where when why how who whom which whose');
export const YOU_WORDS = words('you u ya');
/** Words after an auxiliary that make it a question to someone: "can you", "do we", "does anyone". */
export const ADDRESS_WORDS = words('you u ya we i yall anyone anybody everyone everybody someone somebody');
/** "... before we start does everyone have the link": a group subject after an auxiliary asks the room. */
export const GROUP_SUBJECTS = words('yall anyone anybody everyone everybody someone somebody');
/** Said to the whole group; selects nobody (Sacks et al.: the turn is open to self-selection). */
export const GROUP_VOCATIVES = words('everyone everybody guys folks yall team gang friends colleagues');
/** Group vocatives that are also ordinary nouns ("the data team", "making friends"). */
export const GROUP_NOUNS = words('team gang friends colleagues');
/** Determiners and prepositions that make the next noun a noun: "the team", "our new friends", "for sales team". */
export const NOUN_CONTEXT = words(`the a an my our your their his her its this that these those every each whole entire other same
  for of with to on in at from by about into than`);
/** Discourse markers skipped at the start of a clause: "so, um, Omar, what ...". */
export const MARKERS = words(`so ok okay okey alright allright well um umm uh uhh erm er hmm hm mm mmm oh ah ahh and but also now
  anyway anyways actually yeah yes yep yup no nope sure right great cool perfect fine then first firstly secondly lastly
  finally honestly basically sorry wait dear oops like`);
/** Words after which a new first pair part may start inside a clause of unpunctuated speech. */
export const BREAKERS = words('but and so then okay ok well now anyway anyways also alright actually um uh erm like question sorry right yeah yes no course');
/** May stand next to a vocative in a clause that only addresses someone: "Hi Ben", "Thanks, Cleo". */
export const ADDRESS_ONLY = words(`hi hello hey heya hiya dear thanks thank you so ok okay well oh and morning good evening afternoon
  welcome back bye goodbye yo um uh now sorry right yes yeah no sure great cool also then`);
/** A vocative chain is only bare when nothing else is said: "Ben?" */
export const BARE_ONLY = words('and so ok okay um uh well oh hmm now then yes yeah dear');
/** Words that tie a name into the sentence as its subject or object, so it cannot be a vocative. */
export const BLOCKERS = words(`to with about for from by at of on in into onto like than as and or nor but versus vs without except
  including between among behind after before near per via the a an my your our his her their its this that mr ms mrs dr prof
  ask asked asking tell told telling call called calling email emailed ping pinged cc thank thanked meet met meeting see saw seen
  know knew known invite invited include included hire hired help helped helping liked love loved trust believe involve
  involved introduce introduced pay paid give gave send sent show showed shown remind reminded contact contacted message messaged
  text texted hear heard loop looped be been being said says mention mentioned blame blamed miss missed let make made get got
  want need found join joined follow followed support supported replace replaced visit visited interview interviewed whom who
  whose which what every each any some whole entire if unless whether because since while when where ${[...AUX_WORDS].join(' ')}`);
/** Words that show an initial name addresses its bearer: "Ben what ...", "Ben, please ...". */
export const VOCATIVE_NEXT = words(`${[...WH_WORDS].join(' ')} whats whos wheres whens whys hows howd whatd whered whod whyd whatre howre whatll wholl
  want wanna fancy you your youre youve youll youd yours its
  yourself u ya please i im ive id ill lets so just one quick sorry actually any anything thoughts thanks thank hi hello hey
  welcome good over go tell let here now ok okay um uh first great nice if when maybe perhaps hmm wait morning bye see congrats
  congratulations happy real quickly again`);
export const THANKS_WORDS = words('thanks thank thx cheers');
export const INVERTED_SUBJECTS = words('it this that the everything anything there these those your my our');
/** Predicates that end an unpunctuated yes/no question: "is the budget approved", "did the invoices go out". */
export const PREDICATE_ENDS = words(`ready done final finished ok okay right correct true approved confirmed signed available working
  fixed live open booked possible enough good fine out in up over back on off there sent paid set scheduled shipped merged
  deployed tested complete completed sorted sure free clear through happening going coming started`);
export const TRAILING_ADVERBS = words('yet now already today still too');
export const THANKS_FILLER = words('you u so very much a lot again all');
export const THANKED_GROUP = words('both everyone everybody guys folks team');
export const TAG_ONLY = words('right correct yeah yes no ok okay true eh huh agreed yep sure');
export const TITLE_ABBREVIATIONS = words('dr mr mrs ms mx prof st sr jr vs etc eg ie approx fig');
