/**
 * Utterances that lead to dialogue breakdowns, found by rules: the response- and context-level
 * types of Higashinaka et al.'s classification (JNLP 29, 2022) as MMAgents uses it (Table 1, and
 * the definitions of its judging prompt, Figure 6). The LLM judge (judge.ts) answers with the same
 * types; these rules are what runs offline, deterministically, in microseconds, and what the judge
 * falls back to. Each finding names the line that commits it, its type and the rule that saw it.
 *
 * Only the system's lines are judged: a real person's line (source `human`) is never a breakdown.
 * A line that several rules flag leads to one breakdown (`breakdownUtterances`), as the paper
 * counts B utterances, and counts once under each of its types. The rules, and what they miss:
 *
 * Response level: the line after a first pair part (a question, request, invitation, offer or
 * greeting). A first pair part cut off by an interruption, left at the end of the log, or followed
 * by its own speaker managing the floor ("Diego, over to you"), is not judged.
 * - `ignore-question`, `ignore-request` (requests and invitations), `ignore-suggestion` (offers),
 *   `ignore-greeting`: after a designated one (with an addressee), a line from anyone else, or from
 *   the addressee but not an answer (`not-the-addressee`, `no-answer`; a greeting may be answered
 *   with a greeting, an invitation by taking the floor with any line). After one put to the room
 *   (no addressee; greetings aside), another speaker's whole line (not cut off) that is not an
 *   answer, shares no content word with it (names aside) and does not point back at it with
 *   "this", "that", "these", "those" or "it" (`room-left-unanswered`). After a request to say it
 *   again ("Could you repeat the question?", "Sorry, what?"), the one asked not restating their
 *   last line (`repair-ignored`, an ignored request).
 * - `ignore-expectation`: the addressee answers a designated question or request (expectation.ts
 *   reads what it asks), but without what was asked, Figure 6's "addresses the previous statement,
 *   but does not contain the expected content" ("the lipstick?" — "first, this ring", Figure 15):
 *   a how-many, when, who or why answered without a number, a time, a person or a reason and in
 *   other words than the question's (similarity at most REPETITION_THRESHOLD) (`wrong-kind-of-answer`);
 *   a reply to a question whose own words, the question's, names and hedges aside, come to one or
 *   none ("Riley, the widget is where I would look first") (`echo-without-answer`); or a reply that,
 *   past any lead-in naming the topic ("On the rollout: ..."), shares no content word with it, does
 *   not point back in its first sentence and does not open with a yes, a no or a hedge of one to a
 *   yes/no question (`answer-misses-it`). The last is `ignore-question` when nothing, not even a
 *   lead-in, addresses the question (`unrelated-answer`). An answer cut off is not judged.
 *
 * Context level:
 * - `unclear-intention`: an answer addressed to someone other than the one who asked: the speaker
 *   of the line it replies to (`replyTo`), else of the last first pair part before it; an addressed
 *   answer with nothing before it to answer counts too (`wrong-addressee`). Answers to the room
 *   (no addressee) are not judged. Thanking by name someone who has not spoken in the last three
 *   lines (`thanks-someone-silent`). Taking a side ("I'm wary of that", "I'd back Sam there") on a
 *   line that claims nothing (fewer than two content words, or a question), or on a thing rather
 *   than a claim ("I'd push back on the father") (`stance-on-nothing`). Taking on as one's own task
 *   an offer of help or a suggestion to the group ("Let me know if you want a second pair of eyes"
 *   — "I will start with the product") (`offer-taken-as-task`).
 * - `topic-change`: an AI line (source `ai`) that strays from everything: at least four words and
 *   three content words (names aside), none of them in the scene's topic, context and contents,
 *   the snippet's title, goal and scripted lines, the speaker's own goals, points and questions, or
 *   the previous two lines (`off-topic`; needs the scene). And, scene or not, an AI line of at
 *   least four words and two content words, not an answer (`ignore-expectation` judges those)
 *   nor a question put to someone (it opens a sequence of its own), that shares none with the previous two lines, when the previous line is another speaker's
 *   statement with a clear topic (two content words or more; not an answer, which closes its
 *   sequence, nor a facilitator's summary, a deviation or floor management) and nothing announces
 *   the change ("anyway", "on another note", "back to"…) (`unrelated-to-previous`). Neither judges
 *   lines that point back, impromptu deviations (off-topic by design), lines cut off by an
 *   interruption, greetings, and floor management, which carries no topic: a chair's or
 *   facilitator's (acts `moderate`, `invitation`, `transition`, `encourage`) and an interrupter's
 *   (act `interrupt`).
 * - `lack-of-information`: "he", "she", "him", "her", "his" or "hers" with nobody it could refer
 *   to: no capitalised name earlier in the line or in the previous three lines
 *   (`pronoun-without-referent`). Missing subjects, objects and modifiers otherwise go unseen.
 * - `self-contradiction`: a sentence stating what the same speaker stated earlier with the
 *   opposite polarity: the same set of at least two content words (vocabulary.ts), with an odd
 *   number of negations in one and an even number in the other ("the estimate is realistic" /
 *   "the estimate is not realistic"). Questions are not statements; a sentence-initial "no" is an
 *   answer particle, not a negation (`negates-own-claim`).
 * - `interlocutor-contradiction`: the same test against what someone else last stated, for a
 *   statement, or a negative question ("Is the estimate not realistic?") against a positive
 *   statement (`negates-others-claim`). Antonyms ("safe" / "risky"), paraphrase and negation scope
 *   go unseen by both contradiction rules.
 * - `repetition`: a verbatim repeat or a near-duplicate (repetition.ts), which covers asking the
 *   same question again in nearly the same words (`verbatim`, `near-duplicate`); or one of the
 *   speaker's last five lines of the same kind said again in other words: more similar than
 *   REPETITION_THRESHOLD (engine/similarity.ts) and adding fewer content words than it shares
 *   (`paraphrase`). Saying it again when asked to is none.
 *
 * Measured against hand labels (tests/fixtures/breakdowns-labelled.jsonl, agreement.ts): tuned on
 * its even-numbered items, on the held-out odd ones precision 0.81, recall 0.65, Cohen's kappa 0.62
 * (the rules without the content checks: 0.36, 0.12, 0.04). `npm run bench -- breakdowns` prints
 * the current figures.
 *
 * ```ts
 * breakdownsOf(utterances, repetitionOf(utterances), scene); // [{ utterance: 'u9', kind: 'ignore-question', rule: 'not-the-addressee' }]
 * ```
 */
