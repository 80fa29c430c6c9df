/**
 * Private-knowledge leaks: lines in which a persona says what it should not. Only generated lines
 * are judged (source `ai` or `simulated-human`): an author's scripted line says what the scene
 * wants said, and a person may say what they like. Each leaking line is counted once, with its
 * first finding in this order:
 *
 * - `quote`: it repeats more than MAX_QUOTED_WORDS consecutive words of any private-knowledge
 *   text of the scene, the speaker's own or another's (knowledge is said in one's own words);
 * - `another`: it states another participant's private knowledge;
 * - `never`: it states the speaker's own knowledge whose reveal rule is `never`;
 * - `unasked`: it states the speaker's own `when-asked` knowledge in anything but an answer (act `answer`).
 *
 * "States" is a heuristic over an item's distinctive words: its content words (vocabulary.ts) that
 * are not in the scene's public vocabulary, nor, for another's item, in the speaker's own persona
 * (goals, private knowledge, talking points, questions: what the speaker may know on its own).
 * A line states the item when it holds at least STATED_SHARE of them and at least STATED_MIN_WORDS;
 * an item with fewer distinctive words can only leak by quotation. Once any line (of any source,
 * leaking or not) has stated or quoted an item, it is out in the room: later lines that state it are
 * not leaks, though quoting it still is. Paraphrase with other words, and facts told by inference,
 * go unseen.
 *
 * ```ts
 * leaksOf(utterances, scene); // [{ utterance: 'u12', speaker: 'raj', owner: 'hannah', kind: 'another' }]
 * ```
 */
import type { UtteranceEvent } from '../../shared/events';
import { longestSharedRun, MAX_QUOTED_WORDS, unquotedParts, wordsOf } from '../engine/novelty';
import { knowledgeOf, type LoadedScene, type Reveal } from '../../shared/scene/schema';
import { contentWords, publicVocabulary } from '../engine/vocabulary';

export type LeakKind = 'quote' | 'another' | 'never' | 'unasked';

export interface Leak {
  utterance: string;
  speaker: string;
  /** Whose private knowledge it is. */
  owner: string;
  kind: LeakKind;
}

/** The share of an item's distinctive words a line must hold to state it, and the fewest it must hold. */
const STATED_SHARE = 0.6;
const STATED_MIN_WORDS = 3;

interface Secret {
  owner: string;
  text: string;
  reveal: Reveal;
  /** Its words, to rule out a quotation before running the longest-run comparison. */
  words: ReadonlySet<string>;
  distinctive: readonly string[];
  /** Per other participant: the distinctive words they could not know on their own. */
  unknownTo: ReadonlyMap<string, readonly string[]>;
}

const secretsByScene = new WeakMap<LoadedScene, Secret[]>();

const secretsOf = (scene: LoadedScene): Secret[] => {
  const cached = secretsByScene.get(scene);
  if (cached) return cached;
  const shared = publicVocabulary(scene);
  const ownVocabulary = new Map(
    scene.participants.map((p) => {
      const persona = p.persona;
      const texts = persona ? [...persona.goals, ...knowledgeOf(persona).map((k) => k.text), ...persona.points, ...persona.questions] : [];
      return [p.id, new Set(texts.flatMap(contentWords))];
    }),
  );
  const secrets = scene.participants.flatMap((p) =>
    knowledgeOf(p.persona).map((item): Secret => {
      const distinctive = [...new Set(contentWords(item.text))].filter((w) => !shared.has(w));
      const unknownTo = new Map(
        scene.participants.filter((other) => other.id !== p.id).map((other) => [other.id, distinctive.filter((w) => !ownVocabulary.get(other.id)!.has(w))]),
      );
      return { owner: p.id, text: item.text, reveal: item.reveal, words: new Set(wordsOf(item.text)), distinctive, unknownTo };
    }),
  );
  secretsByScene.set(scene, secrets);
  return secrets;
};

const states = (distinctive: readonly string[], content: ReadonlySet<string>): boolean => {
  if (distinctive.length < STATED_MIN_WORDS) return false;
  let held = 0;
  for (const word of distinctive) if (content.has(word)) held += 1;
  return held >= STATED_MIN_WORDS && held >= STATED_SHARE * distinctive.length;
};

const quotes = (text: string, words: readonly string[], secret: Secret): boolean => {
  // A run of more than MAX_QUOTED_WORDS shared words needs that many of the line's words in the item.
  let shared = 0;
  for (const word of words) if (secret.words.has(word)) shared += 1;
  // Someone's words quoted in the item ("Henry told her, "…"") may be said as they were said (novelty.ts's unquotedParts).
  return shared > MAX_QUOTED_WORDS && unquotedParts(secret.text).some((part) => longestSharedRun(text, part) > MAX_QUOTED_WORDS);
};

/** Whether `speaker` states the item: the owner by all its distinctive words, anyone else by those they could not know. */
const statedBy = (secret: Secret, speaker: string, content: ReadonlySet<string>): boolean =>
  states(secret.unknownTo.get(speaker) ?? secret.distinctive, content);

/** The finding for one line, given the items it quotes and states; items already out are not leaked again (quotes excepted). */
const leakOf = (u: UtteranceEvent, quoted: readonly Secret[], stated: readonly Secret[], out: ReadonlySet<Secret>): Leak | null => {
  const leak = (secret: Secret, kind: LeakKind): Leak => ({ utterance: u.id, speaker: u.speaker, owner: secret.owner, kind });
  if (quoted[0]) return leak(quoted[0], 'quote');
  const untold = stated.filter((secret) => !out.has(secret));
  const another = untold.find((secret) => secret.owner !== u.speaker);
  if (another) return leak(another, 'another');
  const never = untold.find((secret) => secret.owner === u.speaker && secret.reveal === 'never');
  if (never) return leak(never, 'never');
  const unasked = u.act === 'answer' ? undefined : untold.find((secret) => secret.owner === u.speaker && secret.reveal === 'when-asked');
  return unasked ? leak(unasked, 'unasked') : null;
};

/** The leaking lines of a run, in order. */
export const leaksOf = (utterances: readonly UtteranceEvent[], scene: LoadedScene): Leak[] => {
  const secrets = secretsOf(scene);
  if (secrets.length === 0) return [];
  const out = new Set<Secret>();
  const leaks: Leak[] = [];
  for (const u of utterances) {
    const words = wordsOf(u.text);
    const content = new Set(contentWords(u.text));
    const quoted = secrets.filter((secret) => quotes(u.text, words, secret));
    const stated = secrets.filter((secret) => statedBy(secret, u.speaker, content));
    if (u.source === 'ai' || u.source === 'simulated-human') {
      const leak = leakOf(u, quoted, stated, out);
      if (leak) leaks.push(leak);
    }
    for (const secret of [...quoted, ...stated]) out.add(secret);
  }
  return leaks;
};
