/**
 * A running conversation: the engine's shell for one session. It owns the session's state,
 * applies inputs in arrival order (humans speaking, instructors steering, generators answering)
 * and carries out the engine's requests with a generator, feeding the answers back. The live
 * server (rooms/rooms.ts), the terminal room and the simulator all run sessions through it.
 *
 * Its parts: `pacing.ts` decides when the next persona may talk (`pace: 'instant'` at once,
 * `'realtime'` when the last speech has been heard, divided by `speed`, with wall-clock times on
 * the events; typing and talking humans and a pause hold it); `replies.ts` holds the personas'
 * replies from first delta to last audio and stops them (barge-in, the scene's interruption
 * rule, a rejected resample, the end).
 *
 * Replies stream: each text delta goes to `onDelta` as it is generated. A human who speaks while
 * a reply is streaming cuts it off there: the generation is aborted and the engine logs what was
 * heard and the interruption. With a `synthesizer` each reply is spoken as it streams (first
 * audio after the first clause), audio and viseme cues go to `onAudio`, and the utterance is
 * accepted once its speech is synthesized, with the real audio length as its `durationMs`.
 * Humans' voices come in through `voiceStarted` (the VAD heard speech begin: a persona speaking
 * stops, `onAudioStop`) and `voiceEnded` (the transcript: the engine logs what was heard of the
 * persona, the interruption with its offset, and the human's words).
 *
 * A session whose server died resumes from its checkpoint (checkpoint.ts, stored by the rooms
 * with the log: `onStep` gives one after every step): `resume` continues the state, the session
 * clock from the checkpoint's time, and re-issues the requests that were in flight. Speech being
 * voiced then is not replayed: its utterance is in the log already, or was never committed and
 * its request is generated again. The log says so with a `session-resumed` notice.
 *
 * ```ts
 * const conversation = openConversation(scene, { seed, generator, onStep: (resume) => resume && save(checkpointJson(resume)) });
 * const again = openConversation(scene, { seed, generator, resume: parseCheckpoint(json, scene) });
 * ```
 *
 * A generator that fails never stops the session: every call goes through the resilience
 * module (providers/resilience.ts), so the scripted generator writes that turn, and the notices
 * of each call (a fallback, a cut, a voice that failed) become `system` events in the log.
 */
import type { SessionEvent } from '../../shared/events';
import type { GenerateRequest } from '../engine/requests';
import { floorIsTheirs } from '../engine/floor';
import { createSession, screenDraft, step, type EngineInput, type EngineRequest, type SessionState } from '../engine/session';
import type { Generator } from '../providers/generator/port';
import { createScriptedGenerator, isScripted } from '../providers/generator/scripted';
import type { Notice } from '../providers/notice';
import { fallsBack, resilientGenerator } from '../providers/resilience';
import type { Synthesizer, VoiceSpec } from '../providers/synthesis/port';
import type { LoadedScene } from '../../shared/scene/schema';
import type { Heard } from './listen';
import type { Resume } from './checkpoint';
import { enoughToScreen, lineChunker } from './clauses';
import { createPacing, type Pace } from './pacing';
import { createReplies, type AudioStop, type HeldCut, type Reply } from './replies';
import type { AudioPiece } from './speech';
import { voicesOf } from './voices';

