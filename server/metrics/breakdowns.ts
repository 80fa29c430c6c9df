/**
 * Dialogue breakdowns, found automatically: cheap surface heuristics for a few error types of
 * Higashinaka et al.'s taxonomy of errors in chat-oriented dialogue systems (SIGDIAL 2015; the
 * integrated taxonomy, SIGDIAL 2021): ignoring a question (a response-level error), repetition,
 * self-contradiction and an unrelated topic (context-level errors). A wrong addressee is our
 * addition for multi-party talk, where answering the wrong person breaks the exchange as surely.
 * Each finding names the line that commits it.
 *
 * Only the system's lines are judged: a real person's line (source `human`) is never a
 * breakdown. The heuristics, and what they miss:
 *
 * - `ignored-question`: a designated question (pair question, with an addressee) followed by a
 *   line from someone else, or from the addressee but not an answer (act other than `answer`);
 *   the following line commits it. A question at the very end of the log is not judged.
 * - `wrong-addressee`: an answer addressed to someone other than the one who asked: the speaker of
 *   the line it replies to (`replyTo`), else of the last first pair part before it; an addressed
 *   answer with nothing before it to answer counts too. Answers to the room (no addressee) are not judged.
 * - `repetition`: a verbatim repeat or a near-duplicate (repetition.ts).
 * - `self-contradiction`: a sentence stating what the same speaker stated earlier with the
 *   opposite polarity: the same set of at least two content words (vocabulary.ts), with an odd
 *   number of negations in one and an even number in the other ("the estimate is realistic" /
 *   "the estimate is not realistic"). Questions are not statements; a sentence-initial "no" is an
 *   answer particle, not a negation. Antonyms ("safe" / "risky"), paraphrase and negation scope
 *   go unseen.
 * - `off-topic`: an AI line (source `ai`) of at least four words and three content words (names
 *   aside; fewer is small talk or a generic prompt, not a topic) that includes none of the scene's topic, context and contents, the snippet's title, goal and
 *   scripted lines, the speaker's own goals, points and questions, or the previous two lines, and
 *   which does not point back at the talk with "this", "that", "these", "those" or "it". Not
 *   judged: impromptu deviations (off-topic by design), lines cut off by an interruption, greetings,
 *   and floor management, which carries no topic: a chair's or facilitator's (acts `moderate`,
 *   `invitation`, `transition`, `encourage`) and an interrupter's ("Sorry, quick point before we
 *   move on", act `interrupt`).
 *   A line that points back but says nothing ("How would that work?") passes. Needs the scene.
 *
 * ```ts
 * breakdownsOf(utterances, repetitionOf(utterances), scene); // [{ utterance: 'u9', kind: 'ignored-question' }]
 * ```
 */
import type { UtteranceEvent } from '../engine/events';
import { wordsOf } from '../engine/novelty';
import type { LoadedScene } from '../scene/schema';
import type { Repetition } from './repetition';
import { contentWords, isNegation } from '../engine/vocabulary';

export const breakdownKinds = ['ignored-question', 'wrong-addressee', 'repetition', 'self-contradiction', 'off-topic'] as const;
export type BreakdownKind = (typeof breakdownKinds)[number];

export interface Breakdown {
  utterance: string;
  kind: BreakdownKind;
}

/** Off-topic judges lines of at least this many words: shorter ones are acknowledgements. */
const OFF_TOPIC_MIN_WORDS = 4;
const OFF_TOPIC_MIN_CONTENT = 3;
/** Acts that manage the conversation rather than add to it: no topic to stray from. */
const floorActs: ReadonlySet<string> = new Set(['greeting', 'moderate', 'invitation', 'transition', 'encourage', 'interrupt']);
/** Words that point back at what was said: a line holding one continues the talk. */
const pointers: ReadonlySet<string> = new Set(['this', 'that', 'these', 'those', 'it']);
/** A claim needs this many content words to be compared: fewer match too easily. */
const CLAIM_MIN_WORDS = 2;

interface Claim {
  /** Its content words, sorted and joined. */
  key: string;
  negated: boolean;
}

const claimsOf = (text: string): Claim[] =>
  (text.match(/[^.!?;]+[.!?;]*/g) ?? []).flatMap((sentence) => {
    if (sentence.trim().endsWith('?')) return [];
    const content = [...new Set(contentWords(sentence))];
    if (content.length < CLAIM_MIN_WORDS) return [];
    const negations = wordsOf(sentence).filter((word, i) => isNegation(word) && !(i === 0 && word === 'no')).length;
    return [{ key: content.sort().join(' '), negated: negations % 2 === 1 }];
  });

/**
 * Whether a line strays from the topic, given its content words and those of the two lines before
 * it. What it may share a word with is gathered once per snippet and speaker.
 */
const offTopicJudge = (scene: LoadedScene): ((u: UtteranceEvent, content: readonly string[], context: ReadonlySet<string>) => boolean) => {
  const names = new Set(scene.participants.flatMap((p) => contentWords(`${p.name} ${p.shortName ?? ''}`)));
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
  return (u, content, context) => {
    if (u.source !== 'ai' || u.impromptu || u.interrupted || floorActs.has(u.act) || floorActs.has(u.pair)) return false;
    const words = wordsOf(u.text);
    const own = content.filter((w) => !names.has(w));
    if (words.length < OFF_TOPIC_MIN_WORDS || own.length < OFF_TOPIC_MIN_CONTENT || words.some((w) => pointers.has(w))) return false;
    const topic = topicOf(u.snippet, u.speaker);
    return !own.some((w) => topic.has(w) || context.has(w));
  };
};

export const breakdownsOf = (utterances: readonly UtteranceEvent[], repetition: Repetition, scene?: LoadedScene): Breakdown[] => {
  const found: Breakdown[] = [];
  const byId = new Map(utterances.map((u) => [u.id, u]));
  const claims = new Map<string, Map<string, boolean>>();
  const offTopic = scene && offTopicJudge(scene);
  const content = utterances.map((u) => contentWords(u.text));
  let lastFirstPart: UtteranceEvent | undefined;

  utterances.forEach((u, i) => {
    const previous = utterances[i - 1];
    const flag = (kind: BreakdownKind): void => void found.push({ utterance: u.id, kind });
    if (u.source !== 'human') {
      if (previous && previous.pair === 'question' && previous.addressee !== null && (u.speaker !== previous.addressee || u.act !== 'answer')) {
        flag('ignored-question');
      }
      if (u.act === 'answer' && u.addressee !== null) {
        const asked = u.replyTo !== undefined ? byId.get(u.replyTo) : lastFirstPart;
        if (asked?.speaker !== u.addressee) flag('wrong-addressee');
      }
      if (repetition.verbatim[i] || repetition.nearDuplicate[i]) flag('repetition');

      const said = claims.get(u.speaker) ?? new Map<string, boolean>();
      const lineClaims = claimsOf(u.text);
      if (lineClaims.some((c) => said.has(c.key) && said.get(c.key) !== c.negated)) flag('self-contradiction');
      for (const c of lineClaims) said.set(c.key, c.negated);
      claims.set(u.speaker, said);

      if (offTopic?.(u, content[i]!, new Set([...(content[i - 1] ?? []), ...(content[i - 2] ?? [])]))) flag('off-topic');
    }
    if (u.pair !== 'none') lastFirstPart = u;
  });
  return found;
};
