/**
 * Stage 4 of detectDesignation (index.ts): the first pair part of a sentence. The obligation of a
 * turn usually sits in its last question or request, so index.ts reads sentences from the last;
 * within one, each clause is tried from its start and from the points where run-on speech may
 * start a new one ("so um Omar what ..."), past markers, thanks and vocatives (vocatives.ts), with
 * the rules of pair-rules.ts. Rhetorical questions, tags ("..., right?") and granted requests
 * ("Sure, take it.") open no pair.
 *
 *   unitPair(t, t.units[0]!, 0); // for "So, Omar, can you send it?": { pair: 'request', unit: 0, clause: 2, at: 2 }
 */
import type { PairType } from '../../../shared/events';
import { ADDRESS_ONLY, ADDRESS_WORDS, AUX_WORDS, BARE_ONLY, BREAKERS, GROUP_SUBJECTS, MARKERS, TAG_ONLY, THANKED_GROUP, THANKS_FILLER, THANKS_WORDS, WH_WORDS, words, YOU_WORDS } from './lexicon';
import { isName, isVocativeWord, type ParsedUtterance, type Span, textOf, type Unit, wordAt } from './tokens';
import { AUX, HOW_ARE_YOU, IMPERATIVE, INVITATION_ANYWHERE, N, OFFER_ANYWHERE, pairAt, RIGHT_TAG, SINGULAR_YOU, TAG_QUESTION, WH } from './pair-rules';
import { addressesNext, chainEnd, freeBefore, isAddressOnly, selected, vocativesOf } from './vocatives';

export interface FirstPairPart {
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

/** The last first pair part of a sentence, if any. */
export const unitPair = (t: ParsedUtterance, u: Unit, unit: number): FirstPairPart | null => {
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
