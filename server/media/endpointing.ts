/**
 * Endpointing: how long a speaker must stay silent before their turn is taken to be over, read
 * from the words heard so far (a partial transcript, when the transcription vendor streams one).
 * Text cues only; no prosody.
 *
 * ```ts
 * silenceNeededMs('Where did you put the keys?'); // 350
 * silenceNeededMs('We could try apples, pears, and'); // 1200
 * silenceNeededMs(null); // 700
 * ```
 *
 * Why these numbers:
 * - Between two speakers the gap is short: across languages the most common gap is 0-200 ms
 *   (Stivers et al. 2009, "Universals and cultural variation in turn-taking in conversation",
 *   PNAS 106(26); Levinson & Torreira 2015, Frontiers in Psychology 6:731). Listeners manage
 *   that by predicting the end of the turn; we only hear the silence, and the VAD reports the
 *   voice's end a frame or two late. So after a finished question, which hands the floor over
 *   outright, we wait 350 ms: a human-like 200 ms gap plus that margin.
 * - A finished sentence (a full stop after words that close it: none of the open endings below)
 *   is a place where the turn may pass, but speakers often go on; 400 ms, twice the common gap,
 *   so that a breath before the next sentence keeps the floor. A persona that does start there
 *   while the speaker goes on is stopped by barge-in as soon as they do; waiting longer after
 *   every statement would make every answer slower than a person's.
 * - Pauses inside a turn are longer than gaps between turns (Heldner & Edlund 2010, "Pauses,
 *   gaps and overlaps in conversations", Journal of Phonetics 38), and a speaker who has just
 *   said "and", "because" or "um" is visibly not done: "uh" and "um" announce a delay while
 *   they plan (Clark & Fox Tree 2002, "Using uh and um in spontaneous speaking", Cognition 84).
 *   After a trailing conjunction, filler, article, or a comma or dash (a list being built:
 *   "apples, pears,"), we wait 1200 ms, so that a word search is not taken for the end.
 * - The same holds for a phrase left open: speakers commit to a constituent by saying its first
 *   word, then stop to plan the rest ("I was talking to the... the design team"; Clark & Wasow
 *   1998, "Repeating words in spontaneous speech", Cognitive Psychology 37). A preposition with
 *   no object ("help me with"), a determiner with no noun ("show you my"), "to" with no verb, a
 *   modal or "is" with no verb ("I think we should", "the main thing is"), a subject with no
 *   verb ("and then we"), a "that" or "whether" with no clause: 1200 ms too. The words decide,
 *   not the full stop a transcriber puts after any stretch of audio ("I was thinking about.").
 *   Finished turns that end this way ("Yes, we should.", "That's what it is.") are told apart
 *   where the form allows; the rest wait longer rather than be cut off.
 * - With no transcript, or one with no cue either way, 700 ms: long enough to ride over most
 *   mid-turn pauses of fluent speech, short enough not to feel like a stall.
 */

export const silenceNeeded = {
  afterQuestion: 350,
  afterSentence: 400,
  byDefault: 700,
  whileHolding: 1200,
} as const;

/**
 * Words after which an English turn cannot be over: conjunctions, subordinators and relatives
 * (their clause is to come), fillers, articles, possessive determiners (their noun is to come),
 * prepositions that are not also particles ("move on", "come in" end sentences; "help me with"
 * does not), and subject pronouns (their verb is to come).
 */
const holdingWords = new Set([
  'and', 'but', 'or', 'nor', 'so', 'because', 'cause', "'cause", 'cuz', 'if', 'unless', 'whereas', 'than',
  'whether', 'although', 'until', 'which', 'whose',
  'um', 'umm', 'uh', 'uhh', 'uhm', 'er', 'erm', 'ah', 'hmm', 'mm', 'like',
  'the', 'a', 'an', 'my', 'your', 'our', 'their', 'his', 'its', 'every',
  'to', 'of', 'for', 'with', 'about', 'from', 'into', 'onto', 'at', 'between', 'through', 'without', 'toward', 'towards', 'during', 'among',
  'i', 'we', 'they', 'he', 'she',
]);

/** Verbs after which "so" stands for a clause and ends it ("I think so"), rather than joining one. */
const soVerbs = new Set(['think', 'hope', 'guess', 'suppose', 'believe', 'say', 'said', 'afraid', 'imagine', 'expect', 'told']);

/** Words after which "that" introduces a clause ("the problem is that…"), rather than ending one ("I agree with that"). */
const thatVerbs = new Set(['is', 'was', 'think', 'thought', 'say', 'said', 'know', 'knew', 'mean', 'means', 'believe', 'hope', 'feel', 'guess', 'sure', 'realise', 'realize', 'seems', 'suggest', 'suggests', 'shows']);

