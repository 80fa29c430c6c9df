/**
 * A synchronous test shell for the pure engine: scenes built in code, a cue-driven text writer
 * that always produces what the engine planned (so designations are certain), and a loop that
 * answers requests until the engine waits or ends.
 */
import { Scene, type LoadedScene, type SceneInput } from '../../shared/scene/schema';
import { createSession, step, type EngineInput, type EngineRequest, type SessionState } from '../../server/engine/session';
import type { SessionEvent } from '../../shared/events';
import type { GenerateRequest } from '../../server/engine/requests';
import { rngFrom } from '../../shared/rng';

export const persona = (backstory = 'A colleague.') => ({ backstory, goals: [], privateKnowledge: [] });

export const ai = (id: string, name: string, extra: Record<string, unknown> = {}) => ({ id, kind: 'ai' as const, name, persona: persona(), ...extra });

export const human = (id: string, name: string, mode: 'reactive' | 'human-control' | 'autonomous' = 'reactive', extra: Record<string, unknown> = {}) => ({
  id,
  kind: 'human' as const,
  name,
  simulated: { mode, ...extra },
});

export const makeScene = (input: Partial<SceneInput> & Pick<SceneInput, 'participants'>, id = 'test'): LoadedScene => {
  const first = input.participants[0]!.id;
  return {
    id,
    ...Scene.parse({
      title: 'Test scene',
      topic: 'the quarterly plan',
      formation: 'table',
      snippets: [{ id: 'main', initiator: first, turns: 20 }],
      ...input,
    }),
  };
};

const topical = ['budget', 'timeline', 'hiring', 'roadmap', 'customers', 'testing', 'launch', 'pricing', 'design', 'support', 'metrics', 'training'];

/** The turn policies a rule must hold under (party in free mode; moderated mode has rules of its own). */
export const everyPolicy = [
  { policy: 'round-robin' as const },
  { policy: 'random' as const },
  { policy: 'llm-selector' as const },
  { policy: 'cssn-or-ss' as const },
  { policy: 'party' as const, partyMode: 'free' as const },
];

/** Writes exactly what the cue asks for, varied by the cue's variant. */
export const cueText = (request: GenerateRequest): string => {
  const { cue } = request;
  const r = rngFrom(cue.variant);
  const a = r.pick(topical);
  const b = r.pick(topical);
  const to = cue.addressee?.shortName;
  if (request.purpose === 'select') return JSON.stringify({ next: cue.candidates?.[cue.variant % (cue.candidates?.length ?? 1)] });
  if (request.purpose === 'think') {
    return JSON.stringify({ thought: `consider the ${a}`, action: r.chance(0.6) ? 'speak' : 'listen', importance: r.int(0, 9) });
  }
  switch (cue.act) {
    case 'question':
    case 'encourage':
      return to ? `${to}, what do you think about the ${a} and the ${b}?` : `Does anyone have thoughts on the ${a}?`;
    case 'request':
      return `${to}, could you send me the ${a} notes?`;
    case 'invitation':
    case 'moderate':
      return to ? `Thank you. ${to}, please go ahead.` : 'Are there any questions from the audience?';
    case 'greeting':
      return to ? `Good morning, ${to}!` : `Hello everyone, let us talk about the ${a}.`;
    default:
      return `I believe the ${a} matters more than the ${b} for us ${r.int(1, 1000)} times over.`;
  }
};

/** Plain statements for every utterance (no designations), cue-driven answers for everything else. */
export const plain = (request: GenerateRequest): string =>
  request.purpose === 'utterance' && ['statement', 'question', 'request', 'offer', 'invitation'].includes(request.cue.act)
    ? `A plain remark, number ${request.cue.variant}, about the plan.`
    : cueText(request);

export interface Run {
  state: SessionState;
  events: SessionEvent[];
  requests: EngineRequest[];
}

/**
 * Runs the engine until it ends or waits (for a present human or an approval).
 * `respond` writes each requested text (default: `cueText`).
 */
export const run = (
  scene: LoadedScene,
  options: {
    seed?: number;
    present?: string[];
    maxTurns?: number;
    respond?: (request: GenerateRequest) => string;
    state?: SessionState;
    inputs?: EngineInput[];
    approvals?: 'approve' | 'dismiss' | 'wait';
    /** Sees every state the engine reaches, in order. */
    visit?: (state: SessionState) => void;
  } = {},
): Run => {
  const respond = options.respond ?? cueText;
  let state =
    options.state ??
    createSession(scene, { seed: options.seed ?? 1, present: options.present ?? [], ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}) });
  const queue: EngineInput[] = options.inputs ?? [{ type: 'start' }];
  const events: SessionEvent[] = [];
  const requests: EngineRequest[] = [];
  for (let guard = 0; queue.length > 0 && guard < 100_000; guard++) {
    const result = step(state, queue.shift()!);
    state = result.state;
    options.visit?.(state);
    events.push(...result.events);
    for (const event of result.events) {
      if (event.type === 'approval-needed' && options.approvals !== 'wait') {
        queue.push({ type: 'approval', proposal: event.proposal, decision: options.approvals ?? 'approve' });
      }
    }
    for (const request of result.requests) {
      requests.push(request);
      if (request.kind === 'generate') queue.push({ type: 'generated', request: request.id, text: respond(request.request) });
      else
        queue.push({
          type: 'thoughts',
          request: request.id,
          answers: request.participants.map((p) => ({ participant: p.participant, text: respond(p.request) })),
        });
    }
  }
  return { state, events, requests };
};

export const utterances = (events: readonly SessionEvent[]) =>
  events.filter((e): e is Extract<SessionEvent, { type: 'utterance' }> => e.type === 'utterance');

export const ofType = <T extends SessionEvent['type']>(events: readonly SessionEvent[], type: T) =>
  events.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type);
