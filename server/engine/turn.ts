/**
 * Carrying out turns: the turn loop of DialogLab Algorithm 1, the requests the engine makes of its
 * shell (generate, think, select), and what happens when an utterance is accepted: anti-repetition
 * (MPOD §3.2), designation, interruptions, backchannels, memory, budgets and hand raising.
 */
import { intents, knowledgeOf, type Intent, type LoadedScene } from '../../shared/scene/schema';
import { memoize, memoizeByIdentity, rememberLast } from './memo';
import type { Cue } from './requests';
import { detectDesignation } from './designation';
import type { Act, PairType, UtteranceEvent } from '../../shared/events';
import { afterTurn } from './facilitator';
import { RECALL_LIMIT, remember, retrieve, type Remembered } from './memory';
import { nextInOrder, sampleUtteranceLength } from './policies';
import { buildNormalizePrompt, buildSelectorPrompt, buildThinkPrompt, buildUtterancePrompt, type PromptParts } from './prompt';
import { partOf, partyAllows, rolesFor, snippetMembers, type Roster } from './roster';
import { quotableRuns, screenLine, spokenLine, type ScreenVerdict } from './novelty';
import { countWords, defaultSpeakingRate, speakingMs, tokensOf } from '../../shared/words';
import { contentWords } from './vocabulary';
import { candidatesFor, closingTurn, floorIsTheirs, groupSize, openObligation, planFor, selectNextSpeaker, shuffle, takeUpOwed, taskOf } from './floor';
import { currentTopic, label, moveTo, nextTopic, summaryOf, touchTopics, visibleTopics, type Topics } from './subtopics';
import { rngFrom } from '../../shared/rng';
import { echoes, opened, pressed, replied, viewFor } from './dialogue';
import { humanAsked, lastTurns, windDown } from './ending';
import {
  advanceSnippet,
  currentSnippet,
  emit,
  end,
  nextId,
  nextSnippetIndex,
  setHand,
  type Candidate,
  type Ctx,
  type Ending,
  type Pending,
  type Plan,
  type SessionState,
} from './state';

