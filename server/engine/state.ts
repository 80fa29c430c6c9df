/**
 * The engine's state and the working context of one step: the types every engine module shares,
 * the initial state, and the small operations that write events (snippets, hands, the end).
 */
import type { Exchange } from './dialogue';
import type { FacilitatorAct, Intent, LoadedScene, Snippet } from '../../shared/scene/schema';
import type { GenerateRequest, Move } from './requests';
import type { Act, EventDraft, EventOf, PairType, Pace, SessionEvent, SessionPhase } from '../../shared/events';
import { emptyFacilitator, type FacilitatorState, type TurnRecord } from './facilitator';
import { topicsOf, type Topics } from './subtopics';
import { emptyMemory, type Memory } from './memory';
import type { Bid } from './policies';
import type { SpokenLine } from './novelty';
import { rngFrom, type Rng } from '../../shared/rng';
import { rosterOf, type Roster } from './roster';

export type FloorReason = Extract<SessionEvent, { type: 'floor' }>['reason'];

/** A contribution a human-control agent could make, with its intent (DialogLab §5.2.2). */
export interface Candidate {
  intent: Intent;
  text: string;
}

/** What the engine wants the speaker's turn to do. */
export interface Plan {
  speaker: string;
  act: Act;
  addressee: string | null;
  reason: FloorReason;
  obligation: { utterance: string; from: string; pair: PairType; text: string } | null;
  vibe?: string;
  intent?: Intent;
  impromptu?: boolean;
  /** The instructor's direction for this turn. */
  direction?: string;
  /** How the turn moves the conversation: a follow-up on the answer to one's own question, or closing. */
  move?: Move;
  /** Set when the facilitator took this turn for one of its acts. */
  facilitatorAct?: Exclude<FacilitatorAct, 'direct-reply'>;
  /** Sub-topic transition or conflict resolution: the sub-topic to move on to (subtopics.ts); none moves to the next snippet. */
  topic?: string;
  bids?: Bid[];
}

export interface LastUtterance {
  id: string;
  speaker: string;
  text: string;
  addressee: string | null;
  pair: PairType;
  interrupted: boolean;
  /** Whose first pair part this answered, if it answered one. */
  replyTo: string | null;
  /** Spoken by the hand the moderator approved (moderated mode). */
  approved: boolean;
}

export type Pending =
  | { id: string; kind: 'utterance'; plan: Plan; attempt: number; rejected: { text: string; similarity: number; severity: number; partial?: boolean }[] }
  /** A proposal, or for a human-control agent the next of its candidates: `drafted` so far, `wanted` intents still to draft. */
  | { id: string; kind: 'proposal'; participant: string; intent: Intent; drafted?: Candidate[]; wanted?: Intent[] }
  | { id: string; kind: 'select'; attempt: number; candidates: string[] }
  | { id: string; kind: 'think'; bidders: string[] };

export interface SessionState {
  scene: LoadedScene;
  seed: number;
  /** How the session runs, as its shell said (logged on session-start); absent for a bare engine. */
  pace?: Pace;
  rng: number;
  /** Human participants who are really here; absent humans are simulated. */
  present: string[];
  maxTurns: number;
  /** The cap was the caller's (an experiment's window of T turns): the session stops at it, without winding down. */
  exactCap?: boolean;
  phase: SessionPhase;
  paused: boolean;
  seq: number;
  /** Conversation time in ms. */
  t: number;
  turns: number;
  snippet: number;
  snippetTurns: number;
  line: number;
  last: LastUtterance | null;
  memory: Memory;
  /** Each participant's own recent utterances, for the anti-repetition constraint. */
  said: Record<string, string[]>;
  /** Every line of the session, for the screen against verbatim repeats, near-duplicates and reused openings (novelty.ts). */
  spoken: SpokenLine[];
  log: TurnRecord[];
  rrCursor: string | null;
  /** `equal`: who has yet to speak in this round, in the round's random order. */
  round: string[];
  /** A party in "all" mode speaking collaboratively: the members still to build on its first speaker's point. */
  chorus: { party: string; remaining: string[] } | null;
  partyCursor: Record<string, string | null>;
  hands: string[];
  approved: string | null;
  interruption: { by: string; vibe: string } | null;
  impromptu: { participant: string; intent: Intent; remaining: number } | null;
  proposal: { id: string; participant: string; intent: Intent; text: string; candidates: Candidate[] } | null;
  /** The derail roll for the coming turn is spent: a proposal came to nothing, or hands went up instead. */
  skipDerail: boolean;
  facilitator: FacilitatorState;
  /** The meeting's sub-topics, their status and the accumulative summary (MUCA §3.2.2). */
  topics: Topics;
  pending: Pending | null;
  /** Listeners thinking while a designated speaker answers (MMAgents: everyone thinks every turn); their thoughts only fill memory. */
  refreshing: string | null;
  /** The slide each slides content shows now (from 0). */
  slides: Record<string, number>;
  /** Joined humans whose connection dropped and whose seat is held for them. */
  away: string[];
  /** Seats the instructor took over: the room waits for the instructor's line when one has the floor. */
  controlled: string[];
  /** Whether each utterance's knowledge is normalised by the generator (an LLM), not only by rules. */
  normalize: boolean;
  /** Normalisations asked for and not yet answered: request id → the utterance. */
  normalizing: Record<string, { speaker: string; text: string }>;
  /** The present human the room is waiting for, with the plan they were given the floor under. */
  awaiting: Plan | null;
  counter: number;
  /** The instructor's direction for the next AI turn, until it is used. */
  direction: string | null;
  /** Replies, and humans' lines, that arrived while the session was paused; applied on resume. */
  held: EngineInput[];
  /**
   * A present human who let the floor pass (their turn was skipped, or an open floor went by in
   * silence): the policy gives the floor to someone else until the next line is said.
   */
  passed?: string | null;
  /** Every question of the session and what became of it (dialogue.ts). */
  exchanges: Exchange[];
  /** The session's budget is spent and it is winding down (ending.ts): why, and the answers and goodbyes given since. */
  ending: Ending | null;
  /** The last closing line accepted (a goodbye): the session may end once it is the last thing said. */
  closing: string | null;
}

