/**
 * The cue fields a generator test rarely cares about, at their empty values: a scene without
 * context or contents, no roles, no secrets, no question bank, nothing said yet, no sub-topics.
 *
 * ```ts
 * const cue: Cue = { speaker, participants, topic, snippet, act, addressee, obligation, lastMessage, facts, goals, ...quietCue, variant: 1 };
 * ```
 *
 * `moderatorCue`: a whole cue for vendor tests that need one (Hugo opens a meeting, Iris listens).
 */
import type { Cue } from '../../server/engine/requests';

export const quietCue = {
  context: '',
  contents: [],
  role: { form: null, part: 'member' },
  secrets: [],
  bank: { questions: [], points: [] },
  move: null,
  said: [],
  human: null,
  topics: { current: null, next: null, list: [], summary: [] },
} satisfies Partial<Cue>;

export const moderatorCue: Cue = {
  speaker: { id: 'hugo', name: 'Hugo Laurent', shortName: 'Hugo', role: 'moderator', mood: 'neutral', traits: [] },
  participants: [
    { id: 'hugo', name: 'Hugo Laurent', shortName: 'Hugo', kind: 'ai' },
    { id: 'iris', name: 'Iris Chen', shortName: 'Iris', kind: 'human' },
  ],
  topic: 'remote work policy',
  snippet: { id: 'open', goal: 'Hear everyone once', pattern: 'neutral' },
  act: 'moderate',
  addressee: { id: 'iris', shortName: 'Iris' },
  obligation: null,
  lastMessage: null,
  facts: [],
  goals: [],
  ...quietCue,
  variant: 42,
};
