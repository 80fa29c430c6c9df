/**
 * What the engine asks its shell to generate: the purpose, the rendered prompt (`system` +
 * `prompt`, for LLMs) and a structured `cue` (for the scripted generator, which writes from
 * templates instead of reading prompts). The engine owns these types; the generator port and
 * every vendor import them from here, never the reverse.
 */
import type { Intent, ParticipantKind, Pattern } from '../scene/schema';
import type { Act, PairType } from './events';

export type Purpose =
  /** a persona's next utterance */
  | 'utterance'
  /** a simulated human's proposed deviation (drift / extend / question / emotional) */
  | 'proposal'
  /** MPOD §3.1 LLM turn selector: JSON {"next": "<name>"} */
  | 'select'
  /** MMAgents §3.2.1 think(): JSON {"thought", "action": "speak"|"listen", "importance": 0-9} */
  | 'think';

/** Structured facts about the turn, used by the scripted generator and by tests. */
export interface Cue {
  speaker: { id: string; name: string; shortName: string; role?: string; mood: string; traits: string[] };
  participants: { id: string; name: string; shortName: string; kind: ParticipantKind }[];
  topic: string;
  snippet: { id: string; goal: string; pattern: Pattern };
  /** What the engine wants this turn to do. The text, not this plan, decides the logged act. */
  act: Act;
  /** Who the speaker should address (the person to answer, invite, ask). */
  addressee: { id: string; shortName: string } | null;
  /** MMAgents Fig. 4: set when the speaker was designated and must produce the second pair part. */
  obligation: { pair: PairType; from: string; fromShortName: string; text: string } | null;
  lastMessage: { speaker: string; shortName: string; text: string } | null;
  intent?: Intent;
  vibe?: string;
  /** What the speaker knows that bears on this turn: their private knowledge, most relevant first (often written in the third person). */
  facts: string[];
  /** The speaker's goals, as written in the scene (imperatives such as "get Ruth's card"). */
  goals: string[];
  /** Words to aim for (MUCA log-normal length for simulated humans), when set. */
  targetWords?: number;
  /** Candidate names for `select`; bidder for `think`. */
  candidates?: string[];
  /** A number drawn from the session's seeded randomness: the scripted generator's only source of variety. */
  variant: number;
}

export interface GenerateRequest {
  purpose: Purpose;
  /** System instruction: persona, constraints. */
  system: string;
  /** User turn: context, history, task. Human text inside it is delimited as data. */
  prompt: string;
  temperature: number;
  /** The answer must be a JSON object (selector, think). */
  json: boolean;
  maxTokens: number;
  cue: Cue;
}