import type { PairType, UtteranceEvent } from '../../shared/events';
import { wordsOf } from '../engine/novelty';
import { REPETITION_THRESHOLD, similarity } from '../engine/similarity';
import { contentWords, isNegation } from '../engine/vocabulary';
import type { LoadedScene } from '../../shared/scene/schema';
import { bodyOf, expectedKind, hasLeadIn, holdsKind, questionSentence } from './expectation';
import type { Repetition } from './repetition';
import { breakdownKinds, type BreakdownKind } from '../../shared/review/report';


/** Each type as Table 1 and Figure 6 name it, and where it sits: level (response, context) and aspect (form, content). */
export const taxonomy: Record<BreakdownKind, { name: string; level: 'response' | 'context'; aspect: 'form' | 'content' }> = {
  'ignore-question': { name: 'Ignore question', level: 'response', aspect: 'form' },
  'ignore-request': { name: 'Ignore request', level: 'response', aspect: 'form' },
  'ignore-suggestion': { name: 'Ignore suggestion', level: 'response', aspect: 'form' },
  'ignore-greeting': { name: 'Ignore greeting', level: 'response', aspect: 'form' },
  'ignore-expectation': { name: 'Ignore expectation', level: 'response', aspect: 'content' },
  'unclear-intention': { name: 'Unclear intention of utterance', level: 'context', aspect: 'form' },
  'topic-change': { name: 'Topic-change error', level: 'context', aspect: 'form' },
  'lack-of-information': { name: 'Lack of information', level: 'context', aspect: 'form' },
  'self-contradiction': { name: 'Self-contradiction', level: 'context', aspect: 'content' },
  'interlocutor-contradiction': { name: 'Interlocutor contradiction', level: 'context', aspect: 'content' },
  repetition: { name: 'Repetition', level: 'context', aspect: 'content' },
};

