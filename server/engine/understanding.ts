/**
 * Understanding a line: what it does (its dialogue act) and, for a question, what kind of answer
 * it wants; and whether a reply gave that answer. The scripted generator reads the line it answers
 * through this, the engine's dialogue state (dialogue.ts) keeps what was asked, answered and
 * dodged with it, and the metrics count answers by content with it, so the three cannot disagree.
 *
 * It works on the words alone, locally, in microseconds: a question's type comes from the clause
 * that asks ("When an engineer says no, what is your next move?" asks what), and an answer gives
 * what a type wants when it holds that kind of thing (a number for how many, a reason for why, a
 * time for when, a person for who, a place for where, a yes or a no first for a polar question)
 * and is about what was asked (shared content words, or similar in meaning: similarity.ts).
 *
 * ```ts
 * understand('Raj, how many clinics use it?'); // { act: 'question', type: 'how-many', ... }
 * answerFit('How many clinics use it?', 'About 340 of them.'); // 'answered'
 * answerFit('Why did the last PM leave?', 'I built the first version myself.'); // 'not'
 * ```
 */
import { memoize } from './memo';
import { wordsOf } from './novelty';
import { similarity } from './similarity';
import { contentWords } from './vocabulary';

/** What a question asks for. `choice` is "A or B?"; `how` a manner or a way. */
export type QuestionType = 'yes-no' | 'who' | 'what' | 'which' | 'when' | 'where' | 'why' | 'how' | 'how-many' | 'choice';

/**
 * What a line does. `repeat-request` asks to hear the last question again; `clarification` asks
 * what was meant ("Do you mean the reminders?"); `non-answer` declines or gives nothing ("Pass.",
 * "I'd rather not say", "No idea"); `proposal` suggests something the group does ("Can we look
 * at the record first?", "Let's take a break."); `small-talk` is about the weather and the coffee; `opinion`
 * takes a position ("I think…"); `foreign` is in another language than the room's (English);
 * `empty` has no words.
 */
export type LineAct =
  | 'question'
  | 'request'
  | 'offer'
  | 'proposal'
  | 'greeting'
  | 'farewell'
  | 'thanks'
  | 'repeat-request'
  | 'clarification'
  | 'non-answer'
  | 'opinion'
  | 'small-talk'
  | 'statement'
  | 'foreign'
  | 'empty';

export interface Understood {
  act: LineAct;
  /** For a question (or a request for information), what kind of answer it wants. */
  type?: QuestionType;
  /** The sentence that asks (a question's last asking sentence), else the whole line. */
  asking: string;
  /** Content words of the asking sentence (stemmed), names included. */
  words: readonly string[];
  /** How many words the line has. */
  length: number;
}

const POLAR_OPENERS = /^(is|are|was|were|am|do|does|did|can|could|would|will|have|has|had|should|shall|may|might|must|isn't|aren't|wasn't|weren't|don't|doesn't|didn't|can't|couldn't|won't|wouldn't|haven't|hasn't|shouldn't)$/;
const WH = /^(what|what's|whats|why|how|how's|when|where|where's|who|who's|whom|whose|which)$/;

/** Asking to hear the question again. */
const repeatRequest =
  /\b(repeat (the|that|your|it|what you)|(say|ask) (that|it|the question) again|come again\b|sorry,? what was the question|what was the question|what did you (just )?(say|ask)|(didn't|did not|couldn't|could not) (quite )?(hear|catch|get) (that|you|the question|it)|rephrase (that|the question|it)|pardon\?|^\W*(pardon|sorry|what|huh)\W*\??\W*$|^\W*(sorry,?\s+)?(again|once more|one more time)(,? please)?\W*\?\W*$|one more time\?)/i;

/** Asking what was meant. */
const clarification = /\b(do you mean|did you mean|you mean|what do you mean|what exactly do you mean|which (one|part) do you mean|meaning what|in what sense|could you clarify|can you clarify|what (are|were) you asking)\b/i;

