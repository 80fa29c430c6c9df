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
import { intents as allIntents } from '../../shared/scene/schema';
import { parseBid, parseSelection, selectMostImportant } from './policies';
import { normalizeKnowledge, rememberThought } from './memory';
import { defaultSpeakingRate } from '../../shared/words';
import { partyAllows, rosterOf } from './roster';
import { planFor } from './floor';
import { accept, beginTurn, screen, countTurn, deviate, MAX_RESAMPLES, MAX_SELECTOR_ATTEMPTS, namesOf, onProposal, onUtteranceText, proceed, requestProposal, requestSelection } from './turn';
import {
  contextOf,
  emit,
  end,
  isParticipant,
  setHand,
  startSnippet,
  type Ctx,
  type EngineInput,
  type Plan,
  type SessionState,
  type StepResult,
} from './state';

export { createSession } from './state';
export type { Cut, EngineInput, EngineRequest, LastUtterance, Plan, SessionState, StepResult } from './state';
export { selectNextSpeaker, type Decision, type Selection } from './floor';

export const step = (state: SessionState, input: EngineInput): StepResult => {
  const c = contextOf(state);
  apply(c, input);
  c.state.rng = c.rng.state;
  return { state: c.state, events: c.events, requests: c.requests };
};

// ---------------------------------------------------------------------------------------------
// Inputs

