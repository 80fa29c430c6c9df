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
import { intents as allIntents } from '../scene/schema';
import { parseBid, parseSelection, selectMostImportant } from './policies';
import { rememberThought } from './memory';
import { planFor } from './floor';
import { accept, beginTurn, countTurn, deviate, MAX_SELECTOR_ATTEMPTS, namesOf, onProposal, onUtteranceText, proceed, requestProposal, requestSelection } from './turn';
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
export { decideNextSpeaker, type Decision } from './floor';

export const step = (state: SessionState, input: EngineInput): StepResult => {
  const c = contextOf(state);
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
  // Paused: nothing is said. A reply that arrives now waits for `resume`.
  if (s.paused && (input.type === 'generated' || input.type === 'thoughts')) {
    s.held = [...s.held, input];
    return;
  }
  switch (input.type) {
    case 'start':
      return start(c);
    case 'generated':
      return onGenerated(c, input.request, input.text, input.durationMs);
    case 'thoughts':
      return onThoughts(c, input.request, input.answers);
    case 'say':
      return onSay(c, input);
    case 'inject': {
      const text = input.text.trim();
      if (!text) return;
      c.s.direction = text;
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
      const was = s.present.includes(input.participant);
      s.present = input.present ? [...new Set([...s.present, input.participant])] : s.present.filter((p) => p !== input.participant);
      if (was !== input.present) {
        const name = c.room.name(input.participant);
        emit(c, { type: 'system', level: 'info', code: input.present ? 'joined' : 'left', message: `${name} ${input.present ? 'joined' : 'left'} the room`, participant: input.participant });
      }
      // A human who arrives speaks for themselves: their simulated proposal is withdrawn.
      const proposal = s.proposal;
      if (input.present && proposal?.participant === input.participant) {
        s.proposal = null;
        emit(c, { type: 'approval-resolved', proposal: proposal.id, decision: 'dismiss' });
        emit(c, { type: 'system', level: 'info', code: 'proposal-withdrawn', message: `${c.room.name(input.participant)} joined; their simulated contribution was withdrawn.`, audience: 'observers' });
        if (s.phase === 'running') proceed(c);
      }
      // A human who leaves while the room waits for them is simulated for that turn instead.
      const plan = s.awaiting;
      if (!input.present && plan?.speaker === input.participant && s.phase === 'running') {
        s.awaiting = null;
        beginTurn(c, plan);
      }
      return;
    }
    case 'notice':
      emit(c, { type: 'system', level: input.level, code: input.code, message: input.message });
      return;
    case 'clock':
      s.t = Math.max(s.t, input.t);
      return;
    case 'pause':
      if (s.paused) return;
      s.paused = true;
      emit(c, { type: 'system', level: 'info', code: 'paused', message: 'The session is paused.' });
      return;
    case 'resume': {
      if (!s.paused) return;
      s.paused = false;
      emit(c, { type: 'system', level: 'info', code: 'resumed', message: 'The session resumed.' });
      const held = s.held;
      s.held = [];
      for (const reply of held) apply(c, reply);
      return proceed(c);
    }
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

const onGenerated = (c: Ctx, requestId: string, text: string, durationMs?: number): void => {
  const s = c.s;
  const pending = s.pending;
  if (!pending || pending.id !== requestId) return; // stale: the turn was skipped or a human barged in
  s.pending = null;
  const clean = text.trim();
  switch (pending.kind) {
    case 'utterance':
      return onUtteranceText(c, pending, clean, durationMs);
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

const onSay = (c: Ctx, input: Extract<EngineInput, { type: 'say' }>): void => {
  const s = c.s;
  const { participant, text, cut } = input;
  const person = c.room.byId.get(participant);
  if (!person || person.kind !== 'human') {
    emit(c, { type: 'system', level: 'warn', code: 'not-a-human', message: `"${participant}" is not a human participant of this scene` });
    return;
  }
  if (!text.trim()) return;
  const expected = s.awaiting?.speaker === participant ? s.awaiting : null;
  // Barge-in over a reply already being heard: what was said so far is logged, cut off by the human.
  const pending = s.pending;
  if (cut && 'request' in cut && pending?.kind === 'utterance' && pending.id === cut.request && cut.partial.trim()) {
    s.pending = null;
    const source = c.room.byId.get(pending.plan.speaker)?.kind === 'human' ? 'simulated-human' : 'ai';
    accept(c, pending.plan, cut.partial.trim(), source, { cutBy: participant, draft: pending.id, ...(cut.atMs !== undefined ? { durationMs: cut.atMs, cutAtMs: cut.atMs } : {}) });
  }
  // Barge-in over speech already logged but still playing: the interruption is logged after it.
  const last = s.last;
  if (cut && 'utterance' in cut && last?.id === cut.utterance && last.speaker !== participant) {
    emit(c, { type: 'interruption', by: participant, of: last.speaker, utterance: last.id, vibe: 'barge-in', atWord: cut.atWord, atMs: Math.round(cut.atMs) });
    // An interrupted first pair part obliges nobody: the human has the floor.
    s.last = { ...last, interrupted: true, pair: 'none' };
  }
  // A human may barge in at any time: whatever was being generated for someone else is dropped.
  s.pending = null;
  s.awaiting = null;
  if (!s.present.includes(participant)) s.present = [...s.present, participant];
  const plan: Plan = expected ?? { ...planFor(c, participant, 'human'), act: 'statement' };
  if (!expected) emit(c, { type: 'floor', speaker: participant, reason: 'human' });
  accept(c, plan, text.trim(), 'human', { durationMs: input.durationMs, ...(input.spoken ? { spoken: input.spoken } : {}) });
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

