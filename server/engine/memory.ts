/**
 * The three memory layers of MMAgents §3.1.2, kept in the engine state as plain data:
 * - History: the last k utterances, shared by everyone (Eq. 1);
 * - short-term: each participant's recent thoughts from think() and own utterances (Eq. 2);
 * - long-term: knowledge extracted from utterances, retrieved by cosine similarity to the
 *   previous utterance (Eq. 3-4). Private knowledge lives in the persona and is only ever
 *   retrieved for its owner.
 */
import { cosine, vectorize } from './similarity';

export interface Remembered {
  id: string;
  speaker: string;
  text: string;
}

export interface Memory {
  history: Remembered[];
  thoughts: Record<string, string[]>;
  /** Long-term knowledge heard in the room: "<speaker name>: <sentence>". */
  facts: string[];
}

export const emptyMemory = (): Memory => ({ history: [], thoughts: {}, facts: [] });

const SHORT_TERM = 5;
const MAX_FACTS = 400;

/** Knowledge normalization without an LLM: keep the sentences that carry content. */
export const extractFacts = (speakerName: string, text: string): string[] =>
  text
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => !s.endsWith('?') && vectorize(s).size >= 4)
    .map((s) => `${speakerName}: ${s}`);

export const remember = (memory: Memory, utterance: Remembered, speakerName: string, window: number): Memory => ({
  history: [...memory.history, utterance].slice(-window),
  thoughts: { ...memory.thoughts, [utterance.speaker]: [...(memory.thoughts[utterance.speaker] ?? []), utterance.text].slice(-SHORT_TERM) },
  facts: [...memory.facts, ...extractFacts(speakerName, utterance.text)].slice(-MAX_FACTS),
});

export const rememberThought = (memory: Memory, participant: string, thought: string): Memory => ({
  ...memory,
  thoughts: { ...memory.thoughts, [participant]: [...(memory.thoughts[participant] ?? []), thought].slice(-SHORT_TERM) },
});

/** MMAgents Eq. 4: the top `limit` items by cosine similarity to `query`, most similar first. */
export const retrieve = (items: readonly string[], query: string, limit: number): string[] => {
  if (items.length === 0) return [];
  const q = vectorize(query);
  return items
    .map((item, index) => ({ item, index, score: cosine(q, vectorize(item)) }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || b.index - a.index)
    .slice(0, limit)
    .map((x) => x.item);
};
