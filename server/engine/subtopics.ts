/**
 * MUCA §3.2.2 without an LLM: the meeting's sub-topics, their status, and an accumulative summary.
 *
 * - Sub-topics come from the scene (each snippet's agenda or else its goal, each persona's talking points)
 *   and from what is said (a question that touches none of them raises a new one).
 * - An utterance touches a sub-topic when they share content words (engine/vocabulary.ts). Who has
 *   touched it since the start is N_ed; who touched it within the short window N_sw is N_ing.
 * - Status: `not-yet` until someone touches it, `discussing` then, `well-discussed` once at least
 *   half the group (and two people) have spoken to it three times in all. Well discussed stays so.
 * - The accumulative summary keeps, per sub-topic, each participant's latest sentence on it: the
 *   whole session, not only the last few turns.
 *
 * The facilitator reads it for sub-topic transition (N_ed, N_ing) and conflict resolution (N_well
 * has not grown for 9 · Np turns); the scripted generator and the prompts read the statuses and
 * the summary. Plain data, so the session state stays JSON.
 */
import type { LoadedScene } from '../../shared/scene/schema';
import { memoize } from './memo';
import { contentWords } from './vocabulary';

export type TopicStatus = 'not-yet' | 'discussing' | 'well-discussed';

export interface Subtopic {
  id: string;
  text: string;
  /** The snippet whose agenda it is; null for talking points and raised questions, which belong to the whole meeting. */
  snippet: string | null;
  origin: 'goal' | 'agenda' | 'point' | 'raised';
  status: TopicStatus;
  /** Content words, stemmed: what an utterance must share to touch it. */
  words: string[];
  /** Turn at which each participant last touched it (N_ed: the keys; N_ing: those within the window). */
  by: Record<string, number>;
  touches: number;
  /** Accumulative summary: each participant's latest sentence on it. */
  said: Record<string, string>;
}

export interface Topics {
  items: Subtopic[];
  /** The sub-topic being discussed now: the last one touched, or the one the facilitator moved to. */
  current: string | null;
  /** N_well, and the turn at which it last grew (the start, at first). */
  well: number;
  wellSince: number;
}

/** Sub-topics raised from what is said, at most: a long session does not grow its list forever. */
const MAX_RAISED = 12;
/** Words an utterance shares with a sub-topic to touch it (all of them when it has fewer). */
const TOUCH_WORDS = 2;
const SUMMARY_WORDS = 18;

/** A name said to someone at the start or the end of a line: "Ben, …", "…, Devon?". */
const vocativeFirst = /^[\p{Lu}][\p{L}'’.-]*(\s[\p{Lu}][\p{L}'’.-]*)?,\s*/u;
const vocativeLast = /,\s*[\p{Lu}][\p{L}'’.-]*(\s[\p{Lu}][\p{L}'’.-]*)?\s*\?$/u;
/** What a question inviting someone to speak is made of ("what's your view?", "anything to add?"): no subject of its own. */
const invitationWords: ReadonlySet<string> = new Set(['quiet', 'add', 'view', 'sit', 'think', 'thought', 'feel', 'hear', 'lov', 'mind', 'opinion', 'tak', 'miss', 'say', 'bit', 'floor']);

const topicWords = (text: string): string[] => [...new Set(contentWords(text))];

const item = (id: string, text: string, snippet: string | null, origin: Subtopic['origin']): Subtopic => ({
  id,
  text: text.trim(),
  snippet,
  origin,
  status: 'not-yet',
  words: topicWords(text),
  by: {},
  touches: 0,
  said: {},
});

/**
 * The scene's sub-topics, before anyone speaks: each snippet's agenda (its goal when it has none),
 * then the personas' talking points (merged when they overlap one already listed).
 */
