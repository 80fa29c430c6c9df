/**
 * A spoken reply: a line's clauses in (cut by the line's one chunker, clauses.ts), the persona's
 * audio and viseme cues out, as soon as each clause is complete (DESIGN §3: the first audio follows the first clause, not the
 * whole generation). Clauses are synthesized one after another and their audio is laid end to
 * end, so `offsetMs` runs from the start of the reply's speech without gaps.
 *
 * ```ts
 * const reply = createSpokenReply({ synthesizer, voice, onAudio: (piece) => broadcast(piece) });
 * reply.push(clausesOf('Well, the numbers are in. Revenue grew.')); // a line's clauses (clauses.ts), as they come
 * const { durationMs } = await reply.finish();
 * // or, when a human barges in 1.2 s into the audio:
 * const stoppedAt = await reply.stop(1200, 'polite'); reply.heardBefore(stoppedAt);
 * ```
 *
 * Stopping: `polite` cancels at once (the audio stops where the listener is); `persistent`
 * lets the clause being heard finish (its synthesis too, if it is under way) and drops the rest.
 */
import { spokenWords } from '../../shared/words';
import type { OnNotice } from '../providers/notice';
import type { SpeechChunk, Synthesizer, VisemeCue, VoiceSpec, WordTiming } from '../providers/synthesis/port';

/** One chunk of a reply's audio; times are ms from the start of the reply's speech. */
export interface AudioPiece {
  /** 0, 1, 2… within the reply. */
  seq: number;
  offsetMs: number;
  sampleRate: number;
  pcm: Int16Array;
  cues: VisemeCue[];
  words: WordTiming[];
}

export type BargeInMode = 'polite' | 'persistent';

export interface SpokenReplyOptions {
  synthesizer: Synthesizer;
  voice: VoiceSpec;
  language?: string;
  onAudio: (piece: AudioPiece) => void;
  /** What a resilient synthesizer reports about a clause (eSpeak spoke it instead, its audio was cut). */
  onNotice?: OnNotice;
  /** A clause that could not be spoken at all (the reply goes on, silent for that clause). */
  onError?: (error: Error, clause: string) => void;
}

export interface SpokenReply {
  /** More of the reply's clauses, in order. */
  push(clauses: readonly string[]): void;
  /** The text is complete: resolves once every clause is spoken, with the reply's audio length. */
  finish(): Promise<{ durationMs: number }>;
  /** Stops the reply; resolves with where its audio ends now, in ms (see the modes above). */
  stop(atMs: number, mode: BargeInMode): Promise<number>;
  /** The words whose speech starts before `ms`, as written in the reply. */
  heardBefore(ms: number): string;
  /** Where the speech of the first `count` words ends: the start of the next word (or the audio's end). */
  afterWords(count: number): number;
  /** Audio produced so far, in ms. */
  readonly producedMs: number;
}

export const createSpokenReply = (options: SpokenReplyOptions): SpokenReply => {
  const queue: string[] = [];
  const words: WordTiming[] = [];
  /** Where each finished clause's audio ends. */
  const clauseEnds: number[] = [];
  let spokenText = '';
  let producedMs = 0;
  /** When the reply's first audio was ready (performance.now() ms): it is heard from about then. */
  let firstAudioAt: number | undefined;
  let seq = 0;
  let stopped = false;
  let inFlight: { controller: AbortController; done: Promise<void> } | null = null;
  let worker: Promise<void> | null = null;

  const speak = async (clause: string, controller: AbortController): Promise<void> => {
    const base = producedMs;
    let end = base;
    spokenText += `${clause} `;
    try {
      // The first clause is needed now; a later one when the audio before it has been heard.
      const neededAt = firstAudioAt === undefined ? performance.now() : firstAudioAt + base;
      const request = { text: clause, voice: options.voice, neededAt, ...(options.language ? { language: options.language } : {}) };
      for await (const chunk of options.synthesizer.synthesize(request, controller.signal, options.onNotice)) {
        if (controller.signal.aborted) return;
        const piece = shift(chunk, base);
        end = Math.max(end, piece.offsetMs + (chunk.pcm.length / chunk.sampleRate) * 1000);
        words.push(...piece.words);
        producedMs = end;
        firstAudioAt ??= performance.now();
        options.onAudio(piece);
      }
    } catch (error) {
      if (!controller.signal.aborted) options.onError?.(error as Error, clause);
    } finally {
      clauseEnds.push(end);
    }
  };

  const shift = (chunk: SpeechChunk, base: number): AudioPiece => ({
    seq: seq++,
    offsetMs: base + chunk.offsetMs,
    sampleRate: chunk.sampleRate,
    pcm: chunk.pcm,
    cues: chunk.cues.map((cue) => ({ ...cue, t: base + cue.t })),
    words: chunk.words.map((w) => ({ ...w, start: base + w.start, end: base + w.end })),
  });

  /** Speaks queued clauses in order, one at a time. */
  const drain = async (): Promise<void> => {
    while (queue.length > 0 && !stopped) {
      const controller = new AbortController();
      const done = speak(queue.shift()!, controller);
      inFlight = { controller, done };
      await done;
      inFlight = null;
    }
    worker = null;
  };

  const enqueue = (clauses: readonly string[]) => {
    if (stopped || clauses.length === 0) return;
    queue.push(...clauses);
    worker ??= drain();
  };

  return {
    push: enqueue,
    async finish() {
      while (worker) await worker;
      return { durationMs: producedMs };
    },
    async stop(atMs, mode) {
      stopped = true;
      queue.length = 0;
      const heard = Math.max(0, atMs);
      if (mode === 'persistent') {
        // The clause being heard is finished, whether its audio is all here or still coming.
        const playing = clauseEnds.find((end) => end > heard);
        if (playing !== undefined) {
          inFlight?.controller.abort();
          return playing;
        }
        if (inFlight) {
          await inFlight.done;
          return producedMs;
        }
        return Math.min(heard, producedMs);
      }
      inFlight?.controller.abort();
      return Math.min(heard, producedMs);
    },
    heardBefore(ms) {
      const count = words.filter((w) => w.start < ms).length;
      return spokenWords(spokenText).slice(0, count).join(' ');
    },
    afterWords(count) {
      return words[count]?.start ?? producedMs;
    },
    get producedMs() {
      return producedMs;
    },
  };
};
