/**
 * The personas' replies in a running conversation, from their first delta until their audio has
 * been heard, and how they stop. A reply is `streaming` while it is generated (and voiced, clause
 * by clause: conversation/speech.ts) and not yet accepted; in realtime a voiced reply the engine
 * accepted is `playing` until its audio ends. Lines the engine wrote itself (a scene's scripted
 * line, an instructor's edit) are voiced when logged and play the same way.
 *
 * Stopping: a human who starts talking cuts off whichever reply is audible (`interrupt`): a
 * streaming one stops generating, and its speech stops politely at once or, for a `persistent`
 * persona, at the end of its clause; the cut says what the room heard. The scene's interruption
 * rule cuts a speaker at a word (`logged`); a reply the engine rejected (too like the speaker's
 * earlier words) stops (`close`); everything stops when the session ends (`stopAll`). Each stop
 * tells the clients where the audio ends (`onAudioStop`).
 *
 * ```ts
 * const reply = replies.open(id, request, report);
 * for await (const delta of generator.stream(request, reply.signal)) reply.push(delta, chunker.push(delta));
 * reply.push('', chunker.flush());
 * const spoken = await reply.finish(); // null: a human cut it off
 * if (spoken) conversation.send({ type: 'generated', request: id, text, ...spoken });
 * reply.close(); // not accepted: its audio stops
 * ```
 */
import type { SessionEvent } from '../../shared/events';
import type { GenerateRequest } from '../engine/requests';
import type { Cut } from '../engine/session';
import { countWords } from '../../shared/words';
import type { Notice } from '../providers/notice';
import type { Synthesizer, VoiceSpec } from '../providers/synthesis/port';
import type { LoadedScene } from '../../shared/scene/schema';
import type { AudioStopReason } from '../../shared/protocol/messages';
import type { Pacing } from './pacing';
import { clausesOf } from './clauses';
import { createSpokenReply, type AudioPiece, type BargeInMode, type SpokenReply } from './speech';

type Utterance = Extract<SessionEvent, { type: 'utterance' }>;

export interface AudioStop {
  speaker: string;
  draft: string;
  /** Where the reply's audio ends, in ms from its start. */
  atMs: number;
  reason: AudioStopReason;
}

/** A barge-in's cut, for the engine to log with the human's words. */
export interface HeldCut {
  cut: Cut;
  /** The request to carry out again if the barge-in turns out to hold no words. */
  retry: GenerateRequest | null;
}

export interface RepliesOptions {
  scene: LoadedScene;
  /** Speaks the replies; without one they are text only. */
  synthesizer: Synthesizer | null;
  voices: ReadonlyMap<string, VoiceSpec>;
  pacing: Pacing;
  now: () => number;
  /** The session's start on `now`'s clock: session ms are `now() - origin`. */
  origin: number;
  /** Resolves when the session ends: a logged line still being voiced then falls silent. */
  ended: Promise<unknown>;
  /** The synthesis notices of a logged line (a generated reply's go to the `report` it was opened with). */
  onNotice?: (notice: Notice) => void;
  onDelta?: (delta: { speaker: string; draft: string; text: string }) => void;
  onAudio?: (audio: AudioPiece & { speaker: string; draft: string }) => void;
  onAudioStop?: (stop: AudioStop) => void;
  /** A reply's speech is complete: no more audio comes for `draft` (recordings/recorder.ts waits for it). */
  onAudioEnd?: (end: { speaker: string; draft: string; durationMs: number }) => void;
}

