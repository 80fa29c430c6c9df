/**
 * The conversation engine: a pure reducer `step(state, input) -> { state, events, requests }`.
 *
 * It follows DialogLab Algorithm 1 (snippets in order, turn budgets, initiators, interaction
 * patterns, interruptions, backchannels, derailing human agents and impromptu phases) and chooses
 * each next speaker by the scene's policy: round-robin, random, llm-selector (MPOD §3.1),
 * party (free / round-robin / moderated, DialogLab A.2) or cssn-or-ss (MMAgents §3.2).
 *
 * It never waits, reads clocks or files, or calls `Math.random`: randomness comes from the seeded
 * state, text comes back from the shell as `generated` / `thoughts` inputs answering the engine's
 * `requests`, and humans arrive as `say` inputs. The batch simulator and live rooms drive the same
 * reducer, so they cannot disagree.
 */
import type { FacilitatorAct, Intent, LoadedScene, Snippet } from '../scene/schema';
import { intents as allIntents } from '../scene/schema';
import type { Cue, GenerateRequest } from '../providers/generator/port';
import { detectDesignation } from './designation';
import type { Act, EventDraft, PairType, SessionEvent } from './events';
import { emptyFacilitator, afterTurn, chooseFacilitatorAct, type FacilitatorState, type TurnRecord } from './facilitator';
import { emptyMemory, remember, rememberThought, retrieve, type Memory } from './memory';
import { nextInOrder, parseBid, parseSelection, sampleUtteranceLength, selectMostImportant, selectNextParty, type Bid } from './policies';
import { buildSelectorPrompt, buildThinkPrompt, buildUtterancePrompt, type PromptParts } from './prompt';
import { rngFrom, type Rng } from './rng';
import { partyAllows, roomOf, snippetMembers, voiceFor, voicesOf, type Room } from './room';
import { maxSimilarity } from './similarity';

type FloorReason = Extract<SessionEvent, { type: 'floor' }>['reason'];

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
  /** Set when the facilitator took this turn for one of its acts. */
  facilitatorAct?: Exclude<FacilitatorAct, 'direct-reply'>;
  bids?: Bid[];
}

export interface LastUtterance {
  id: string;
  speaker: string;
  text: string;
  addressee: string | null;
  pair: PairType;
  interrupted: boolean;
  /** Spoken by the hand the moderator approved (moderated mode). */
  approved: boolean;
}

type Pending =
  | { id: string; kind: 'utterance'; plan: Plan; attempt: number; rejected: { text: string; similarity: number }[] }
  | { id: string; kind: 'proposal'; participant: string; intent: Intent }
  | { id: string; kind: 'select'; attempt: number; candidates: string[] }
  | { id: string; kind: 'think'; bidders: string[] };

export interface SessionState {
  scene: LoadedScene;
  seed: number;
  rng: number;
  /** Human participants who are really here; absent humans are simulated. */
  present: string[];
  maxTurns: number;
  phase: 'new' | 'running' | 'ended';
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
  log: TurnRecord[];
  rrCursor: string | null;
  partyCursor: Record<string, string | null>;
  hands: string[];
  approved: string | null;
  interruption: { by: string; vibe: string } | null;
  impromptu: { participant: string; intent: Intent; remaining: number } | null;
  proposal: { id: string; participant: string; intent: Intent; text: string } | null;
  skipDerail: boolean;
  facilitator: FacilitatorState;
  pending: Pending | null;
  /** The present human the room is waiting for, with the plan they were given the floor under. */
  awaiting: Plan | null;
  counter: number;
}

export type EngineInput =
  | { type: 'start' }
  /** The text answering request `request` (utterance, proposal or selector). Empty when generation failed outright. */
  | { type: 'generated'; request: string; text: string }
  /** think() answers for request `request`. */
  | { type: 'thoughts'; request: string; answers: { participant: string; text: string }[] }
  /** A real human's utterance, typed or transcribed; it may barge in at any time. */
  | { type: 'say'; participant: string; text: string; durationMs?: number }
  | { type: 'approval'; proposal: string; decision: 'approve' | 'edit' | 'dismiss' | 'regenerate'; text?: string; intent?: Intent }
  | { type: 'raise-hand'; participant: string }
  | { type: 'lower-hand'; participant: string }
  | { type: 'presence'; participant: string; present: boolean }
  | { type: 'notice'; level: 'info' | 'warn' | 'error'; code: string; message: string }
  | { type: 'clock'; t: number }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'skip-turn' }
  | { type: 'end' };

export type EngineRequest =
  | { kind: 'generate'; id: string; request: GenerateRequest }
  | { kind: 'think'; id: string; participants: { participant: string; request: GenerateRequest }[] };

export interface StepResult {
  state: SessionState;
  events: SessionEvent[];
  requests: EngineRequest[];
}

