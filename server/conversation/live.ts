/**
 * The engine's shell for a running room: it owns one session's state, applies inputs in arrival
 * order (humans speaking, instructors steering, generators answering), carries out the engine's
 * requests with a generator, and paces turns.
 *
 * - `pace: 'instant'` feeds each generated reply back as soon as it is ready (simulations, tests);
 * - `pace: 'realtime'` starts the next reply only when the current speaker has finished speaking
 *   (estimated speaking time, divided by `speed`), and stamps events with wall-clock time.
 *
 * Replies stream: each text delta goes to `onDelta` as it is generated. A human who speaks while
 * a reply is streaming cuts it off there: the generation is aborted and the engine logs what was
 * heard and the interruption. While a present human is typing, the next AI reply waits (up to
 * `typingHoldMs`), so agents do not talk over someone composing.
 *
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
  /** How long a "typing" signal holds back AI replies unless renewed. */
  typingHoldMs?: number;
  onEvent?: (event: SessionEvent) => void;
  /** A piece of a reply as it is generated; `draft` identifies the reply until its utterance event. */
  onDelta?: (delta: { speaker: string; draft: string; text: string }) => void;
  /** Notices the generator raised since the last call (e.g. a vendor fallback); logged as system events. */
  takeNotices?: () => Notice[];
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface LiveRoom {
  /** Applies an input (a human's words, an instructor's command) in arrival order. */
  send(input: EngineInput): void;
  /** A present human started or stopped composing a message. */
  typing(participant: string, active: boolean): void;
  readonly state: SessionState;
  /** Resolves with the whole log when the session ends. */
  readonly ended: Promise<SessionEvent[]>;
}

export const openLiveRoom = (scene: LoadedScene, options: LiveRoomOptions): LiveRoom => {
  const pace = options.pace ?? 'instant';
  const speed = options.speed ?? 1;
  const typingHoldMs = options.typingHoldMs ?? 8000;
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
  /** The reply being streamed now, which a human can cut off. */
  let streaming: { id: string; partial: string; controller: AbortController } | null = null;
  const typingUntil = new Map<string, number>();
  let outstanding = 0;

  const inbox: EngineInput[] = [];
  let draining = false;
  const send = (input: EngineInput): void => {
    if (input.type === 'say' && !input.cut && streaming) {
      // Barge-in: stop the reply where the human cut in.
      const { id, partial, controller } = streaming;
      streaming = null;
      controller.abort();
      input = { ...input, cut: { request: id, partial } };
    }
    if (input.type === 'say') typingUntil.delete(input.participant);
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

  const apply = (input: EngineInput): void => {
    if (pace === 'realtime' && input.type !== 'clock') state = step(state, { type: 'clock', t: now() - started }).state;
    const result = step(state, input);
    state = result.state;
    for (const event of result.events) {
      log.push(event);
      if (event.type === 'utterance' && pace === 'realtime') floorFreeAt = now() + event.durationMs / speed;
      options.onEvent?.(event);
      if (event.type === 'end') {
        streaming?.controller.abort();
        resolveEnded(log);
      }
    }
    for (const request of result.requests) {
      outstanding++;
      void carryOut(request).finally(() => outstanding--);
    }
  };

  const stillWanted = (id: string): boolean => state.pending?.id === id;

  /** Waits while a present human is composing, as long as their signal is fresh. */
  const untilNobodyTyping = async (id: string): Promise<void> => {
    for (;;) {
      const t = now();
      const until = Math.max(0, ...[...typingUntil.values()].filter((u) => u > t));
      if (until <= t || !stillWanted(id)) return;
      await sleep(Math.min(250, until - t));
    }
  };

  const generate = async (request: GenerateRequest, notices: EngineInput[], signal?: AbortSignal, onText?: (text: string) => void): Promise<string> => {
    let text = '';
    try {
      for await (const delta of options.generator.stream(request, signal)) {
        text += delta;
        onText?.(delta);
      }
    } catch (error) {
      if (signal?.aborted) return text;
      if (!text) {
        const message = `${options.generator.name} failed (${(error as Error).message}); used scripted for this turn`;
        notices.push({ type: 'notice', level: 'warn', code: 'generator-fallback', message });
        text = await complete(fallback, request);
        onText?.(text);
      }
    }
    for (const notice of options.takeNotices?.() ?? []) notices.push({ type: 'notice', level: 'warn', ...notice });
    return text;
  };

  const carryOut = async (request: EngineRequest): Promise<void> => {
    const inputs: EngineInput[] = [];
    if (request.kind === 'generate' && request.request.purpose === 'utterance') {
      // Realtime: the next speaker starts when the current one has finished.
      const wait = floorFreeAt - now();
      if (pace === 'realtime' && wait > 0) await sleep(wait);
      await untilNobodyTyping(request.id);
      // Paused: the next speaker does not start talking until the room resumes.
      while (state.paused && stillWanted(request.id)) await sleep(100);
      if (!stillWanted(request.id)) return;
      const controller = new AbortController();
      const current = { id: request.id, partial: '', controller };
      streaming = current;
      const speaker = request.request.cue.speaker.id;
      const text = await generate(request.request, inputs, controller.signal, (delta) => {
        current.partial += delta;
        options.onDelta?.({ speaker, draft: request.id, text: delta });
      });
      if (streaming === current) streaming = null;
      if (controller.signal.aborted) return;
      inputs.push({ type: 'generated', request: request.id, text });
    } else if (request.kind === 'generate') {
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
    // Let other rooms and sockets run between turns: an instant session must not hold the event
    // loop for its whole length (a scripted turn resolves without ever yielding).
    await new Promise<void>((resolve) => setImmediate(resolve));
    outstanding--;
    for (const input of inputs) send(input);
    outstanding++;
  };

  // Started on the next microtask, so the caller holds the room before its first event arrives.
  queueMicrotask(() => send({ type: 'start' }));
  return {
    send,
    typing: (participant, active) => {
      if (active) typingUntil.set(participant, now() + typingHoldMs);
      else typingUntil.delete(participant);
    },
    get state() {
      return state;
    },
    ended,
  };
};