export interface ConversationOptions {
  seed: number;
  generator: Generator;
  /** Human participants who are really here. */
  present?: string[];
  pace?: Pace;
  /** Realtime only: how much faster than spoken time turns follow each other. */
  speed?: number;
  maxTurns?: number;
  /** How long a "typing" signal holds back AI replies unless renewed. */
  typingHoldMs?: number;
  onEvent?: (event: SessionEvent) => void;
  /** A piece of a reply as it is generated; `draft` identifies the reply until its utterance event. */
  onDelta?: (delta: { speaker: string; draft: string; text: string }) => void;
  /** Speaks the replies; without one the conversation is text only. */
  synthesizer?: Synthesizer | null;
  /** Voices by participant; default: the scene's, completed by `voicesOf`. */
  voices?: ReadonlyMap<string, VoiceSpec>;
  /** A piece of a reply's speech, as soon as it is synthesized. */
  onAudio?: (audio: AudioPiece & { speaker: string; draft: string }) => void;
  /** Clients must stop playing reply `draft` at `atMs` from its start. */
  onAudioStop?: (stop: AudioStop) => void;
  /** Reply `draft`'s speech is complete: no more audio comes for it. */
  onAudioEnd?: (end: { speaker: string; draft: string; durationMs: number }) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Starts at once (the default); false: the caller sends `start` (a live room waits in its lobby). */
  autostart?: boolean;
  /**
   * Whether an instructor is watching now (a live room's observers). At instant pace a proposal
   * nobody watches gets the scene's approval default at once instead of waiting out its time limit.
   */
  watched?: () => boolean;
  /**
   * How long a present human offered an open floor (by the policy, not asked anything) is waited
   * for, in silence, before the conversation goes on; typing or talking holds it. Default 4 s
   * (realtime: divided by `speed`).
   */
  openFloorMs?: number;
  /**
   * After each step, once its events are all given to `onEvent`: where the conversation could
   * resume from (store it with those events), or null when it could not (a goodbye's end held
   * back until it is heard).
   */
  onStep?: (resume: Resume | null) => void;
  /** Continues a session from its checkpoint (its events up to `resume.seq` are in the log already). */
  resume?: Resume;
}

/** How long an open floor waits for a human who was not asked anything: a short silence. */
export const OPEN_FLOOR_MS = 4000;

