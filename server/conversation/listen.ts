/**
 * One human's microphone, heard: PCM16 16 kHz mono frames in; "started speaking" at once (for
 * barge-in), and "said this, from then to then" once the turn is over and transcribed.
 *
 * ```ts
 * const ear = createListener({ transcriber, vad: await createSileroVad(), hints: ['Nora', 'Omar'],
 *   onStart: () => live.voiceStarted('mia'),
 *   onEnd: (heard) => live.voiceEnded('mia', heard) });
 * ear.push(frame);
 * ```
 *
 * Endpointing reads a partial transcript: when the voice pauses for {@link PAUSE_MS}, the audio so
 * far is transcribed, and the silence that ends the turn follows `silenceNeededMs` of that text
 * (350 ms after a finished question, 1200 ms after a trailing "and" or "um"; media/endpointing.ts).
 * If the speaker does not go on, that transcript is the final one, so the pause costs nothing.
 *
 * Times: `start` and `end` are wall-clock ms (`now()`), mapped from the sample clock of the
 * stream, which starts at the first frame pushed.
 */
import { silenceNeededMs } from '../media/endpointing';
import { createSpeechDetector, type SpeechEvent } from '../media/speech-detector';
import { vadSampleRate, type Vad } from '../media/vad';
import type { Transcriber } from '../providers/transcription/port';

export interface Heard {
  text: string;
  /** Wall-clock ms. */
  start: number;
  end: number;
  /** The utterance's audio as transcribed (16 kHz mono PCM16, with the detector's pre- and post-roll): a room that records keeps it. */
  audio?: Int16Array;
}

export interface ListenerOptions {
  transcriber: Transcriber;
  /** This stream's own VAD; the listener closes it. */
  vad: Vad;
  language?: string;
  /** Names likely to be said, to bias recognition. */
  hints?: string[];
  /** Speech long enough to count began (barge-in fires here). Default minimum: 128 ms of voice. */
  onStart: (at: number) => void;
  /** The turn is over: what was said, or null when nothing intelligible was (or transcription failed). */
  onEnd: (heard: Heard | null) => void;
  onError?: (error: Error) => void;
  minSpeechMs?: number;
  now?: () => number;
}

export interface Listener {
  /** Adds audio; resolves when it has been through the VAD (it never rejects). */
  push(pcm16: Int16Array): Promise<void>;
  /** The microphone is gone: an open utterance is finished and transcribed. */
  close(): Promise<void>;
}

/**
 * The pause after which the words so far are transcribed. The turn cannot end before that
 * transcript is back (pause + the transcriber's time), so this sits on the path of every reply:
 * with a 200 ms transcriber, a 200 ms pause made a finished question wait about 430 ms where its
 * rule asks 350. At 120 ms (four 32 ms frames) the words are in by about 330 ms, in time for the
 * question's 350 ms. The VAD seldom hears that much silence inside fluent speech: on the
 * response-gap bench's 53 spoken turns the transcriber is asked 100 times, against 87 at 200 ms.
 */
const PAUSE_MS = 120;

export const createListener = (options: ListenerOptions): Listener => {
  const now = options.now ?? (() => Date.now());
  let streamStart: number | null = null;
  /** The partial transcript of the current pause, and where the pause began (stream ms). */
  let partial: { atMs: number; text: string | null; done: Promise<string | null> } | null = null;
  const detector = createSpeechDetector({
    vad: options.vad,
    minSpeechMs: options.minSpeechMs ?? 128,
    pauseMs: PAUSE_MS,
    minSilenceMs: () => silenceNeededMs(partial?.text ?? null),
  });
  const request = { sampleRate: vadSampleRate, ...(options.language ? { language: options.language } : {}), ...(options.hints ? { hints: options.hints } : {}) };

  const transcribe = async (audio: Int16Array): Promise<string | null> => {
    try {
      const { text } = await options.transcriber.transcribe({ ...request, pcm: audio });
      return text.trim() || null;
    } catch (error) {
      options.onError?.(error as Error);
      return null;
    }
  };

  let utteranceStart = 0;
  let ended: Promise<void> = Promise.resolve();
  const handle = (event: SpeechEvent): void => {
    const at = (streamStart ?? now()) + event.atMs;
    if (event.type === 'speech-start') {
      utteranceStart = at;
      partial = null;
      options.onStart(now());
    } else if (event.type === 'speech-pause') {
      const pause = { atMs: event.atMs, text: null as string | null, done: transcribe(event.audio) };
      partial = pause;
      void pause.done.then((text) => (pause.text = text));
    } else {
      // Nobody spoke since the pause: its transcript is the turn's.
      const reuse = partial && partial.atMs === event.atMs ? partial.done : null;
      partial = null;
      const start = utteranceStart;
      const { audio } = event;
      const text = reuse ?? transcribe(audio);
      // Turns are reported in the order they were spoken, whichever transcript comes back first.
      ended = ended.then(async () => {
        const said = await text;
        options.onEnd(said ? { text: said, start, end: at, audio } : null);
      });
    }
  };

  let queue: Promise<void> = Promise.resolve();
  return {
    push(pcm16) {
      streamStart ??= now();
      const work = detector.push(pcm16);
      queue = queue.then(async () => {
        try {
          for (const event of await work) handle(event);
        } catch (error) {
          options.onError?.(error as Error);
        }
      });
      return queue;
    },
    async close() {
      await queue;
      try {
        for (const event of await detector.end()) handle(event);
        await ended;
      } finally {
        await options.vad.close();
      }
    },
  };
};
