/**
 * Who speaks next: the priority of interruptions, initiators, designations, facilitator acts and
 * impromptu phases over the scene's policy, and the plan each speaker is given (DialogLab A.2,
 * MMAgents §3.2, MPOD §3.1, MUCA §3.2.3).
 */
import type { Act } from './events';
import { chooseFacilitatorAct } from './facilitator';
import { nextInOrder, selectNextParty } from './policies';
import { partyAllows, snippetMembers, voiceFor, voicesOf } from './room';
import { maxSimilarity, REPETITION_THRESHOLD } from './similarity';
import { contextOf, currentSnippet, nextSnippetIndex, type Ctx, type FloorReason, type Plan, type SessionState } from './state';


/**
 * The next-speaker decision alone, as `step` would make it from `state`, without carrying it out
 * or emitting anything (for inspection tools and the benchmark).
 */
export const decideNextSpeaker = (state: SessionState): Decision => {
  const c = contextOf(state);
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
export const selectNextSpeaker = (c: Ctx, obligation: Obligation | null): Decision => {
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
export const candidatesFor = (c: Ctx, policy: boolean): string[] => {
  const s = c.s;
  return snippetMembers(c.room, currentSnippet(s)).filter((id) => {
    if (!partyAllows(c.room, id)) return false;
    const p = c.room.byId.get(id);
    if (!p) return false;
    return !(policy && p.kind === 'human' && !s.present.includes(id) && (p.simulated?.mode ?? 'reactive') === 'reactive');
  });
};

export type Obligation = { speaker: string; from: string };

/**
 * Sacks et al. rule 1 (MMAgents §3.2.4): a first pair part addressed to someone obliges them to
 * speak next. Honoured by `cssn-or-ss`; under every policy when a real human asks or is asked,
 * for simulated humans, for the facilitator (MUCA's direct reply) and whoever the facilitator
 * asks; and for an approved hand's question in moderated mode.
 * A party in representative mode answers through its representative.
 */
export const openObligation = (c: Ctx): Obligation | null => {
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
export const planFor = (c: Ctx, speaker: string, reason: FloorReason): Plan => {
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
export const questionTarget = (c: Ctx, speaker: string): string | null => {
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