/** Which rule saw a breakdown (see the list above); a judge's findings have none. */
export type BreakdownRule =
  | 'not-the-addressee'
  | 'no-answer'
  | 'room-left-unanswered'
  | 'answer-misses-it'
  | 'wrong-kind-of-answer'
  | 'echo-without-answer'
  | 'unrelated-answer'
  | 'repair-ignored'
  | 'wrong-addressee'
  | 'thanks-someone-silent'
  | 'stance-on-nothing'
  | 'offer-taken-as-task'
  | 'off-topic'
  | 'unrelated-to-previous'
  | 'pronoun-without-referent'
  | 'negates-own-claim'
  | 'negates-others-claim'
  | 'verbatim'
  | 'near-duplicate'
  | 'paraphrase';

export interface Breakdown {
  utterance: string;
  kind: BreakdownKind;
  rule?: BreakdownRule;
}

/** The utterances that lead to a breakdown, each once however many types it has (the paper's B). */
export const breakdownUtterances = (breakdowns: readonly Breakdown[]): number => new Set(breakdowns.map((b) => b.utterance)).size;

/** Breakdowns of each type (an utterance with two types counts under both). */
export const countKinds = (breakdowns: readonly Breakdown[]): Record<BreakdownKind, number> => {
  const counts = Object.fromEntries(breakdownKinds.map((kind) => [kind, 0])) as Record<BreakdownKind, number>;
  for (const b of breakdowns) counts[b.kind] += 1;
  return counts;
};

/** What ignoring each kind of first pair part is. */
const ignoring: Record<Exclude<PairType, 'none'>, BreakdownKind> = {
  question: 'ignore-question',
  request: 'ignore-request',
  invitation: 'ignore-request',
  offer: 'ignore-suggestion',
  greeting: 'ignore-greeting',
};

/** Lines of fewer words are acknowledgements; fewer content words, small talk or a generic prompt. */
const OFF_TOPIC_MIN_WORDS = 4;
const OFF_TOPIC_MIN_CONTENT = 3;
/** A line has a clear topic, and can change it, with this many content words (names aside). */
const TOPIC_MIN_CONTENT = 2;
/** How many lines back a pronoun's referent may have been named. */
const REFERENT_WINDOW = 3;
/** Acts that manage the conversation rather than add to it: no topic to stray from. */
const floorActs: ReadonlySet<string> = new Set(['greeting', 'moderate', 'invitation', 'transition', 'encourage', 'interrupt']);
/** After these the topic may change: an answer closed its sequence, a facilitator the topic, or a deviation was its own aside. */
const topicEnds: ReadonlySet<string> = new Set([...floorActs, 'answer', 'summarize', 'deviation']);
/** Words that point back at what was said: a line holding one continues the talk. */
const pointers: ReadonlySet<string> = new Set(['this', 'that', 'these', 'those', 'it']);
/** Ways of announcing a change of topic: a change with its explanation (Figure 6) is no error. */
const announcedChange = /\b(anyway|by the way|on another note|on a (different|separate) note|different (subject|topic)|unrelated|off[- ]topic|moving on|move on|speaking of|chang(e|ing) the subject|one more (thing|angle)|turn(ing)? to|back to)\b/i;
const thirdPersonPronouns: ReadonlySet<string> = new Set(['he', 'she', 'him', 'her', 'his', 'hers']);
/** A claim needs this many content words to be compared: fewer match too easily. */
const CLAIM_MIN_WORDS = 2;