const GAP_MS = 400;
const BASE_TEMPERATURE = 0.8;
const REPETITION_THRESHOLD = 0.5;
const MAX_RESAMPLES = 5;
const MAX_SELECTOR_ATTEMPTS = 4; // the first try plus MPOD's 3 retries
const backchannelCues = ['mm-hmm', 'right', 'I see', 'yeah', 'okay', 'true'];
const disagreementPattern =
  /\b(disagree|don't think|do not think|not sure|not so sure|not convinced|however|i doubt|that's not|isn't right|differently|push back|challenge|but )/i;

export const createSession = (scene: LoadedScene, options: { seed: number; present?: string[]; maxTurns?: number }): SessionState => ({
  scene,
  seed: options.seed,
  rng: options.seed >>> 0,
  present: options.present ?? [],
  maxTurns: options.maxTurns ?? scene.turnTaking.maxTurns,
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
  log: [],
  rrCursor: null,
  partyCursor: {},
  hands: [],
  approved: null,
  interruption: null,
  impromptu: null,
  proposal: null,
  skipDerail: false,
  facilitator: emptyFacilitator(),
  pending: null,
  awaiting: null,
  counter: 0,
});

/** The mutable working copy of one step. Only `step` creates it, so `step` stays pure. */
interface Ctx {
  s: SessionState;
  room: Room;
  rng: Rng;
  events: SessionEvent[];
  requests: EngineRequest[];
}

export const step = (state: SessionState, input: EngineInput): StepResult => {
  const c: Ctx = { s: { ...state }, room: roomOf(state.scene), rng: rngFrom(state.rng), events: [], requests: [] };
  apply(c, input);
  c.s.rng = c.rng.state;
  return { state: c.s, events: c.events, requests: c.requests };
};

// ---------------------------------------------------------------------------------------------
// Inputs

const apply = (c: Ctx, input: EngineInput): void => {
  const s = c.s;
  if (s.phase === 'ended' && input.type !== 'clock') return;
  if (s.phase === 'new' && input.type !== 'start' && input.type !== 'presence' && input.type !== 'clock') {
    emit(c, { type: 'system', level: 'warn', code: 'not-started', message: `"${input.type}" before the session started` });
    return;
  }
  switch (input.type) {
    case 'start':
      return start(c);
    case 'generated':
      return onGenerated(c, input.request, input.text);
    case 'thoughts':
      return onThoughts(c, input.request, input.answers);
    case 'say':
      return onSay(c, input.participant, input.text, input.durationMs);
    case 'approval':
      return onApproval(c, input);
    case 'raise-hand':
    case 'lower-hand':
      if (!isParticipant(c, input.participant)) return;
      setHand(c, input.participant, input.type === 'raise-hand');
      return proceed(c);
    case 'presence':
      s.present = input.present ? [...new Set([...s.present, input.participant])] : s.present.filter((p) => p !== input.participant);
      return;
    case 'notice':
      emit(c, { type: 'system', level: input.level, code: input.code, message: input.message });
      return;
    case 'clock':
      s.t = Math.max(s.t, input.t);
      return;
    case 'pause':
      s.paused = true;
      emit(c, { type: 'system', level: 'info', code: 'paused', message: 'The session is paused.' });
      return;
    case 'resume':
      s.paused = false;
      emit(c, { type: 'system', level: 'info', code: 'resumed', message: 'The session resumed.' });
      return proceed(c);
    case 'skip-turn': {
      const who = s.awaiting?.speaker ?? (s.pending?.kind === 'utterance' ? s.pending.plan.speaker : null);
      s.pending = null;
      s.awaiting = null;
      emit(c, { type: 'system', level: 'info', code: 'turn-skipped', message: who ? `${c.room.name(who)}'s turn was skipped.` : 'Turn skipped.' });
      if (s.last) s.last = { ...s.last, pair: 'none' };
      countTurn(c, false);
      return proceed(c);
    }
    case 'end':
      return end(c, 'ended');
  }
};

const start = (c: Ctx): void => {
  const s = c.s;
  if (s.phase !== 'new') return;
  s.phase = 'running';
  emit(c, {
    type: 'session-start',
    scene: s.scene.id,
    title: s.scene.title,
    seed: s.seed,
    policy: s.scene.turnTaking.policy,
    participants: s.scene.participants.map((p) => ({
      id: p.id,
      name: p.name,
      kind: p.kind,
      present: s.present.includes(p.id),
      speakingRate: p.persona?.speakingRate ?? 150,
    })),
  });
  startSnippet(c, 0);
  proceed(c);
};

const onGenerated = (c: Ctx, requestId: string, text: string): void => {
  const s = c.s;
  const pending = s.pending;
  if (!pending || pending.id !== requestId) return; // stale: the turn was skipped or a human barged in
  s.pending = null;
  const clean = text.trim();
  switch (pending.kind) {
    case 'utterance':
      return onUtteranceText(c, pending, clean);
    case 'proposal':
      return onProposal(c, pending.participant, pending.intent, clean);
    case 'select': {
      const chosen = parseSelection(clean, pending.candidates.map((id) => ({ id, names: namesOf(c.room, id) })));
      if (chosen) return beginTurn(c, planFor(c, chosen, 'llm-selector'));
      if (pending.attempt < MAX_SELECTOR_ATTEMPTS) return requestSelection(c, pending.candidates, pending.attempt + 1);
      // MPOD §3.1: after 3 failed retries the selector falls back to a random choice.
      emit(c, { type: 'system', level: 'warn', code: 'selector-fallback', message: `The turn selector gave no valid answer after ${MAX_SELECTOR_ATTEMPTS} tries; chose at random.` });
      return beginTurn(c, planFor(c, c.rng.pick(pending.candidates), 'llm-selector-fallback'));
    }
    case 'think':
      return;
  }
};

const onThoughts = (c: Ctx, requestId: string, answers: { participant: string; text: string }[]): void => {
  const s = c.s;
  const pending = s.pending;
  if (!pending || pending.id !== requestId || pending.kind !== 'think') return;
  s.pending = null;
  const bids = pending.bidders.map((participant) => {
    const answer = answers.find((a) => a.participant === participant);
    return (answer && parseBid(participant, answer.text)) ?? { participant, action: 'listen' as const, importance: 0, thought: '' };
  });
  // MMAgents Algorithm 1: every listener's thought goes to its short-term memory.
  for (const bid of bids) if (bid.thought) s.memory = rememberThought(s.memory, bid.participant, bid.thought);
  const current = s.last?.speaker ?? null;
  const choice = selectMostImportant(bids, current, c.rng);
  const speaker = choice.speaker ?? c.rng.pick(pending.bidders);
  beginTurn(c, { ...planFor(c, speaker, choice.speaker ? choice.reason : 'random'), bids });
};

const onSay = (c: Ctx, participant: string, text: string, durationMs?: number): void => {
  const s = c.s;
  const person = c.room.byId.get(participant);
  if (!person || person.kind !== 'human') {
    emit(c, { type: 'system', level: 'warn', code: 'not-a-human', message: `"${participant}" is not a human participant of this scene` });
    return;
  }
  if (!text.trim()) return;
  const expected = s.awaiting?.speaker === participant ? s.awaiting : null;
  // A human may barge in at any time: whatever was being generated for someone else is dropped.
  s.pending = null;
  s.awaiting = null;
  if (!s.present.includes(participant)) s.present = [...s.present, participant];
  const plan: Plan = expected ?? { ...planFor(c, participant, 'human'), act: 'statement' };
  if (!expected) emit(c, { type: 'floor', speaker: participant, reason: 'human' });
  accept(c, plan, text.trim(), 'human', { durationMs });
  proceed(c);
};

const onApproval = (c: Ctx, input: Extract<EngineInput, { type: 'approval' }>): void => {
  const s = c.s;
  const proposal = s.proposal;
  if (!proposal || proposal.id !== input.proposal) {
    emit(c, { type: 'system', level: 'warn', code: 'unknown-proposal', message: `No open proposal "${input.proposal}"` });
    return;
  }
  s.proposal = null;
  const text = input.decision === 'edit' ? (input.text ?? '').trim() || proposal.text : proposal.text;
  emit(c, { type: 'approval-resolved', proposal: proposal.id, decision: input.decision, ...(input.decision === 'edit' ? { text } : {}) });
  if (input.decision === 'dismiss') {
    s.skipDerail = true;
    return proceed(c);
  }
  if (input.decision === 'regenerate') {
    const intent = input.intent ?? c.rng.pick(allIntents.filter((i) => i !== proposal.intent));
    return requestProposal(c, proposal.participant, intent);
  }
  deviate(c, proposal.participant, proposal.intent, text);
};

// ---------------------------------------------------------------------------------------------
// The turn loop (DialogLab Algorithm 1)

const currentSnippet = (s: SessionState): Snippet => s.scene.snippets[s.snippet]!;

const proceed = (c: Ctx): void => {
  const s = c.s;
  // A scripted line is spoken at once, so loop until the engine needs something from outside.
  for (let guard = 0; guard < 1000; guard++) {
    if (s.phase !== 'running' || s.paused || s.pending || s.awaiting || s.proposal) return;
    if (s.turns >= s.maxTurns) return end(c, 'max-turns');
    const obligation = openObligation(c);
    if (!obligation && !s.interruption && !s.impromptu && s.snippetTurns >= currentSnippet(s).turns) {
      if (!advanceSnippet(c)) return end(c, 'snippets-done');
    }
    const snippet = currentSnippet(s);
    const line = !s.interruption && !obligation ? snippet.lines[s.line] : undefined;
    if (line) {
      s.line++;
      const plan: Plan = { ...planFor(c, line.speaker, 'scripted'), addressee: line.to ?? null };
      if (s.present.includes(line.speaker)) return beginTurn(c, plan);
      emit(c, { type: 'floor', speaker: line.speaker, reason: 'scripted' });
      accept(c, plan, line.text, 'scripted', {});
      continue;
    }
    if (!obligation && !s.interruption && !s.impromptu && s.snippetTurns > 0 && !s.skipDerail && maybeDerail(c)) return;
    s.skipDerail = false;
    const decision = selectNextSpeaker(c, obligation);
    if (decision.kind === 'select') return requestSelection(c, decision.candidates, 1);
    if (decision.kind === 'think') return requestThoughts(c, decision.bidders);
    return beginTurn(c, decision.plan);
  }
};

/**
 * The next-speaker decision alone, as `step` would make it from `state`, without carrying it out
 * or emitting anything (for inspection tools and the benchmark).
 */
export const decideNextSpeaker = (state: SessionState): Decision => {
  const c: Ctx = { s: { ...state }, room: roomOf(state.scene), rng: rngFrom(state.rng), events: [], requests: [] };
  return selectNextSpeaker(c, openObligation(c));
};

export type Decision =
  | { kind: 'turn'; plan: Plan }
  | { kind: 'select'; candidates: string[] }
  | { kind: 'think'; bidders: string[] };

/**
 * Who speaks next, in priority order: a pending interrupter; a snippet's initiator; the addressee
 * of an open first pair part (where the policy honours designation); the facilitator's act; the
 * impromptu phase; the policy. May ask for an LLM selection or for bids instead of deciding.
 */
const selectNextSpeaker = (c: Ctx, obligation: Obligation | null): Decision => {
  const s = c.s;
  const turnTaking = s.scene.turnTaking;
  const last = s.last?.speaker ?? null;
  if (s.interruption) {
    const { by, vibe } = s.interruption;
    s.interruption = null;
    return { kind: 'turn', plan: { ...planFor(c, by, 'interruption'), act: 'interrupt', vibe, addressee: last } };
  }
  if (s.snippetTurns === 0 && !obligation) {
    const initiator = voiceFor(c.room, currentSnippet(s).initiator);
    const opening = s.turns === 0;
    return { kind: 'turn', plan: { ...planFor(c, initiator, 'initiator'), ...(opening ? { act: 'greeting' as const, addressee: null } : {}) } };
  }
  if (obligation) {
    // Moderated mode: the moderator's invitation hands the floor to the approved hand, who asks their question.
    if (turnTaking.partyMode === 'moderated' && obligation.speaker === s.approved && obligation.from === turnTaking.moderator) {
      return { kind: 'turn', plan: { ...planFor(c, obligation.speaker, 'hand-approved'), act: 'question', addressee: questionTarget(c, obligation.speaker), obligation: null } };
    }
    return { kind: 'turn', plan: planFor(c, obligation.speaker, 'designated') };
  }
  const facilitator = turnTaking.facilitator;
  const moderated = turnTaking.partyMode === 'moderated';
  if (facilitator && last !== facilitator.participant && (!moderated || facilitator.participant === turnTaking.moderator)) {
    const fired = chooseFacilitatorAct(facilitatorView(c), s.facilitator);
    if (fired) {
      const plan = planFor(c, facilitator.participant, 'facilitator');
      return { kind: 'turn', plan: { ...plan, act: fired.act, addressee: fired.addressee, obligation: null, facilitatorAct: fired.act } };
    }
  }
  if (s.impromptu && last !== s.impromptu.participant && s.impromptu.remaining % 2 === 0) {
    const { participant, intent } = s.impromptu;
    return { kind: 'turn', plan: { ...planFor(c, participant, 'impromptu'), act: 'deviation', intent, addressee: last } };
  }
  return byPolicy(c);
};

const byPolicy = (c: Ctx): Decision => {
  const s = c.s;
  const turnTaking = s.scene.turnTaking;
  const last = s.last?.speaker ?? null;
  const candidates = candidatesFor(c, true).filter((id) => id !== last && (!s.impromptu || id !== s.impromptu.participant));
  const pool = candidates.length ? candidates : candidatesFor(c, true);
  if (pool.length === 0) return { kind: 'turn', plan: planFor(c, last ?? currentSnippet(s).initiator, 'continues') };
  switch (turnTaking.policy) {
    case 'round-robin': {
      const next = nextInOrder(snippetMembers(c.room, currentSnippet(s)), s.rrCursor, (id) => pool.includes(id)) ?? pool[0]!;
      s.rrCursor = next;
      return { kind: 'turn', plan: planFor(c, next, 'round-robin') };
    }
    case 'random':
      return { kind: 'turn', plan: planFor(c, c.rng.pick(pool), 'random') };
    case 'llm-selector':
      // MPOD §3.1: with fewer than two utterances there is too little context; use round-robin.
      if (s.memory.history.length < 2) {
        const next = nextInOrder(snippetMembers(c.room, currentSnippet(s)), last, (id) => pool.includes(id)) ?? pool[0]!;
        return { kind: 'turn', plan: planFor(c, next, 'round-robin') };
      }
      return { kind: 'select', candidates: pool };
    case 'party':
      return { kind: 'turn', plan: byParty(c, pool) };
    case 'cssn-or-ss': {
      // Present humans self-select by speaking; reactive human agents only answer when addressed.
      const bidders = pool.filter((id) => !s.present.includes(id));
      if (bidders.length === 0) return { kind: 'turn', plan: planFor(c, last ?? pool[0]!, 'continues') };
      return { kind: 'think', bidders };
    }
  }
};

/** DialogLab A.2: party-based allocation; the party's speaking mode picks the voice. */
const byParty = (c: Ctx, pool: string[]): Plan => {
  const s = c.s;
  const turnTaking = s.scene.turnTaking;
  const last = s.last?.speaker ?? null;
  if (turnTaking.partyMode === 'moderated' && turnTaking.moderator) {
    const moderator = turnTaking.moderator;
    if (last !== moderator) {
      return { ...planFor(c, moderator, 'moderator'), act: 'moderate', addressee: s.hands.find((h) => h !== moderator) ?? null };
    }
    if (s.approved) return { ...planFor(c, s.approved, 'hand-approved'), act: 'question', addressee: questionTarget(c, s.approved) };
    // Nobody approved yet: the moderator keeps the floor and invites the first raised hand, or asks for questions.
    return { ...planFor(c, moderator, 'moderator'), act: 'moderate', addressee: s.hands.find((h) => h !== moderator) ?? null };
  }
  const members = new Set(pool);
  const parties = s.scene.parties.filter((p) => voicesOf(p).some((v) => members.has(v)));
  if (parties.length === 0) return planFor(c, c.rng.pick(pool), 'party');
  const current = last ? c.room.partyOf.get(last) : undefined;
  const party = selectNextParty(parties, parties.find((p) => p.id === current?.id), turnTaking.partyMode === 'round-robin' ? 'round-robin' : 'free', c.rng);
  const voices = voicesOf(party).filter((v) => members.has(v));
  let speaker: string;
  if (party.speakingMode === 'random') speaker = c.rng.pick(voices);
  else {
    // `all` and `subset` rotate through their voices; `representative` has one.
    speaker = nextInOrder(voicesOf(party), s.partyCursor[party.id] ?? null, (id) => members.has(id)) ?? voices[0]!;
    s.partyCursor = { ...s.partyCursor, [party.id]: speaker };
  }
  return planFor(c, speaker, 'party');
};

/** Who may be given the floor by a policy in the current snippet. */
const candidatesFor = (c: Ctx, policy: boolean): string[] => {
  const s = c.s;
  return snippetMembers(c.room, currentSnippet(s)).filter((id) => {
    if (!partyAllows(c.room, id)) return false;
    const p = c.room.byId.get(id);
    if (!p) return false;
    return !(policy && p.kind === 'human' && !s.present.includes(id) && (p.simulated?.mode ?? 'reactive') === 'reactive');
  });
};

type Obligation = { speaker: string; from: string };

/**
 * Sacks et al. rule 1 (MMAgents §3.2.4): a first pair part addressed to someone obliges them to
 * speak next. Honoured by `cssn-or-ss`; under every policy when a real human asks or is asked,
 * for simulated humans, for the facilitator (MUCA's direct reply) and whoever the facilitator
 * asks; and for an approved hand's question in moderated mode.
 * A party in representative mode answers through its representative.
 */
const openObligation = (c: Ctx): Obligation | null => {
  const s = c.s;
  const last = s.last;
  if (!last || last.interrupted || last.pair === 'none' || !last.addressee) return null;
  const speaker = voiceFor(c.room, last.addressee);
  if (speaker === last.speaker) return null;
  const turnTaking = s.scene.turnTaking;
  const person = c.room.byId.get(speaker);
  const honoured =
    turnTaking.policy === 'cssn-or-ss' ||
    person?.kind === 'human' ||
    s.present.includes(last.speaker) ||
    turnTaking.facilitator?.participant === speaker ||
    turnTaking.facilitator?.participant === last.speaker ||
    (turnTaking.partyMode === 'moderated' && (last.approved || last.speaker === turnTaking.moderator));
  if (!honoured) return null;
  // In moderated mode the moderator's invitation is the approval itself.
  if (turnTaking.partyMode === 'moderated' && last.speaker === turnTaking.moderator && s.approved !== speaker) return null;
  return { speaker, from: last.speaker };
};

/** The plan for `speaker`: answers an open first pair part addressed to them, else picks an act. */
const planFor = (c: Ctx, speaker: string, reason: FloorReason): Plan => {
  const s = c.s;
  const last = s.last;
  if (last && !last.interrupted && last.pair !== 'none' && last.addressee && voiceFor(c.room, last.addressee) === speaker && last.speaker !== speaker) {
    return {
      speaker,
      reason,
      act: 'answer',
      addressee: last.speaker,
      obligation: { utterance: last.id, from: last.speaker, pair: last.pair, text: last.text },
    };
  }
  return { speaker, reason, ...chooseAct(c, speaker), obligation: null };
};

/** The engine's plan for an unobliged turn; the generated text decides what is logged. */
const chooseAct = (c: Ctx, speaker: string): { act: Act; addressee: string | null } => {
  const s = c.s;
  const person = c.room.byId.get(speaker);
  if (person?.kind === 'human' && s.present.includes(speaker)) return { act: 'statement', addressee: null };
  const roll = c.rng.next();
  const target = questionTarget(c, speaker);
  if (!target) return { act: 'statement', addressee: null };
  if (roll < 0.3) return { act: 'question', addressee: target };
  if (roll < 0.37) return { act: 'request', addressee: target };
  if (roll < 0.41) return { act: 'offer', addressee: target };
  if (roll < 0.45) return { act: 'invitation', addressee: target };
  return { act: 'statement', addressee: null };
};

/** Someone worth asking: prefers those who have spoken least in the snippet; never the speaker. */
const questionTarget = (c: Ctx, speaker: string): string | null => {
  const s = c.s;
  const moderator = s.scene.turnTaking.partyMode === 'moderated' ? s.scene.turnTaking.moderator : undefined;
  const speakerParty = c.room.partyOf.get(speaker)?.id;
  let options = candidatesFor(c, false).filter((id) => id !== speaker && id !== moderator);
  if (moderator) options = options.filter((id) => c.room.partyOf.get(id)?.id !== speakerParty) ;
  if (options.length === 0) return null;
  const counts = new Map(options.map((id) => [id, 0]));
  for (const r of s.log) if (counts.has(r.speaker)) counts.set(r.speaker, counts.get(r.speaker)! + 1);
  const least = Math.min(...counts.values());
  const quiet = options.filter((id) => counts.get(id)! <= least + 1);
  return c.rng.pick(quiet);
};

const maybeDerail = (c: Ctx): boolean => {
  const s = c.s;
  const members = snippetMembers(c.room, currentSnippet(s));
  for (const id of members) {
    const p = c.room.byId.get(id);
    const sim = p?.simulated;
    if (!p || p.kind !== 'human' || !sim || s.present.includes(id) || id === s.last?.speaker) continue;
    if (sim.mode === 'reactive' || !partyAllows(c.room, id)) continue;
    if (!c.rng.chance(sim.derailProbability)) continue;
    // Moderated mode: a deviation waits its turn like everyone else, behind a raised hand.
    if (s.scene.turnTaking.partyMode === 'moderated') {
      setHand(c, id, true);
      continue;
    }
    requestProposal(c, id, c.rng.pick(sim.intents.length ? sim.intents : allIntents));
    return true;
  }
  return false;
};

const onProposal = (c: Ctx, participant: string, intent: Intent, text: string): void => {
  const s = c.s;
  if (!text) {
    emit(c, { type: 'system', level: 'warn', code: 'empty-proposal', message: `No proposal for ${c.room.name(participant)}` });
    s.skipDerail = true;
    return proceed(c);
  }
  const mode = c.room.byId.get(participant)?.simulated?.mode;
  if (mode === 'human-control') {
    const id = nextId(c, 'p');
    s.proposal = { id, participant, intent, text };
    emit(c, { type: 'approval-needed', proposal: id, participant, intent, text });
    return;
  }
  deviate(c, participant, intent, text);
};

/** DialogLab §5.2.2: an accepted deviation starts an impromptu phase of a few turns. */
const deviate = (c: Ctx, participant: string, intent: Intent, text: string): void => {
  const s = c.s;
  const range = c.room.byId.get(participant)?.simulated?.impromptuTurns ?? { min: 2, max: 4 };
  const turns = c.rng.int(range.min, range.max);
  s.impromptu = { participant, intent, remaining: turns };
  emit(c, { type: 'impromptu-start', participant, intent, turns });
  emit(c, { type: 'floor', speaker: participant, reason: 'impromptu' });
  accept(c, { ...planFor(c, participant, 'impromptu'), act: 'deviation', intent, addressee: null, obligation: null, impromptu: true }, text, 'simulated-human', {});
  proceed(c);
};

// ---------------------------------------------------------------------------------------------
// Requests to the shell

const nextId = (c: Ctx, prefix: string): string => `${prefix}${++c.s.counter}`;

const beginTurn = (c: Ctx, plan: Plan): void => {
  const s = c.s;
  if (s.impromptu) plan = { ...plan, impromptu: true };
  emit(c, {
    type: 'floor',
    speaker: plan.speaker,
    reason: plan.reason,
    ...(plan.bids ? { bids: plan.bids.map(({ participant, action, importance }) => ({ participant, action, importance })) } : {}),
    ...(plan.facilitatorAct ? { act: plan.facilitatorAct } : {}),
  });
  if (plan.act === 'moderate' && plan.addressee) {
    s.approved = plan.addressee;
    s.hands = s.hands.filter((h) => h !== plan.addressee);
    emit(c, { type: 'hand-raise', participant: plan.addressee, action: 'approve', queue: s.hands });
  }
  if (s.present.includes(plan.speaker)) {
    s.awaiting = plan;
    emit(c, {
      type: 'human-input-required',
      participant: plan.speaker,
      addressedBy: plan.obligation?.from ?? null,
      pair: plan.obligation?.pair ?? 'none',
    });
    return;
  }
  requestUtterance(c, plan, 0, []);
};

const requestUtterance = (c: Ctx, plan: Plan, attempt: number, rejected: { text: string; similarity: number }[]): void => {
  const id = nextId(c, 'g');
  c.s.pending = { id, kind: 'utterance', plan, attempt, rejected };
  const parts = promptParts(c, plan);
  c.requests.push({ kind: 'generate', id, request: buildUtterancePrompt(parts, 'utterance', BASE_TEMPERATURE + 0.1 * attempt) });
};

const requestProposal = (c: Ctx, participant: string, intent: Intent): void => {
  const id = nextId(c, 'g');
  c.s.pending = { id, kind: 'proposal', participant, intent };
  const plan: Plan = { speaker: participant, reason: 'impromptu', act: 'deviation', intent, addressee: null, obligation: null };
  c.requests.push({ kind: 'generate', id, request: buildUtterancePrompt(promptParts(c, plan), 'proposal', BASE_TEMPERATURE) });
};

const requestSelection = (c: Ctx, candidates: string[], attempt: number): void => {
  const id = nextId(c, 'g');
  c.s.pending = { id, kind: 'select', attempt, candidates };
  const speaker = c.s.last?.speaker ?? candidates[0]!;
  const plan: Plan = { speaker, reason: 'llm-selector', act: 'statement', addressee: c.s.last?.addressee ?? null, obligation: null };
  c.requests.push({ kind: 'generate', id, request: buildSelectorPrompt(promptParts(c, plan), candidates) });
};

const requestThoughts = (c: Ctx, bidders: string[]): void => {
  const id = nextId(c, 'g');
  c.s.pending = { id, kind: 'think', bidders };
  c.requests.push({
    kind: 'think',
    id,
    participants: bidders.map((participant) => ({
      participant,
      request: buildThinkPrompt(promptParts(c, { speaker: participant, reason: 'self-selected', act: 'statement', addressee: null, obligation: null })),
    })),
  });
};

const namesOf = (room: Room, id: string): string[] => [room.name(id), room.shortName(id)];

const promptParts = (c: Ctx, plan: Plan): PromptParts => {
  const s = c.s;
  const room = c.room;
  const person = room.byId.get(plan.speaker)!;
  const snippet = currentSnippet(s);
  const last = s.last;
  const query = last?.text ?? s.scene.topic;
  const persona = person.persona;
  const shown = s.memory.history.slice(-s.scene.turnTaking.historyWindow).map((u) => ({ prefix: `${room.name(u.speaker)}: `, text: u.text }));
  // MMAgents §3.1.2: goals and own private knowledge most relevant to the last utterance...
  const privateKnowledge = persona?.privateKnowledge ?? [];
  const facts = [...retrieve(privateKnowledge, query, 2), ...privateKnowledge].filter((f, i, all) => all.indexOf(f) === i).slice(0, 2);
  const goals = [...retrieve(persona?.goals ?? [], query, 1), ...(persona?.goals ?? [])].filter((g, i, all) => all.indexOf(g) === i).slice(0, 2);
  // ...and long-term memories of what was said, retrieved by similarity, minus what the history window already shows.
  const unseen = s.memory.facts.filter((f) => !shown.some((h) => f.startsWith(h.prefix) && h.text.includes(f.slice(h.prefix.length))));
  const memories = retrieve(unseen, query, 3);
  const nextSnippetGoal = plan.act === 'transition' ? s.scene.snippets[nextSnippetIndex(s) ?? -1]?.goal : undefined;
  const party = room.partyOf.get(plan.speaker);
  const sim = person.kind === 'human' ? person.simulated : undefined;
  const cue: Cue = {
    speaker: {
      id: person.id,
      name: person.name,
      shortName: room.shortName(person.id),
      ...(person.role ? { role: person.role } : {}),
      mood: persona?.mood ?? 'neutral',
      traits: [...(persona?.traits ?? []), ...(sim?.traits ?? [])],
    },
    participants: s.scene.participants.map((p) => ({ id: p.id, name: p.name, shortName: room.shortName(p.id), kind: p.kind })),
    topic: s.scene.topic,
    snippet: { id: snippet.id, goal: nextSnippetGoal ?? snippet.goal, pattern: snippet.pattern },
    act: plan.act,
    addressee: plan.addressee ? { id: plan.addressee, shortName: room.shortName(plan.addressee) } : null,
    obligation: plan.obligation
      ? { pair: plan.obligation.pair, from: plan.obligation.from, fromShortName: room.shortName(plan.obligation.from), text: plan.obligation.text }
      : null,
    lastMessage: last ? { speaker: last.speaker, shortName: room.shortName(last.speaker), text: last.text } : null,
    ...(plan.intent ? { intent: plan.intent } : {}),
    ...(plan.vibe ? { vibe: plan.vibe } : {}),
    facts,
    goals,
    ...(sim ? { targetWords: sampleUtteranceLength(sim.utteranceLength ?? { min: 3, avg: 10, max: 24 }, c.rng) } : {}),
    variant: c.rng.int(0, 2 ** 31 - 1),
  };
  const contents = s.scene.contents.map((content) => `${content.kind} "${content.title}"${content.summary ? `: ${content.summary}` : ''}`);
  return {
    room,
    memory: s.memory,
    memories,
    cue,
    partyRole: party ? { party: party.name ?? party.id, role: party.role } : undefined,
    contents,
    nextSpeaker:
      s.scene.turnTaking.policy === 'round-robin'
        ? nextInOrder(snippetMembers(room, snippet), s.rrCursor, (id) => id !== plan.speaker && candidatesFor(c, true).includes(id))
        : null,
    window: s.scene.turnTaking.historyWindow,
  };
};

// ---------------------------------------------------------------------------------------------
// Accepting an utterance

const onUtteranceText = (c: Ctx, pending: Extract<Pending, { kind: 'utterance' }>, text: string): void => {
  const s = c.s;
  const plan = pending.plan;
  if (!text) {
    emit(c, { type: 'system', level: 'warn', code: 'empty-generation', message: `${c.room.name(plan.speaker)} produced no text; the floor passes.` });
    // The designated speaker said nothing: the obligation lapses rather than repeating forever.
    if (s.last) s.last = { ...s.last, pair: 'none' };
    countTurn(c, !!plan.impromptu);
    return proceed(c);
  }
  // MPOD §3.2: reject an utterance too similar to the speaker's last 5; resample hotter, up to 5 times.
  const similarity = maxSimilarity(text, (s.said[plan.speaker] ?? []).slice(-5));
  if (similarity > REPETITION_THRESHOLD && pending.attempt < MAX_RESAMPLES) {
    return requestUtterance(c, plan, pending.attempt + 1, [...pending.rejected, { text, similarity }]);
  }
  let chosen = { text, similarity };
  // All attempts too similar: keep the least similar candidate to maintain flow.
  for (const candidate of pending.rejected) if (candidate.similarity < chosen.similarity) chosen = candidate;
  const source = c.room.byId.get(plan.speaker)?.kind === 'human' ? 'simulated-human' : 'ai';
  accept(c, plan, chosen.text, source, { resamples: pending.attempt, similarity: chosen.similarity });
  proceed(c);
};

const wordsOf = (text: string): number => text.split(/\s+/).filter(Boolean).length;

const accept = (
  c: Ctx,
  plan: Plan,
  fullText: string,
  source: 'ai' | 'human' | 'simulated-human' | 'scripted',
  extra: { durationMs?: number | undefined; resamples?: number; similarity?: number },
): void => {
  const s = c.s;
  const room = c.room;
  const speaker = plan.speaker;
  const person = room.byId.get(speaker)!;
  const rate = person.persona?.speakingRate ?? 150;
  const id = nextId(c, 'u');
  const snippet = currentSnippet(s);

  // DialogLab A.2.1: interruption rules (a_i, a_j, p_ij, v_ij) fire while a_j speaks.
  let text = fullText;
  let interruption: { by: string; vibe: string; atWord: number } | null = null;
  if (source === 'ai' || source === 'simulated-human') {
    const words = fullText.split(/\s+/).filter(Boolean);
    for (const rule of snippet.interruptions) {
      if (rule.to !== speaker || rule.from === speaker || words.length < 6) continue;
      if (s.present.includes(rule.from) || !partyAllows(room, rule.from)) continue;
      // Moderated mode: only the moderator may cut someone off.
      if (s.scene.turnTaking.partyMode === 'moderated' && rule.from !== s.scene.turnTaking.moderator) continue;
      if (!c.rng.chance(rule.probability)) continue;
      const atWord = c.rng.int(Math.ceil(words.length * 0.35), Math.floor(words.length * 0.75));
      text = `${words.slice(0, atWord).join(' ')}—`;
      interruption = { by: rule.from, vibe: rule.vibe, atWord };
      break;
    }
  }

  const words = wordsOf(text);
  const durationMs = extra.durationMs ?? Math.round((words / rate) * 60_000);
  const previous = s.last && s.last.speaker !== speaker ? s.last.speaker : null;
  const designation = detectDesignation({
    participants: room.names,
    speaker: room.name(speaker),
    previousSpeaker: previous ? room.name(previous) : null,
    text,
  });
  const detected = designation.next ? (room.idByName.get(designation.next) ?? null) : null;
  // An interrupted first pair part obliges nobody: the interrupter takes the floor.
  const pair: PairType = interruption ? 'none' : designation.pair;
  const addressee = detected ?? (plan.obligation ? plan.obligation.from : null) ?? (interruption ? plan.addressee : null);
  const act: Act = plan.obligation
    ? 'answer'
    : ['moderate', 'interrupt', 'deviation', 'summarize', 'transition', 'resolve-conflict', 'chime-in', 'encourage'].includes(plan.act)
      ? plan.act
      : pair !== 'none'
        ? pair
        : 'statement';

  const startT = s.t;
  emit(c, {
    type: 'utterance',
    id,
    speaker,
    text,
    addressee,
    pair,
    act,
    snippet: snippet.id,
    source,
    durationMs,
    ...(plan.obligation ? { replyTo: plan.obligation.utterance } : {}),
    ...(interruption ? { interrupted: true } : {}),
    ...(plan.impromptu || s.impromptu ? { impromptu: true } : {}),
    ...(extra.resamples !== undefined ? { resamples: extra.resamples } : {}),
    ...(extra.similarity !== undefined ? { similarity: Math.round(extra.similarity * 1000) / 1000 } : {}),
  });

  // Backchannels: listeners' short verbal cues or nods, attached to the utterance they react to.
  let count = 0;
  for (const rule of snippet.backchannels) {
    for (const listener of snippetMembers(room, snippet)) {
      if (count >= 2) break;
      if (listener === speaker || (rule.from !== '*' && rule.from !== listener) || s.present.includes(listener)) continue;
      if (!partyAllows(room, listener)) continue;
      if (interruption && listener === interruption.by) continue;
      if (rule.triggers.length && !rule.triggers.some((word) => mentions(text, word))) continue;
      if (!c.rng.chance(rule.probability)) continue;
      const kind = rule.kind === 'either' ? (c.rng.chance(0.5) ? 'verbal' : 'nod') : rule.kind;
      const at = startT + Math.round(durationMs * (0.4 + 0.5 * c.rng.next()));
      const cue = kind === 'verbal' ? c.rng.pick(rule.cues.length ? rule.cues : backchannelCues) : undefined;
      emit(c, { type: 'backchannel', participant: listener, to: speaker, utterance: id, kind, ...(cue ? { cue } : {}) }, at);
      count++;
    }
  }
  if (interruption) {
    emit(c, { type: 'interruption', by: interruption.by, of: speaker, utterance: id, vibe: interruption.vibe, atWord: interruption.atWord }, startT + durationMs);
    s.interruption = { by: interruption.by, vibe: interruption.vibe };
  }
  s.t = startT + durationMs + GAP_MS;

  const party = room.partyOf.get(speaker);
  if (party) s.partyCursor = { ...s.partyCursor, [party.id]: speaker };
  const wasApproved = s.approved === speaker;
  if (wasApproved) s.approved = null;
  if (s.hands.includes(speaker)) setHand(c, speaker, false);
  s.last = { id, speaker, text, addressee, pair, interrupted: !!interruption, approved: wasApproved };
  s.memory = remember(s.memory, { id, speaker, text }, room.name(speaker), Math.max(s.scene.turnTaking.historyWindow, 5));
  s.said = { ...s.said, [speaker]: [...(s.said[speaker] ?? []), text].slice(-5) };
  s.log = [
    ...s.log,
    {
      speaker,
      words,
      openQuestion: pair !== 'none' && addressee === null,
      disagreement: disagreementPattern.test(text),
      snippet: snippet.id,
    },
  ];
  const facilitator = s.scene.turnTaking.facilitator;
  if (facilitator) {
    const fired = plan.facilitatorAct ? { act: plan.facilitatorAct, addressee: plan.addressee } : null;
    s.facilitator = afterTurn(s.facilitator, speaker, facilitator.participant, s.turns, fired);
  }
  countTurn(c, !!(plan.impromptu || s.impromptu));
  if (plan.facilitatorAct === 'transition') advanceSnippet(c);
  if (s.scene.turnTaking.partyMode === 'moderated') raiseHands(c, speaker);
};

/** Whether `text` contains `word` as a whole word or phrase ("%" as a symbol anywhere), ignoring case. */
const mentions = (text: string, word: string): boolean => {
  const trimmed = word.trim();
  const escaped = trimmed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const edge = (ch: string) => (/[\p{L}\p{N}]/u.test(ch) ? '[^\\p{L}\\p{N}]' : '');
  const before = edge(trimmed[0] ?? '');
  const after = edge(trimmed.at(-1) ?? '');
  return new RegExp(`${before ? `(^|${before})` : ''}${escaped}${after ? `($|${after})` : ''}`, 'iu').test(text);
};

const countTurn = (c: Ctx, impromptu: boolean): void => {
  const s = c.s;
  s.turns++;
  if (!impromptu) s.snippetTurns++;
  if (s.impromptu) {
    const remaining = s.impromptu.remaining - 1;
    if (remaining <= 0) {
      emit(c, { type: 'impromptu-end', participant: s.impromptu.participant });
      s.impromptu = null;
    } else s.impromptu = { ...s.impromptu, remaining };
  }
};

/** Moderated mode: listeners with something to say raise their hands (DialogLab's Q_raised). */
const raiseHands = (c: Ctx, speaker: string): void => {
  const s = c.s;
  const moderator = s.scene.turnTaking.moderator;
  const moderatorParty = moderator ? c.room.partyOf.get(moderator)?.id : undefined;
  const hopefuls = candidatesFor(c, true).filter(
    (id) => id !== moderator && id !== speaker && !s.hands.includes(id) && id !== s.approved && !s.present.includes(id) && c.room.partyOf.get(id)?.id !== moderatorParty,
  );
  // Presenters answer; the audience asks. Prefer members of parties that own no content.
  const owners = new Set(s.scene.contents.map((content) => content.owner));
  const askers = hopefuls.filter((id) => !owners.has(c.room.partyOf.get(id)?.id ?? ''));
  const pool = askers.length ? askers : hopefuls;
  for (const id of pool) if (c.rng.chance(0.25)) setHand(c, id, true);
  if (s.hands.length === 0 && speaker === moderator && pool.length) setHand(c, c.rng.pick(pool), true);
};

const setHand = (c: Ctx, participant: string, raised: boolean): void => {
  const s = c.s;
  if (raised === s.hands.includes(participant)) return;
  s.hands = raised ? [...s.hands, participant] : s.hands.filter((h) => h !== participant);
  emit(c, { type: 'hand-raise', participant, action: raised ? 'raise' : 'lower', queue: s.hands });
};

// ---------------------------------------------------------------------------------------------
// Snippets and the end

const nextSnippetIndex = (s: SessionState): number | null => {
  const next = currentSnippet(s).next;
  if (next === null) return null;
  if (next === undefined) return s.snippet + 1 < s.scene.snippets.length ? s.snippet + 1 : null;
  const index = s.scene.snippets.findIndex((sn) => sn.id === next);
  return index >= 0 ? index : null;
};

const advanceSnippet = (c: Ctx): boolean => {
  const next = nextSnippetIndex(c.s);
  if (next === null) return false;
  startSnippet(c, next);
  return true;
};

const startSnippet = (c: Ctx, index: number): void => {
  const s = c.s;
  s.snippet = index;
  s.snippetTurns = 0;
  s.line = 0;
  s.rrCursor = null;
  const snippet = currentSnippet(s);
  emit(c, { type: 'snippet-start', snippet: snippet.id, title: snippet.title ?? snippet.id, turns: snippet.turns, initiator: snippet.initiator });
};

const end = (c: Ctx, reason: 'snippets-done' | 'max-turns' | 'ended'): void => {
  const s = c.s;
  if (s.phase === 'ended') return;
  s.phase = 'ended';
  s.pending = null;
  s.awaiting = null;
  emit(c, { type: 'end', reason, turns: s.turns });
};

const isParticipant = (c: Ctx, id: string): boolean => {
  if (c.room.byId.has(id)) return true;
  emit(c, { type: 'system', level: 'warn', code: 'unknown-participant', message: `Unknown participant "${id}"` });
  return false;
};

const facilitatorView = (c: Ctx) => {
  const s = c.s;
  const facilitator = s.scene.turnTaking.facilitator!;
  const recent = s.memory.history.map((u) => u.text);
  return {
    acts: facilitator.acts,
    pace: facilitator.pace,
    facilitator: facilitator.participant,
    members: snippetMembers(c.room, currentSnippet(s)).filter((id) => id !== facilitator.participant),
    turns: s.turns,
    log: s.log,
    window: Math.max(s.scene.turnTaking.historyWindow, 5),
    snippet: currentSnippet(s).id,
    snippetTurns: s.snippetTurns,
    hasNextSnippet: nextSnippetIndex(s) !== null,
    stuck: recent.some((text, i) => i > 0 && maxSimilarity(text, recent.slice(0, i)) > REPETITION_THRESHOLD),
  };
};

const emit = (c: Ctx, draft: EventDraft, at?: number): void => {
  const s = c.s;
  s.seq += 1;
  c.events.push({ ...draft, seq: s.seq, t: at ?? s.t } as SessionEvent);
};

