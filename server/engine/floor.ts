/**
 * Who speaks next: the one place that orders interruptions, designations, scripted lines,
 * initiators, derailing human agents, facilitator acts and impromptu phases over the scene's
 * policy, and the plan each speaker is given (DialogLab A.2, MMAgents §3.2, MPOD §3.1,
 * MUCA §3.2.3).
 */
import { intents as allIntents, type Intent } from '../../shared/scene/schema';
import { taskFor, type Task } from './dialogue';
import { accusation } from './understanding';
import { afterRun, arbitratorDue, chooseFacilitatorAct } from './facilitator';
import { nextInOrder, selectNextParty } from './policies';
import { partOf, partyAllows, rolesFor, snippetMembers, speakerFor, speakersFor } from './roster';
import { maxSimilarity, REPETITION_THRESHOLD } from './similarity';
import { currentTopic, discussion, nextTopic } from './subtopics';
import { contextOf, currentSnippet, nextSnippetIndex, type Ctx, type FloorReason, type Plan, type SessionState } from './state';

/** What choosing the floor uses of a step's working copy: no events or requests, so it cannot emit. */
type Working = Pick<Ctx, 'state' | 'roster' | 'rng'>;

/** What the turn loop is to do next. */
export type Decision =
  /** Give `plan.speaker` the floor. */
  | { kind: 'turn'; plan: Plan }
  /** The snippet's next scripted line. */
  | { kind: 'line'; plan: Plan; text: string }
  /** A human agent proposes a deviation (DialogLab §5.2.2). */
  | { kind: 'derail'; participant: string; intent: Intent }
  /** Moderated mode: human agents who would derail raise their hands instead; then choose again. */
  | { kind: 'raise-hands'; participants: string[] }
  /** Ask the LLM selector among the candidates (MPOD §3.1). */
  | { kind: 'select'; candidates: string[] }
  /** Ask the bidders for their bids (MMAgents §3.2). */
  | { kind: 'think'; bidders: string[] };

export interface Selection {
  /** `state` after the choice: randomness drawn, cursors moved, an interruption or a scripted line used up. */
  state: SessionState;
  decision: Decision;
}

/**
 * Who speaks next, in priority order:
 *   1. a pending interrupter;
 *   2. the addressee of an open first pair part, where it obliges (see `openObligation`);
 *   3. the snippet's next scripted line;
 *   4. the snippet's initiator, at its first turn;
 *   5. a derailing human agent (never during an impromptu phase, nor twice for one turn);
 *   6. the facilitator's act (MUCA);
 *   7. the impromptu phase's participant, every other turn;
 *   8. the scene's policy, which may ask for an LLM selection or for bids instead of deciding.
 *
 * Pure: `state` (its `rng` included) is read, never written; the turn loop carries the decision out.
 */
export const selectNextSpeaker = (state: SessionState): Selection => {
  const c = contextOf(state);
  const decision = closing(c.state, choose(c));
  return { state: { ...c.state, rng: c.rng.state }, decision };
};

/** Turns a digression needs to run and be closed: its line, its impromptu phase (at most 4 by default) and a reply. */
const DIGRESSION_TURNS = 5;

const opening = new Set<string>(['question', 'request', 'offer', 'invitation', 'greeting', 'moderate', 'encourage']);

/** The session's last turn asks nothing it cannot wait for: a turn planned to open a pair closes instead. */
const closing = (state: SessionState, decision: Decision): Decision => {
  if (decision.kind !== 'turn' || !closingTurn(state) || state.present.includes(decision.plan.speaker)) return decision;
  const { plan } = decision;
  if (plan.obligation || !opening.has(plan.act)) return decision;
  const { facilitatorAct: _, ...rest } = plan;
  return { kind: 'turn', plan: { ...rest, act: 'statement', addressee: null, move: 'close' } };
};