export const topicsOf = (scene: LoadedScene): Topics => {
  const items: Subtopic[] = [];
  for (const snippet of scene.snippets) {
    snippet.subtopics.forEach((text, i) => items.push(item(`${snippet.id}:${i + 1}`, text, snippet.id, 'agenda')));
    if (snippet.subtopics.length === 0 && snippet.goal.trim()) items.push(item(`${snippet.id}:goal`, snippet.goal, snippet.id, 'goal'));
  }
  for (const p of scene.participants) {
    if (p.kind !== 'ai' || !p.persona) continue;
    p.persona.points.forEach((text, i) => {
      const candidate = item(`${p.id}:point-${i + 1}`, text, null, 'point');
      if (candidate.words.length >= TOUCH_WORDS && !items.some((t) => overlap(t.words, candidate.words) >= Math.min(3, candidate.words.length))) items.push(candidate);
    });
  }
  return { items: items.filter((t) => t.words.length > 0), current: items[0]?.id ?? null, well: 0, wellSince: 0 };
};

const overlap = (a: readonly string[], b: readonly string[]): number => {
  const set = new Set(b);
  let n = 0;
  for (const w of a) if (set.has(w)) n++;
  return n;
};

/** How many of a sub-topic's words an utterance shares, when enough to touch it (two, and 40% of a long one); else 0. */
const touches = (topic: Subtopic, words: ReadonlySet<string>): number => {
  let shared = 0;
  for (const w of topic.words) if (words.has(w)) shared++;
  const needed = Math.max(Math.min(TOUCH_WORDS, topic.words.length), Math.ceil(topic.words.length * 0.4));
  return shared >= needed ? shared : 0;
};

/** An utterance's sentences with their content words: read once, whatever number of sub-topics it touches. */
interface Sentence {
  text: string;
  words: ReadonlySet<string>;
}

const readSentences = (text: string): Sentence[] =>
  text
    .split(/(?<=[.!?])\s+/)
    .filter((s) => s.trim())
    .map((s) => ({ text: s, words: new Set(contentWords(s)) }));

/** The sentence of `text` (`sentences`: its `readSentences`) that shares most with the sub-topic, cut to a summary's length. */
const gist = (text: string, sentences: readonly Sentence[], topic: Subtopic): string => {
  let best = sentences[0]?.text ?? text;
  let most = -1;
  for (const s of sentences) {
    const n = touches(topic, s.words);
    if (n > most) [best, most] = [s.text, n];
  }
  const words = best.trim().replace(/[—–-]+$/, '').split(/\s+/);
  return words.length > SUMMARY_WORDS ? `${words.slice(0, SUMMARY_WORDS).join(' ')}…` : words.join(' ');
};

/**
 * After an utterance: the sub-topics it touches gain a speaker and a summary line; the most
 * touched becomes current; statuses and N_well are updated. `members` is the group's size (N_p).
 */
export const touchTopics = (topics: Topics, u: { speaker: string; text: string; turn: number; snippet: string; members: number }): Topics => {
  const words = new Set(contentWords(u.text));
  if (words.size === 0) return topics;
  const well = Math.max(2, Math.ceil(u.members / 2));
  let sentences: Sentence[] | undefined;
  const gistFor = (topic: Subtopic) => gist(u.text, (sentences ??= readSentences(u.text)), topic);
  let current = topics.current;
  let most = 0;
  let touched = false;
  const items = topics.items.map((t) => {
    const shared = touches(t, words);
    if (!shared) return t;
    touched = true;
    // The snippet's own sub-topics win a tie: the meeting is where its agenda says it is.
    const score = shared + (t.snippet === u.snippet ? 0.5 : 0);
    if (score > most) [most, current] = [score, t.id];
    const by = { ...t.by, [u.speaker]: u.turn };
    const count = t.touches + 1;
    const status: TopicStatus = t.status === 'well-discussed' || (Object.keys(by).length >= well && count >= 3) ? 'well-discussed' : 'discussing';
    return { ...t, by, touches: count, status, said: { ...t.said, [u.speaker]: gistFor(t) } };
  });
  // A question about something on no one's list raises it (MUCA's list grows with the talk).
  const raised = topics.items.filter((t) => t.origin === 'raised').length;
  // "Ben, what about the auditors?" raises the auditors, not Ben; "Riley, you have been quiet; anything you would add?" raises nothing.
  const asked = u.text.trim().replace(vocativeFirst, '').replace(vocativeLast, '?');
  if (!touched && asked.endsWith('?') && raised < MAX_RAISED && contentWords(asked).filter((w) => !invitationWords.has(w)).length >= 2) {
    const fresh = item(`raised-${u.turn}`, asked, null, 'raised');
    items.push({ ...fresh, status: 'discussing', by: { [u.speaker]: u.turn }, touches: 1, said: { [u.speaker]: gistFor(fresh) } });
    current = fresh.id;
  }
  const nWell = items.filter((t) => t.status === 'well-discussed').length;
  return { items, current, well: nWell, wellSince: nWell > topics.well ? u.turn : topics.wellSince };
};

