/**
 * How a session ends on its own. Its budget spent (the last snippet done, or the turn cap reached),
 * it winds down instead of stopping mid-exchange: a question still owed an answer is answered
 * (a human's first, at most OVERRUN of them), then the host closes: the scene's closing line, else
 * a goodbye of their own. It ends once that goodbye is the last thing said. An instructor's end is
 * at once (session.ts); the shell lets the last line be heard before the end is announced
 * (conversation.ts). Like the floor (floor.ts), this only decides: the turn loop carries it out.
 */
import { openObligation, planFor } from './floor';
import { speakerFor } from './roster';
import { understand } from './understanding';
import { currentSnippet, nextSnippetIndex, type Ctx, type EndReason, type Ending, type Plan, type SessionState } from './state';

/** How many answers a session's end waits for: a human who keeps asking is answered twice, then thanked. */
export const OVERRUN = 2;
/** How many goodbyes are tried: one spoken over by a human's question is tried again after its answer, and twice once the answers are spent. */
const CLOSES = OVERRUN + 2;

/** What winding down does next: end, give someone the floor, or say the scene's closing line. */
export type Farewell = { kind: 'end'; reason: EndReason } | { kind: 'turn'; plan: Plan } | { kind: 'line'; plan: Plan; text: string };

export const windDown = (c: Ctx, reason: Ending['reason']): Farewell => {
  const { state } = c;
  const ending: Ending = state.ending ?? { reason, answers: 0, closes: 0 };
  state.ending = ending;
  if (state.exactCap && state.turns >= state.maxTurns) return { kind: 'end', reason: 'max-turns' };
  if (state.last && state.last.id === state.closing) return { kind: 'end', reason: ending.reason };
  if (ending.answers < OVERRUN) {
    const answer = answerOwed(c);
    if (answer) {
      state.ending = { ...ending, answers: ending.answers + 1 };
      return { kind: 'turn', plan: answer };
    }
  }
  const host = hostOf(c);
  if (!host || ending.closes >= CLOSES) return { kind: 'end', reason: ending.reason };
  state.ending = { ...ending, closes: ending.closes + 1 };
  const plan: Plan = { speaker: host, reason: 'closing', act: 'statement', addressee: null, obligation: null, move: 'close' };
  const authored = state.scene.closing;
  // The scene's closing line is said once, as written, when its speaker is the generator's to voice.
  if (authored && ending.closes === 0 && !state.present.includes(authored.speaker)) return { kind: 'line', plan, text: authored.text };
  return { kind: 'turn', plan };
};

/**
 * The turn a question still open is owed: the one it was put to answers (a persona, or a present
 * human, who is waited for); a human's question put to nobody in particular is answered by the
 * persona it follows up on, one it names, the last persona who spoke, else the host.
 */
const answerOwed = (c: Ctx): Plan | null => {
  const { state, roster } = c;
  const obligation = openObligation(c);
  if (obligation) return planFor(c, obligation.speaker, 'designated');
  const last = state.last;
  if (!last || !humanAsked(c)) return null;
  const ai = (id: string | null | undefined): id is string => !!id && id !== last.speaker && roster.byId.get(id)?.kind === 'ai';
  const named = roster.scene.participants.filter((p) => p.kind === 'ai' && mentions(last.text, [p.name, roster.shortName(p.id)])).map((p) => p.id);
  const previous = state.log.findLast((r) => ai(r.speaker))?.speaker;
  // A member of a party in representative mode answers for it only when asked by name: otherwise its representative does.
  const answerer = [last.addressee, last.replyTo, ...named, previous, hostOf(c)]
    .map((id) => (id && id !== last.addressee ? speakerFor(roster, id) : id))
    .find(ai);
  if (!answerer) return null;
  return {
    speaker: answerer,
    reason: 'taking-up',
    act: 'answer',
    addressee: last.speaker,
    obligation: { utterance: last.id, from: last.speaker, pair: last.pair === 'request' ? 'request' : 'question', text: last.text },
  };
};

/** Whether the session is at its last turns: winding down, or at the last turn of its budget (whatever its scene's closing). */
export const lastTurns = (state: SessionState): boolean =>
  !!state.ending || state.turns + 1 >= state.maxTurns || (nextSnippetIndex(state) === null && state.snippetTurns + 1 >= currentSnippet(state).turns);

/** Whether the last line is a human's question or request, not cut off: it is owed an answer before the session closes. */
export const humanAsked = (c: Pick<Ctx, 'state' | 'roster'>): boolean => {
  const last = c.state.last;
  if (!last || last.interrupted || c.roster.byId.get(last.speaker)?.kind !== 'human') return false;
  if (last.pair === 'question' || last.pair === 'request') return true;
  const act = understand(last.text).act;
  return act === 'question' || act === 'request';
};

/**
 * Who closes the session: the speaker of the scene's closing line, else whoever runs the meeting
 * (its chair, moderator or facilitator), else the persona who opened it, else the first persona.
 */
export const hostOf = (c: Pick<Ctx, 'state' | 'roster'>): string | null => {
  const { state, roster } = c;
  const scene = state.scene;
  const options = [scene.closing?.speaker, scene.structure?.chair, scene.turnTaking.moderator, scene.turnTaking.facilitator?.participant, scene.snippets[0]?.initiator, ...scene.participants.map((p) => p.id)];
  return options.find((id): id is string => !!id && roster.byId.get(id)?.kind === 'ai') ?? null;
};

const mentions = (text: string, names: string[]): boolean =>
  names.some((name) => new RegExp(`\\b${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i').test(text));