const choose = (c: Working): Decision => {
  const { state } = c;
  const turnTaking = state.scene.turnTaking;
  const last = state.last?.speaker ?? null;
  const obligation = openObligation(c);
  // A present human's line comes first: the script waits until the one it answered or spoke to has taken it up.
  const taker = !state.interruption && !obligation ? takeUpOwed(c) : null;
  if (taker) {
    const plan = planFor(c, taker, 'taking-up');
    // A dodged or half-answered question is pressed once, to the one who dodged it.
    if (taskOf(c, plan).kind === 'probe') return { kind: 'turn', plan: { ...plan, act: 'question', addressee: state.last!.speaker, move: 'follow-up' } };
    return { kind: 'turn', plan };
  }
  // The script and derailing agents wait while a turn is owed to an interrupter or an addressee.
  if (!state.interruption && !obligation) {
    const line = currentSnippet(state).lines[state.line];
    if (line) {
      state.line++;
      return { kind: 'line', plan: { ...planFor(c, line.speaker, 'scripted'), addressee: line.to ?? null }, text: line.text };
    }
    // No digression starts in the session's last turns: there would be no time to come back from it.
    const final = state.turns + DIGRESSION_TURNS >= state.maxTurns;
    if (!state.impromptu && state.snippetTurns > 0 && !state.skipDerail && !final) {
      const derail = rollDerails(c);
      if (derail) return derail;
    }
  }
  state.skipDerail = false;
  if (state.interruption) {
    const { by, vibe } = state.interruption;
    state.interruption = null;
    return { kind: 'turn', plan: { ...planFor(c, by, 'interruption'), act: 'interrupt', vibe, addressee: last } };
  }
  if (state.snippetTurns === 0 && !obligation) {
    const initiator = speakerFor(c.roster, currentSnippet(state).initiator);
    const opening = state.turns === 0;
    return { kind: 'turn', plan: { ...planFor(c, initiator, 'initiator'), ...(opening ? { act: 'greeting' as const, addressee: null } : {}) } };
  }
  if (obligation) {
    // Moderated mode: the moderator's invitation hands the floor to the approved hand, who asks their question.
    if (turnTaking.partyMode === 'moderated' && obligation.speaker === state.approved && obligation.from === turnTaking.moderator) {
      return { kind: 'turn', plan: { ...planFor(c, obligation.speaker, 'hand-approved'), act: 'question', addressee: questionTarget(c, obligation.speaker), obligation: null } };
    }
    return { kind: 'turn', plan: planFor(c, obligation.speaker, 'designated') };
  }
  const facilitator = turnTaking.facilitator;
  const moderated = turnTaking.partyMode === 'moderated';
  if (facilitator && last !== facilitator.participant && (!moderated || facilitator.participant === turnTaking.moderator)) {
    const view = facilitatorView(c);
    // MUCA Algorithm 1: the arbitrator runs every N_exe utterances; otherwise the facilitator listens.
    const fired = arbitratorDue(view, state.facilitator) ? chooseFacilitatorAct(view, state.facilitator) : undefined;
    if (fired !== undefined) state.facilitator = afterRun(state.facilitator, fired !== null);
    if (fired) {
      const plan = planFor(c, facilitator.participant, 'facilitator');
      return { kind: 'turn', plan: { ...plan, act: fired.act, addressee: fired.addressee, obligation: null, facilitatorAct: fired.act, ...(fired.topic ? { topic: fired.topic } : {}) } };
    }
  }
  if (state.impromptu && last !== state.impromptu.participant && state.impromptu.remaining % 2 === 0) {
    const { participant, intent } = state.impromptu;
    return { kind: 'turn', plan: { ...planFor(c, participant, 'impromptu'), act: 'deviation', intent, addressee: last } };
  }
  return byPolicy(c);
};

/**
 * DialogLab §5.2.2: each absent, non-reactive human agent in the snippet (but the last speaker)
 * derails with its probability; the first to do so proposes a deviation with one of its intents.
 */