const apply = (c: Ctx, input: EngineInput): void => {
  const { state } = c;
  if (state.phase === 'ended' && input.type !== 'clock') return;
  // A session may end before it starts (nobody came to its lobby): its log says so.
  if (state.phase === 'new' && input.type === 'end') return end(c, 'ended', input.by);
  if (state.phase === 'new' && input.type !== 'start' && input.type !== 'presence' && input.type !== 'clock') {
    emit(c, { type: 'system', level: 'warn', code: 'not-started', message: `"${input.type}" before the session started` });
    return;
  }
  // Paused: nothing is said. A reply that arrives now waits for `resume`.
  if (state.paused && (input.type === 'generated' || input.type === 'thoughts')) {
    state.held = [...state.held, input];
    return;
  }
  // A human's line said or typed during the pause is kept, and said when the session resumes.
  if (state.paused && input.type === 'say' && input.text.trim() && c.roster.byId.has(input.participant)) {
    state.held = [...state.held, input];
    const { participant } = input;
    emit(c, { type: 'system', level: 'info', code: 'line-held', message: `The session is paused: "${input.text.trim()}" is kept and will be said when it resumes.`, participant, audience: { seat: participant } });
    return;
  }
  switch (input.type) {
    case 'start':
      return start(c, input.notice);
    case 'generated':
      return onGenerated(c, input);
    case 'thoughts':
      return onThoughts(c, input.request, input.answers);
    case 'say':
      return onSay(c, input);
    case 'inject': {
      const text = input.text.trim();
      if (!text) return;
      c.state.direction = text;
      emit(c, { type: 'system', level: 'info', code: 'direction', message: text, audience: 'observers' });
      return;
    }
    case 'approval':
      return onApproval(c, input);
    case 'raise-hand':
    case 'lower-hand':
      if (!isParticipant(c, input.participant)) return;
      setHand(c, input.participant, input.type === 'raise-hand');
      return proceed(c);
    case 'presence': {
      const away = state.away.includes(input.participant);
      const controlled = state.controlled.includes(input.participant);
      const was = state.present.includes(input.participant) && !away && !controlled;
      // A human who arrives in a seat the instructor spoke for takes it back.
      if (input.present && controlled) {
        state.controlled = state.controlled.filter((p) => p !== input.participant);
        emit(c, { type: 'system', level: 'info', code: 'hand-back', message: `${c.roster.name(input.participant)} is here and speaks for themselves again.`, participant: input.participant, audience: 'observers' });
      }
      state.away = input.held && !input.present ? [...new Set([...state.away, input.participant])] : state.away.filter((p) => p !== input.participant);
      // A held seat stays present: the room waits for its human, nobody speaks for them.
      const keep = input.present || (input.held ?? false);
      state.present = keep ? [...new Set([...state.present, input.participant])] : state.present.filter((p) => p !== input.participant);
      if (was !== input.present) {
        const name = c.roster.name(input.participant);
        const held = !input.present && input.held ? '; their seat is held for them' : '';
        emit(c, { type: 'system', level: 'info', code: input.present ? 'joined' : 'left', message: `${name} ${input.present ? 'joined' : 'left'} the room${held}`, participant: input.participant });
      }
      // A human who arrives speaks for themselves: their simulated proposal is withdrawn.
      if (input.present && state.proposal?.participant === input.participant) {
        withdrawProposal(c, `${c.roster.name(input.participant)} joined; their simulated contribution was withdrawn.`);
        if (state.phase === 'running') proceed(c);
      }
      // A human who leaves while the room waits for them is simulated for that turn instead.
      const plan = state.awaiting;
      if (!keep && plan?.speaker === input.participant && state.phase === 'running') {
        state.awaiting = null;
        beginTurn(c, plan);
      }
      return;
    }
    case 'gaze':
      if (!c.roster.byId.has(input.participant) || (input.at !== null && (!c.roster.byId.has(input.at) || input.at === input.participant))) return;
      emit(c, { type: 'gaze', participant: input.participant, at: input.at, audience: 'observers' });
      return;
    case 'notice':
      emit(c, { type: 'system', level: input.level, code: input.code, message: input.message, ...(input.participant ? { participant: input.participant } : {}) });
      return;
    case 'take-over':
      return onTakeOver(c, input);
    case 'slide': {
      const content = state.scene.contents.find((x) => x.id === input.content);
      const count = Math.max(1, content?.sections.length ?? 0);
      if (!content || content.kind !== 'slides' || input.index >= count) {
        emit(c, { type: 'system', level: 'warn', code: 'bad-slide', message: content?.kind === 'slides' ? `"${content.title}" has ${count} slides (0-${count - 1}); there is no slide ${input.index}.` : `"${input.content}" is not a slide deck of this scene.` });
        return;
      }
      if (state.slides[content.id] === input.index) return;
      state.slides = { ...state.slides, [content.id]: input.index };
      emit(c, { type: 'slide', content: content.id, index: input.index, by: input.by });
      return;
    }
    case 'clock':
      state.t = Math.max(state.t, input.t);
      return;
    case 'pause':
      if (state.paused) return;
      state.paused = true;
      emit(c, { type: 'system', level: 'info', code: 'paused', message: 'The session is paused.' });
      return;
    case 'resume': {
      if (!state.paused) return;
      state.paused = false;
      emit(c, { type: 'system', level: 'info', code: 'resumed', message: 'The session resumed.' });
      const held = state.held;
      state.held = [];
      for (const reply of held) apply(c, reply);
      return proceed(c);
    }
    case 'skip-turn': {
      const who = state.awaiting?.speaker ?? (state.pending?.kind === 'utterance' ? state.pending.plan.speaker : null);
      state.pending = null;
      state.awaiting = null;
      emit(c, { type: 'system', level: 'info', code: 'turn-skipped', message: who ? `${c.roster.name(who)}'s turn was skipped.` : 'Turn skipped.' });
      if (state.last) state.last = { ...state.last, pair: 'none' };
      // A human's turn skipped: the floor moves on by the policy, never straight back to them.
      if (who && state.present.includes(who)) state.passed = who;
      countTurn(c, false);
      return proceed(c);
    }
    case 'silence': {
      // An open floor nobody asked them to take: they let it pass, and the conversation goes on.
      const plan = state.awaiting;
      if (plan?.speaker !== input.participant) return;
      state.awaiting = null;
      state.passed = input.participant;
      emit(c, { type: 'system', level: 'info', code: 'floor-passed', message: `${c.roster.name(input.participant)} let the open floor pass; the conversation goes on.`, participant: input.participant, audience: 'observers' });
      return proceed(c);
    }
    case 'end':
      // Lines kept over a pause that never resumed: their speakers are told, never left guessing.
      for (const line of state.held) {
        if (line.type !== 'say') continue;
        emit(c, { type: 'system', level: 'warn', code: 'line-not-said', message: `The session ended during the pause: "${line.text.trim()}" was not said.`, participant: line.participant, audience: { seat: line.participant } });
      }
      state.held = [];
      return end(c, 'ended', input.by);
  }
};