/** A reply being generated: what the session loop holds while it carries out one `generate` request. */
export interface Reply {
  /** Aborted when the reply is cut off or the session ends: its generation stops. */
  readonly signal: AbortSignal;
  /** More of the generated text, shown to the room, and the clauses it completed (the line's one chunker, clauses.ts), voiced. */
  push(delta: string, clauses: readonly string[]): void;
  /** The text is complete: resolves once it is spoken, with the audio's length (none when text only), or null if it was cut off. */
  /**
   * The reply's audio length, and in realtime `heardFrom`: when its first audio went out (session
   * ms), which is when the room began to hear it, before its last words were even generated.
   */
  finish(): Promise<{ durationMs?: number; heardFrom?: number } | null>;
  /** The engine has had its say on the finished reply: if it did not accept it, its audio stops. */
  close(): void;
  /** Stopped before anything of it was shown or heard (the screen rejected its first clause): forgotten. */
  discard(): void;
}

export interface Replies {
  /** A generated reply starts; `report` takes its synthesis notices. */
  open(draft: string, request: GenerateRequest, report: (notice: Notice) => void): Reply;
  /** The engine logged an utterance: the floor in realtime, a rule's cut, the voice of a line it wrote itself. */
  logged(event: Utterance): void;
  /**
   * Realtime: whether a line the engine wrote itself (an authored line) was still waiting behind
   * speech, unheard, at session ms `at`. Such a line is logged before the room hears it, so a line
   * said meanwhile cannot answer it.
   */
  unheardAt(utterance: string, at: number): boolean;
  /** Whether a reply is being generated, or its audio still heard. */
  busy(): boolean;
  /** A human started talking: the audible reply stops; resolves with what the engine must log when the human's words come. */
  interrupt(): HeldCut | Promise<HeldCut> | null;
  /** The session ended: every reply stops. */
  stopAll(): void;
}

/** A generated reply until the engine accepts it: a human can cut it off. */
interface Streaming {
  draft: string;
  speaker: string;
  /** The request it answers, to carry out again after a barge-in without words. */
  request: GenerateRequest;
  controller: AbortController;
  /** The text generated so far. */
  partial: string;
  speech: SpokenReply | null;
  /** When its first audio went out (clients play on arrival). */
  startedAt: number | null;
  /** A human's barge-in stopped it. */
  cutOff: boolean;
}

/** Speech still being heard (realtime): a voiced reply, or a line the engine wrote itself. */
interface Playing {
  draft: string;
  speaker: string;
  speech: SpokenReply;
  /** When its first audio went out; null until then. */
  startedAt: number | null;
  /** Its utterance's id once the engine accepted it. */
  utterance: string | null;
  endsAt: number;
}