const rollDerails = (c: Working): Decision | null => {
  const { state } = c;
  const raised: string[] = [];
  for (const id of snippetMembers(c.roster, currentSnippet(state))) {
    const p = c.roster.byId.get(id);
    const sim = p?.simulated;
    if (!p || p.kind !== 'human' || !sim || state.present.includes(id) || id === state.last?.speaker) continue;
    if (sim.mode === 'reactive' || !partyAllows(c.roster, id)) continue;
    if (!c.rng.chance(sim.derailProbability)) continue;
    // Moderated mode: a deviation waits its turn like everyone else, behind a raised hand.
    if (state.scene.turnTaking.partyMode === 'moderated') {
      raised.push(id);
      continue;
    }
    return { kind: 'derail', participant: id, intent: c.rng.pick(sim.intents.length ? sim.intents : allIntents) };
  }
  if (raised.length === 0) return null;
  // The roll is spent for this turn: the choice after the hands go up does not roll again.
  state.skipDerail = true;
  return { kind: 'raise-hands', participants: raised };
};

const byPolicy = (c: Working): Decision => {
  const { state } = c;
  const turnTaking = state.scene.turnTaking;
  const last = state.last?.speaker ?? null;
  // The facilitator speaks for its acts (and when addressed), never for an ordinary turn (MUCA).
  const all = candidatesFor(c, true).filter((id) => id !== turnTaking.facilitator?.participant);
  // A human who let the floor pass is not handed it straight back, while anyone else may speak.
  const others = all.filter((id) => id !== state.passed);
  const everyone = others.length ? others : all;
  const candidates = everyone.filter((id) => id !== last && (!state.impromptu || id !== state.impromptu.participant));
  const pool = candidates.length ? candidates : everyone;
  if (pool.length === 0) return { kind: 'turn', plan: planFor(c, last ?? currentSnippet(state).initiator, 'continues') };
  switch (turnTaking.policy) {
    case 'round-robin': {
      const next = nextInOrder(snippetMembers(c.roster, currentSnippet(state)), state.rrCursor, (id) => pool.includes(id)) ?? pool[0]!;
      state.rrCursor = next;
      return { kind: 'turn', plan: planFor(c, next, 'round-robin') };
    }
    case 'random':
      return { kind: 'turn', plan: planFor(c, c.rng.pick(pool), 'random') };
    case 'llm-selector':
      // MPOD §3.1: with fewer than two utterances there is too little context; use round-robin.
      if (state.memory.history.length < 2) {
        const next = nextInOrder(snippetMembers(c.roster, currentSnippet(state)), last, (id) => pool.includes(id)) ?? pool[0]!;
        return { kind: 'turn', plan: planFor(c, next, 'round-robin') };
      }
      return { kind: 'select', candidates: pool };
    case 'party':
      return { kind: 'turn', plan: byParty(c, pool) };
    case 'equal': {
      // MMAgents EQUAL: everyone speaks once a round, in an order drawn afresh each round.
      let round = state.round.filter((id) => pool.includes(id));
      if (round.length === 0) {
        round = shuffle(everyone, c.rng);
        // A new round does not open with the one who closed the last.
        if (round.length > 1 && round[0] === last) round.push(round.shift()!);
      }
      const [next, ...rest] = round as [string, ...string[]];
      state.round = rest;
      return { kind: 'turn', plan: planFor(c, next, 'equal') };
    }
    case 'self-selection':
    case 'cssn-or-ss': {
      // Present humans self-select by speaking; reactive human agents only answer when addressed.
      const bidders = pool.filter((id) => !state.present.includes(id));
      if (bidders.length === 0) return { kind: 'turn', plan: planFor(c, last && partyAllows(c.roster, last) ? last : pool[0]!, 'continues') };
      return { kind: 'think', bidders };
    }
  }
};