const start = (c: Ctx, notice?: { code: string; message: string }): void => {
  const { state } = c;
  if (state.phase !== 'new') return;
  state.phase = 'running';
  emit(c, {
    type: 'session-start',
    scene: state.scene.id,
    title: state.scene.title,
    seed: state.seed,
    ...(state.pace ? { pace: state.pace } : {}),
    policy: state.scene.turnTaking.policy,
    participants: state.scene.participants.map((p) => ({
      id: p.id,
      name: p.name,
      kind: p.kind,
      present: state.present.includes(p.id),
      speakingRate: p.persona?.speakingRate ?? defaultSpeakingRate,
    })),
  });
  if (notice) emit(c, { type: 'system', level: 'info', ...notice });
  startSnippet(c, 0);
  proceed(c);
};

const onGenerated = (c: Ctx, input: Extract<EngineInput, { type: 'generated' }>): void => {
  const { state } = c;
  const normalized = state.normalizing[input.request];
  if (normalized) {
    const { [input.request]: _, ...rest } = state.normalizing;
    state.normalizing = rest;
    state.memory = normalizeKnowledge(state.memory, c.roster.name(normalized.speaker), normalized.text, input.text);
    return;
  }
  const pending = state.pending;
  if (!pending || pending.id !== input.request) return; // stale: the turn was skipped or a human barged in
  state.pending = null;
  const clean = input.text.trim();
  switch (pending.kind) {
    case 'utterance':
      return onUtteranceText(c, pending, clean, input.durationMs, { partial: input.partial, committed: input.committed, heardFrom: input.heardFrom });
    case 'proposal':
      return onProposal(c, pending, clean);
    case 'select': {
      const chosen = parseSelection(clean, pending.candidates.map((id) => ({ id, names: namesOf(c.roster, id) })));
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

/**
 * Whether the reply to request `request` may be shown and voiced, judged on its first clause (or
 * on the whole text, when it is `complete` that soon): false when the screen rejects it, so the
 * shell stops it unseen and unheard and sends it back (`partial` unless complete) to be drawn
 * again. True for anything but the pending utterance, and on its last attempt.
 */
export const screenDraft = (state: SessionState, request: string, text: string, complete: boolean): boolean => {
  const pending = state.pending;
  if (pending?.kind !== 'utterance' || pending.id !== request || pending.attempt >= MAX_RESAMPLES) return true;
  return screen({ state, roster: rosterOf(state.scene) }, pending.plan.speaker, text.trim(), !complete).ok;
};

const onThoughts = (c: Ctx, requestId: string, answers: { participant: string; text: string }[]): void => {
  const { state } = c;
  if (requestId === state.refreshing) {
    state.refreshing = null;
    for (const answer of answers) {
      const thought = parseBid(answer.participant, answer.text)?.thought;
      if (thought) state.memory = rememberThought(state.memory, answer.participant, thought);
    }
    return;
  }
  const pending = state.pending;
  if (!pending || pending.id !== requestId || pending.kind !== 'think') return;
  state.pending = null;
  const bids = pending.bidders.map((participant) => {
    const answer = answers.find((a) => a.participant === participant);
    return (answer && parseBid(participant, answer.text)) ?? { participant, action: 'listen' as const, importance: 0, thought: '' };
  });
  // MMAgents Algorithm 1: every listener's thought goes to its short-term memory.
  for (const bid of bids) if (bid.thought) state.memory = rememberThought(state.memory, bid.participant, bid.thought);
  // Sacks et al. rule 3: the current speaker may go on, if their party lets them speak at all.
  const last = state.last?.speaker ?? null;
  // Not the facilitator, who speaks only for its acts (MUCA): then a bidder is drawn.
  const current = last && partyAllows(c.roster, last) && last !== state.scene.turnTaking.facilitator?.participant ? last : null;
  const choice = selectMostImportant(bids, current, c.rng);
  const speaker = choice.speaker ?? c.rng.pick(pending.bidders);
  beginTurn(c, { ...planFor(c, speaker, choice.speaker ? choice.reason : 'random'), bids });
};

const onSay = (c: Ctx, input: Extract<EngineInput, { type: 'say' }>): void => {
  const { state } = c;
  const { participant, text, cut } = input;
  const person = c.roster.byId.get(participant);
  const instructor = state.controlled.includes(participant);
  if (!person || (person.kind !== 'human' && !instructor)) {
    emit(c, { type: 'system', level: 'warn', code: 'not-a-human', message: `"${participant}" is not a human participant of this scene` });
    return;
  }
  if (!text.trim()) return;
  // A line said before the line before it began to be heard (an authored question still queued
  // behind speech) cannot answer it: it is the human's own statement, and the turn owed stays theirs.
  const unheard = input.before !== undefined && input.before === state.last?.id && state.last.speaker !== participant;
  const owed = state.awaiting?.speaker === participant ? state.awaiting : null;
  const expected = unheard ? null : owed;
  // Barge-in over a reply already being heard: what was said so far is logged, cut off by the human.
  const pending = state.pending;
  if (cut && 'request' in cut && pending?.kind === 'utterance' && pending.id === cut.request && cut.partial.trim()) {
    state.pending = null;
    const source = c.roster.byId.get(pending.plan.speaker)?.kind === 'human' ? 'simulated-human' : 'ai';
    accept(c, pending.plan, cut.partial.trim(), source, {
      cutBy: participant,
      draft: pending.id,
      ...(cut.atMs !== undefined ? { durationMs: cut.atMs, cutAtMs: cut.atMs } : {}),
      ...(cut.heardFrom !== undefined ? { heardFrom: cut.heardFrom } : {}),
    });
  }
  // Barge-in over speech already logged but still playing: the interruption is logged after it.
  const last = state.last;
  if (cut && 'utterance' in cut && last?.id === cut.utterance && last.speaker !== participant) {
    emit(c, { type: 'interruption', by: participant, of: last.speaker, utterance: last.id, vibe: 'barge-in', atWord: cut.atWord, atMs: Math.round(cut.atMs) });
    // An interrupted first pair part obliges nobody: the human has the floor.
    state.last = { ...last, interrupted: true, pair: 'none' };
  }
  // A human may barge in at any time: whatever was being generated for someone else is dropped.
  state.pending = null;
  state.awaiting = null;
  // So is a stand-in's line waiting for the instructor: written before these words, it no longer
  // fits, and the room must answer the human now, not once somebody decides it.
  if (state.proposal) {
    const { participant: seat } = state.proposal;
    withdrawProposal(c, `${c.roster.name(participant)} spoke; ${c.roster.name(seat)}'s proposed line was withdrawn, as the conversation moved on.`);
  }
  if (!state.present.includes(participant)) state.present = [...state.present, participant];
  const plan: Plan = expected ?? { ...planFor(c, participant, 'human'), act: 'statement', ...(unheard ? { addressee: null, obligation: null } : {}) };
  // The instructor speaking for a seat unasked: the seat took the floor, as far as the room can tell.
  if (!expected) emit(c, { type: 'floor', speaker: participant, reason: instructor ? 'self-selected' : 'human' });
  accept(c, plan, text.trim(), instructor ? 'instructor' : 'human', { durationMs: input.durationMs, ...(input.spoken ? { spoken: input.spoken } : {}), ...(input.sentAt !== undefined ? { sentAt: input.sentAt } : {}) });
  // Said before the question was heard, and asking nobody anything itself: the question still waits for their answer.
  if (owed && unheard && state.phase === 'running' && state.last?.pair === 'none') return beginTurn(c, owed);
  proceed(c);
};

/** The open proposal is dismissed without the instructor, who is told why. */
const withdrawProposal = (c: Ctx, why: string): void => {
  const proposal = c.state.proposal;
  if (!proposal) return;
  c.state.proposal = null;
  emit(c, { type: 'approval-resolved', proposal: proposal.id, decision: 'dismiss' });
  emit(c, { type: 'system', level: 'info', code: 'proposal-withdrawn', message: why, participant: proposal.participant, audience: 'observers' });
};

/**
 * The instructor takes a seat over: when it has the floor the room waits for the instructor's
 * line, as for a present human (nobody else sees the switch). Handed back, the seat is the
 * generator's (or its human's, if they are here) again, and a turn that waited for it goes on.
 */
const onTakeOver = (c: Ctx, input: Extract<EngineInput, { type: 'take-over' }>): void => {
  const { state } = c;
  const { participant, on } = input;
  if (!c.roster.byId.has(participant) || state.controlled.includes(participant) === on) return;
  const joined = state.present.includes(participant) && !state.controlled.includes(participant);
  if (on && joined) {
    emit(c, { type: 'system', level: 'warn', code: 'seat-taken', message: `${c.roster.name(participant)} is here and speaks for themselves.`, audience: 'observers' });
    return;
  }
  state.controlled = on ? [...state.controlled, participant] : state.controlled.filter((p) => p !== participant);
  state.present = on ? [...state.present, participant] : state.present.filter((p) => p !== participant);
  emit(c, {
    type: 'system',
    level: 'info',
    code: on ? 'take-over' : 'hand-back',
    message: on ? `You speak for ${c.roster.name(participant)}: the room waits for your line on their turns.` : `${c.roster.name(participant)} is back with the simulation.`,
    participant,
    audience: 'observers',
  });
  const plan = state.awaiting;
  if (!on && plan?.speaker === participant && state.phase === 'running') {
    state.awaiting = null;
    beginTurn(c, plan);
  }
  // A line already being generated for the seat is let through: the instructor speaks from its next turn.
};

const onApproval = (c: Ctx, input: Extract<EngineInput, { type: 'approval' }>): void => {
  const { state } = c;
  const proposal = state.proposal;
  if (!proposal || proposal.id !== input.proposal) {
    emit(c, { type: 'system', level: 'warn', code: 'unknown-proposal', message: `No open proposal "${input.proposal}"` });
    return;
  }
  state.proposal = null;
  const chosen = proposal.candidates[input.choice ?? 0] ?? { intent: proposal.intent, text: proposal.text };
  const text = input.decision === 'edit' ? (input.text ?? '').trim() || chosen.text : chosen.text;
  const choice = input.decision === 'approve' && input.choice ? { choice: input.choice } : {};
  emit(c, { type: 'approval-resolved', proposal: proposal.id, decision: input.decision, ...(input.decision === 'edit' ? { text } : {}), ...choice });
  if (input.decision === 'dismiss') {
    state.skipDerail = true;
    return proceed(c);
  }
  if (input.decision === 'regenerate') {
    const intent = input.intent ?? c.rng.pick(allIntents.filter((i) => i !== proposal.intent));
    return requestProposal(c, proposal.participant, intent);
  }
  deviate(c, proposal.participant, chosen.intent, text);
};