export const createReplies = (options: RepliesOptions): Replies => {
  const { scene, synthesizer, voices, pacing, now, origin } = options;
  /** When a reply began to be heard, in session ms; realtime only (instant sessions run on simulated time). */
  const heardFrom = (startedAt: number | null): { heardFrom?: number } => (pacing.realtime && startedAt !== null ? { heardFrom: startedAt - origin } : {});
  /** The reply being generated or spoken and not yet accepted, which a human can cut off. */
  let streaming: Streaming | null = null;
  /** A voiced reply that was accepted and is still being heard (realtime). */
  let playing: Playing | null = null;
  /** Replies opened whose utterance has not been logged yet, by draft. */
  const unlogged = new Map<string, Streaming>();
  /**
   * Realtime: lines the engine wrote itself (a scene's scripted line, an instructor's edit) are
   * logged at once, but voiced in order once the speech before them has been heard; until the last
   * of them has started, the floor stays taken, so no reply is generated over them.
   */
  let waitingLines = 0;
  let lines: Promise<void> = Promise.resolve();
  /** Authored lines by utterance: when the room began to hear them (session ms), Infinity while they wait. */
  const authoredFrom = new Map<string, number>();
  /** When the speech voiced so far has been heard (realtime). */
  let audibleUntil = -Infinity;
  let over = false;
  void options.ended.then(() => (over = true));
  const heardUntil = (t: number): void => {
    audibleUntil = t;
    if (waitingLines === 0) pacing.holdFloorUntil(t);
  };

  const nameOf = (participant: string): string => scene.participants.find((p) => p.id === participant)?.name ?? participant;
  const bargeInOf = (speaker: string): BargeInMode => scene.participants.find((p) => p.id === speaker)?.persona?.bargeIn ?? 'polite';
  const isPlaying = (): boolean => playing !== null && playing.utterance !== null && now() < playing.endsAt;
  const stop = (reply: { speaker: string; draft: string }, atMs: number, reason: AudioStop['reason']): void =>
    options.onAudioStop?.({ speaker: reply.speaker, draft: reply.draft, atMs, reason });

  /**
   * The one voicing path, for a generated reply and a line the engine wrote alike: its text spoken
   * clause by clause (speech.ts), its audio sent while `audible()`, and `startedAt` set by its first
   * audio (clients play on arrival), which is where every stop measures from.
   */
  const voice = (line: { speaker: string; draft: string; startedAt: number | null }, report: ((notice: Notice) => void) | undefined, audible: () => boolean): SpokenReply =>
    createSpokenReply({
      synthesizer: synthesizer!,
      voice: voices.get(line.speaker)!,
      onAudio: (piece) => {
        if (!audible()) return;
        line.startedAt ??= now();
        options.onAudio?.({ ...piece, speaker: line.speaker, draft: line.draft });
      },
      ...(report
        ? {
            onNotice: report,
            onError: (error: Error) => report({ code: 'synthesis-failed', message: `${nameOf(line.speaker)} could not be voiced (${error.message}); their words are shown as text` }),
          }
        : {}),
    });

  /** Speaks an utterance already in the log; in realtime the floor is free when its audio ends. */
  const voiceLogged = (event: Utterance): void => {
    const { id, speaker } = event;
    const waiting: Omit<Playing, 'speech'> = { draft: id, speaker, startedAt: null, utterance: id, endsAt: audibleUntil };
    const line: Playing = Object.assign(waiting, { speech: voice(waiting, options.onNotice, () => !over) });
    if (pacing.realtime) playing = line;
    line.speech.push(clausesOf(event.text.replace(/—$/, '')));
    void line.speech.finish().then(({ durationMs }) => {
      options.onAudioEnd?.({ speaker, draft: id, durationMs });
      if (playing !== line || line.startedAt === null) return;
      line.endsAt = pacing.heardAt(line.startedAt, durationMs);
      heardUntil(line.endsAt);
    });
  };

  return {
    open(draft, request, report) {
      const speaker = request.cue.speaker.id;
      const controller = new AbortController();
      const current: Streaming = { draft, speaker, request, controller, partial: '', speech: null, startedAt: null, cutOff: false };
      if (synthesizer && voices.has(speaker)) current.speech = voice(current, report, () => !(controller.signal.aborted && streaming !== current));
      unlogged.set(draft, current);
      streaming = current;
      const isCut = () => controller.signal.aborted || streaming !== current;
      return {
        signal: controller.signal,
        push(delta, clauses) {
          if (delta) {
            current.partial += delta;
            options.onDelta?.({ speaker, draft, text: delta });
          }
          current.speech?.push(clauses);
        },
        async finish() {
          if (isCut()) return null;
          if (!current.speech) {
            streaming = null;
            return {};
          }
          const { durationMs } = await current.speech.finish();
          options.onAudioEnd?.({ speaker, draft, durationMs });
          if (isCut()) return null;
          streaming = null;
          if (pacing.realtime && current.startedAt !== null) {
            playing = { draft, speaker, speech: current.speech, startedAt: current.startedAt, utterance: null, endsAt: pacing.heardAt(current.startedAt, durationMs) };
          }
          return { durationMs, ...heardFrom(current.startedAt) };
        },
        discard() {
          if (streaming === current) streaming = null;
          unlogged.delete(draft);
          void current.speech?.stop(0, 'polite');
        },
        close() {
          // Spoken but not accepted (too like the speaker's earlier words): the resample replaces it.
          // (An accepted draft left `unlogged` when its utterance was logged.)
          const { speech, startedAt } = current;
          if (startedAt === null || !speech || unlogged.get(draft) !== current) return;
          if (playing?.draft === draft) playing = null;
          unlogged.delete(draft);
          stop(current, Math.min(pacing.heardSince(startedAt), speech.producedMs), 'rejected');
        },
      };
    },

    logged(event) {
      if (event.source === 'human') return;
      if (!event.draft) {
        // Written without a generation (a scene's scripted line, an instructor's edit): spoken now,
        // or in realtime once what is being said has been heard.
        const voiced = synthesizer !== null && voices.has(event.speaker);
        if (!pacing.realtime) {
          if (voiced) voiceLogged(event);
          return;
        }
        waitingLines++;
        pacing.holdFloorUntil(Infinity);
        authoredFrom.set(event.id, Infinity);
        const before = lines;
        lines = (async () => {
          await before;
          try {
            await pacing.untilFree(() => audibleUntil, () => !over);
          } finally {
            waitingLines--;
            authoredFrom.set(event.id, now() - origin);
            if (!over) {
              // Heard for its estimated length from now; a voiced line's real length replaces it once synthesized.
              heardUntil(pacing.heardAt(now(), event.durationMs));
              if (voiced) voiceLogged(event);
            }
          }
        })().catch(() => {});
        return;
      }
      const reply = unlogged.get(event.draft);
      unlogged.delete(event.draft);
      // A human barged in: their words come next, nobody waits for this speech.
      if (reply?.cutOff) return;
      const audible = playing?.draft === event.draft ? playing : null;
      let endsAtMs = event.durationMs;
      if (reply?.speech && event.interrupted) {
        // The scene's interruption rule cut the speaker off (DialogLab): their audio stops at that word.
        endsAtMs = reply.speech.afterWords(countWords(event.text));
        stop(reply, endsAtMs, 'interrupted');
      }
      if (!pacing.realtime) return;
      if (audible) {
        audible.utterance = event.id;
        audible.endsAt = pacing.heardAt(audible.startedAt ?? now(), endsAtMs);
        heardUntil(audible.endsAt);
      } else heardUntil(pacing.heardAt(now(), event.durationMs));
    },

    unheardAt: (utterance, at) => at < (authoredFrom.get(utterance) ?? -Infinity),

    busy: () => streaming !== null || isPlaying(),

    interrupt() {
      if (streaming) {
        const current = streaming;
        streaming = null;
        current.cutOff = true;
        current.controller.abort();
        const { speech } = current;
        if (!speech || current.startedAt === null) {
          // Nothing audible yet: the text streamed so far is what the room saw.
          void speech?.stop(0, 'polite');
          return { cut: { request: current.draft, partial: speech ? '' : current.partial }, retry: current.request };
        }
        return speech.stop(pacing.heardSince(current.startedAt), bargeInOf(current.speaker)).then((atMs) => {
          stop(current, atMs, 'barge-in');
          return { cut: { request: current.draft, partial: speech.heardBefore(atMs), atMs, ...heardFrom(current.startedAt) }, retry: current.request };
        });
      }
      if (playing && isPlaying()) {
        const current = playing;
        const { speech, startedAt } = current;
        playing = null;
        heardUntil(now());
        return speech.stop(startedAt === null ? 0 : pacing.heardSince(startedAt), bargeInOf(current.speaker)).then((atMs) => {
          stop(current, atMs, 'barge-in');
          return { cut: { utterance: current.utterance!, atWord: countWords(speech.heardBefore(atMs)), atMs }, retry: null };
        });
      }
      return null;
    },

    stopAll() {
      for (const reply of [streaming, isPlaying() ? playing : null]) {
        if (reply?.speech && reply.startedAt !== null) stop(reply, Math.min(pacing.heardSince(reply.startedAt), reply.speech.producedMs), 'ended');
      }
      streaming?.controller.abort();
      void streaming?.speech?.stop(0, 'polite');
      streaming = null;
      playing = null;
    },
  };
};