/** DialogLab A.2: party-based allocation; the party's speaking mode picks who speaks for it. */
const byParty = (c: Working, pool: string[]): Plan => {
  const { state } = c;
  const turnTaking = state.scene.turnTaking;
  const last = state.last?.speaker ?? null;
  if (turnTaking.partyMode === 'moderated' && turnTaking.moderator) {
    const moderator = turnTaking.moderator;
    if (last !== moderator) {
      return { ...planFor(c, moderator, 'moderator'), act: 'moderate', addressee: state.hands.find((h) => h !== moderator) ?? null };
    }
    if (state.approved) return { ...planFor(c, state.approved, 'hand-approved'), act: 'question', addressee: questionTarget(c, state.approved) };
    // Nobody approved yet: the moderator keeps the floor and invites the first raised hand, or asks for questions.
    return { ...planFor(c, moderator, 'moderator'), act: 'moderate', addressee: state.hands.find((h) => h !== moderator) ?? null };
  }
  const members = new Set(pool);
  // DialogLab §4.1.1, "all": the party contributes collaboratively; those who have not spoken yet
  // build on the first one's point before the floor passes on.
  const chorus = state.chorus?.remaining.filter((id) => members.has(id)) ?? [];
  if (chorus.length) {
    const [next, ...rest] = chorus as [string, ...string[]];
    state.chorus = rest.length ? { ...state.chorus!, remaining: rest } : null;
    return { ...planFor(c, next, 'party'), act: 'statement', addressee: null, move: 'build-on' };
  }
  state.chorus = null;
  const parties = state.scene.parties.filter((p) => speakersFor(p).some((id) => members.has(id)));
  if (parties.length === 0) return planFor(c, c.rng.pick(pool), 'party');
  const current = last ? c.roster.partyOf.get(last) : undefined;
  const party = selectNextParty(parties, parties.find((p) => p.id === current?.id), turnTaking.partyMode === 'round-robin' ? 'round-robin' : 'free', c.rng);
  // "random" draws one of the other modes each time the party has the floor.
  const mode = party.speakingMode === 'random' ? c.rng.pick(['all', 'representative', 'subset'] as const) : party.speakingMode;
  const present = party.members.filter((id) => members.has(id));
  const speakers =
    mode === 'representative'
      ? [party.representative && members.has(party.representative) ? party.representative : (present[0] ?? party.members[0]!)]
      : mode === 'subset'
        ? (party.subset?.filter((id) => members.has(id)) ?? present.slice(0, Math.max(1, Math.ceil(present.length / 2))))
        : present;
  const pick = speakers.length ? speakers : present;
  // Each mode rotates through its speakers.
  const speaker = nextInOrder(pick, state.partyCursor[party.id] ?? null, (id) => members.has(id)) ?? pick[0] ?? c.rng.pick(pool);
  state.partyCursor = { ...state.partyCursor, [party.id]: speaker };
  if (mode === 'all') {
    const others = nextFrom(present, speaker).slice(0, CHORUS_MAX);
    if (others.length) state.chorus = { party: party.id, remaining: others };
  }
  return planFor(c, speaker, 'party');
};

/** At most this many members build on the first speaker of a party in "all" mode: a chorus, not a queue. */
const CHORUS_MAX = 2;

/** The members after `id` in order, wrapping around, without `id`. */
const nextFrom = (ids: readonly string[], id: string): string[] => {
  const i = ids.indexOf(id);
  return [...ids.slice(i + 1), ...ids.slice(0, Math.max(0, i))];
};

/** Who may be given the floor by a policy in the current snippet. */
export const candidatesFor = (c: Working, policy: boolean): string[] => {
  const { state } = c;
  return snippetMembers(c.roster, currentSnippet(state)).filter((id) => {
    if (!partyAllows(c.roster, id)) return false;
    const p = c.roster.byId.get(id);
    if (!p) return false;
    // A reactive simulated human waits to be asked; without designation (MMAgents' baselines) they take part like everyone.
    return !(policy && designating(state) && p.kind === 'human' && !state.present.includes(id) && (p.simulated?.mode ?? 'reactive') === 'reactive');
  });
};

