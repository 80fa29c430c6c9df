/**
 * The cue fields a generator test rarely cares about, at their empty values: a scene without
 * context or contents, no roles, no secrets, no question bank, nothing said yet, no sub-topics.
 *
 * ```ts
 * const cue: Cue = { speaker, participants, topic, snippet, act, addressee, obligation, lastMessage, facts, goals, ...quietCue, variant: 1 };
 * ```
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
  openings: [],
  human: null,
  topics: { current: null, next: null, list: [], summary: [] },
} satisfies Partial<Cue>;
