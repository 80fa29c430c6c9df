/**
 * The three memory layers of MMAgents §3.1.2, kept in the engine state as plain data:
 * - History: the last k utterances, shared by everyone (Eq. 1);
 * - short-term: each participant's recent thoughts from think() and own utterances (Eq. 2);
 * - long-term: knowledge extracted from utterances, retrieved by similarity to the previous
 *   utterance (Eq. 3-4), the top RECALL_LIMIT. Private knowledge lives in the persona and is only
 *   ever retrieved for its owner.
 */
import { contentWords, similarityTo } from './similarity';

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
/** MMAgents §4.1: long-term memory brings back the top five entries by similarity. */
export const RECALL_LIMIT = 5;
/** A sentence with fewer content words than this ("Yes, exactly.", "Why?") is not knowledge. */
const CONTENT_WORDS = 3;

// Spoken openings a remembered sentence does without: hesitations always, discourse markers when
// a comma sets them off ("Well, ..." but not "Well before dinner ..."), and a leading "so" or "and".
const opening = /^(?:(?:u+m+|u+h+|e+r+m*|h+m+|m+)\b[,.]?\s*|(?:well|honestly|actually|basically|frankly|look|listen|okay|ok|yeah|yes|no|right|oh|anyway|i mean|you know|to be honest)\s*[,.!]\s*|(?:so|and)\b(?!\s+(?:many|much|far|few|long|that)\b)[,]?\s*)+/i;

/**
 * MMAgents Eq. 3, knowledge normalization without an LLM: each sentence of an utterance, its
 * spoken openings trimmed and its spacing collapsed, if it carries content. Questions are
 * knowledge too (who asked what is worth recalling): they stay questions, after the asker's name.
 * A remembered sentence stays a quotation of the utterance, so the prompt can tell it from what
 * the history window still shows.
 */
export const extractFacts = (speakerName: string, text: string): string[] =>
  text
    .split(/(?<=[.!?])\s+/)
    .map((sentence) => sentence.replace(/\s+/g, ' ').trim().replace(opening, ''))
    .filter((sentence) => contentWords(sentence).length >= CONTENT_WORDS)
    .map((sentence) => `${speakerName}: ${sentence}`);

export const remember = (memory: Memory, utterance: Remembered, speakerName: string, window: number): Memory => {
  // Facts grow to hundreds: copied once per utterance, not twice, and not at all when it adds none.
  const extracted = extractFacts(speakerName, utterance.text);
  const facts = extracted.length === 0 ? memory.facts : memory.facts.concat(extracted);
  return {
    history: [...memory.history, utterance].slice(-window),
    thoughts: { ...memory.thoughts, [utterance.speaker]: [...(memory.thoughts[utterance.speaker] ?? []), utterance.text].slice(-SHORT_TERM) },
    facts: facts.length > MAX_FACTS ? facts.slice(-MAX_FACTS) : facts,
  };
};

/**
 * MMAgents Eq. 3 with an LLM: the knowledge the model normalised from an utterance replaces what
 * the rules extracted from it. `knowledge` is the model's answer: one item per line, bullets
 * optional; at most eight items of at most 240 characters are kept. Nothing usable: the rules'
 * facts stay.
 */
export const normalizeKnowledge = (memory: Memory, speakerName: string, text: string, knowledge: string): Memory => {
  const items = knowledge
    .split('\n')
    .map((line) => line.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').replace(/\s+/g, ' ').trim())
    .filter((line) => line.length >= 8 && line.length <= 240 && !/^(none|nothing|n\/a)\.?$/i.test(line))
    .slice(0, 8);
  if (items.length === 0) return memory;
  const ruled = new Set(extractFacts(speakerName, text));
  const kept = memory.facts.filter((f) => !ruled.has(f));
  return { ...memory, facts: [...kept, ...items.map((item) => `${speakerName}: ${item}`)].slice(-MAX_FACTS) };
};

export const rememberThought = (memory: Memory, participant: string, thought: string): Memory => ({
  ...memory,
  thoughts: { ...memory.thoughts, [participant]: [...(memory.thoughts[participant] ?? []), thought].slice(-SHORT_TERM) },
});

/**
 * MMAgents Eq. 4: the top `limit` items by similarity to `query`, most similar first, the more
 * recent first among equals. Items no closer to the query than unrelated talk (similarity 0) are
 * left out.
 */
export const retrieve = (items: readonly string[], query: string, limit = RECALL_LIMIT): string[] => {
  if (items.length === 0) return [];
  const to = similarityTo(query);
  // Most remembered facts have nothing to do with the query: only those that score are kept to be sorted.
  const scored: { item: string; index: number; score: number }[] = [];
  items.forEach((item, index) => {
    const score = to(item);
    if (score > 0) scored.push({ item, index, score });
  });
  return scored
    .sort((a, b) => b.score - a.score || b.index - a.index)
    .slice(0, limit)
    .map((x) => x.item);
};