/** Declining, or giving nothing. */
const nonAnswer =
  /^\W*(pass|no comment|skip|next( question)?|i('d| would) rather not( say| answer| get into (it|that))?|i (don't|do not) know|no idea|not sure|dunno|i can't say|can't say|i have no idea|nothing( to add)?|i('ll| will) pass|whatever|i forget|i can't remember|i don't remember|not telling|that's private|none of your business|i'd prefer not to( say)?|i prefer not to( say)?|it depends|that depends|hard to say|that's a (big|good|tough|great) question|good question)\b[\s\S]{0,25}$/i;

/** Saying someone did wrong: "I think Elena did it", "you're lying, Rupert". */
export const accusation = /\b(did it|did this|killed|murdered|poisoned|guilty|lying|lied|hiding something|you're hiding|to blame|responsible for|the culprit|it was (you|her|him))\b/i;

/** Swearing or calling the session names: frustration, to acknowledge before anything else. */
export const heated = /(\bf\W{0,2}\*+\W{0,2}k?\w*|\bfuck\w*|\bshit\w*|\bdamn\w*|\bcrap\b|\bbullshit\b|\bstupid\b|\bidiot\w*|\bwaste of (my )?time\b|\bridiculous\b|\bpointless\b)/i;

/** Function words of other languages the room may hear (Spanish, French, German, Italian, Portuguese, Dutch). */
const foreignWords = new Set(
  `el la los las de del que y es por qué como pero para una uno con sin muy le les des est et je tu il elle nous vous ils pas une du au aux und der die das ist nicht ich du er sie wir ihr mit ein eine il che è non per sono della gli o não com uma het een niet ik je zijn`.split(/\s+/),
);

/** Function words of English: a line of three words or more with none of them, and something of another language, is in another language. */
const englishWords = new Set(
  `a an the i you he she we they it me him her us them my your our their this that these those is are was were be been am do does did have has had
  can could will would should shall may might must not no yes and or but if so because of to in on at for with from by about as what why how when
  where who which there here all some any just very too also really well ok okay hi hello thanks please sorry up out one`.split(/\s+/),
);

const proposal = /^\W*(\w+,\s*)?(before we go (on|further),\s*)?(can|could|shall|should) we\b|\b(why don't we|how about we|what if we)\b/i;
const greeting = /^\W*(hi|hello|hey|good (morning|afternoon|evening)|morning|welcome|nice to (meet|see) you|pleased to meet you|great to (meet|see) you)\b/i;
const farewell = /\b(goodbye|bye|see you|good night|goodnight|take care|have a (good|great|nice) (day|evening|one)|talk (to you )?(soon|later|tomorrow))\b/i;
const thanks = /^\W*(thanks|thank you|cheers|much appreciated|appreciate (it|that))\b/i;
const smallTalk = /\b(weather|rain(ing)?|sunny|coffee|tea|lunch|traffic|weekend|holiday|vacation|football|soccer|pizza|the game|tv|netflix|movie|film|music|my (dog|cat|kids)|how('s| is| are) (it going|you|things|everyone|your day)|how do you do)\b/i;
const opinion = /^\W*(i (think|believe|feel|reckon|guess|suppose|agree|disagree|doubt|would argue|'d argue|prefer|like|love|hate)|in my (view|opinion|experience)|personally|for me|my (view|take|sense) is|i'm (not )?(sure|convinced))\b/i;
const offer = /\b(i (can|could) (send|share|help|take|do|show|get|put)|let me (send|share|help|take|show|get)|would it help if i|shall i|want me to|i'm happy to|i am happy to|happy to (send|share|help|take)|let me know if you (want|need|would like)|if you (want|need|like),? i (can|could))\b/i;
const requestVerbs =
  /^\W*(\w+,\s*)?(please |could you |can you |would you |will you |would you mind |i'd like you to |i need you to )?(tell|walk|talk|take|describe|explain|say|give|go over|put|clarify|elaborate|share|show|send|list|name|summari[sz]e|remind|help)\b/i;

/** Asking someone to do something: "could you write up…", "can you pair with…", "would you own…". */
const actRequest =
  /^\W*(\w+,\s*){0,2}(could|can|would|will) you (please |also |maybe |just )?(write|draft|send|book|check|look into|pair|own|take on|take over|run|follow up|circulate|update|fix|review|prepare|schedule|set up|sort out|handle|cover|lead|organi[sz]e|email|ping|chase|bring|post|file|raise|note|jot|sketch|mock up|draw up|find|get|reach out|loop in|coordinate|flag|document|test|try|join)\b/i;

/** Requests for information: answered like a question whose type they carry ("tell me why…"). */
const tellMe = /\b(tell (me|us)|walk (me|us) through|talk (me|us) through|describe|explain|say (a bit )?more|give (me|us) (an?|the|one|some|a concrete|a rough) (example|number|figure|sense|cost|estimate|breakdown|summary|update|overview)|take (me|us) through|go over|put a number on|clarify|elaborate|share your (thinking|view|thoughts|reasoning|numbers)|share the (numbers|reasoning|thinking))\b/i;

/** Splits a text into sentences, keeping their punctuation. */
const sentences = (text: string): string[] => (text.match(/[^.!?]+[.!?]*/g) ?? [text]).map((s) => s.trim()).filter(Boolean);

/** The type asked by one sentence, by the clause that asks. */
const typeOf = (asked: string): QuestionType => {
  const lower = asked.toLowerCase().replace(/’/g, "'");
  if (/\bhow (many|much|long|often|old|far|big|large|heavy|soon|fast|slow|expensive|tall|wide)\b/.test(lower) || /\bwhat (percentage|share|proportion|number|fraction)\b/.test(lower)) {
    return /\bhow (long|soon)\b/.test(lower) && !/\bhow long (is|was) the\b/.test(lower) ? 'when' : 'how-many';
  }
  if (/\bwhat time\b|\bwhat (day|date|year|month)\b/.test(lower)) return 'when';
  // "Could you walk us through the booking team?" asks to be told, not for a yes.
  if (/^\W*([\w']+,\s*){0,2}(could|can|would|will) you (please )?/i.test(lower.split(/[.!]\s+/).at(-1) ?? lower) && tellMe.test(asked)) return tellType(asked) ?? 'what';
  // What comes next asks for a time and a step: "what happens after today?", "what are the next steps?"
  if (/\bwhat happens (after|next|now|then)\b|\bwhat(?:'s| is| are) (?:the )?next\b|\bnext steps?\b/.test(lower)) return 'when';
  const embedded = lower.match(/\b(?:ask|know|wonder|wondering|tell (?:me|us)|explain|describe|remember|recall|understand|show (?:me|us))\s+(what|why|how|when|where|who|whom|whose|which)\b/);
  if (embedded) return normalType(embedded[1]!);
  // The clause that asks decides: the one with the question mark, read back to front, then the others.
  const clauses = lower.split(/[,:;—–]\s*|\s-\s/);
  // "When, realistically, will staging be green?": a wh-word set off by commas asks.
  const alone = clauses.map((c) => c.trim().replace(/[^a-z']/g, '')).find((c) => WH.test(c));
  if (alone) return normalType(alone);
  const asking = clauses.findIndex((c) => c.includes('?'));
  // Before it, the nearest clause first: "When an engineer says no, what's your next move, Alex?" asks what, not when.
  const ordered = asking >= 0 ? [...clauses.slice(asking).reverse(), ...clauses.slice(0, asking).reverse()] : clauses;
  for (const c of ordered) {
    const words = c.trim().split(/\s+/).map((w) => w.replace(/[^a-z']/g, ''));
    const head = words.findIndex((w, i) => i <= 2 && (WH.test(w) || POLAR_OPENERS.test(w)));
    if (head < 0) continue;
    const w = words[head]!.replace(/'s$/, '');
    if (WH.test(w) || w === 'what' || w === 'who' || w === 'how' || w === 'where') {
      if (w === 'how' && /^how (do|would|will|should|could|can|did) (you|we|i|they)\b/.test(words.slice(head).join(' '))) return 'how';
      return normalType(w);
    }
    if (/\bor\b/.test(c) && !/\bor not\b/.test(c) && !/\bor (something|anything|so)\b/.test(c)) return 'choice';
    return 'yes-no';
  }
  return tellType(asked) ?? 'what';
};

/** What a request for information wants ("walk me through how…" a how, "give me an example" a what); undefined for a request to act. */
const tellType = (asked: string): QuestionType | undefined => {
  if (!tellMe.test(asked)) return undefined;
  if (/\b(example|story|time when|a time)\b/i.test(asked)) return 'what';
  if (/\b(number|figure|cost|estimate)\b/i.test(asked)) return 'how-many';
  const embedded = asked.toLowerCase().match(/\b(why|how|when|where|who|which|what)\b/);
  return embedded ? normalType(embedded[1]!) : 'what';
};

const normalType = (w: string): QuestionType => {
  const base = w.replace(/'s$/, '').replace(/s$/, (s) => (w === 'whats' ? '' : s));
  if (base === 'whom' || base === 'whose' || base === 'who') return 'who';
  if (base === 'which') return 'which';
  if (base === 'what' || base === 'whats') return 'what';
  return base as QuestionType;
};

/** Whether a sentence asks something: a question mark, or a question's word order without one (speech). */
const asks = (s: string): boolean => {
  if (s.includes('?')) return true;
  const first = wordsOf(s).find((w) => !/^(so|and|but|okay|ok|well|now|then|alright|right|um|uh)$/.test(w));
  if (!first) return false;
  // Unpunctuated speech: "what did you ship last", "do you have the numbers"; not "what I did was..."
  if (WH.test(first)) return !/^(what|who|where|when|how|why)\s+(i|we|they|he|she|it)\b/i.test(s.trim().replace(/^\W*(so|and|but|okay|well|now)\s+/i, ''));
  return POLAR_OPENERS.test(first) && /\b(you|we|they|it|there|that|this|he|she|i)\b/i.test(s.split(/\s+/).slice(1, 3).join(' '));
};

/**
 * The act and, for a question, its type. A line doing several things is read by its last act:
 * "Thanks. Why did you leave?" is a question (MMAgents Fig. 4: the obligation sits in the last
 * first pair part).
 */
export const understand: (text: string) => Understood = memoize((text: string): Understood => {
  const trimmed = text.trim();
  const words = wordsOf(trimmed);
  const length = words.length;
  const base = (act: LineAct, asking = trimmed, type?: QuestionType): Understood => ({ act, ...(type ? { type } : {}), asking, words: contentWords(asking), length });
  if (length === 0) return base('empty');
  if (length >= 3 && !words.some((w) => englishWords.has(w)) && (/[¿¡ñáéíóúàèìòùâêîôûçäöüßœ]/i.test(trimmed) || words.filter((w) => foreignWords.has(w)).length >= 2)) return base('foreign');
  if (repeatRequest.test(trimmed)) return base('repeat-request');
  if (nonAnswer.test(trimmed)) return base('non-answer');
  const parts = sentences(trimmed);
  const asking = parts.filter(asks).at(-1);
  if (asking) {
    if (clarification.test(asking)) return base('clarification', asking, typeOf(asking));
    // "Could you walk me through…?" asks for information; "Could you share the roadmap?" for an act.
    if (/^\W*(\w+,\s*)?(could|can|would|will) you (please )?(tell|walk|talk|take|describe|explain|give|go over|put|clarify|elaborate|share|say|send|show)\b/i.test(asking)) {
      return base('request', asking, tellType(asking));
    }
    // "Could you write up the flow for everyone?", "Can you pair with Jordan today?": a request to act, answered by taking it on or not.
    if (actRequest.test(asking)) return base('request', asking);
    if (offer.test(asking) || /^\W*(shall i|do you want me to|would you like me to|want me to)\b/i.test(asking)) return base('offer', asking);
    if (proposal.test(asking)) return base('proposal', asking);
    if (smallTalk.test(asking) && !/\b(clinic|patient|team|product|project|plan|release|launch|murder|budget)\b/i.test(asking)) return base('small-talk', asking, typeOf(asking));
    return base('question', asking, typeOf(asking));
  }
  const last = parts.at(-1) ?? trimmed;
  if (requestVerbs.test(last) && tellMe.test(last)) return base('request', last, tellType(last));
  if (requestVerbs.test(last) && /^\W*(\w+,\s*)?(please|could you|can you|would you)\b/i.test(last)) return base('request', last);
  if (offer.test(last)) return base('offer', last);
  if (/^\W*(\w+,\s*)?let's\b/i.test(last)) return base('proposal', last);
  if (farewell.test(last)) return base('farewell');
  if (greeting.test(parts[0]!) && length <= 12) return base('greeting');
  if (thanks.test(trimmed) && length <= 8) return base('thanks');
  if (smallTalk.test(trimmed)) return base('small-talk');
  if (opinion.test(last)) return base('opinion');
  return base('statement');
});

// ---------------------------------------------------------------------------------------------
// What a reply gives

const NUMBER_WORDS =
  /\b(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|dozen|dozens|half|third|quarter|percent|per cent|none|nobody|a few|a couple|several|most|all of|every)\b/i;
const TIME_WORDS =
  /\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(am|pm)\b|\b(19|20)\d{2}\b|o'clock|half past|quarter (past|to)|\b(yesterday|today|tonight|tomorrow|last (night|week|month|year|quarter|sprint|time)|this (morning|afternoon|evening|week|month|year|quarter|sprint)|next (week|month|year|quarter|sprint|monday|tuesday|wednesday|thursday|friday)|ago|since|until|before|after|during|early|late|soon|later|earlier|then|at first|at the (start|end|time)|morning|afternoon|evening|night|midnight|noon|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december|spring|summer|autumn|winter|days?|weeks?|months?|years?|hours?|minutes?|quarter|sprints?|deadline|date|when)\b/i;
const REASON_WORDS = /\b(because|since|so that|so we|so i|due to|the reason|reasons?|that's why|that is why|which is why|caused?|as a result|in order to|the point (is|was)|mainly|mostly|partly|comes down to|the trouble (is|was)|the problem (is|was)|after|over)\b/i;
const PERSON_NOUNS =
  /\b(someone|somebody|nobody|no one|everyone|team|teams|manager|engineer|engineers|lead|cto|ceo|vp|director|doctor|nurse|butler|cook|maid|gardener|guest|staff|colleague|colleagues|customer|customers|clinic|clinics|sales|support|owner|chair|panel|people|person)\b/gi;
const PLACE_WORDS = /\b(in|at|into|from|near|by|behind|outside|inside|upstairs|downstairs|on) (the|my|our|his|her|their|a) \w+|\b(here|there|home|office|room|hall|kitchen|cellar|garden|library|lab|clinic|site|city|country|abroad|remote|online)\b/i;
const POLAR_WORDS =
  /^\W*([\p{L}'’.]+,\s*)?(yes|no|yeah|yep|nope|not really|not quite|not yet|not exactly|partly|partially|absolutely|definitely|of course|certainly|sure|never|always|mostly|sounds (good|great|fine|perfect)|(that )?works for me|that works|fine by me|i (do|did|don't|didn't|have|haven't|had|hadn't|am|was|wasn't|can|can't|could|couldn't|would|wouldn't|will|won't|think so|don't think so|hope so|doubt it)|we (do|did|don't|didn't|have|haven't|are|aren't|can|can't|will|won't)|it (is|was|isn't|wasn't|does|doesn't|did|didn't|will|won't)|that's (right|true|fair|correct)|correct|right|honestly,? (yes|no)|in short,? (yes|no))\b/iu;
const HOW_WORDS = /\b(by \w+ing|first|then|step|start(ed)? (with|by)|we (would|will|used|use)|i (would|will|used|use)|the way|through|using|with a|with the|process|plan)\b/i;

/** Whether `reply` holds the kind of thing a question of `type` wants. What and which want only that it is on topic. */
export const givesKind = (type: QuestionType, reply: string, asked: readonly string[] = []): boolean => {
  switch (type) {
    case 'how-many':
      return /\d/.test(reply) || NUMBER_WORDS.test(reply);
    case 'when':
      return TIME_WORDS.test(reply);
    case 'why':
      return REASON_WORDS.test(reply);
    case 'who': {
      // Someone other than whom the question names: "Who saw Henry last?" is not answered by "Henry died at ten".
      const named = new Set(asked.map((w) => w.toLowerCase()));
      const other = (word: string): boolean => !named.has(word.toLowerCase()) && !contentWords(word).some((w) => named.has(w));
      // A name said to someone ("Gwen, …") is a vocative, not the person asked about.
      reply = reply.replace(/^\W*[A-Z][a-z]+,\s*/, '');
      if (/^\W*(i|we|me|my|our)\b/i.test(reply)) return true;
      for (const m of reply.matchAll(PERSON_NOUNS)) if (other(m[0])) return true;
      for (const m of reply.matchAll(/(?<=\S\s+)[A-Z][a-z]+/g)) if (other(m[0])) return true;
      // A name at the start ("Agnes took him his port"), not a capitalised sentence opener ("Honestly, …").
      const first = reply.trim().match(/^[A-Z][a-z]+/)?.[0];
      return !!first && first !== 'I' && contentWords(first).length > 0 && other(first);
    }
    case 'where':
      return PLACE_WORDS.test(reply);
    case 'yes-no':
      return POLAR_WORDS.test(reply);
    case 'choice':
      return true;
    case 'how':
      return HOW_WORDS.test(reply);
    case 'what':
    case 'which':
      return true;
  }
};

/** Turning the question aside without answering it. */
const dodge =
  /\b(i'd rather not|i would rather not|rather not (say|get into|go into)|let's not go there|no comment|that's (a )?private|none of your business|i don't see what that has to do|can't (say|tell you|talk about)|not at liberty|i'm not going to (say|answer|get into))\b/i;
/** Saying one does not know, in character. */
const unknowing = /\b(i'd have to think about|i would have to think about|haven't got a good answer|don't have a good answer|outside what i know|haven't worked out|i've wondered that myself|couldn't tell you|i'd only be guessing|i'd be guessing|couldn't put a number|i'm torn|haven't made up my mind|haven't settled on|not the person who'd know|not directly|the closest i have|not that exactly|can't answer that precisely|only partly|i don't know|i do not know|no idea|not sure|i'm not sure|i can't remember|i don't remember|don't have (that|the|those) (number|figure|numbers|figures|detail|details)|i couldn't say|hard to say|i'd have to check|i would have to check|i'll (find out|check)|i will (find out|check))\b/i;
/** Whether a reply says its speaker does not know (in character: "I'd have to think about that"). */
export const saysUnknowing = (reply: string): boolean => unknowing.test(reply);
/** Stock lines that fill a turn without content. */
const filler = /^\W*(that(?:'s| is) a (good|great|fair|tough|interesting) question|good question|great question|interesting question|let me think|hmm+|well+)\W*$/i;

/** How well a reply answers a question: it gives what was asked, about what was asked. */
export type Fit = 'answered' | 'partly' | 'not';

/** A lead that only names what was asked: "When it comes to X,", "As for X,", "On X:", "About X:". */
const echo = /^\W*([\p{L}'’]+,\s*)?(when it comes to|as for|as to|regarding|on the subject of|on|about)\s[^,:;.]{1,60}[,:;]\s*/iu;
/** A reply that refers back to what was asked with a pronoun in its first words ("She left because…", "It was…"). */
const pointsBack = /^\W*(\S+\s+){0,3}(it|that|this|they|those|he|she|him|her|them|there)\b/i;

/**
 * Words of meeting talk that mean the same thing here, as content-word stems: "why is the role open?"
 * is about the last PM who quit. Each group counts as one word when a reply is compared with a question.
 */
const concepts: readonly (readonly string[])[] = [
  ['leav', 'left', 'quit', 'resign', 'depart', 'gone', 'lost', 'los'],
  ['rol', 'job', 'position', 'post', 'vacancy', 'pm', 'manager'],
  ['number', 'figur', 'count', 'rat', 'percent', 'percentag', 'metric', 'measur', 'kpi'],
  ['cost', 'pric', 'budget', 'money', 'spend', 'fund'],
  ['fail', 'failur', 'error', 'bug', 'outag', 'broken', 'broke', 'crash', 'block', 'blocker', 'stuck'],
  ['owner', 'responsibl', 'lead', 'charg'],
  ['test', 'regression', 'suit', 'qa'],
  ['risk', 'risky', 'worry', 'concern', 'danger'],
  ['decid', 'decision', 'chos', 'choos', 'pick'],
  ['delay', 'slip', 'behind', 'overrun'],
  ['customer', 'client', 'user', 'patient'],
  ['plan', 'roadmap', 'schedul'],
  ['releas', 'launch', 'ship'],
  ['argu', 'argument', 'quarrel', 'shout', 'row', 'fight', 'disput', 'disagr'],
  ['wash', 'rins', 'clean'],
];
const conceptIndex = new Map(concepts.flatMap((group) => group.map((w) => [w, group[0]!] as const)));
const conceptOf = (stem: string): string => conceptIndex.get(stem) ?? stem;

/** A text's content words with a shared concept for words that mean the same in a meeting ("PM" and "role", "left" and "quit"). */
// Memoised: the generator compares every line of a persona's material with each question.
export const conceptsOf: (text: string) => ReadonlySet<string> = memoize((text) => new Set(contentWords(text).map(conceptOf)));

/** Words that leave a question open: "what happened?", "what do you think?", "anything to add?". */
const openWords: ReadonlySet<string> = new Set(['happen', 'happened', 'think', 'feel', 'view', 'add', 'going', 'new', 'else', 'matter', 'wrong', 'mind', 'opinion', 'sens', 'tak']);

/** Similarity above which a reply is about the question even without a shared word. */
const ON_TOPIC_SIMILARITY = 0.3;
/** Similarity above which a reply that gives the kind of thing asked is taken to give it about the question. */
const NEAR_TOPIC_SIMILARITY = 0.15;

/**
 * Whether `reply` answers `question` by its content. `answered`: it gives the kind of thing the
 * question wants and is about it (a shared content word, or similar in meaning), or it says yes
 * or no to a polar question; `partly`: one of the two, or an honest "I don't know" that stays on
 * it, or a question back that asks what was meant; `not`: neither, a refusal, an empty filler,
 * or a one-word reply to an open question.
 */
/** A question about what the addressee did or where they were ("where were you…?", "when did you…?"): its answer is about them. */
const aboutAddressee = /\b(were|are|was|did|do|have|had|will|would|could|can) you\b|\byou (were|went|did|saw|heard|took|left|had|got)\b/i;
const firstPerson = /\b(i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we'd|our|us)\b/i;

export interface FitOptions {
  /**
   * Whether the reply may point back at the question with a pronoun ("It was Elena."). A
   * persona's material is a sentence read out of context: its "it" points nowhere, and a short
   * line of it answers only when it is about the question.
   */
  anaphora?: boolean;
  /** What a thin question's pronoun stands for ("who told you to wash *it*?" after a question about the decanter): its words count as asked. */
  about?: string;
}

export const answerFit = (question: string, reply: string, names: ReadonlySet<string> = new Set(), options: FitOptions = {}): Fit => {
  const asked = understand(question);
  const replied = understand(reply);
  const type = asked.type ?? (asked.act === 'request' ? 'what' : 'what');
  if (replied.act === 'empty' || filler.test(reply.trim())) return 'not';
  // Cut off before saying anything ("Raj, it comes back to this: my—"): nothing was given.
  if (/[—–]\s*$/.test(reply) && contentWords(reply.replace(/^\W*[\p{Lu}][\p{L}'’.-]*,\s*/u, '').replace(/^[^:]{0,40}:\s*/, '')).filter((w) => !names.has(w)).length < 3) return 'not';
  if (replied.act === 'repeat-request' || replied.act === 'clarification') return 'partly';
  // A question back is not an answer ("Why is this role open?" to "Why did you leave?").
  if (replied.act === 'question' && sentences(reply).length === 1 && !/\d/.test(reply)) return 'not';
  if (dodge.test(reply) || replied.act === 'non-answer') return unknowing.test(reply) && replied.length > 5 ? 'partly' : 'not';
  // "When it comes to your reminder system, I can push back on estimates" names what was asked and says something else: the echo does not count.
  const body = reply.replace(echo, '');
  const askedWords = new Set([...asked.words, ...(options.about ? contentWords(options.about) : [])].filter((w) => !names.has(w)).map(conceptOf));
  const replyWords = new Set(contentWords(body).filter((w) => !names.has(w)).map(conceptOf));
  let overlap = 0;
  for (const w of askedWords) if (replyWords.has(w)) overlap++;
  const meaning = similarity(asked.asking, body);
  // "What happened?", "What do you think?": a question about nothing in particular is answered by any account.
  const open = (type === 'what' || type === 'how' || type === 'yes-no') && [...askedWords].every((w) => openWords.has(w)) && replied.length >= 6;
  // A reply may point back at the question with a pronoun; a sentence read out of context (a persona's material) may not.
  // A sentence read out of context must share more than one word with a question of three or more: "clinic" alone does not make a line about Northwind's clinics an answer to "what was the hardest part of the clinic front desks?".
  const needed = options.anaphora === false && askedWords.size >= 3 ? 2 : 1;
  const onTopic = open || overlap >= needed || (options.anaphora !== false && pointsBack.test(body)) || meaning >= ON_TOPIC_SIMILARITY;
  if (type === 'yes-no') {
    if (POLAR_WORDS.test(reply)) return 'answered';
    return onTopic ? 'partly' : 'not';
  }
  if (replied.length <= 2 && type !== 'choice') return /\d/.test(reply) || (type === 'who' && /[A-Z]/.test(reply)) ? 'answered' : 'not';
  if (unknowing.test(reply)) return 'partly';
  const kind = givesKind(type, body, [...asked.words, ...wordsOf(asked.asking)]);
  // A short reply that gives the kind of thing asked answers it ("Around nine." to "When did you arrive?").
  // A short reply answers by giving the kind asked; a short sentence read out of context ("I found the body.") only when it is about it.
  const short = options.anaphora !== false && replied.length <= 12;
  // "Where were you at half past nine?" is not answered by where someone else was.
  const elsewhere = (type === 'where' || type === 'when') && aboutAddressee.test(asked.asking) && !firstPerson.test(body) && replied.length > 6;
  // What, which, how and a choice want only that the reply is about the question (a manner, for how).
  if (type === 'what' || type === 'which' || type === 'choice' || type === 'how') {
    if (!onTopic) return 'not';
    return type !== 'how' || kind || replied.length >= 12 ? 'answered' : 'partly';
  }
  // "How many clinics?" read out of context wants a number of clinics, not "seven years" of something else.
  const counted = type === 'how-many' && options.anaphora === false ? /\bhow (?:many|much) ([\p{L}-]+)/iu.exec(asked.asking)?.[1] : undefined;
  const countedWords = counted ? contentWords(counted).map(conceptOf) : [];
  if (countedWords.length && !countedWords.some((w) => replyWords.has(w))) return kind || onTopic ? 'partly' : 'not';
  // The kind of thing asked, in a reply that is short or near the question in meaning, answers it.
  if (kind && !elsewhere && (onTopic || short || (options.anaphora !== false && meaning >= NEAR_TOPIC_SIMILARITY))) return 'answered';
  return kind || onTopic ? 'partly' : 'not';
};
