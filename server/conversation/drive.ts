/**
 * The engine's shell for simulated sessions: feeds the pure engine its inputs, carries out its
 * requests with a generator, and collects the event log. Every human is simulated (absent), and
 * a human-control proposal is approved or dismissed by a fixed rule, standing in for the
 * instructor's audit panel.
 *
 * A generator that throws never kills a run: the turn is written by the scripted generator
 * instead and a `system` event says so.
 */
import type { LoadedScene } from '../scene/schema';
import type { SessionEvent } from '../engine/events';
import { createSession, step, type EngineInput, type EngineRequest } from '../engine/session';
import { complete, type Generator, type GenerateRequest } from '../providers/generator/port';
import { createScriptedGenerator } from '../providers/generator/scripted';

export interface Notice {
  code: string;
  message: string;
}

export interface DriveOptions {
  seed: number;
  generator: Generator;
  /** How the stand-in instructor answers a human-control proposal. */
  approvals?: 'approve' | 'dismiss';
  maxTurns?: number;
  onEvent?: (event: SessionEvent) => void;
  /** Notices the generator raised since the last call (e.g. a vendor fallback); logged as system events. */
  takeNotices?: () => Notice[];
}

export const driveSession = async (scene: LoadedScene, options: DriveOptions): Promise<SessionEvent[]> => {
  const fallback = createScriptedGenerator();
  const events: SessionEvent[] = [];
  let state = createSession(scene, { seed: options.seed, ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}) });
  const queue: EngineInput[] = [{ type: 'start' }];

  const generate = async (request: GenerateRequest, inputs: EngineInput[]): Promise<string> => {
    let text: string;
    try {
      text = await complete(options.generator, request);
    } catch (error) {
      inputs.push({ type: 'notice', level: 'warn', code: 'generator-fallback', message: `${options.generator.name} failed (${(error as Error).message}); used scripted for this turn` });
      text = await complete(fallback, request);
    }
    for (const notice of options.takeNotices?.() ?? []) inputs.push({ type: 'notice', level: 'warn', code: notice.code, message: notice.message });
    return text;
  };

  const carryOut = async (request: EngineRequest): Promise<EngineInput[]> => {
    const inputs: EngineInput[] = [];
    if (request.kind === 'generate') {
      const text = await generate(request.request, inputs);
      inputs.push({ type: 'generated', request: request.id, text });
    } else {
      // Everyone thinks at once; notices are logged in participant order so runs stay reproducible.
      const results = await Promise.all(
        request.participants.map(async (p) => {
          const notices: EngineInput[] = [];
          return { notices, answer: { participant: p.participant, text: await generate(p.request, notices) } };
        }),
      );
      for (const r of results) inputs.push(...r.notices);
      inputs.push({ type: 'thoughts', request: request.id, answers: results.map((r) => r.answer) });
    }
    return inputs;
  };

  while (queue.length > 0) {
    const result = step(state, queue.shift()!);
    state = result.state;
    for (const event of result.events) {
      events.push(event);
      options.onEvent?.(event);
      if (event.type === 'approval-needed') {
        queue.push({ type: 'approval', proposal: event.proposal, decision: options.approvals ?? 'approve' });
      }
      // No real human is here: a turn handed to one is skipped rather than waited for.
      if (event.type === 'human-input-required') queue.push({ type: 'skip-turn' });
    }
    for (const request of result.requests) queue.push(...(await carryOut(request)));
  }
  if (state.phase !== 'ended') {
    for (const event of step(state, { type: 'end' }).events) {
      events.push(event);
      options.onEvent?.(event);
    }
  }
  return events;
};