export type EndReason = 'snippets-done' | 'max-turns' | 'ended';

/** A session winding down: it ends for `reason` once open questions are answered (at most a few) and the host has closed. */
export interface Ending {
  reason: Exclude<EndReason, 'ended'>;
  answers: number;
  closes: number;
}

export type EngineInput =
  /** `notice`: how the session started (who is stood in for), said before its first line. */
  | { type: 'start'; notice?: { code: string; message: string } }
  /**
   * The text answering request `request` (utterance, proposal or selector). Empty when generation
   * failed outright. `durationMs`: the length of its synthesized speech, when it was voiced.
   */
  | {
      type: 'generated';
      request: string;
      text: string;
      durationMs?: number;
      /** Stopped at its first clause by the screen, unseen and unheard: only a beginning. */
      partial?: boolean;
      /** Already shown or heard in part: kept, never withdrawn for repetition. */
      committed?: boolean;
      /** Realtime: when its speech began to be heard, in session ms (its first audio, before the text was complete). */
      heardFrom?: number;
    }
  /** think() answers for request `request`. */
  | { type: 'thoughts'; request: string; answers: { participant: string; text: string }[] }
  /**
   * A real human's utterance, typed or transcribed; it may barge in at any time. `cut` says whom
   * the human cut off: the reply to request `request` of which `partial` had been heard (not yet
   * logged), or the logged utterance `utterance` whose speech stopped after `atWord` words.
   * `atMs` is where that speech stopped, in ms from its start. `spoken`: when a transcribed
   * utterance was said, in session ms. `sentAt`: when a typed line reached the room, in session ms.
   * `before`: the logged line the room had not yet begun to hear when this was said (an authored
   * line queued behind speech, realtime): this line cannot answer it.
   */
  | {
      type: 'say';
      participant: string;
      text: string;
      durationMs?: number;
      spoken?: { start: number; end: number };
      sentAt?: number;
      before?: string;
      cut?: Cut;
    }
  /** An instructor's direction for the next AI turn (observers only; never shown to participants). */
  | { type: 'inject'; text: string }
  /** `choice`: which candidate an approval takes (the first when unset). */
  | { type: 'approval'; proposal: string; decision: 'approve' | 'edit' | 'dismiss' | 'regenerate'; text?: string; intent?: Intent; choice?: number }
  | { type: 'raise-hand'; participant: string }
  | { type: 'lower-hand'; participant: string }
  /** `held`: a joined human left but keeps their seat: still counted present (nobody stands in), logged as gone. */
  | { type: 'presence'; participant: string; present: boolean; held?: boolean }
  | { type: 'notice'; level: EventOf<'system'>['level']; code: string; message: string; participant?: string }
  | { type: 'clock'; t: number }
  /** The instructor takes over a seat (`on`), or hands it back to whoever spoke for it before. */
  | { type: 'take-over'; participant: string; on: boolean }
  /** Shows slide `index` of slides `content` (by a presenter, or the instructor: null). */
  | { type: 'slide'; content: string; index: number; by: string | null }
  /** A human's head points at `at` (a participant) or at nobody, in VR. */
  | { type: 'gaze'; participant: string; at: string | null }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'skip-turn' }
  /** An open floor (a policy turn, nobody's question) went by without `participant` taking it: the conversation goes on. */
  | { type: 'silence'; participant: string }
  /** `by`: who ended it, when a person did (everyone is told). */
  | { type: 'end'; by?: EndedBy };

