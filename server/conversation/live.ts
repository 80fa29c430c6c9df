/**
 * The engine's shell for a running room: it owns one session's state, applies inputs in arrival
 * order (humans speaking, instructors steering, generators answering), carries out the engine's
 * requests with a generator, and paces turns.
 *
 * - `pace: 'instant'` feeds each generated reply back as soon as it is ready (simulations, tests);
 * - `pace: 'realtime'` holds the next reply until the current speaker has finished speaking
 *   (estimated speaking time, divided by `speed`), and stamps events with wall-clock time.
 *
 * A human can speak at any moment; the engine drops whatever it was generating for someone else.
 * A generator that throws never stops the room: the scripted generator writes that turn and a
 * `system` event says so.
 */
import type { LoadedScene } from '../scene/schema';
import type { SessionEvent } from '../engine/events';
import { createSession, step, type EngineInput, type EngineRequest, type SessionState } from '../engine/session';
import { complete, type Generator, type GenerateRequest } from '../providers/generator/port';
import { createScriptedGenerator } from '../providers/generator/scripted';

export interface Notice {
  code: string;
  message: string;
}

export interface LiveRoomOptions {
  seed: number;
  generator: Generator;
  /** Human participants who are really here. */
  present?: string[];
  pace?: 'instant' | 'realtime';
  /** Realtime only: how much faster than spoken time turns follow each other. */
  speed?: number;
  maxTurns?: number;
  onEvent?: (event: SessionEvent) => void;
  /** Notices the generator raised since the last call (e.g. a vendor fallback); logged as system events. */
  takeNotices?: () => Notice[];
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface LiveRoom {
  /** Applies an input (a human's words, an instructor's command) in arrival order. */
  send(input: EngineInput): void;
  readonly state: SessionState;
  /** Resolves with the whole log when the session ends. */
  readonly ended: Promise<SessionEvent[]>;
}

export const openLiveRoom = (scene: LoadedScene, options: LiveRoomOptions): LiveRoom => {
  const pace = options.pace ?? 'instant';
  const speed = options.speed ?? 1;
  const now = options.now ?? (() => Date.now());
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const fallback = createScriptedGenerator();
  const started = now();
  const log: SessionEvent[] = [];
  let state = createSession(scene, {
    seed: options.seed,
    present: options.present ?? [],
    ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
  });
  let floorFreeAt = started;
  let resolveEnded!: (events: SessionEvent[]) => void;
  const ended = new Promise<SessionEvent[]>((resolve) => (resolveEnded = resolve));

  const inbox: EngineInput[] = [];
  let draining = false;
  const send = (input: EngineInput): void => {
    inbox.push(input);
    if (draining) return; // an input sent from onEvent waits for the current step's events to finish
    draining = true;
    try {
      while (inbox.length > 0) apply(inbox.shift()!);
    } finally {
      draining = false;
    }
    // Nothing in flight and nobody to wait for: a bug must not hang the room forever.
    const s = state;
    if (outstanding === 0 && s.phase === 'running' && !s.paused && !s.pending && !s.awaiting && !s.proposal) {
      send({ type: 'notice', level: 'error', code: 'stalled', message: 'The engine had nothing left to do; ending the session.' });
      send({ type: 'end' });
    }
  };
  let outstanding = 0;

  const apply = (input: EngineInput): void => {
    if (pace === 'realtime' && input.type !== 'clock') state = step(state, { type: 'clock', t: now() - started }).state;
    const result = step(state, input);
    state = result.state;
    for (const event of result.events) {
      log.push(event);
      if (event.type === 'utterance' && pace === 'realtime') floorFreeAt = now() + event.durationMs / speed;
      options.onEvent?.(event);
      if (event.type === 'end') resolveEnded(log);
    }
    for (const request of result.requests) {
      outstanding++;
      void carryOut(request).finally(() => outstanding--);
    }
  };

  const generate = async (request: GenerateRequest, notices: EngineInput[]): Promise<string> => {
    let text: string;
    try {
      text = await complete(options.generator, request);
    } catch (error) {
      const message = `${options.generator.name} failed (${(error as Error).message}); used scripted for this turn`;
      notices.push({ type: 'notice', level: 'warn', code: 'generator-fallback', message });
      text = await complete(fallback, request);
    }
    for (const notice of options.takeNotices?.() ?? []) notices.push({ type: 'notice', level: 'warn', ...notice });
    return text;
  };

  const carryOut = async (request: EngineRequest): Promise<void> => {
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
    // Realtime: the next speaker waits until the current one has finished.
    const wait = floorFreeAt - now();
    if (pace === 'realtime' && wait > 0) await sleep(wait);
    outstanding--;
    for (const input of inputs) send(input);
    outstanding++;
  };

  // Started on the next microtask, so the caller holds the room before its first event arrives.
  queueMicrotask(() => send({ type: 'start' }));
  return {
    send,
    get state() {
      return state;
    },
    ended,
  };
};
