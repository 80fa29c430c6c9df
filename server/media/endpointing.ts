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
 * - A finished sentence is a place where the turn may pass, but speakers often go on; 500 ms.
 * - Pauses inside a turn are longer than gaps between turns (Heldner & Edlund 2010, "Pauses,
 *   gaps and overlaps in conversations", Journal of Phonetics 38), and a speaker who has just
 *   said "and", "because" or "um" is visibly not done: "uh" and "um" announce a delay while
 *   they plan (Clark & Fox Tree 2002, "Using uh and um in spontaneous speaking", Cognition 84).
 *   After a trailing conjunction, filler, article, or a comma or dash (a list being built:
 *   "apples, pears,"), we wait 1200 ms, so that a word search is not taken for the end.
 * - With no transcript, or one with no cue either way, 700 ms: long enough to ride over most
 *   mid-turn pauses of fluent speech, short enough not to feel like a stall.
 */

export const silenceNeeded = {
  afterQuestion: 350,
  afterSentence: 500,
  byDefault: 700,
  whileHolding: 1200,
} as const;

/** Words after which an English turn cannot be over: conjunctions, fillers, articles. */
const holdingWords = new Set([
  'and', 'but', 'or', 'nor', 'so', 'because', 'cause', "'cause", 'cuz', 'if', 'unless', 'whereas', 'than',
  'um', 'umm', 'uh', 'uhh', 'uhm', 'er', 'erm', 'ah', 'hmm', 'mm', 'like',
  'the', 'a', 'an',
]);

/** Verbs after which "so" stands for a clause and ends it ("I think so"), rather than joining one. */
const soVerbs = new Set(['think', 'hope', 'guess', 'suppose', 'believe', 'say', 'said', 'afraid', 'imagine', 'expect', 'told']);

const holdsTheTurn = (words: string[]): boolean => {
  const [before, last] = [words.at(-2), words.at(-1)!];
  return holdingWords.has(last) && !(last === 'so' && before !== undefined && soVerbs.has(before));
};

/** Words a speaker may start with before the real first word ("Um, so what do we do"). */
const leadingFillers = new Set(['um', 'umm', 'uh', 'uhh', 'uhm', 'er', 'erm', 'ah', 'so', 'and', 'but', 'well', 'okay', 'ok', 'oh', 'right']);

const whWords = new Set(['what', 'who', 'whom', 'whose', 'where', 'when', 'why', 'how', 'which', "what's", "who's", "where's", "how's", "when's", "why's"]);

const auxiliaries = new Set([
  'is', 'are', 'am', 'was', 'were', 'do', 'does', 'did', 'can', 'could', 'will', 'would', 'shall', 'should',
  'may', 'might', 'must', 'have', 'has', 'had',
  "isn't", "aren't", "wasn't", "weren't", "don't", "doesn't", "didn't", "can't", "couldn't", "won't",
  "wouldn't", "shouldn't", "haven't", "hasn't", "hadn't",
]);

const subjectPronouns = new Set(['i', 'we', 'you', 'he', 'she', 'they']);
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