/** Words a speaker may start with before the real first word ("Um, so what do we do"). */
const leadingFillers = new Set(['um', 'umm', 'uh', 'uhh', 'uhm', 'er', 'erm', 'ah', 'so', 'and', 'but', 'well', 'okay', 'ok', 'oh', 'right']);

const whWords = new Set(['what', 'who', 'whom', 'whose', 'where', 'when', 'why', 'how', 'which', "what's", "who's", "where's", "how's", "when's", "why's"]);

const auxiliaries = new Set([
  'is', 'are', 'am', 'was', 'were', 'do', 'does', 'did', 'can', 'could', 'will', 'would', 'shall', 'should',
  'may', 'might', 'must', 'have', 'has', 'had',
  "isn't", "aren't", "wasn't", "weren't", "don't", "doesn't", "didn't", "can't", "couldn't", "won't",
  "wouldn't", "shouldn't", "haven't", "hasn't", "hadn't",
]);

/**
 * Modals and forms of "be" that need a verb or complement after them ("we should…", "the thing
 * is…"). Not "do" and "have", which end sentences as main verbs ("that's all we have"), and not
 * negative forms, which mostly end an elliptical answer ("I hope we don't").
 */
const openAuxiliaries = new Set(['can', 'could', 'will', 'would', 'shall', 'should', 'may', 'might', 'must', 'is', 'are', 'am', 'was', 'were']);

const subjectPronouns = new Set(['i', 'we', 'you', 'he', 'she', 'they']);
/** Subjects an auxiliary may end a sentence after, its verb understood: "we should", "it is", "there are". */
const elidedSubjects = new Set([...subjectPronouns, 'it', 'that', 'there']);
/**
 * What may come before such a subject in an elliptical answer: "Yes, we should", "Of course it
 * is". Not "I think": "I think we should" goes on more often than it ends.
 */
const answerWords = new Set(['yes', 'yeah', 'yep', 'no', 'nope', 'sure', 'of', 'course', 'well', 'oh', 'okay', 'ok', 'maybe', 'perhaps', 'probably']);

/**
 * An auxiliary left without its verb, unless it closes an elliptical answer ("Yes, we should":
 * a pronoun subject after nothing but answer words) or an embedded question ("that's what it
 * is", "I know where they are": a pronoun subject after a wh-word).
 */
const auxiliaryLeftOpen = (words: string[]): boolean => {
  if (!openAuxiliaries.has(words.at(-1)!)) return false;
  const subject = words.at(-2);
  if (subject === undefined || !elidedSubjects.has(subject)) return true;
  const before = words.slice(0, -2);
  return !(before.every((word) => answerWords.has(word)) || whWords.has(before.at(-1)!));
};

const holdsTheTurn = (words: string[]): boolean => {
  const [before, last] = [words.at(-2), words.at(-1)!];
  if (last === 'so') return before === undefined || !soVerbs.has(before);
  if (last === 'that') return before !== undefined && thatVerbs.has(before);
  return holdingWords.has(last) || auxiliaryLeftOpen(words);
};

/** What can follow an auxiliary that opens a question: "Are you", "Is the", "Can someone". */
const invertedSubjects = new Set([
  ...subjectPronouns, 'it', 'there', 'this', 'that', 'these', 'those', 'the', 'a', 'an',
  'my', 'your', 'our', 'their', 'his', 'her', 'its', 'anyone', 'anybody', 'someone', 'somebody', 'everyone', 'everybody',
]);

/**
 * A question by its form, for transcripts without punctuation: a wh-word not followed by a
 * subject ("what time is it", but not the cleft "what I think is"), or an auxiliary before its
 * subject ("are you coming").
 */
const looksLikeQuestion = (words: string[]): boolean => {
  let first = 0;
  while (first < words.length - 1 && leadingFillers.has(words[first]!)) first++;
  const [opener, next] = [words[first], words[first + 1]];
  if (opener === undefined || next === undefined) return false;
  if (whWords.has(opener)) return !subjectPronouns.has(next);
  return auxiliaries.has(opener) && invertedSubjects.has(next) && words.length - first >= 3;
};

/** Milliseconds of silence after which the turn is over, given what the speaker has said so far. */
export const silenceNeededMs = (partialText: string | null): number => {
  const text = (partialText ?? '').replace(/[’‘]/g, "'").replace(/["'”“)\]\s]+$/u, '').toLowerCase();
  const words = text.match(/[a-z0-9]+(?:'[a-z]+)?|'cause/g) ?? [];
  if (words.length === 0) return silenceNeeded.byDefault;
  if (text.endsWith('?')) return silenceNeeded.afterQuestion;
  if (/(,|;|:|\.\.\.|…|-|—|–)$/u.test(text) || holdsTheTurn(words)) return silenceNeeded.whileHolding;
  if (/[.!]$/.test(text)) return silenceNeeded.afterSentence;
  return looksLikeQuestion(words) ? silenceNeeded.afterQuestion : silenceNeeded.byDefault;
};