export type Obligation = { speaker: string; from: string };

/**
 * Sacks et al. rule 1 (MMAgents §3.2.4): a first pair part addressed to someone obliges them to
 * speak next, under every policy: the person named answers, whatever their party's speaking
 * mode (a question to Sofia is Sofia's to answer, not her party representative's). Not when the
 * first pair part was cut off, nor, in moderated mode, when the moderator addresses anyone but
 * the hand they approved (the invitation is the approval).
 */
export const openObligation = (c: Working): Obligation | null => {
  const { state } = c;
  const last = state.last;
  if (!last || last.interrupted || last.pair === 'none' || !last.addressee) return null;
  // MMAgents' baselines select without detectDesignation(): an addressee waits their turn.
  if (!designating(state)) return null;
  const speaker = last.addressee;
  if (speaker === last.speaker || !c.roster.byId.has(speaker)) return null;
  const turnTaking = state.scene.turnTaking;
  if (turnTaking.partyMode === 'moderated' && last.speaker === turnTaking.moderator && state.approved !== speaker) return null;
  return { speaker, from: last.speaker };
};

/** The task of `plan`'s turn in the dialogue state (dialogue.ts), before its line is accepted. */
export const taskOf = (c: Working, plan: Plan): Task => {
  const { state, roster } = c;
  const last = state.last;
  return taskFor({
    speaker: plan.speaker,
    obligation: plan.obligation,
    last: last && !last.interrupted ? { id: last.id, speaker: last.speaker, text: last.text, human: roster.byId.get(last.speaker)?.kind === 'human', replyTo: last.replyTo, addressee: last.addressee } : null,
    exchanges: state.exchanges,
    previous: state.spoken.at(-2) ?? null,
  });
};

/**
 * The persona who owes a present human's line its take-up: the one whose question it answers,
 * else the one it was said to (or who speaks for them). Only where the current speaker may select
 * the next (not MMAgents' baselines) and a chair does not hand out the floor (moderated mode).
 */
export const takeUpOwed = (c: Working): string | null => {
  const { state, roster } = c;
  const last = state.last;
  if (!last || last.interrupted || last.pair !== 'none' || !state.present.includes(last.speaker)) return null;
  if (!designating(state) || state.scene.turnTaking.partyMode === 'moderated') return null;
  // "Yes, that works." to "Does that work?" answers it and says nothing more: there is nothing to take up, and the scene goes on.
  if (bareAssent.test(last.text) && state.exchanges.some((e) => e.answer?.id === last.id && e.status === 'answered')) return null;
  // Named in passing ("I think Elena did it") is spoken about: the one named takes it up.
  const named = roster.scene.participants.filter((p) => p.kind === 'ai' && new RegExp(`\\b(${escaped(p.name)}|${escaped(roster.shortName(p.id))})\\b`, 'i').test(last.text)).map((p) => p.id);
  // Said to someone, they take it up; accused by name, the accused answers first; else the one whose question it answers.
  // Spoken to by name first ("Elena, Rupert saw you…"): the one spoken to is accused, not the witness named after.
  const spokenTo = named.find((id) => new RegExp(`^\\W*(${escaped(roster.byId.get(id)!.name)}|${escaped(roster.shortName(id))})\\s*,`, 'i').test(last.text));
  const order = accusation.test(last.text) ? [...(spokenTo ? [spokenTo] : []), ...named, last.addressee, last.replyTo] : [last.addressee, last.replyTo, ...named];
  for (const id of order) {
    if (!id || id === last.speaker || roster.byId.get(id)?.kind !== 'ai') continue;
    const taker = speakerFor(roster, id);
    if (taker !== last.speaker && roster.byId.get(taker)?.kind === 'ai' && !state.controlled.includes(taker)) return taker;
  }
  return null;
};