export interface Conversation {
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

/** The longest a session's end waits for its last line to be heard (a goodbye is a sentence or two). */
const FAREWELL_MS = 30_000;

/** What carrying out one request gives the engine, once it is done. */
interface Outcome {
  /** Notices first, in a reproducible order, then the answer. */
  inputs: EngineInput[];
  /** The reply it spoke, to close once the engine has had its say. */
  reply?: Reply;
}

export const openConversation = (scene: LoadedScene, options: ConversationOptions): Conversation => {
  const now = options.now ?? (() => Date.now());
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  // A generator that throws, vendor or not, has the scripted generator write the turn; each turn
  // passes the resilience wrapper once. A vendor from createGenerator has its fallback already (its
  // retries, limits and circuit); the scripted generator needs none: its fallback would be itself,
  // and the wrapper cost the simulator an eighth of its time.
  const generator =
    isScripted(options.generator) || fallsBack(options.generator)
      ? options.generator
      : resilientGenerator(options.generator, createScriptedGenerator(), { retries: 0, breaker: null });
  // A resumed session's clock goes on from its checkpoint's time.
  const started = now() - (options.resume?.t ?? 0);
  const log: SessionEvent[] = [];
  let state = options.resume?.state ?? createSession(scene, {
    seed: options.seed,
    pace: options.pace ?? 'instant',
    // An LLM normalises each utterance's knowledge for long-term memory (MMAgents Eq. 3); the scripted generator leaves it to the rules.
    normalizeKnowledge: options.generator.name !== 'scripted',
    present: options.present ?? [],
    ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
  });
  let resolveEnded!: (events: SessionEvent[]) => void;
  const ended = new Promise<SessionEvent[]>((resolve) => (resolveEnded = resolve));
  const pacing = createPacing({ pace: options.pace ?? 'instant', speed: options.speed ?? 1, typingHoldMs: options.typingHoldMs ?? 8000, now, sleep });
  const replies = createReplies({
    scene,
    synthesizer: options.synthesizer ?? null,
    voices: options.voices ?? voicesOf(scene),
    pacing,
    now,
    origin: started,
    ended,
    onNotice: (notice) => send({ type: 'notice', level: 'warn', ...notice }),
    ...(options.onDelta ? { onDelta: options.onDelta } : {}),
    ...(options.onAudio ? { onAudio: options.onAudio } : {}),
    ...(options.onAudioStop ? { onAudioStop: options.onAudioStop } : {}),
    ...(options.onAudioEnd ? { onAudioEnd: options.onAudioEnd } : {}),
  });
  /** Requests being carried out: each leaves the set as its answer is applied. */
  const inFlight = new Set<Promise<Outcome>>();
  /** Barge-ins by voice, waiting for the transcript that says what the human said. */
  const cuts = new Map<string, Promise<HeldCut | null>>();
  const inbox: EngineInput[] = [];
  let draining = false;
  /** Requests not yet answered, by id: a checkpoint carries them, so a resumed session asks again. */
  const outstanding = new Map<string, EngineRequest>((options.resume?.requests ?? []).map((r) => [r.id, r]));
  /** The seq of the last event given to `onEvent`: a checkpoint is only good when it is the state's. */
  let announced = options.resume?.seq ?? 0;
  const stepDone = (): void => {
    if (!options.onStep) return;
    options.onStep(announced === state.seq ? { state, seq: state.seq, t: state.t, requests: [...outstanding.values()] } : null);
  };

  /** Whether the room is waiting for this human: a line they type then answers, it never cuts anyone off. */
  const theirTurn = (participant: string): boolean => state.awaiting?.speaker === participant;

  /**
   * Barge-in, decided here and only here: a human's voice stops whatever persona speech is audible
   * (replies.ts stops it where the room heard it: two people do not talk over each other); a typed
   * line cuts a reply off only when it is not their turn (then it answers) and the session is not
   * paused (then it is kept for the resume). Resolves with what the engine logs with their words.
   */
  const bargeIn = (participant: string, by: 'voice' | 'typing'): ReturnType<typeof replies.interrupt> => {
    if (by === 'typing' && (!replies.busy() || theirTurn(participant) || state.paused)) return null;
    return replies.interrupt();
  };

  const send = (input: EngineInput): void => {
    // The instructor ends a session whose goodbye is still being heard: it ends now.
    if (input.type === 'end' && heldEnd) return releaseEnd();
    // A typed line's place in the record is when it reached the room (shared/review/record.ts), not the
    // engine's clock, which runs on to the end of the speech it may cut.
    if (input.type === 'say' && pacing.realtime && !input.spoken && input.sentAt === undefined) input = { ...input, sentAt: now() - started };
    // Said while the line before it (an authored question queued behind speech) was still unheard: it cannot answer it.
    if (input.type === 'say' && pacing.realtime && state.last && replies.unheardAt(state.last.id, input.spoken?.start ?? input.sentAt ?? now() - started)) input = { ...input, before: state.last.id };
    // A typed barge-in: stop the reply where the human cut in, then log their words.
    if (input.type === 'say' && !input.cut) {
      const cut = bargeIn(input.participant, 'typing');
      if (cut instanceof Promise) {
        void cut.then((held) => send({ ...input, ...(held ? { cut: held.cut } : {}) }));
        return;
      }
      if (cut) input = { ...input, cut: cut.cut };
    }
    if (input.type === 'say') pacing.release(input.participant);
    inbox.push(input);
    if (draining) return; // an input sent from onEvent waits for the current step's events to finish
    draining = true;
    try {
      while (inbox.length > 0) apply(inbox.shift()!);
    } finally {
      draining = false;
    }
    // Nothing in flight and nobody to wait for: a bug must not hang the session forever.
    const { phase, paused, pending, awaiting, proposal } = state;
    if (inFlight.size === 0 && cuts.size === 0 && phase === 'running' && !paused && !pending && !awaiting && !proposal) {
      send({ type: 'notice', level: 'error', code: 'stalled', message: 'The engine had nothing left to do; ending the session.' });
      send({ type: 'end' });
    }
  };

  /**
   * A proposal nobody decided in time gets the scene's default (approve, skip or regenerate; a
   * proposal regenerated on a timeout is skipped the next time), and the log says so. Approvals
   * never hang.
   */
  const regeneratedLate = new Set<string>();
  /** The scene's default for `proposal`; `late`: its time limit passed, else nobody was watching to decide it. */
  const decideByDefault = (proposal: string, participant: string, late: { timeoutMs: number } | null) => {
    if (state.proposal?.id !== proposal || state.phase === 'ended') return;
    const fallback = scene.turnTaking.approval.onTimeout;
    const choice = fallback === 'regenerate' && regeneratedLate.has(participant) ? 'skip' : fallback;
    if (choice === 'regenerate') regeneratedLate.add(participant);
    else regeneratedLate.delete(participant);
    const who = scene.participants.find((p) => p.id === participant)?.name ?? participant;
    const applied = choice === 'approve' ? 'approved' : choice === 'skip' ? 'skipped' : 'drawn again';
    if (late) {
      const { timeoutMs } = late;
      send({ type: 'notice', level: 'warn', code: 'approval-timeout', message: `No decision on ${who}'s proposal within ${timeoutMs >= 10_000 ? Math.round(timeoutMs / 1000) : +(timeoutMs / 1000).toFixed(1)} s: ${applied} (the scene's default).` });
    } else {
      send({ type: 'notice', level: 'info', code: 'approval-default', message: `No instructor is watching: ${who}'s proposal was ${applied} at once (the scene's default).` });
    }
    send({ type: 'approval', proposal, decision: choice === 'skip' ? 'dismiss' : choice });
  };
  const decideLate = (proposal: string, participant: string, timeoutMs: number) => {
    // Nobody watching: nobody could decide it, so nobody waits for it (a live room would sit
    // silent for the whole time limit, its trainee's questions unanswered).
    if (options.watched && !options.watched()) return decideByDefault(proposal, participant, null);
    const timer = setTimeout(() => decideByDefault(proposal, participant, { timeoutMs }), timeoutMs);
    (timer as { unref?: () => void }).unref?.();
  };

  /**
   * An open floor: the policy offered a present human the floor without anyone asking them. The
   * room waits a short silence for them (longer while they type or talk, and not while paused),
   * then the conversation goes on without them.
   */
  const openFloorMs = options.openFloorMs ?? OPEN_FLOOR_MS;
  const offerFloor = (participant: string) => {
    const offered = state.awaiting;
    const stillOpen = () => state.awaiting === offered && state.phase === 'running';
    void (async () => {
      for (;;) {
        await sleep(pacing.realtime ? openFloorMs / (options.speed ?? 1) : openFloorMs);
        // Someone typing or talking keeps the floor open for them.
        await pacing.untilFree(() => -Infinity, stillOpen);
        if (!stillOpen()) return;
        // Paused meanwhile: the silence starts again after the resume.
        if (!state.paused) break;
        while (state.paused && stillOpen()) await sleep(100);
      }
      send({ type: 'silence', participant });
    })();
  };

  const apply = (input: EngineInput): void => {
    if (pacing.realtime && input.type !== 'clock') state = step(state, { type: 'clock', t: now() - started }).state;
    const result = step(state, input);
    state = result.state;
    for (const [i, event] of result.events.entries()) {
      // A session that ends on its own ends once its last line (the goodbye) has been heard, not over it.
      if (event.type === 'end' && event.reason !== 'ended' && pacing.realtime) {
        holdEnd(result.events.slice(i));
        break;
      }
      announce(event);
    }
    if (input.type === 'generated' || input.type === 'thoughts') outstanding.delete(input.request);
    for (const request of result.requests) carry(request);
    stepDone();
  };

  const announce = (event: SessionEvent): void => {
    log.push(event);
    announced = event.seq;
    if (event.type === 'utterance') replies.logged(event);
    options.onEvent?.(event);
    if (event.type === 'approval-needed' && event.timeoutMs) decideLate(event.proposal, event.participant, event.timeoutMs);
    if (event.type === 'human-input-required' && event.open) offerFloor(event.participant);
    if (event.type === 'end') {
      replies.stopAll();
      resolveEnded(log);
    }
  };

  /** The end (and what follows it), held until the speech before it has been heard: at most FAREWELL_MS, or until an instructor ends the session. */
  let heldEnd: SessionEvent[] | null = null;
  const holdEnd = (events: SessionEvent[]): void => {
    heldEnd = events;
    const deadline = now() + FAREWELL_MS;
    void (async () => {
      while (heldEnd && pacing.floorFreeAt > now() && now() < deadline) await sleep(Math.min(250, pacing.floorFreeAt - now(), deadline - now()));
      releaseEnd();
    })();
  };
  const releaseEnd = (): void => {
    const events = heldEnd;
    heldEnd = null;
    for (const event of events ?? []) announce(event);
    if (events) stepDone();
  };

  /** Carries out `request`; its answer is applied once it is done, and it leaves `inFlight` just before. */
  const carry = (request: EngineRequest): void => {
    if (options.onStep) outstanding.set(request.id, request);
    const job = carryOut(request);
    inFlight.add(job);
    void job.then(
      (outcome) => {
        inFlight.delete(job);
        for (const input of outcome.inputs) send(input);
        // Not wanted any more (the turn moved on): nothing to ask again after a restart.
        outstanding.delete(request.id);
        outcome.reply?.close();
      },
      (error: unknown) => {
        // Not a vendor's failure (those fall back inside): a fault of ours. Said once in the log
        // and on the server's error stream, and the request is answered empty, so the turn moves on
        // instead of the session waiting for an answer that will never come.
        inFlight.delete(job);
        const reason = error instanceof Error ? error.message : String(error);
        process.stderr.write(`conversation: ${request.kind} request ${request.id} failed: ${reason}\n`);
        if (state.phase === 'ended') return;
        send({ type: 'notice', level: 'error', code: 'request-failed', message: 'A turn could not be prepared; the conversation goes on.' });
        send(request.kind === 'think' ? { type: 'thoughts', request: request.id, answers: [] } : { type: 'generated', request: request.id, text: '' });
      },
    );
  };

  const stillWanted = (id: string): boolean => state.pending?.id === id;

  /** The generator's text for `request`; its notices go to `report`. A cut-off generation ends with what it had. */
  const generate = async (request: GenerateRequest, report: (notice: Notice) => void, signal?: AbortSignal, onText?: (text: string) => void): Promise<string> => {
    let text = '';
    try {
      for await (const delta of generator.stream(request, signal, report)) {
        text += delta;
        onText?.(delta);
      }
    } catch (error) {
      if (!signal?.aborted) throw error;
    }
    return text;
  };

  const carryOut = async (request: EngineRequest): Promise<Outcome> => {
    const inputs: EngineInput[] = [];
    const report = (notice: Notice) => inputs.push({ type: 'notice', level: 'warn', ...notice });
    let reply: Reply | undefined;
    if (request.kind === 'generate' && request.request.purpose === 'utterance') {
      const wanted = () => stillWanted(request.id);
      await pacing.untilTurn(wanted, () => state.paused);
      if (!wanted()) return { inputs };
      const opened = replies.open(request.id, request.request, report);
      // Nothing is shown or heard until the first clause passes the engine's screen: a line that
      // repeats the session is stopped there and drawn again, never voiced and then withdrawn.
      // Generation stops when the screen fails or the reply is cut off: one controller, the cut
      // forwarded by hand (AbortSignal.any cost the simulator more per turn than the rest of this).
      const stop = new AbortController();
      const forward = () => stop.abort(opened.signal.reason);
      if (opened.signal.aborted) forward();
      else opened.signal.addEventListener('abort', forward, { once: true });
      // The line is chunked once: the screen reads its first clauses, speech speaks them all.
      const clauses = lineChunker();
      let held = '';
      const heldClauses: string[] = [];
      let verdict = 'pending' as 'pending' | 'pass' | 'fail';
      let whole = false;
      const judge = (complete: boolean) => {
        whole = complete;
        verdict = screenDraft(state, request.id, held, complete) ? 'pass' : 'fail';
        if (verdict === 'fail') stop.abort();
        else opened.push(held, heldClauses);
      };
      const text = await generate(request.request, report, stop.signal, (delta) => {
        if (verdict === 'pass') return opened.push(delta, clauses.push(delta));
        if (verdict === 'fail') return;
        held += delta;
        heldClauses.push(...clauses.push(delta));
        if (enoughToScreen(heldClauses)) judge(false);
      });
      opened.signal.removeEventListener('abort', forward);
      if (verdict === 'pending' && !opened.signal.aborted) {
        heldClauses.push(...clauses.flush());
        judge(true);
      } else if (verdict === 'pass') opened.push('', clauses.flush());
      if (verdict === 'fail') {
        opened.discard();
        inputs.push({ type: 'generated', request: request.id, text: held, ...(whole ? {} : { partial: true }) });
        return { inputs };
      }
      const spoken = await opened.finish();
      // Cut off: the human's words come instead; what went wrong on the way is still logged.
      if (!spoken) return { inputs };
      // Shown or heard, it stays: the engine keeps it whatever its screen says of the whole.
      const committed = !!(options.onDelta || options.synthesizer);
      inputs.push({ type: 'generated', request: request.id, text, ...spoken, ...(committed ? { committed } : {}) });
      reply = opened;
    } else if (request.kind === 'generate') {
      // Memory normalisation is a background nicety: when the vendor fails, the rules' facts stay, and the log says nothing.
      const text = await generate(request.request, request.request.purpose === 'normalize' ? () => {} : report);
      inputs.push({ type: 'generated', request: request.id, text });
    } else {
      // Everyone thinks at once; notices are logged in participant order so runs stay reproducible.
      const results = await Promise.all(
        request.participants.map(async (p) => {
          const notices: EngineInput[] = [];
          const text = await generate(p.request, (notice) => notices.push({ type: 'notice', level: 'warn', ...notice }));
          return { notices, answer: { participant: p.participant, text } };
        }),
      );
      for (const r of results) inputs.push(...r.notices);
      inputs.push({ type: 'thoughts', request: request.id, answers: results.map((r) => r.answer) });
    }
    // Let other rooms and sockets run between turns: an instant session must not hold the event
    // loop for its whole length (a scripted turn resolves without ever yielding).
    await new Promise<void>((resolve) => setImmediate(resolve));
    return { inputs, ...(reply ? { reply } : {}) };
  };

  const voiceStarted = (participant: string): void => {
    pacing.voiceStarted(participant);
    if (cuts.has(participant)) return;
    const cut = bargeIn(participant, 'voice');
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
      pacing.release(participant);
      if (!held) return;
      // A cough or a word nobody caught: the persona it stopped starts its turn again.
      const who = scene.participants.find((p) => p.id === participant)?.name ?? participant;
      send({ type: 'notice', level: 'info', code: 'barge-in-without-words', message: `A sound from ${who} stopped the speaker, but no words were heard; the turn goes on.` });
      if ('request' in held.cut && held.retry && stillWanted(held.cut.request)) carry({ kind: 'generate', id: held.cut.request, request: held.retry });
      else if (inFlight.size === 0) send({ type: 'notice', level: 'info', code: 'turn-resumed', message: 'The room carries on.' });
    });
  };

  /**
   * A resumed session: the requests in flight at its checkpoint are carried out again, and what
   * waited on a timer (a proposal's decision, an open floor's silence) waits again from now.
   */
  const resumeFrom = (resume: Resume): void => {
    if (state.phase !== 'running') return;
    for (const request of resume.requests) carry(request);
    const { proposal, awaiting } = state;
    const timeoutMs = Math.round(scene.turnTaking.approval.timeoutS * 1000);
    if (proposal && timeoutMs > 0) decideLate(proposal.id, proposal.participant, timeoutMs);
    if (awaiting && !floorIsTheirs(awaiting)) offerFloor(awaiting.speaker);
    send({ type: 'notice', level: 'info', code: 'session-resumed', message: 'The server restarted; the session resumes where it was.' });
  };

  // Started on the next microtask, so the caller holds the conversation before its first event arrives.
  if (options.resume) {
    const { resume } = options;
    queueMicrotask(() => resumeFrom(resume));
  } else if (options.autostart !== false) queueMicrotask(() => send({ type: 'start' }));
  return {
    send,
    typing: (participant, active) => pacing.typing(participant, active),
    voiceStarted,
    voiceEnded,
    get state() {
      return state;
    },
    ended,
  };
};