/** The facilitator moved the meeting on to `id`. */
export const moveTo = (topics: Topics, id: string): Topics => ({ ...topics, current: id });

export const currentTopic = (topics: Topics): Subtopic | null => topics.items.find((t) => t.id === topics.current) ?? null;

/** N_ed and N_ing of a sub-topic (MUCA §3.2.2): who has discussed it, and who within the last `window` turns. */
export const discussion = (topic: Subtopic, turn: number, window: number): { ned: number; ning: number } => {
  const turns = Object.values(topic.by);
  return { ned: turns.length, ning: turns.filter((t) => turn - t < window).length };
};

/**
 * The next sub-topic to move to: one on this snippet's agenda not yet discussed. Never someone's
 * talking point: that is theirs to raise, and naming it would say what they meant to say.
 */
export const nextTopic = (topics: Topics, snippet: string): Subtopic | null =>
  topics.items.find((t) => t.snippet === snippet && t.status === 'not-yet' && t.id !== topics.current) ?? null;

/** What everyone may see: the agenda, and what has been said aloud; a talking point only its owner sees before it is raised. */
export const visibleTopics = (topics: Topics, viewer: string): Subtopic[] =>
  topics.items.filter((t) => t.origin !== 'point' || t.status !== 'not-yet' || t.id.startsWith(`${viewer}:`));

export interface SummaryItem {
  topic: string;
  /** Each participant's latest sentence on it, by name. */
  points: { who: string; text: string }[];
}

/**
 * The accumulative summary, most recently discussed sub-topics first. `names` maps participant
 * ids to the names to show.
 */
export const summaryOf = (topics: Topics, names: (id: string) => string, limit = 6): SummaryItem[] =>
  topics.items
    .filter((t) => Object.keys(t.said).length > 0)
    .map((t) => ({ t, last: Math.max(...Object.values(t.by)) }))
    .sort((a, b) => b.last - a.last)
    .slice(0, limit)
    .map(({ t }) => ({ topic: label(t), points: Object.entries(t.said).map(([id, text]) => ({ who: names(id), text })) }));

/** A short label for a sub-topic: its first clause, at most eight words. */
export const label = (topic: Subtopic): string => labelOf(topic.text);

/** Ten words at most, cut after a word that can end a phrase ("…were right", never "…were right but"), without the speaker's "I'm hearing that". */
const labelOf = memoize((text: string): string => {
  const clause = text.split(/[.;:?!]/)[0]!.trim().replace(/^(I'm hearing|I hear|I think|I believe|I feel|it seems|we know) that\s+/i, '');
  const words = clause.split(/\s+/);
  if (words.length <= 10) return clause;
  const kept = words.slice(0, 10);
  while (kept.length > 4 && dangling.test(kept.at(-1)!)) kept.pop();
  return `${kept.join(' ')}…`;
});
const dangling = /^(a|an|the|and|but|or|nor|so|of|to|in|on|at|for|with|without|from|by|that|which|who|whose|than|as|is|are|was|were|be|been|has|have|had|their|our|my|your|his|her|its|this|these|those|not|no|very|more|most)$/i;