export const GAP_MS = 400;
export const BASE_TEMPERATURE = 0.8;
export const MAX_RESAMPLES = 5;
export const MAX_SELECTOR_ATTEMPTS = 4; // the first try plus MPOD's 3 retries
const backchannelCues = ['mm-hmm', 'right', 'I see', 'yeah', 'okay', 'true'];
const disagreementPattern =
  /\b(disagree|don't think|do not think|not sure|not so sure|not convinced|however|i doubt|that's not|isn't right|differently|push back|challenge|but )/i;

// ---------------------------------------------------------------------------------------------
// The turn loop (DialogLab Algorithm 1)

export const proceed = (c: Ctx): void => {
  const { state } = c;
  // A scripted line is spoken at once, so loop until the engine needs something from outside.
  for (let guard = 0; guard < 1000; guard++) {
    if (state.phase !== 'running' || state.paused || state.pending || state.awaiting || state.proposal) return;
    // The budget spent, the session winds down: open questions answered, then a goodbye (ending.ts).
    let ending: Ending['reason'] | null = state.ending?.reason ?? null;
    if (!ending && state.turns >= state.maxTurns) {
      if (state.exactCap) return end(c, 'max-turns');
      ending = 'max-turns';
    }
    // A human's question just before the last turn is answered by whom it asks, not passed over by a goodbye.
    const capped = state.turns + 1 >= state.maxTurns;
    if (!ending && closingTurn(state) && humanAsked(c) && !(capped && state.exactCap)) ending = capped ? 'max-turns' : 'snippets-done';
    const obligation = openObligation(c);
    // A turn owed to an interrupter, an addressee or a human's line, and an impromptu phase, run past the snippet's budget.
    if (!ending && !obligation && !takeUpOwed(c) && !state.interruption && !state.impromptu && state.snippetTurns >= currentSnippet(state).turns) {
      if (!advanceSnippet(c)) ending = 'snippets-done';
    }
    if (ending) {
      const farewell = windDown(c, ending);
      if (farewell.kind === 'end') return end(c, farewell.reason);
      if (farewell.kind === 'turn') return beginTurn(c, farewell.plan);
      emit(c, { type: 'floor', speaker: farewell.plan.speaker, reason: 'closing' });
      accept(c, farewell.plan, farewell.text, 'scripted', {});
      continue;
    }
    // The working state is this step's own copy: it carries the live randomness into the decision.
    state.rng = c.rng.state;
    const selection = selectNextSpeaker(state);
    Object.assign(state, selection.state);
    c.rng = rngFrom(selection.state.rng);
    const { decision } = selection;
    switch (decision.kind) {
      case 'line':
        if (state.present.includes(decision.plan.speaker)) return beginTurn(c, decision.plan);
        emit(c, { type: 'floor', speaker: decision.plan.speaker, reason: 'scripted' });
        accept(c, decision.plan, decision.text, 'scripted', {});
        continue;
      case 'raise-hands':
        for (const id of decision.participants) setHand(c, id, true);
        continue;
      case 'derail':
        return requestProposal(c, decision.participant, decision.intent);
      case 'select':
        return requestSelection(c, decision.candidates, 1);
      case 'think':
        return requestThoughts(c, decision.bidders);
      case 'turn':
        return beginTurn(c, decision.plan);
    }
  }
};

export const onProposal = (c: Ctx, pending: Extract<Pending, { kind: 'proposal' }>, text: string): void => {
  const { state } = c;
  const { participant, intent } = pending;
  if (pending.wanted) {
    // Gathering candidates: an empty or repeated draft is left out; the next intent is drafted.
    const drafted = text && !pending.drafted?.some((d) => d.text === text) ? [...(pending.drafted ?? []), { intent, text }] : (pending.drafted ?? []);
    const [next, ...rest] = pending.wanted;
    if (next) return requestProposal(c, participant, next, drafted, rest);
    if (drafted.length === 0) return onProposal(c, { ...pending, wanted: undefined }, '');
    const id = nextId(c, 'p');
    const first = drafted[0]!;
    state.proposal = { id, participant, intent: first.intent, text: first.text, candidates: drafted };
    emit(c, { type: 'approval-needed', proposal: id, participant, intent: first.intent, text: first.text, candidates: drafted, timeoutMs: approvalTimeoutMs(state) });
    return;
  }
  if (!text) {
    emit(c, { type: 'system', level: 'warn', code: 'empty-proposal', message: `No proposal for ${c.roster.name(participant)}` });
    state.skipDerail = true;
    return proceed(c);
  }
  const mode = c.roster.byId.get(participant)?.simulated?.mode;
  if (mode === 'human-control') {
    const id = nextId(c, 'p');
    state.proposal = { id, participant, intent, text, candidates: [{ intent, text }] };
    emit(c, { type: 'approval-needed', proposal: id, participant, intent, text, candidates: [{ intent, text }], timeoutMs: approvalTimeoutMs(state) });
    return;
  }
  deviate(c, participant, intent, text);
};

/** DialogLab §5.2.2: an accepted deviation starts an impromptu phase of a few turns. */
export const deviate = (c: Ctx, participant: string, intent: Intent, text: string): void => {
  const { state } = c;
  const range = c.roster.byId.get(participant)?.simulated?.impromptuTurns ?? { min: 2, max: 4 };
  const turns = c.rng.int(range.min, range.max);
  state.impromptu = { participant, intent, remaining: turns };
  emit(c, { type: 'impromptu-start', participant, intent, turns });
  emit(c, { type: 'floor', speaker: participant, reason: 'impromptu' });
  accept(c, { ...planFor(c, participant, 'impromptu'), act: 'deviation', intent, addressee: null, obligation: null, impromptu: true }, text, 'simulated-human', {});
  proceed(c);
};

// ---------------------------------------------------------------------------------------------
// Requests to the shell

export const beginTurn = (c: Ctx, plan: Plan): void => {
  const { state } = c;
  if (state.impromptu) plan = { ...plan, impromptu: true };
  emit(c, {
    type: 'floor',
    speaker: plan.speaker,
    reason: plan.reason,
    ...(plan.bids ? { bids: plan.bids.map(({ participant, action, importance }) => ({ participant, action, importance })) } : {}),
    ...(plan.facilitatorAct ? { act: plan.facilitatorAct } : {}),
  });
  if (plan.act === 'moderate' && plan.addressee) {
    state.approved = plan.addressee;
    state.hands = state.hands.filter((h) => h !== plan.addressee);
    emit(c, { type: 'hand-raise', participant: plan.addressee, action: 'approve', queue: state.hands });
  }
  // MMAgents Algorithm 1: listeners think on every turn, a designated one too, so their short-term
  // memory stays fresh; on a designated turn their bids choose nobody. Asked after the turn's own request.
  const thinking = state.scene.turnTaking.policy === 'cssn-or-ss' || state.scene.turnTaking.policy === 'self-selection';
  const listeners = thinking && plan.reason === 'designated' && !state.refreshing ? candidatesFor(c, true).filter((id) => id !== plan.speaker && !state.present.includes(id)) : [];
  const refresh = () => listeners.length > 0 && requestThoughts(c, listeners, true);
  if (state.present.includes(plan.speaker)) {
    state.awaiting = plan;
    emit(c, {
      type: 'human-input-required',
      participant: plan.speaker,
      addressedBy: plan.obligation?.from ?? null,
      pair: plan.obligation?.pair ?? 'none',
      ...(floorIsTheirs(plan) ? {} : { open: true }),
      // A seat the instructor took over waits for the instructor: participants must not learn it is held.
      ...(state.controlled.includes(plan.speaker) ? { audience: 'observers' as const } : {}),
    });
    refresh();
    return;
  }
  requestUtterance(c, plan, 0, []);
  refresh();
};

export const requestUtterance = (c: Ctx, plan: Plan, attempt: number, rejected: Extract<Pending, { kind: 'utterance' }>['rejected']): void => {
  const id = nextId(c, 'g');
  // The instructor's direction goes to the next AI turn requested, and stays with it through resamples.
  if (c.state.direction && !plan.direction && c.roster.byId.get(plan.speaker)?.kind === 'ai') {
    plan = { ...plan, direction: c.state.direction };
    c.state.direction = null;
  }
  c.state.pending = { id, kind: 'utterance', plan, attempt, rejected };
  let parts = promptParts(c, plan);
  if (plan.direction) parts = { ...parts, direction: plan.direction, cue: { ...parts.cue, direction: plan.direction } };
  c.requests.push({ kind: 'generate', id, request: buildUtterancePrompt(parts, 'utterance', BASE_TEMPERATURE + 0.1 * attempt) });
};

const approvalTimeoutMs = (state: SessionState): number => Math.round(state.scene.turnTaking.approval.timeoutS * 1000);

/** How many candidate contributions the instructor chooses among for a human-control agent. */
export const CANDIDATES = 3;

/**
 * Asks for a simulated human's contribution with `intent`. A human-control agent's instructor
 * chooses among candidates with different intents (DialogLab §5.2.2): they are drafted one after
 * another, `intent` first, then others the agent may have.
 */
export const requestProposal = (c: Ctx, participant: string, intent: Intent, drafted: Candidate[] = [], wanted?: Intent[]): void => {
  const sim = c.roster.byId.get(participant)?.simulated;
  if (!wanted && sim?.mode === 'human-control') {
    const others = (sim.intents.length ? sim.intents : intents).filter((i) => i !== intent);
    wanted = shuffle(others, c.rng).slice(0, CANDIDATES - 1);
  }
  const id = nextId(c, 'g');
  c.state.pending = { id, kind: 'proposal', participant, intent, ...(wanted ? { drafted, wanted } : {}) };
  const plan: Plan = { speaker: participant, reason: 'impromptu', act: 'deviation', intent, addressee: null, obligation: null };
  c.requests.push({ kind: 'generate', id, request: buildUtterancePrompt(promptParts(c, plan), 'proposal', BASE_TEMPERATURE) });
};

export const requestSelection = (c: Ctx, candidates: string[], attempt: number): void => {
  const id = nextId(c, 'g');
  c.state.pending = { id, kind: 'select', attempt, candidates };
  const speaker = c.state.last?.speaker ?? candidates[0]!;
  const plan: Plan = { speaker, reason: 'llm-selector', act: 'statement', addressee: c.state.last?.addressee ?? null, obligation: null };
  c.requests.push({ kind: 'generate', id, request: buildSelectorPrompt(promptParts(c, plan), candidates) });
};

/** Asks `bidders` to think (MMAgents §3.2.1); a `refresh` only updates their thoughts, it chooses no speaker. */
export const requestThoughts = (c: Ctx, bidders: string[], refresh = false): void => {
  const id = nextId(c, 'g');
  if (refresh) c.state.refreshing = id;
  else c.state.pending = { id, kind: 'think', bidders };
  c.requests.push({
    kind: 'think',
    id,
    participants: bidders.map((participant) => ({
      participant,
      request: buildThinkPrompt(promptParts(c, { speaker: participant, reason: 'self-selected', act: 'statement', addressee: null, obligation: null })),
    })),
  });
};

export const namesOf = (roster: Roster, id: string): string[] => [roster.name(id), roster.shortName(id)];

/**
 * MMAgents Eq. 4: long-term memories most similar to the last utterance, minus what the history
 * window shows. The same for every listener of a turn (think() asks them all at once), so the last
 * answer is remembered with what it came from: the query, the facts and the window shown (the
 * state replaces those lists when they change, never edits them).
 */
const recall = (facts: readonly string[], shown: readonly { prefix: string; text: string }[], query: string): string[] => {
  if (lastRecall && lastRecall.query === query && lastRecall.facts === facts && lastRecall.shown === shown) return lastRecall.memories;
  const unseen = facts.filter((f) => !shown.some((h) => f.startsWith(h.prefix) && h.text.includes(f.slice(h.prefix.length))));
  lastRecall = { query, facts, shown, memories: retrieve(unseen, query, RECALL_LIMIT) };
  return lastRecall.memories;
};
let lastRecall: { query: string; facts: readonly string[]; shown: readonly unknown[]; memories: string[] } | null = null;

// What every prompt of a turn shares (think() asks each listener at once), read once: the state
// replaces these arrays and records when they change, never edits them, and a roster is its scene's.
const shownOf = rememberLast((roster: Roster, history: readonly Remembered[]) =>
  history.slice(-roster.scene.turnTaking.historyWindow).map((u) => ({ prefix: `${roster.name(u.speaker)}: `, text: u.text })),
);
const summaryFor = rememberLast((roster: Roster, topics: Topics) => summaryOf(topics, (id) => roster.shortName(id)));
const participantsOf = memoizeByIdentity((roster: Roster): Cue['participants'] =>
  roster.scene.participants.map((p) => ({ id: p.id, name: p.name, shortName: roster.shortName(p.id), kind: p.kind, ...(p.role ? { role: p.role } : {}) })),
);

/** The name words of a roster (stemmed as content words are): never what a question is about. */
const nameWordsOf = memoizeByIdentity((roster: Roster): ReadonlySet<string> => new Set(roster.names.flatMap((n) => [...contentWords(n)])));

const promptParts = (c: Ctx, plan: Plan): PromptParts => {
  const { state } = c;
  const roster = c.roster;
  const person = roster.byId.get(plan.speaker)!;
  const snippet = currentSnippet(state);
  const last = state.last;
  const query = last?.text ?? state.scene.topic;
  const persona = person.persona;
  // Private knowledge is said only where its rule allows: freely, or when-asked in answer to a direct question.
  const asked = plan.obligation?.pair === 'question' || plan.obligation?.pair === 'request';
  const knowledge = knowledgeOf(persona);
  const sayable = knowledge.filter((k) => k.reveal === 'freely' || (k.reveal === 'when-asked' && asked)).map((k) => k.text);
  const secrets = knowledge.map((k) => k.text).filter((t) => !sayable.includes(t));
  // MMAgents §3.1.2: goals and sayable knowledge most relevant to the last utterance...
  // A question is answered from everything the speaker may say, most relevant first; otherwise two facts keep the prompt short.
  const facts = [...retrieve(sayable, query, 2), ...sayable].filter((f, i, all) => all.indexOf(f) === i).slice(0, asked ? 6 : 2);
  const goals = [...retrieve(persona?.goals ?? [], query, 1), ...(persona?.goals ?? [])].filter((g, i, all) => all.indexOf(g) === i).slice(0, 2);
  // ...and long-term memories of what was said, retrieved by similarity, minus what the history
  // window already shows. Only a prompt reads them, and prompts are written when first read
  // (prompt.ts): the scripted generator never reads one, and a recall scores every remembered fact.
  const { history, facts: remembered } = state.memory;
  let memories: string[] | undefined;
  const nextSnippetGoal = plan.act === 'transition' ? state.scene.snippets[nextSnippetIndex(state) ?? -1]?.goal : undefined;
  const party = roster.partyOf.get(plan.speaker);
  const sim = person.kind === 'human' ? person.simulated : undefined;
  const partyId = party?.id;
  const human = state.spoken.findLast((u) => roster.byId.get(u.speaker)?.kind === 'human' && u.speaker !== plan.speaker);
  const current = currentTopic(state.topics);
  const next = plan.topic ? (state.topics.items.find((t) => t.id === plan.topic) ?? null) : plan.act === 'transition' ? nextTopic(state.topics, snippet.id) : null;
  const cue: Cue = {
    speaker: {
      id: person.id,
      name: person.name,
      shortName: roster.shortName(person.id),
      ...(person.role ? { role: person.role } : {}),
      ...(persona?.backstory ? { backstory: persona.backstory } : {}),
      mood: persona?.mood ?? 'neutral',
      traits: [...(persona?.traits ?? []), ...(sim?.traits ?? [])],
    },
    participants: participantsOf(roster),
    topic: state.scene.topic,
    context: state.scene.context,
    contents: state.scene.contents
      .filter((content) => content.owner === 'public' || content.owner === partyId)
      .map(({ kind, title, summary, sections }) => ({ kind, title, summary, sections })),
    role: { form: rolesFor(roster, snippet)?.form ?? null, part: partOf(roster, snippet, plan.speaker) },
    snippet: { id: snippet.id, goal: nextSnippetGoal ?? snippet.goal, pattern: snippet.pattern },
    act: plan.act,
    addressee: plan.addressee ? { id: plan.addressee, shortName: roster.shortName(plan.addressee) } : null,
    obligation: plan.obligation
      ? { pair: plan.obligation.pair, from: plan.obligation.from, fromShortName: roster.shortName(plan.obligation.from), text: plan.obligation.text }
      : null,
    lastMessage: last ? { speaker: last.speaker, shortName: roster.shortName(last.speaker), text: last.text } : null,
    ...(plan.intent ? { intent: plan.intent } : {}),
    ...(plan.vibe ? { vibe: plan.vibe } : {}),
    facts,
    secrets,
    goals,
    bank: { questions: persona?.questions ?? [], points: persona?.points ?? [] },
    move: plan.move ?? null,
    said: state.spoken.filter((u) => u.speaker === plan.speaker).map((u) => u.text),
    human: human ? { id: human.speaker, shortName: roster.shortName(human.speaker), text: human.text } : null,
    topics: {
      current: current ? label(current) : null,
      next: next ? label(next) : null,
      list: visibleTopics(state.topics, plan.speaker).map((t) => ({ text: label(t), status: t.status })),
      summary: summaryFor(roster, state.topics),
    },
    dialogue: viewFor(state.exchanges, plan.speaker, taskOf(c, plan)),
    ...(sim ? { targetWords: sampleUtteranceLength(sim.utteranceLength ?? { min: 3, avg: 10, max: 24 }, c.rng) } : {}),
    variant: c.rng.int(0, 2 ** 31 - 1),
  };
  const contents = cue.contents.map((content) => `${content.kind} "${content.title}"${content.summary ? `: ${content.summary}` : ''}`);
  return {
    roster,
    memory: state.memory,
    get memories() {
      return (memories ??= recall(remembered, shownOf(roster, history), query));
    },
    cue,
    partyRole: party ? { party: party.name ?? party.id, role: party.role } : undefined,
    contents,
    nextSpeaker:
      state.scene.turnTaking.policy === 'round-robin'
        ? nextInOrder(snippetMembers(roster, snippet), state.rrCursor, (id) => id !== plan.speaker && candidatesFor(c, true).includes(id))
        : null,
    window: state.scene.turnTaking.historyWindow,
  };
};

// ---------------------------------------------------------------------------------------------
// Accepting an utterance

/** The screen a persona's line must pass before it is said (novelty.ts): new, not a quotation of anyone's private knowledge. */
export const screen = (c: Pick<Ctx, 'state' | 'roster'>, speaker: string, text: string, partial = false): ScreenVerdict => {
  return screenLine({ spoken: c.state.spoken, protectedRuns: protectedRunsOf(c.state.scene) }, speaker, text, partial);
};

const protectedRuns = new WeakMap<LoadedScene, Set<string>>();
const protectedRunsOf = (scene: LoadedScene): Set<string> => {
  let runs = protectedRuns.get(scene);
  if (!runs) protectedRuns.set(scene, (runs = quotableRuns(scene.participants.flatMap((p) => knowledgeOf(p.persona).map((k) => k.text)))));
  return runs;
};

/** How bad each fault is, when every candidate has one. */
const severity: Record<Exclude<ScreenVerdict, { ok: true }>['reason'], number> = { similar: 1, 'near-duplicate': 2, verbatim: 3, 'quotes-knowledge': 3 };

/**
 * A generated line for `pending`. `partial`: the shell stopped it at its first clause because it
 * failed the screen, before anyone saw or heard it. `committed`: some of it has already been shown
 * or heard, so it is kept whatever the screen says: a voiced line is never withdrawn.
 */
export const onUtteranceText = (
  c: Ctx,
  pending: Extract<Pending, { kind: 'utterance' }>,
  text: string,
  durationMs?: number,
  how: { partial?: boolean; committed?: boolean; heardFrom?: number | undefined } = {},
): void => {
  const { state } = c;
  const plan = pending.plan;
  if (!text) {
    emit(c, { type: 'system', level: 'warn', code: 'empty-generation', message: `${c.roster.name(plan.speaker)} produced no text; the floor passes.` });
    // The designated speaker said nothing: the obligation lapses rather than repeating forever.
    if (state.last) state.last = { ...state.last, pair: 'none' };
    countTurn(c, !!plan.impromptu);
    return proceed(c);
  }
  // MPOD §3.2, widened: a line that repeats the session or quotes private
  // knowledge is drawn again, hotter, up to 5 times.
  // A question repeated on request, or an answer to a question asked again, says again what was said: only a verbatim repeat is drawn again.
  let verdict = screen(c, plan.speaker, text);
  if (!verdict.ok && (verdict.reason === 'similar' || verdict.reason === 'near-duplicate') && echoes(taskOf(c, plan))) verdict = { ok: true, similarity: verdict.similarity };
  if (!verdict.ok && !how.committed && pending.attempt < MAX_RESAMPLES) {
    return requestUtterance(c, plan, pending.attempt + 1, [
      ...pending.rejected,
      { text, similarity: verdict.similarity, severity: severity[verdict.reason], ...(how.partial ? { partial: true } : {}) },
    ]);
  }
  let chosen: { text: string; similarity: number; severity: number } = { text, similarity: verdict.similarity, severity: verdict.ok ? 0 : severity[verdict.reason] };
  // All attempts rejected: keep the whole candidate with the mildest fault, least similar among
  // them, to maintain flow (a line too like one's own last is better than a verbatim repeat).
  if (!verdict.ok && !how.committed) {
    for (const candidate of pending.rejected) {
      if (candidate.partial) continue;
      if (candidate.severity < chosen.severity || (candidate.severity === chosen.severity && candidate.similarity < chosen.similarity)) chosen = candidate;
    }
  }
  const source = c.roster.byId.get(plan.speaker)?.kind === 'human' ? 'simulated-human' : 'ai';
  // The measured speech length belongs to this text only; an earlier candidate's is estimated.
  const mine = chosen.text === text;
  const spokenMs = mine ? durationMs : undefined;
  const heard = mine && how.heardFrom !== undefined ? { heardFrom: how.heardFrom } : {};
  accept(c, plan, chosen.text, source, { resamples: pending.attempt, similarity: chosen.similarity, draft: pending.id, durationMs: spokenMs, ...heard });
  proceed(c);
};

export const accept = (
  c: Ctx,
  plan: Plan,
  fullText: string,
  source: UtteranceEvent['source'],
  /**
   * `cutBy`: a human barged in; `fullText` is what had been heard so far, `cutAtMs` where its
   * speech stopped. `draft`: the request the text answered (clients' audio and deltas name it).
   * `spoken`: when a transcribed utterance was said, in session ms. `heardFrom`: when a generated
   * line's speech began to be heard (session ms); it is logged as `spoken`, from there for its length.
   * `sentAt`: when a typed line reached the room (session ms).
   */
  extra: {
    durationMs?: number | undefined;
    resamples?: number;
    similarity?: number;
    cutBy?: string;
    cutAtMs?: number;
    draft?: string;
    spoken?: { start: number; end: number };
    heardFrom?: number;
    sentAt?: number;
  },
): void => {
  const { state } = c;
  const roster = c.roster;
  const speaker = plan.speaker;
  const person = roster.byId.get(speaker)!;
  const rate = person.persona?.speakingRate ?? defaultSpeakingRate;
  const id = nextId(c, 'u');
  const snippet = currentSnippet(state);

  // DialogLab A.2.1: interruption rules (a_i, a_j, p_ij, v_ij) fire while a_j speaks.
  let text = fullText;
  let interruption: { by: string; vibe: string; atWord: number } | null = null;
  if (extra.cutBy) {
    text = `${fullText}—`;
    interruption = { by: extra.cutBy, vibe: 'barge-in', atWord: tokensOf(fullText).length };
  } else if ((source === 'ai' || source === 'simulated-human') && !lastTurns(state) && !(plan.obligation && state.present.includes(plan.obligation.from))) {
    // A snippet's interruption rules cut in on talk, never on the session's last turns (its last answers and its goodbye),
    // nor on an answer owed to the trainee: they asked, and they hear the answer out.
    const tokens = tokensOf(fullText);
    for (const rule of snippet.interruptions) {
      if (rule.to !== speaker || rule.from === speaker || tokens.length < 6) continue;
      if (state.present.includes(rule.from) || !partyAllows(roster, rule.from)) continue;
      // Moderated mode: only the moderator may cut someone off.
      if (state.scene.turnTaking.partyMode === 'moderated' && rule.from !== state.scene.turnTaking.moderator) continue;
      if (!c.rng.chance(rule.probability)) continue;
      const atWord = c.rng.int(Math.ceil(tokens.length * 0.35), Math.floor(tokens.length * 0.75));
      text = `${tokens.slice(0, atWord).join(' ')}—`;
      interruption = { by: rule.from, vibe: rule.vibe, atWord };
      break;
    }
  }

  const words = countWords(text);
  // Speech measured for the whole text, cut by a rule: the part before the cut, by word count.
  const measured = extra.durationMs !== undefined && interruption && !extra.cutBy ? (extra.durationMs * words) / Math.max(1, countWords(fullText)) : extra.durationMs;
  const durationMs = Math.round(measured ?? speakingMs(words, rate));
  const previous = state.last && state.last.speaker !== speaker ? state.last.speaker : null;
  const designation = detectDesignation({
    participants: roster.names,
    speaker: roster.name(speaker),
    previousSpeaker: previous ? roster.name(previous) : null,
    text,
  });
  const detected = designation.next ? (roster.idByName.get(designation.next) ?? null) : null;
  // An interrupted first pair part obliges nobody: the interrupter takes the floor. A greeting
  // returned closes the exchange rather than opening another.
  const returned = plan.obligation?.pair === 'greeting' && designation.pair === 'greeting';
  // A goodbye closes the session: whatever its words, it obliges nobody to answer.
  const closes = plan.move === 'close' && plan.act === 'statement';
  const pair: PairType = interruption || returned || closes ? 'none' : designation.pair;
  // Whom it addresses: a human's words decide for themselves. For a persona the engine's plan
  // decides, unless the text itself calls someone else by name (a bare "you" points at nobody new).
  const planned = plan.addressee ?? (plan.obligation ? plan.obligation.from : null);
  // Read without the previous speaker only when it could matter: a detection that agrees with the
  // plan, or finds nobody, would find nobody else by name either.
  const named = source === 'human' || !detected || detected === planned ? null : namedIn(roster, speaker, text);
  const addressee = source === 'human' ? (detected ?? (plan.obligation ? plan.obligation.from : null)) : (named ?? planned);
  const act: Act = plan.obligation
    ? 'answer'
    : ['moderate', 'interrupt', 'deviation', 'summarize', 'transition', 'resolve-conflict', 'chime-in', 'encourage'].includes(plan.act)
      ? plan.act
      : pair !== 'none'
        ? pair
        : 'statement';

  const startT = state.t;
  // Someone spoke: a human who let the floor pass may be given it again.
  state.passed = null;
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
    ...(plan.impromptu || state.impromptu ? { impromptu: true } : {}),
    ...(extra.resamples !== undefined ? { resamples: extra.resamples } : {}),
    ...(extra.similarity !== undefined ? { similarity: Math.round(extra.similarity * 1000) / 1000 } : {}),
    ...(extra.draft ? { draft: extra.draft } : {}),
    ...(extra.spoken ? { spoken: { start: Math.round(extra.spoken.start), end: Math.round(extra.spoken.end) } } : {}),
    ...(extra.heardFrom !== undefined ? { spoken: { start: Math.round(extra.heardFrom), end: Math.round(extra.heardFrom + durationMs) } } : {}),
    ...(extra.sentAt !== undefined ? { sentAt: Math.max(0, Math.round(extra.sentAt)) } : {}),
  });

  // Backchannels: listeners' short verbal cues or nods, attached to the utterance they react to.
  let count = 0;
  let lowered: string | undefined;
  for (const rule of snippet.backchannels) {
    // Whether the text says a trigger is the same for every listener: looked for once, when first needed.
    let triggered: boolean | undefined;
    for (const listener of snippetMembers(roster, snippet)) {
      if (count >= 2) break;
      if (listener === speaker || (rule.from !== '*' && rule.from !== listener) || state.present.includes(listener)) continue;
      if (!partyAllows(roster, listener)) continue;
      if (interruption && listener === interruption.by) continue;
      if (rule.triggers.length && !(triggered ??= rule.triggers.some((word) => mentions(text, (lowered ??= text.toLowerCase()), word)))) continue;
      if (!c.rng.chance(rule.probability)) continue;
      const kind = rule.kind === 'either' ? (c.rng.chance(0.5) ? 'verbal' : 'nod') : rule.kind;
      const at = startT + Math.round(durationMs * (0.4 + 0.5 * c.rng.next()));
      const cue = kind === 'verbal' ? c.rng.pick(rule.cues.length ? rule.cues : backchannelCues) : undefined;
      emit(c, { type: 'backchannel', participant: listener, to: speaker, utterance: id, kind, ...(cue ? { cue } : {}) }, at);
      count++;
    }
  }
  if (interruption) {
    const atMs = extra.cutAtMs !== undefined ? { atMs: Math.round(extra.cutAtMs) } : {};
    emit(c, { type: 'interruption', by: interruption.by, of: speaker, utterance: id, vibe: interruption.vibe, atWord: interruption.atWord, ...atMs }, startT + durationMs);
    // A barge-in is followed by the human's own words; a rule's interrupter takes the next turn.
    if (!extra.cutBy) state.interruption = { by: interruption.by, vibe: interruption.vibe };
  }
  // Realtime: the clock goes on from when the line was really heard (a human's words are logged
  // once transcribed, after they were said; a persona's once synthesized, as they are heard), so
  // the next line is not dated a whole utterance late.
  // A typed line is read at once: nobody waits out its estimated length (an authored line queued
  // after it is heard straight away, and its place says so).
  const heardStart = extra.heardFrom ?? extra.spoken?.start ?? extra.sentAt;
  const heardFor = extra.sentAt !== undefined && !extra.spoken && extra.heardFrom === undefined ? 0 : durationMs;
  state.t = state.pace === 'realtime' && heardStart !== undefined ? Math.max(startT, Math.round(heardStart) + heardFor + GAP_MS) : startT + durationMs + GAP_MS;

  const party = roster.partyOf.get(speaker);
  if (party) state.partyCursor = { ...state.partyCursor, [party.id]: speaker };
  const wasApproved = state.approved === speaker;
  if (wasApproved) state.approved = null;
  if (state.hands.includes(speaker)) setHand(c, speaker, false);
  // The dialogue state: a probe presses its question, a reply settles the question it answers, a question opens one.
  const task = taskOf(c, plan);
  if (task.kind === 'probe' && task.question) state.exchanges = pressed(state.exchanges, task.question.id);
  if (plan.obligation && !interruption) state.exchanges = replied(state.exchanges, plan.obligation.utterance, { id, speaker, text }, nameWordsOf(roster));
  if (addressee && (pair === 'question' || pair === 'request')) state.exchanges = opened(state.exchanges, { id, asker: speaker, to: addressee, text }, { probing: task.kind === 'probe', ...(task.kind === 'repeat' && task.question ? { repeats: task.question.repeats } : {}) });
  state.last = { id, speaker, text, addressee, pair, interrupted: !!interruption, replyTo: plan.obligation?.from ?? null, approved: wasApproved };
  if (closes && !interruption) state.closing = id;
  state.spoken = [...state.spoken, spokenLine(speaker, text, source === 'ai' || source === 'scripted')];
  state.memory = remember(state.memory, { id, speaker, text }, roster.name(speaker), Math.max(state.scene.turnTaking.historyWindow, 5));
  // MMAgents Eq. 3: with an LLM, the model normalises the utterance's knowledge; its answer replaces the rules' facts.
  if (state.normalize && countWords(text) >= 4) {
    const request = nextId(c, 'g');
    state.normalizing = { ...state.normalizing, [request]: { speaker, text } };
    const parts = promptParts(c, { speaker, reason: plan.reason, act: 'statement', addressee: null, obligation: null });
    c.requests.push({ kind: 'generate', id: request, request: buildNormalizePrompt(parts, roster.name(speaker), text) });
  }
  state.said = { ...state.said, [speaker]: [...(state.said[speaker] ?? []), text].slice(-5) };
  state.log = [
    ...state.log,
    {
      speaker,
      words,
      openQuestion: pair !== 'none' && addressee === null,
      disagreement: disagreementPattern.test(text),
      snippet: snippet.id,
    },
  ];
  state.topics = touchTopics(state.topics, { speaker, text, turn: state.turns + 1, snippet: snippet.id, members: groupSize(c) });
  const facilitator = state.scene.turnTaking.facilitator;
  if (facilitator) {
    const fired = plan.facilitatorAct ? { act: plan.facilitatorAct, addressee: plan.addressee } : null;
    state.facilitator = afterTurn(state.facilitator, speaker, facilitator.participant, state.turns, fired);
  }
  countTurn(c, !!(plan.impromptu || state.impromptu));
  // A transition moves to the agenda's next sub-topic, or, when this snippet's agenda is done, to the next snippet.
  if (plan.topic && (plan.facilitatorAct === 'transition' || plan.facilitatorAct === 'resolve-conflict')) state.topics = moveTo(state.topics, plan.topic);
  else if (plan.facilitatorAct === 'transition') advanceSnippet(c);
  if (state.scene.turnTaking.partyMode === 'moderated') raiseHands(c, speaker);
};