export type EndedBy = NonNullable<EventOf<'end'>['by']>;

/** What a human's barge-in cut off (see the `say` input). */
export type Cut = { request: string; partial: string; atMs?: number; heardFrom?: number } | { utterance: string; atWord: number; atMs: number };

export type EngineRequest =
  | { kind: 'generate'; id: string; request: GenerateRequest }
  | { kind: 'think'; id: string; participants: { participant: string; request: GenerateRequest }[] };

export interface StepResult {
  state: SessionState;
  events: SessionEvent[];
  requests: EngineRequest[];
}

export const createSession = (
  scene: LoadedScene,
  options: { seed: number; pace?: Pace; present?: string[]; maxTurns?: number; normalizeKnowledge?: boolean },
): SessionState => ({
  scene,
  seed: options.seed,
  ...(options.pace ? { pace: options.pace } : {}),
  rng: options.seed >>> 0,
  present: options.present ?? [],
  maxTurns: options.maxTurns ?? scene.turnTaking.maxTurns,
  ...(options.maxTurns ? { exactCap: true } : {}),
  phase: 'new',
  paused: false,
  seq: 0,
  t: 0,
  turns: 0,
  snippet: 0,
  snippetTurns: 0,
  line: 0,
  last: null,
  memory: emptyMemory(),
  said: {},
  spoken: [],
  log: [],
  rrCursor: null,
  round: [],
  chorus: null,
  partyCursor: {},
  hands: [],
  approved: null,
  interruption: null,
  impromptu: null,
  proposal: null,
  skipDerail: false,
  facilitator: emptyFacilitator(),
  topics: topicsOf(scene),
  pending: null,
  refreshing: null,
  away: [],
  controlled: [],
  slides: {},
  normalize: options.normalizeKnowledge ?? false,
  normalizing: {},
  awaiting: null,
  exchanges: [],
  ending: null,
  closing: null,
  counter: 0,
  direction: null,
  held: [],
});

/** The mutable working copy of one step. Only `step` and `selectNextSpeaker` create one, so both stay pure. */
export interface Ctx {
  state: SessionState;
  roster: Roster;
  rng: Rng;
  events: SessionEvent[];
  requests: EngineRequest[];
}

/** A working copy of `state` for one step (or one look-ahead). */
export const contextOf = (state: SessionState): Ctx => ({ state: { ...state }, roster: rosterOf(state.scene), rng: rngFrom(state.rng), events: [], requests: [] });

export const currentSnippet = (state: SessionState): Snippet => state.scene.snippets[state.snippet]!;

export const nextId = (c: Ctx, prefix: string): string => `${prefix}${++c.state.counter}`;

export const emit = (c: Ctx, draft: EventDraft, at?: number): void => {
  const { state } = c;
  state.seq += 1;
  c.events.push({ ...draft, seq: state.seq, t: at ?? state.t } as SessionEvent);
};

export const setHand = (c: Ctx, participant: string, raised: boolean): void => {
  const { state } = c;
  if (raised === state.hands.includes(participant)) return;
  state.hands = raised ? [...state.hands, participant] : state.hands.filter((h) => h !== participant);
  emit(c, { type: 'hand-raise', participant, action: raised ? 'raise' : 'lower', queue: state.hands });
};

export const nextSnippetIndex = (state: SessionState): number | null => {
  const next = currentSnippet(state).next;
  if (next === null) return null;
  if (next === undefined) return state.snippet + 1 < state.scene.snippets.length ? state.snippet + 1 : null;
  const index = state.scene.snippets.findIndex((sn) => sn.id === next);
  return index >= 0 ? index : null;
};

export const advanceSnippet = (c: Ctx): boolean => {
  const next = nextSnippetIndex(c.state);
  if (next === null) return false;
  startSnippet(c, next);
  return true;
};

export const startSnippet = (c: Ctx, index: number): void => {
  const { state } = c;
  state.snippet = index;
  state.snippetTurns = 0;
  state.line = 0;
  state.rrCursor = null;
  state.round = [];
  state.chorus = null;
  const snippet = currentSnippet(state);
  emit(c, { type: 'snippet-start', snippet: snippet.id, title: snippet.title ?? snippet.id, turns: snippet.turns, initiator: snippet.initiator });
};

export const end = (c: Ctx, reason: EndReason, by?: EndedBy): void => {
  const { state } = c;
  if (state.phase === 'ended') return;
  state.phase = 'ended';
  state.pending = null;
  state.awaiting = null;
  emit(c, { type: 'end', reason, turns: state.turns, ...(by ? { by } : {}) });
};

export const isParticipant = (c: Ctx, id: string): boolean => {
  if (c.roster.byId.has(id)) return true;
  emit(c, { type: 'system', level: 'warn', code: 'unknown-participant', message: `Unknown participant "${id}"` });
  return false;
};

