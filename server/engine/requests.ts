/**
 * What the engine asks its shell to generate: the purpose, the rendered prompt (`system` +
 * `prompt`, for LLMs) and a structured `cue` (for the scripted generator, which writes from
 * templates instead of reading prompts). The engine owns these types; the generator port and
 * every vendor import them from here, never the reverse.
 */
import type { ContentKind, Intent, ParticipantKind, Pattern, StructureForm } from '../../shared/scene/schema';
import type { Act, PairType } from '../../shared/events';
import type { DialogueView } from './dialogue';
import type { SummaryItem, TopicStatus } from './subtopics';

export type Purpose =
  /** a persona's next utterance */
  | 'utterance'
  /** a simulated human's proposed deviation (drift / extend / question / emotional) */
  | 'proposal'
  /** MPOD §3.1 LLM turn selector: JSON {"next": "<name>"} */
  | 'select'
  /** MMAgents §3.2.1 think(): JSON {"thought", "action": "speak"|"listen", "importance": 0-9} */
  | 'think'
  /** MMAgents Eq. 3: an utterance's important facts, normalised as bullet points, for long-term memory */
  | 'normalize';

/** The speaker's part in the scene's structure (schema `structure`, a snippet's `roles`). */
export type RolePart = 'asker' | 'answerer' | 'chair' | 'member';

/**
 * How the turn moves the conversation, beyond its act: `follow-up` the asker comes back on the
 * answer to their own question (pick up the answerer's words); `close` the session is about to end;
 * `build-on` a party speaking as one: add to what a fellow member just said.
 */
export type Move = 'follow-up' | 'close' | 'build-on';

/** Structured facts about the turn, used by the scripted generator and by tests. */
export interface Cue {
  speaker: { id: string; name: string; shortName: string; role?: string; backstory?: string; mood: string; traits: string[] };
  participants: { id: string; name: string; shortName: string; kind: ParticipantKind; role?: string }[];
  topic: string;
  /** The situation, as told to every persona. */
  context: string;
  /** The scene's contents this speaker can see: the public ones and their own party's. */
  contents: { kind: ContentKind; title: string; summary: string; sections: string[] }[];
  /** Who asks whom: the meeting's form and the speaker's part in it (null form: the scene declares none). */
  role: { form: StructureForm | null; part: RolePart };
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
  /**
   * The private knowledge the speaker may say on this turn (its `reveal` rule allows it: freely, or
   * when-asked and this turn answers a question), most relevant first, often in the third person.
   * Said in the speaker's own words: never more than 8 consecutive words of it.
   */
  facts: string[];
  /** Private knowledge that must not be said or hinted at on this turn. */
  secrets: string[];
  /** The speaker's goals, as written in the scene (imperatives such as "get Ruth's card"). */
  goals: string[];
  /** The scene's authored question bank and talking points for this speaker (may be empty). */
  bank: { questions: string[]; points: string[] };
  move: Move | null;
  /** The speaker's own earlier lines this session: none may come back verbatim or nearly so. */
  said: string[];
  /** The last human utterance (a trainee's, or a simulated human's), whose key phrases a follow-up picks up. */
  human: { id: string; shortName: string; text: string } | null;
  /**
   * MUCA §3.2.2: the meeting's sub-topics as this speaker may see them (the agenda, and what has
   * been said aloud) with their status, the one being discussed, the one a transition moves to, and
   * the accumulative summary of the whole session (per sub-topic, each person's latest sentence on it).
   */
  topics: { current: string | null; next: string | null; list: { text: string; status: TopicStatus }[]; summary: SummaryItem[] };
  /**
   * The dialogue state as the speaker sees it (dialogue.ts): the task of this turn (answer, repeat,
   * clarify, probe, take up the human's line, or say something of one's own), the questions they
   * asked and what became of them, and the questions they already answered. Absent in cues built
   * by hand (tests).
   */
  dialogue?: DialogueView;
  /** The instructor's direction for this turn ("ask Alex about the salary"), which every generator follows. */
  direction?: string;
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