/** Whom a persona's text calls by name as the one to answer, without reading a bare "you" as anyone. */
const namedIn = (roster: Roster, speaker: string, text: string): string | null => {
  const { next } = detectDesignation({ participants: roster.names, speaker: roster.name(speaker), previousSpeaker: null, text });
  return next ? (roster.idByName.get(next) ?? null) : null;
};

/** Whether `text` (`lowered`: the same in lower case) contains `word` as a whole word or phrase ("%" as a symbol anywhere), ignoring case. */
const mentions = (text: string, lowered: string, word: string): boolean => {
  const trimmed = word.trim();
  // Most texts do not contain the word at all: a plain search says so before the pattern runs.
  if (!lowered.includes(trimmed.toLowerCase())) return false;
  // Each occurrence of the word, ignoring case, then its edges: a word edge is a character that is
  // neither a letter nor a digit, or the text's start or end. As one pattern per word with the
  // edges inside ("(^|[^\p{L}\p{N}])word($|...)", flags iu), each word took half a millisecond to
  // compile, twice (V8 compiles a pattern again when it runs a second time): more than the rest of
  // a turn's backchannels. The same matches on 300k random texts, odd case foldings included.
  const { pattern, before, after } = wholeWord(trimmed);
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    const start = m.index;
    const end = start + m[0].length;
    if ((!before || start === 0 || EDGE.test(codePointBefore(text, start))) && (!after || end === text.length || EDGE.test(codePointAt(text, end)))) return true;
    // Occurrences may overlap ("aa" in "aaa"): the next one is looked for a code point further on.
    pattern.lastIndex = start + codePointAt(text, start).length;
  }
  return false;
};

