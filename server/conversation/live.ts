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
 * Voice (with a `synthesizer`): each reply is also spoken as it streams (conversation/speech.ts,
 * first audio after the first clause), audio and viseme cues go to `onAudio`, and the utterance
 * is accepted once its speech is synthesized, with the real audio length as its `durationMs`. In
 * realtime the next speaker starts when that audio has played. Humans' voices come in through
 * `voiceStarted` (the VAD heard speech begin) and `voiceEnded` (the transcript): a voice that
 * starts while a persona speaks stops it (`onAudioStop`, within a frame), politely at once or,
 * for a `persistent` persona, at the end of its clause; the transcript then logs what was heard
 * of the persona, the interruption with its offset, and the human's words.
 *
 * A generator that throws never stops the room: the scripted generator writes that turn and a
 * `system` event says so.
 */
import type { LoadedScene } from '../scene/schema';
import type { SessionEvent } from '../engine/events';
import { createSession, step, type EngineInput, type EngineRequest, type SessionState } from '../engine/session';
import type { Cut } from '../engine/session';
import { complete, type Generator } from '../providers/generator/port';
import type { GenerateRequest } from '../engine/requests';
import { createScriptedGenerator } from '../providers/generator/scripted';
import type { Synthesizer, VoiceSpec } from '../providers/synthesis/port';
import { createSpokenReply, type AudioPiece, type BargeInMode, type SpokenReply } from './speech';
import { voicesOf } from './voices';
import type { Heard } from './listen';

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
  /** Speaks the replies; without one the room is text only. */
  synthesizer?: Synthesizer | null;
  /** Voices by participant; default: the scene's, completed by `voicesOf`. */
  voices?: ReadonlyMap<string, VoiceSpec>;
  /** A piece of a reply's speech, as soon as it is synthesized. */
  onAudio?: (audio: AudioPiece & { speaker: string; draft: string }) => void;
  /** Clients must stop playing reply `draft` at `atMs` from its start. */
  onAudioStop?: (stop: { speaker: string; draft: string; atMs: number; reason: 'barge-in' | 'interrupted' | 'rejected' | 'ended' }) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface LiveRoom {
  /** Applies an input (a human's words, an instructor's command) in arrival order. */
  send(input: EngineInput): void;
  /** A present human started or stopped composing a message. */
  typing(participant: string, active: boolean): void;
  /** A present human's voice began (the VAD's speech start): a persona speaking now stops. */
  voiceStarted(participant: string): void;
  /** That voice's turn is over: what was said (wall-clock times), or null if nothing was understood. */
  voiceEnded(participant: string, heard: Heard | null): void;
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
  const synthesizer = options.synthesizer ?? null;
  const voices = options.voices ?? voicesOf(scene);
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
  /** The reply being generated or spoken and not yet accepted, which a human can cut off. */
  let streaming: Streaming | null = null;
  /** A voiced reply that was accepted and is still being heard (realtime). */
  let playing: Playing | null = null;
  /** Drafts being voiced whose utterance has not been logged yet, with their speech. */
  const voiced = new Map<string, SpokenReply>();
  /** Drafts a human's barge-in stopped. */
  const cutOff = new Set<string>();
  /** Barge-ins by voice, waiting for the transcript that says what the human said. */
  const cuts = new Map<string, Promise<HeldCut | null>>();
  const typingUntil = new Map<string, number>();
  let outstanding = 0;

  const inbox: EngineInput[] = [];
  let draining = false;
  const send = (input: EngineInput): void => {
    if (input.type === 'say' && !input.cut && (streaming || isPlaying())) {
      // A typed barge-in: stop the reply where the human cut in, then log their words.
      const cut = interrupt();
      if (cut instanceof Promise) {
        void cut.then((held) => send({ ...input, ...(held ? { cut: held.cut } : {}) }));
        return;
      }
      if (cut) input = { ...input, cut: cut.cut };
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
    if (outstanding === 0 && cuts.size === 0 && s.phase === 'running' && !s.paused && !s.pending && !s.awaiting && !s.proposal) {
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
      if (event.type === 'utterance') onUtterance(event);
      options.onEvent?.(event);
      if (event.type === 'end') {
        stopAll();
        resolveEnded(log);
      }
    }
    for (const request of result.requests) {
      outstanding++;
      void carryOut(request).finally(() => outstanding--);
    }
  };

  /** Realtime: the next speaker waits for this one's speech (a human's was heard already). */
  const onUtterance = (event: Extract<SessionEvent, { type: 'utterance' }>): void => {
    if (event.source === 'human') return;
    if (!event.draft) {
      if (pace === 'realtime') floorFreeAt = now() + event.durationMs / speed;
      // Written without a generation (a scene's scripted line, an instructor's edit): spoken now.
      if (synthesizer && voices.has(event.speaker)) voiceLogged(event);
      return;
    }
    const reply = voiced.get(event.draft);
    voiced.delete(event.draft);
    // A human barged in: their words come next, nobody waits for this speech.
    if (cutOff.delete(event.draft)) return;
    const audible = playing?.draft === event.draft ? playing : null;
    let endsAtMs = event.durationMs;
    if (reply && event.interrupted) {
      // The scene's interruption rule cut the speaker off (DialogLab): their audio stops at that word.
      endsAtMs = reply.afterWords(event.text.split(/\s+/).filter(Boolean).length);
      options.onAudioStop?.({ speaker: event.speaker, draft: event.draft, atMs: endsAtMs, reason: 'interrupted' });
    }
    if (pace !== 'realtime') return;
    if (audible) {
      audible.utterance = event.id;
      audible.endsAt = audible.startedAt + endsAtMs / speed;
      floorFreeAt = audible.endsAt;
    } else floorFreeAt = now() + event.durationMs / speed;
  };

  /** Speaks an utterance already in the log; in realtime the floor is free when its audio ends. */
  const voiceLogged = (event: Extract<SessionEvent, { type: 'utterance' }>): void => {
    const { id, speaker } = event;
    let startedAt: number | null = null;
    let stopped = false;
    const reply = createSpokenReply({
      synthesizer: synthesizer!,
      voice: voices.get(speaker)!,
      onAudio: (piece) => {
        if (stopped) return;
        startedAt ??= now();
        options.onAudio?.({ ...piece, speaker, draft: id });
      },
    });
    const current: Playing = { draft: id, speaker, reply, startedAt: now(), utterance: id, endsAt: floorFreeAt };
    if (pace === 'realtime') playing = current;
    reply.push(event.text.replace(/—$/, ''));
    void reply.finish().then(({ durationMs }) => {
      if (playing !== current || startedAt === null) return;
      current.startedAt = startedAt;
      current.endsAt = startedAt + durationMs / speed;
      floorFreeAt = current.endsAt;
    });
    void ended.then(() => (stopped = true));
  };

  const isPlaying = (): boolean => playing !== null && playing.utterance !== null && now() < playing.endsAt;

  const stopAll = (): void => {
    const t = now();
    for (const speech of [streaming, isPlaying() ? playing : null]) {
      if (speech?.reply && speech.startedAt !== null) {
        options.onAudioStop?.({ speaker: speech.speaker, draft: speech.draft, atMs: Math.min(t - speech.startedAt, speech.reply.producedMs), reason: 'ended' });
      }
    }
    streaming?.controller.abort();
    void streaming?.reply?.stop(0, 'polite');
    streaming = null;
    playing = null;
  };

  const bargeInOf = (speaker: string): BargeInMode => scene.participants.find((p) => p.id === speaker)?.persona?.bargeIn ?? 'polite';

  /**
   * A human started talking: whoever is speaking stops (now, or at the end of their clause), and
   * the clients are told where. Resolves with what the engine must log when the human's words come.
   */
  const interrupt = (): HeldCut | Promise<HeldCut> | null => {
    const t = now();
    if (streaming) {
      const current = streaming;
      streaming = null;
      cutOff.add(current.draft);
      current.controller.abort();
      const { reply } = current;
      if (!reply || current.startedAt === null) {
        // Nothing audible yet: the text streamed so far is what the room saw.
        void reply?.stop(0, 'polite');
        return { cut: { request: current.draft, partial: reply ? '' : current.partial }, retry: current.request };
      }
      return reply.stop((t - current.startedAt) * speed, bargeInOf(current.speaker)).then((atMs) => {
        options.onAudioStop?.({ speaker: current.speaker, draft: current.draft, atMs, reason: 'barge-in' });
        return { cut: { request: current.draft, partial: reply.heardBefore(atMs), atMs }, retry: current.request };
      });
    }
    if (playing && isPlaying()) {
      const current = playing;
      playing = null;
      floorFreeAt = t;
      voiced.delete(current.draft);
      return current.reply.stop((t - current.startedAt) * speed, bargeInOf(current.speaker)).then((atMs) => {
        options.onAudioStop?.({ speaker: current.speaker, draft: current.draft, atMs, reason: 'barge-in' });
        const atWord = current.reply.heardBefore(atMs).split(/\s+/).filter(Boolean).length;
        return { cut: { utterance: current.utterance!, atWord, atMs }, retry: null };
      });
    }
    return null;
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

  /** Generates (and speaks) one utterance; returns its text and speech, or null if cut off. */
  const utter = async (id: string, request: GenerateRequest, inputs: EngineInput[]): Promise<Said | null> => {
    const speaker = request.cue.speaker.id;
    const controller = new AbortController();
    const voice = voices.get(speaker);
    const current: Streaming = { draft: id, speaker, request, partial: '', controller, reply: null, startedAt: null };
    if (synthesizer && voice) {
      current.reply = createSpokenReply({
        synthesizer,
        voice,
        onAudio: (piece) => {
          if (controller.signal.aborted && streaming !== current) return;
          current.startedAt ??= now();
          options.onAudio?.({ ...piece, speaker, draft: id });
        },
        onError: (error) => inputs.push({ type: 'notice', level: 'warn', code: 'synthesis-failed', message: `${scene.participants.find((p) => p.id === speaker)?.name ?? speaker} could not be voiced (${error.message}); their words are shown as text` }),
      });
    }
    if (current.reply) voiced.set(id, current.reply);
    streaming = current;
    const text = await generate(request, inputs, controller.signal, (delta) => {
      current.partial += delta;
      options.onDelta?.({ speaker, draft: id, text: delta });
      current.reply?.push(delta);
    });
    if (controller.signal.aborted || streaming !== current) return null;
    if (!current.reply) {
      streaming = null;
      return { text, speaker, reply: null, startedAt: null };
    }
    const { durationMs } = await current.reply.finish();
    if (controller.signal.aborted || streaming !== current) return null;
    streaming = null;
    if (pace === 'realtime' && current.startedAt !== null) {
      playing = { draft: id, speaker, reply: current.reply, startedAt: current.startedAt, utterance: null, endsAt: current.startedAt + durationMs / speed };
    }
    return { text, durationMs, speaker, reply: current.reply, startedAt: current.startedAt };
  };

  const carryOut = async (request: EngineRequest): Promise<void> => {
    const inputs: EngineInput[] = [];
    let said: Awaited<ReturnType<typeof utter>> = null;
    if (request.kind === 'generate' && request.request.purpose === 'utterance') {
      // Realtime: the next speaker starts when the current one has finished.
      // (Re-read after each sleep: a line being voiced moves floorFreeAt to its audio's real end.)
      while (pace === 'realtime' && floorFreeAt > now() && stillWanted(request.id)) await sleep(Math.min(floorFreeAt - now(), 250));
      await untilNobodyTyping(request.id);
      // Paused: the next speaker does not start talking until the room resumes.
      while (state.paused && stillWanted(request.id)) await sleep(100);
      if (!stillWanted(request.id)) return;
      said = await utter(request.id, request.request, inputs);
      if (!said) return;
      inputs.push({ type: 'generated', request: request.id, text: said.text, ...(said.durationMs !== undefined ? { durationMs: said.durationMs } : {}) });
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
    // Spoken but not accepted (too like the speaker's earlier words): the resample replaces it.
    // (An accepted draft left `voiced` when its utterance was logged.)
    if (said?.startedAt != null && said.reply && voiced.has(request.id)) {
      if (playing?.draft === request.id) playing = null;
      voiced.delete(request.id);
      options.onAudioStop?.({ speaker: said.speaker, draft: request.id, atMs: Math.min((now() - said.startedAt) * speed, said.reply.producedMs), reason: 'rejected' });
    }
  };

  const voiceStarted = (participant: string): void => {
    // Nobody starts talking over a human who is speaking; the hold ends with their words.
    typingUntil.set(participant, now() + VOICE_HOLD_MS);
    if (cuts.has(participant)) return;
    const cut = interrupt();
    if (cut) cuts.set(participant, Promise.resolve(cut));
  };

  const voiceEnded = (participant: string, heard: Heard | null): void => {
    const cut = cuts.get(participant) ?? Promise.resolve(null);
    void cut.then((held) => {
      cuts.delete(participant);
      if (state.phase === 'ended') return;
      if (heard) {
        const spoken = { start: heard.start - started, end: heard.end - started };
        send({ type: 'say', participant, text: heard.text, durationMs: Math.max(0, heard.end - heard.start), spoken, ...(held ? { cut: held.cut } : {}) });
        return;
      }
      typingUntil.delete(participant);
      if (!held) return;
      // A cough or a word nobody caught: the persona it stopped starts its turn again.
      const who = scene.participants.find((p) => p.id === participant)?.name ?? participant;
      send({ type: 'notice', level: 'info', code: 'barge-in-without-words', message: `A sound from ${who} stopped the speaker, but no words were heard; the turn goes on.` });
      if ('request' in held.cut && held.retry && stillWanted(held.cut.request)) {
        cutOff.delete(held.cut.request);
        outstanding++;
        void carryOut({ kind: 'generate', id: held.cut.request, request: held.retry }).finally(() => outstanding--);
      } else if (outstanding === 0) send({ type: 'notice', level: 'info', code: 'turn-resumed', message: 'The room carries on.' });
    });
  };

  // Started on the next microtask, so the caller holds the room before its first event arrives.
  queueMicrotask(() => send({ type: 'start' }));
  return {
    send,
    typing: (participant, active) => {
      if (active) typingUntil.set(participant, now() + typingHoldMs);
      else typingUntil.delete(participant);
    },
    voiceStarted,
    voiceEnded,
    get state() {
      return state;
    },
    ended,
  };
};

/** How long a voice that started holds the floor if its end never comes (a dropped microphone). */
const VOICE_HOLD_MS = 30_000;

interface Streaming {
  draft: string;
  speaker: string;
  request: GenerateRequest;
  /** The text generated so far. */
  partial: string;
  controller: AbortController;
  reply: SpokenReply | null;
  /** When its first audio went out (clients play on arrival). */
  startedAt: number | null;
}

interface Playing {
  draft: string;
  speaker: string;
  reply: SpokenReply;
  startedAt: number;
  /** Its utterance id once accepted. */
  utterance: string | null;
  endsAt: number;
}

interface Said {
  text: string;
  /** The speech's length, when it was voiced. */
  durationMs?: number;
  speaker: string;
  reply: SpokenReply | null;
  startedAt: number | null;
}

interface HeldCut {
  cut: Cut;
  /** The request to carry out again if the barge-in turns out to hold no words. */
  retry: GenerateRequest | null;
}