const bareAssent = /^\W*(yes|yeah|yep|sure|ok|okay|fine|great|perfect|sounds good|that works|works for me|of course)\b[^.!?]{0,20}[.!?]*\s*$/i;

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether the policy lets the current speaker select the next (all but MMAgents' EQUAL and SS baselines). */
export const designating = (state: SessionState): boolean => state.scene.turnTaking.policy !== 'equal' && state.scene.turnTaking.policy !== 'self-selection';

/** A fresh random order of `ids` (Fisher-Yates over the session's randomness). */
export const shuffle = <T,>(ids: readonly T[], rng: Working['rng']): T[] => {
  const out = [...ids];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
};

/** The plan for `speaker`: answers an open first pair part addressed to them, else picks an act. */
export const planFor = (c: Working, speaker: string, reason: FloorReason): Plan => {
  const { state } = c;
  const last = state.last;
  if (last && !last.interrupted && last.pair !== 'none' && last.addressee === speaker && last.speaker !== speaker) {
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

/**
 * The floor is really a present human's, to be waited for until they speak: they were asked,
 * invited or greeted (an obligation), called on by the chair, open the snippet, have a scripted
 * line, or chair it. Otherwise the policy merely offers it, and the room waits a short silence.
 */
export const floorIsTheirs = (plan: Plan): boolean => plan.obligation !== null || ownFloor.has(plan.reason);
const ownFloor = new Set<FloorReason>(['designated', 'hand-approved', 'initiator', 'scripted', 'moderator', 'interruption']);

/** Whether this turn is the session's last: its turn cap, or the last turn of the last snippet. A scene's own closing line closes it instead (ending.ts). */
export const closingTurn = (state: SessionState): boolean =>
  !state.scene.closing && (state.turns + 1 >= state.maxTurns || (nextSnippetIndex(state) === null && state.snippetTurns + 1 >= currentSnippet(state).turns));

/**
 * The engine's plan for an unobliged turn; the generated text decides what is logged. The scene's
 * roles shape it: an asker mostly asks the answerers, and follows up on the answer to their own
 * question; an answerer mostly speaks to the point, now and then asking back. The last turn of
 * the session opens nothing: it closes.
 */
const chooseAct = (c: Working, speaker: string): Pick<Plan, 'act' | 'addressee' | 'move'> => {
  const { state } = c;
  const person = c.roster.byId.get(speaker);
  if (person?.kind === 'human' && state.present.includes(speaker)) return { act: 'statement', addressee: null };
  if (closingTurn(state)) return { act: 'statement', addressee: null, move: 'close' };
  const roll = c.rng.next();
  const part = partOf(c.roster, currentSnippet(state), speaker);
  const last = state.last;
  // "And then what?": the asker comes back on the answer to their own question.
  const answeredMe = last && last.speaker !== speaker && last.replyTo === speaker && last.pair === 'none' ? last.speaker : null;
  if (part === 'asker' && answeredMe && rolesFor(c.roster, currentSnippet(state))?.followUps && roll < 0.55) {
    return { act: 'question', addressee: answeredMe, move: 'follow-up' };
  }
  const target = questionTarget(c, speaker);
  if (!target) return { act: 'statement', addressee: null };
  const asking = part === 'asker' ? 0.6 : part === 'answerer' ? 0.12 : 0.3;
  if (roll < asking) return { act: 'question', addressee: target };
  // Answering a human's questions (the candidate's turn to ask), a persona hands the floor back to them.
  // Only once their question has had its answer: "what else would you like to know?" out of nowhere reads as a dodge.
  if (part === 'answerer' && c.roster.byId.get(target)?.kind === 'human' && last?.replyTo === target && roll < 0.6) return { act: 'invitation', addressee: target };
  if (part === 'answerer') return { act: 'statement', addressee: null };
  if (roll < asking + 0.07) return { act: 'request', addressee: target };
  if (roll < asking + 0.11) return { act: 'offer', addressee: target };
  if (roll < asking + 0.15) return { act: 'invitation', addressee: target };
  return { act: 'statement', addressee: null };
};

/**
 * Someone worth asking: by the scene's roles (an asker asks the answerers, an answerer the
 * askers), else anyone; prefers those who have spoken least in the snippet; never the speaker.
 */
export const questionTarget = (c: Working, speaker: string): string | null => {
  const { state } = c;
  const moderator = state.scene.turnTaking.partyMode === 'moderated' ? state.scene.turnTaking.moderator : undefined;
  const speakerParty = c.roster.partyOf.get(speaker)?.id;
  // Nobody puts questions to the facilitator while someone else could answer: it listens.
  const facilitator = state.scene.turnTaking.facilitator?.participant;
  let options = candidatesFor(c, false).filter((id) => id !== speaker && id !== moderator);
  if (options.some((id) => id !== facilitator)) options = options.filter((id) => id !== facilitator);
  if (moderator) options = options.filter((id) => c.roster.partyOf.get(id)?.id !== speakerParty);
  // Nobody asks again at once the human who just let the floor pass.
  if (options.some((id) => id !== state.passed)) options = options.filter((id) => id !== state.passed);
  const roles = rolesFor(c.roster, currentSnippet(state));
  // By membership, not part: a chair who is also among the askers asks the answerers too.
  const asks = roles?.askers.has(speaker) ?? false;
  const answers = roles?.answerers.has(speaker) ?? false;
  if (roles && asks !== answers) {
    const wanted = asks ? roles.answerers : roles.askers;
    const fitting = options.filter((id) => wanted.has(id));
    if (fitting.length) options = fitting;
    // The one to be asked just let the floor pass: an interviewer does not turn to question the rest of the panel meanwhile.
    else if (state.passed && wanted.has(state.passed)) return null;
  }
  if (options.length === 0) return null;
  const counts = new Map(options.map((id) => [id, 0]));
  for (const r of state.log) if (counts.has(r.speaker)) counts.set(r.speaker, counts.get(r.speaker)! + 1);
  const least = Math.min(...counts.values());
  const quiet = options.filter((id) => counts.get(id)! <= least + 1);
  return c.rng.pick(quiet);
};

/** MUCA's group size N_p: the snippet's members, the facilitator aside. */
export const groupSize = (c: Working): number =>
  snippetMembers(c.roster, currentSnippet(c.state)).filter((id) => id !== c.state.scene.turnTaking.facilitator?.participant).length;

/** MUCA's short-term window N_sw = 2 · N_p (MUCA-medium), at least the history window. */
const shortWindow = (c: Working): number => Math.max(2 * groupSize(c), c.state.scene.turnTaking.historyWindow);

const facilitatorView = (c: Working) => {
  const { state } = c;
  const facilitator = state.scene.turnTaking.facilitator!;
  const recent = state.memory.history.map((u) => u.text);
  const current = currentTopic(state.topics);
  let stuck: boolean | undefined;
  return {
    acts: facilitator.acts,
    pace: facilitator.pace,
    ...(facilitator.every !== undefined ? { every: facilitator.every } : {}),
    facilitator: facilitator.participant,
    members: snippetMembers(c.roster, currentSnippet(state)).filter((id) => id !== facilitator.participant),
    turns: state.turns,
    log: state.log,
    window: Math.max(state.scene.turnTaking.historyWindow, 5),
    snippet: currentSnippet(state).id,
    snippetTurns: state.snippetTurns,
    hasNextSnippet: nextSnippetIndex(state) !== null,
    // Compared pairwise over the window, and read only by a chime-in the arbitrator considers: worked out when read.
    get stuck() {
      return (stuck ??= recent.some((text, i) => i > 0 && maxSimilarity(text, recent.slice(0, i)) > REPETITION_THRESHOLD));
    },
    topic: current ? discussion(current, state.turns, shortWindow(c)) : null,
    nextTopic: nextTopic(state.topics, currentSnippet(state).id)?.id ?? null,
    well: { count: state.topics.well, since: state.topics.wellSince },
  };
};