/** A character that ends a word, as the pattern's class read it: compiled once for every word. */
const EDGE = /^[^\p{L}\p{N}]$/iu;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** The word, escaped and ignoring case, and whether it needs a word edge before and after (a letter or digit there). */
const wholeWord = memoize(
  (trimmed: string) => ({
    pattern: new RegExp(trimmed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'giu'),
    before: LETTER_OR_DIGIT.test(trimmed[0] ?? ''),
    after: LETTER_OR_DIGIT.test(trimmed.at(-1) ?? ''),
  }),
  1024,
);

const isLead = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isTrail = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;
/** The code point that ends at `i` (a surrogate pair, or one code unit) and the one that starts there. */
const codePointBefore = (text: string, i: number): string =>
  i >= 2 && isTrail(text.charCodeAt(i - 1)) && isLead(text.charCodeAt(i - 2)) ? text.slice(i - 2, i) : text.slice(i - 1, i);
const codePointAt = (text: string, i: number): string => (isLead(text.charCodeAt(i)) && isTrail(text.charCodeAt(i + 1)) ? text.slice(i, i + 2) : text.slice(i, i + 1));

export const countTurn = (c: Ctx, impromptu: boolean): void => {
  const { state } = c;
  state.turns++;
  if (!impromptu) state.snippetTurns++;
  if (state.impromptu) {
    const remaining = state.impromptu.remaining - 1;
    if (remaining <= 0) {
      emit(c, { type: 'impromptu-end', participant: state.impromptu.participant });
      state.impromptu = null;
    } else state.impromptu = { ...state.impromptu, remaining };
  }
};

/** Moderated mode: listeners with something to say raise their hands (DialogLab's Q_raised). */
const raiseHands = (c: Ctx, speaker: string): void => {
  const { state } = c;
  const moderator = state.scene.turnTaking.moderator;
  const moderatorParty = moderator ? c.roster.partyOf.get(moderator)?.id : undefined;
  const hopefuls = candidatesFor(c, true).filter(
    (id) => id !== moderator && id !== speaker && !state.hands.includes(id) && id !== state.approved && !state.present.includes(id) && c.roster.partyOf.get(id)?.id !== moderatorParty,
  );
  // Presenters answer; the audience asks. Prefer members of parties that own no content.
  const owners = new Set(state.scene.contents.map((content) => content.owner));
  const askers = hopefuls.filter((id) => !owners.has(c.roster.partyOf.get(id)?.id ?? ''));
  const pool = askers.length ? askers : hopefuls;
  for (const id of pool) if (c.rng.chance(0.25)) setHand(c, id, true);
  if (state.hands.length === 0 && speaker === moderator && pool.length) setHand(c, c.rng.pick(pool), true);
};