/** A request to say it again: the one it is put to should restate what they said, not move on. */
const repairRequest = /\b(repeat (that|the question|it)\b|say (that|it) again\b|come again\b|pardon\b|sorry,? what\??$|what do you mean\b|i didn'?t (catch|get|hear) (that|it)\b)/i;
/** Hedges and fillers that hold no answer: a reply made of the question's words and these echoes it. */
const hedges: ReadonlySet<string> = new Set(['honest', 'short', 'version', 'read', 'view', 'depend', 'start', 'happy']);
/** Words that give a view, which the content words (vocabulary.ts) leave out: "I like the plan" answers "What do you think of the plan?". */
const evaluative = /\b(like|love|hate|agree|disagree|good|bad|great|fine|better|worse|best|worst|right|wrong|prefer|works?|worried|happy|unhappy|sceptical|skeptical|risky|safe)\b/i;
/** A reply with fewer words of its own than this (names, hedges and the question's words aside) echoes the question. */
const ECHO_MAX_OWN_WORDS = 1;
/** How many of the speaker's own earlier lines a paraphrase is looked for in (MPOD §3.2's window). */
const PARAPHRASE_WINDOW = 5;
/** Lines shorter than this are acknowledgements, too short to paraphrase anything. */
const PARAPHRASE_MIN_WORDS = 4;
/** How many lines back someone thanked by name may have spoken. */
const THANKS_WINDOW = 3;
/** Taking a side on what was said: agreeing, doubting, pushing back. */
const stance =
  /\b(push back|i'?d question|wary of|not quite how i see|see (that|this|it|the [\p{L}-]+( [\p{L}-]+)?) differently|i'?d back|agreed on|i'?m with [\p{L}]+ on|has a point|is right about|evidence for that|i doubt|not sure about that|makes sense|(picking up|building|thinking) (on|about) that)\b/iu;
/** Taking a side on a thing rather than a claim: "I'd push back on the father", "I'd question that house". */
const stanceOnThing = /\b(push back on|i'?d question|not quite how i see|i see|wary of)\s+(the|that|this|my|your)\s+([\p{L}-]+(?:\s+[\p{L}-]+)?)\s*(differently\b|[.,;]|$)/iu;
/** What one can take a side on: claims and their carriers. */
const claimNouns: ReadonlySet<string> = new Set(
  'idea claim point estimate estimates plan plans number numbers figure figures view assumption argument proposal suggestion rating data evidence conclusion result results premise framing timeline rule approach reading logic story account case analysis'.split(' '),
);
/** An offer of help, whatever its logged pair: "let me know if you want a second pair of eyes". */
const offerOfHelp = /\b(let me know if you (want|need)|if you need|happy to help|i can help|shall i|i could (help|write|take|look))\b/i;
/** A suggestion to the group ("Can we talk about X instead?"): agreed to, not taken on as one's own task. */
const suggestion = /\b(can we|could we|shall we|let's|how about)\b/i;
/** Accepting a task, which answers a request to do something, not an offer to help or a suggestion. */
const takingTask = /\bi will (start|do it|take)\b/i;

/** Whether `text` takes a side on a thing that holds no claim ("I'd push back on the new student"). */
const sidesWithAThing = (text: string): boolean => {
  const m = stanceOnThing.exec(text);
  if (!m) return false;
  const head = m[3]!.toLowerCase().split(/\s+/).at(-1)!;
  return !claimNouns.has(head) && !['that', 'this', 'it'].includes(head);
};

interface Claim {
  /** Its content words, sorted and joined. */
  key: string;
  negated: boolean;
  question: boolean;
}

const claimsOf = (text: string): Claim[] =>
  (text.match(/[^.!?;]+[.!?;]*/g) ?? []).flatMap((sentence) => {
    const content = [...new Set(contentWords(sentence))];
    if (content.length < CLAIM_MIN_WORDS) return [];
    const negations = wordsOf(sentence).filter((word, i) => isNegation(word) && !(i === 0 && word === 'no')).length;
    return [{ key: content.sort().join(' '), negated: negations % 2 === 1, question: sentence.trim().endsWith('?') }];
  });

/** Words as written, with whether each opens a sentence: what a referent is looked for in. */
const casedWords = (text: string): { word: string; initial: boolean }[] =>
  [...text.matchAll(/([.!?:;]\s*|^\s*)?([\p{L}][\p{L}'’.-]*)/gu)].map((m, i) => ({ word: m[2]!.replace(/[.]+$/, ''), initial: i === 0 || m[1] !== undefined }));

/**
 * Whether a capitalised word could name someone: not "I", and at a sentence's start only when it is
 * a content word ("Henry went", not "Honestly, he").
 */
const namesSomeone = ({ word, initial }: { word: string; initial: boolean }): boolean =>
  /^\p{Lu}/u.test(word) && !/^I('|’|$)/.test(word) && (!initial || contentWords(word).length > 0);

/** The first third-person pronoun of `text` with no possible referent in it before it or in `before`. */
const pronounWithoutReferent = (text: string, before: readonly UtteranceEvent[]): boolean => {
  const words = casedWords(text);
  const at = words.findIndex((w) => thirdPersonPronouns.has(w.word.toLowerCase()));
  if (at < 0) return false;
  return !words.slice(0, at).some(namesSomeone) && !before.some((u) => casedWords(u.text).some(namesSomeone));
};

/**
 * Whether a line strays from the scene, given its content words and those of the two lines before
 * it. What it may share a word with is gathered once per snippet and speaker.
 */
const offTopicJudge = (scene: LoadedScene): ((u: UtteranceEvent, own: readonly string[], context: ReadonlySet<string>) => boolean) => {
  const sceneTexts = [scene.topic, scene.context, ...scene.contents.flatMap((c) => [c.title, c.summary, ...c.sections])];
  const topics = new Map<string, ReadonlySet<string>>();
  const topicOf = (snippetId: string, speaker: string): ReadonlySet<string> => {
    const key = `${snippetId}\u0000${speaker}`;
    const cached = topics.get(key);
    if (cached) return cached;
    const snippet = scene.snippets.find((s) => s.id === snippetId);
    const persona = scene.participants.find((p) => p.id === speaker)?.persona;
    const texts = [
      ...sceneTexts,
      ...(snippet ? [snippet.title ?? '', snippet.goal, ...snippet.lines.map((l) => l.text)] : []),
      ...(persona ? [...persona.goals, ...persona.points, ...persona.questions] : []),
    ];
    const words = new Set(texts.flatMap(contentWords));
    topics.set(key, words);
    return words;
  };
  return (u, own, context) => {
    if (own.length < OFF_TOPIC_MIN_CONTENT) return false;
    const topic = topicOf(u.snippet, u.speaker);
    return !own.some((w) => topic.has(w) || context.has(w));
  };
};

export const breakdownsOf = (utterances: readonly UtteranceEvent[], repetition: Repetition, scene?: LoadedScene): Breakdown[] => {
  const found: Breakdown[] = [];
  const byId = new Map(utterances.map((u) => [u.id, u]));
  const ownClaims = new Map<string, Map<string, boolean>>();
  /** Per claim, who stated it last and with which polarity. */
  const lastClaims = new Map<string, { speaker: string; negated: boolean }>();
  const offTopic = scene && offTopicJudge(scene);
  const names = new Set([
    ...(scene?.participants.flatMap((p) => contentWords(`${p.name} ${p.shortName ?? ''} ${p.id}`)) ?? []),
    ...utterances.flatMap((u) => contentWords(`${u.speaker} ${u.addressee ?? ''}`)),
  ]);
  // Content words without names: "Ben, the budget?" and "Ana, the budget." share "budget", not a name.
  const content = utterances.map((u) => contentWords(u.text).filter((w) => !names.has(w)));
  const pointsBack = utterances.map((u) => wordsOf(u.text).some((w) => pointers.has(w)));
  let lastFirstPart: UtteranceEvent | undefined;
  const isName = (word: string): boolean => names.has(word.toLowerCase());

  /**
   * What is missing from the addressee's answer at `i` to the question or request before it, if
   * anything. A question of a kind (how many, when, who, why) answered without that kind of thing
   * and in other words than the question's; a reply whose own words, the question's and names
   * aside, come to nothing ("Riley, the widget is where I would look first"); or a reply that,
   * after any lead-in naming the topic, shares no content word with the question and does not
   * point back at it. The last is `ignore-question` when nothing, not even a lead-in, addresses it.
   */
  const missingAnswer = (i: number, pair: 'question' | 'request'): { kind: BreakdownKind; rule: BreakdownRule } | null => {
    const u = utterances[i]!;
    const asked = utterances[i - 1]!;
    const question = questionSentence(asked.text);
    const askedWords = new Set(contentWords(question));
    const body = bodyOf(u.text);
    const bodyWords = contentWords(body).filter((w) => !names.has(w));
    const kind = pair === 'question' ? expectedKind(asked.text) : 'open';
    if (kind === 'polar' && holdsKind('polar', u.text)) return null;
    if (kind !== 'polar' && kind !== 'open') {
      // The kind of thing asked for answers the question, in whatever words.
      if (holdsKind(kind, body, names)) return null;
      if (similarity(question, body) <= REPETITION_THRESHOLD) return { kind: 'ignore-expectation', rule: 'wrong-kind-of-answer' };
    }
    const ownWords = bodyWords.filter((w) => !askedWords.has(w) && !hedges.has(w));
    if (pair === 'question' && askedWords.size > 0 && ownWords.length <= ECHO_MAX_OWN_WORDS && !evaluative.test(body)) return { kind: 'ignore-expectation', rule: 'echo-without-answer' };
    // Only the first sentence can point back at the question: "That is the short version" points at the answer itself.
    const bodyPointsBack = wordsOf(body.split(/[.!?]\s/)[0] ?? body).some((w) => pointers.has(w));
    const askedContent = content[i - 1]!;
    if (askedContent.length >= TOPIC_MIN_CONTENT && !bodyWords.some((w) => askedContent.includes(w)) && !bodyPointsBack) {
      const addressed = hasLeadIn(u.text) || shared(i, i - 1);
      return addressed || pair === 'request' ? { kind: 'ignore-expectation', rule: 'answer-misses-it' } : { kind: 'ignore-question', rule: 'unrelated-answer' };
    }
    return null;
  };
  const shared = (i: number, j: number): boolean => (content[j] ?? []).some((w) => content[i]!.includes(w));

  /** Thanking by name someone who has not spoken in the last few lines ("Right, thank you, Alex" when Alex said nothing). */
  const thanksSomeoneSilent = (i: number): boolean => {
    const u = utterances[i]!;
    const m = /\b(thanks|thank you)\s*,\s*([\p{L}]+)/iu.exec(u.text);
    if (!m || !isName(m[2]!) || m[2]!.toLowerCase() === u.speaker) return false;
    const thanked = m[2]!.toLowerCase();
    return !utterances.slice(Math.max(0, i - THANKS_WINDOW), i).some((v) => speakerNames(v.speaker).has(thanked));
  };
  const speakerNames = (id: string): ReadonlySet<string> => {
    const p = scene?.participants.find((x) => x.id === id);
    return new Set([id.toLowerCase(), ...(p ? `${p.name} ${p.shortName ?? ''}`.toLowerCase().split(/\s+/).filter(Boolean) : [])]);
  };

  /**
   * A line saying again, in other words, one of the speaker's last few: a line of the same kind
   * (a question again a question) more similar than REPETITION_THRESHOLD (MPOD §3.2) that adds
   * fewer content words of its own than it shares. The similarity alone also joins two claims
   * about the same thing ("the budget needs review" / "the budget could fund hiring").
   */
  const paraphrasesOwn = (i: number): boolean => {
    const u = utterances[i]!;
    if (wordsOf(u.text).length < PARAPHRASE_MIN_WORDS) return false;
    const own = new Set(content[i]);
    return (recentLong.get(kindOf(u)) ?? []).some((j) => {
      const before = new Set(content[j]);
      const sharedWords = [...own].filter((w) => before.has(w)).length;
      return own.size - sharedWords < sharedWords && similarity(u.text, utterances[j]!.text) > REPETITION_THRESHOLD;
    });
  };
  /**
   * Kept as the lines go by, so that no line reads the whole log before it (over a 10,000-line
   * session, 50 million lines read): by speaker and pair type, the indices of the last
   * PARAPHRASE_WINDOW lines of PARAPHRASE_MIN_WORDS words or more; and each speaker's last line.
   */
  const recentLong = new Map<string, number[]>();
  const kindOf = (u: UtteranceEvent): string => `${u.speaker}\u0000${u.pair}`;
  const lastBy = new Map<string, number>();

  utterances.forEach((u, i) => {
    const previous = utterances[i - 1];
    const own = content[i]!;
    const shares = (j: number): boolean => (content[j] ?? []).some((w) => own.includes(w));
    const flag = (kind: BreakdownKind, rule: BreakdownRule): void => void found.push({ utterance: u.id, kind, rule });
    const lineClaims = claimsOf(u.text);

    if (u.source !== 'human') {
      // The previous line as a first pair part to respond to; one cut off was never finished, and
      // its own speaker going on to manage the floor ("Diego, over to you") is not ignoring it.
      const managesOwn = previous?.speaker === u.speaker && (floorActs.has(u.act) || floorActs.has(u.pair));
      const pair = previous && !previous.interrupted && previous.pair !== 'none' && !managesOwn ? previous.pair : null;
      const ownLast = lastBy.get(u.speaker);
      const repairAsked = previous !== undefined && previous.speaker !== u.speaker && repairRequest.test(previous.text.trim()) && ownLast !== undefined;
      if (repairAsked) {
        // Asked to say it again: restating one's last line answers, anything else ignores the request.
        const restated = similarity(u.text, utterances[ownLast]!.text) > REPETITION_THRESHOLD || content[ownLast]!.filter((w) => own.includes(w)).length * 2 >= content[ownLast]!.length;
        if (!restated) flag('ignore-request', 'repair-ignored');
      } else if (previous && pair !== null && previous.addressee !== null) {
        // An invitation is answered by taking the floor, whatever the line then does.
        const answers = u.act === 'answer' || pair === 'invitation' || (pair === 'greeting' && u.act === 'greeting');
        if (u.speaker !== previous.addressee) flag(ignoring[pair], 'not-the-addressee');
        else if (!answers) flag(ignoring[pair], 'no-answer');
        else if ((pair === 'question' || pair === 'request') && !u.interrupted) {
          const missing = missingAnswer(i, pair);
          if (missing) flag(missing.kind, missing.rule);
        }
      } else if (previous && pair !== null && pair !== 'greeting' && u.speaker !== previous.speaker) {
        if (u.act !== 'answer' && !u.interrupted && !shares(i - 1) && !pointsBack[i]) flag(ignoring[pair], 'room-left-unanswered');
      }

      if (u.act === 'answer' && u.addressee !== null) {
        const asked = u.replyTo !== undefined ? byId.get(u.replyTo) : lastFirstPart;
        if (asked?.speaker !== u.addressee) flag('unclear-intention', 'wrong-addressee');
      }
      if (thanksSomeoneSilent(i)) flag('unclear-intention', 'thanks-someone-silent');
      else if (previous && previous.speaker !== u.speaker && stance.test(u.text) && (content[i - 1]!.length < TOPIC_MIN_CONTENT || previous.text.trim().endsWith('?')))
        flag('unclear-intention', 'stance-on-nothing');
      else if (sidesWithAThing(u.text)) flag('unclear-intention', 'stance-on-nothing');
      else if (previous && previous.addressee === u.speaker && (previous.pair === 'offer' || offerOfHelp.test(previous.text) || suggestion.test(previous.text)) && takingTask.test(u.text))
        flag('unclear-intention', 'offer-taken-as-task');

      const talk = u.source === 'ai' && !u.impromptu && !u.interrupted && !floorActs.has(u.act) && !floorActs.has(u.pair);
      if (talk && wordsOf(u.text).length >= OFF_TOPIC_MIN_WORDS && !pointsBack[i]) {
        const context = new Set([...(content[i - 1] ?? []), ...(content[i - 2] ?? [])]);
        if (offTopic?.(u, own, context)) flag('topic-change', 'off-topic');
        else if (
          u.act !== 'answer' &&
          // A question put to someone opens a sequence of its own: a facilitator's move, not a drift.
          !(u.pair === 'question' && u.addressee !== null) &&
          previous &&
          previous.speaker !== u.speaker &&
          previous.pair === 'none' &&
          !previous.impromptu &&
          !topicEnds.has(previous.act) &&
          content[i - 1]!.length >= TOPIC_MIN_CONTENT &&
          own.length >= TOPIC_MIN_CONTENT &&
          !shares(i - 1) &&
          !shares(i - 2) &&
          !announcedChange.test(u.text)
        ) {
          flag('topic-change', 'unrelated-to-previous');
        }
      }

      if (!u.interrupted && !u.impromptu && pronounWithoutReferent(u.text, utterances.slice(Math.max(0, i - REFERENT_WINDOW), i))) {
        flag('lack-of-information', 'pronoun-without-referent');
      }

      const said = ownClaims.get(u.speaker);
      const statements = lineClaims.filter((c) => !c.question);
      if (said && statements.some((c) => said.has(c.key) && said.get(c.key) !== c.negated)) flag('self-contradiction', 'negates-own-claim');
      const contradictsOthers = lineClaims.some((c) => {
        const other = lastClaims.get(c.key);
        if (!other || other.speaker === u.speaker) return false;
        return c.question ? c.negated && !other.negated : c.negated !== other.negated;
      });
      if (contradictsOthers) flag('interlocutor-contradiction', 'negates-others-claim');

      // Saying it again when asked to is no repetition.
      if (!repairAsked) {
        if (repetition.verbatim[i]) flag('repetition', 'verbatim');
        else if (repetition.nearDuplicate[i]) flag('repetition', 'near-duplicate');
        else if (paraphrasesOwn(i)) flag('repetition', 'paraphrase');
      }
    }

    // Everyone's statements are claims the others can contradict, people's included.
    const said = ownClaims.get(u.speaker) ?? new Map<string, boolean>();
    for (const c of lineClaims) {
      if (c.question) continue;
      said.set(c.key, c.negated);
      lastClaims.set(c.key, { speaker: u.speaker, negated: c.negated });
    }
    ownClaims.set(u.speaker, said);
    if (u.pair !== 'none') lastFirstPart = u;
    lastBy.set(u.speaker, i);
    if (wordsOf(u.text).length >= PARAPHRASE_MIN_WORDS) {
      const recent = recentLong.get(kindOf(u)) ?? [];
      recent.push(i);
      if (recent.length > PARAPHRASE_WINDOW) recent.shift();
      recentLong.set(kindOf(u), recent);
    }
  });
  return found;
};
