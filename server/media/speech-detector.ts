/**
 * One participant's speech detector: microphone audio in, utterances out. It cuts the stream
 * into 32 ms frames for the VAD and turns the per-frame speech probabilities into
 * `speech-start` and `speech-end` events, the second carrying the utterance's audio for
 * transcription.
 *
 * ```ts
 * const detector = createSpeechDetector({ vad: await createSileroVad() });
 * for (const event of await detector.push(pcm16)) {
 *   if (event.type === 'speech-end') transcribe(event.audio);
 * }
 * ```
 *
 * The rules, frame by frame (p = the VAD's speech probability):
 * - Speech is a run of frames with p ≥ `offsetThreshold` that reaches p ≥ `onsetThreshold`
 *   (hysteresis: two thresholds, so that a probability hovering near one of them does not
 *   flicker). It starts where that run starts.
 * - It counts once it has lasted `minSpeechMs` without dropping below `offsetThreshold`: a
 *   click, a cough or a short "mm" is not an utterance. `speech-start` is emitted then, with
 *   `atMs` the start.
 * - It ends at the first frame below `offsetThreshold` after which no frame reaches
 *   `onsetThreshold` for `minSilenceMs`: shorter pauses stay inside the utterance.
 *   `minSilenceMs` is the endpointing rule; pass a function to let it follow a partial
 *   transcript (`() => silenceNeededMs(latestPartial)`). `speech-end` is emitted when that
 *   silence has passed, with `atMs` where the voice stopped.
 *
 * Times are ms from the first sample pushed. Input is 16 kHz mono PCM16 in chunks of any size;
 * calls to `push` may overlap, they are handled in order.
 */
import { silenceNeededMs } from './endpointing';
import { vadFrameSamples, vadSampleRate, type Vad } from './vad';

export type SpeechEvent =
  | { type: 'speech-start'; atMs: number }
  /**
   * The voice has paused for `pauseMs` inside an utterance that may be ending: `audio` is the
   * utterance so far, for a partial transcript that the endpointing rule can read.
   */
  | { type: 'speech-pause'; atMs: number; audio: Int16Array }
  /** `audio` runs from `preRollMs` before the start to `postRollMs` after `atMs`. */
  | { type: 'speech-end'; atMs: number; audio: Int16Array };

export interface SpeechDetectorOptions {
  /** This stream's VAD; the detector does not close it. */
  vad: Vad;
  onsetThreshold?: number;
  offsetThreshold?: number;
  minSpeechMs?: number;
  /** Silence that ends an utterance: a number, or asked again at every silent frame. */
  minSilenceMs?: number | (() => number);
  /** Audio kept before the start, for the consonants the VAD hears late. */
  preRollMs?: number;
  /** Audio kept after the end. */
  postRollMs?: number;
  /** Silence after which a `speech-pause` is reported (once per pause). Default: never. */
  pauseMs?: number;
}

export interface SpeechDetector {
  push(pcm16: Int16Array): Promise<SpeechEvent[]>;
  /** The stream is over: an utterance still open ends where the voice last stopped (or now). */
  end(): Promise<SpeechEvent[]>;
}

const defaults: Required<Omit<SpeechDetectorOptions, 'vad'>> = {
  onsetThreshold: 0.5,
  offsetThreshold: 0.35,
  minSpeechMs: 250,
  minSilenceMs: silenceNeededMs(null),
  preRollMs: 200,
  postRollMs: 100,
  pauseMs: Number.POSITIVE_INFINITY,
};

const samplesPerMs = vadSampleRate / 1000;

/** PCM16 as the VAD takes it, in [-1, 1]. A plain loop: `Float32Array.from` with a mapping function cost 8% of a busy node's main thread. */
const toFloat = (pcm16: Int16Array): Float32Array => {
  const samples = new Float32Array(pcm16.length);
  for (let i = 0; i < pcm16.length; i++) samples[i] = pcm16[i]! / 32768;
  return samples;
};
const toMs = (sample: number) => sample / samplesPerMs;

type Phase =
  /** No speech; `runStart` is where the current run of frames above the offset threshold began. */
  | { name: 'quiet'; runStart: number | null }
  /** Above the onset threshold since `start`, not yet for `minSpeechMs`. */
  | { name: 'rising'; start: number }
  /** An utterance since `start`; `silenceStart` is set while a pause may be ending it. */
  | { name: 'speaking'; start: number; silenceStart: number | null; pauseReported: boolean };

export const createSpeechDetector = (options: SpeechDetectorOptions): SpeechDetector => {
  const { vad, onsetThreshold, offsetThreshold, minSpeechMs, minSilenceMs, preRollMs, postRollMs, pauseMs } = { ...defaults, ...options };
  if (!(offsetThreshold <= onsetThreshold)) {
    throw new Error(`speech detector: offsetThreshold (${offsetThreshold}) must not be above onsetThreshold (${onsetThreshold})`);
  }
  const minSpeechSamples = minSpeechMs * samplesPerMs;
  const preRollSamples = preRollMs * samplesPerMs;
  const postRollSamples = postRollMs * samplesPerMs;
  const pauseSamples = pauseMs * samplesPerMs;
  const minSilenceSamples = () => (typeof minSilenceMs === 'number' ? minSilenceMs : minSilenceMs()) * samplesPerMs;

  let phase: Phase = { name: 'quiet', runStart: null };
  /** Samples not yet making a whole frame. */
  let partial = new Int16Array(0);
  /** Where the next frame starts, in samples from the stream's start. */
  let at = 0;
  /** Whole frames kept for the pre-roll and the open utterance; the first starts at `keptFrom`. */
  let kept: Int16Array[] = [];
  let keptFrom = 0;

  const audioBetween = (from: number, to: number): Int16Array => {
    const start = Math.max(from, keptFrom);
    const end = Math.min(to, at);
    const audio = new Int16Array(Math.max(0, end - start));
    kept.forEach((frame, i) => {
      const frameStart = keptFrom + i * vadFrameSamples;
      const lo = Math.max(start, frameStart);
      const hi = Math.min(end, frameStart + vadFrameSamples);
      if (lo < hi) audio.set(frame.subarray(lo - frameStart, hi - frameStart), lo - start);
    });
    return audio;
  };

  const finish = (start: number, stop: number): SpeechEvent => ({
    type: 'speech-end',
    atMs: toMs(stop),
    audio: audioBetween(start - preRollSamples, stop + postRollSamples),
  });

  /** Advances the rules by one frame starting at `frameStart` with speech probability `p`. */
  const step = (frameStart: number, p: number): SpeechEvent[] => {
    const frameEnd = frameStart + vadFrameSamples;
    switch (phase.name) {
      case 'quiet': {
        const runStart = p >= offsetThreshold ? (phase.runStart ?? frameStart) : null;
        phase = p >= onsetThreshold && runStart !== null ? { name: 'rising', start: runStart } : { name: 'quiet', runStart };
        return phase.name === 'rising' ? step(frameStart, p) : [];
      }
      case 'rising': {
        if (p < offsetThreshold) {
          phase = { name: 'quiet', runStart: null };
          return [];
        }
        if (frameEnd - phase.start < minSpeechSamples) return [];
        phase = { name: 'speaking', start: phase.start, silenceStart: null, pauseReported: false };
        return [{ type: 'speech-start', atMs: toMs(phase.start) }];
      }
      case 'speaking': {
        if (phase.silenceStart === null) {
          if (p < offsetThreshold) phase.silenceStart = frameStart;
        } else if (p >= onsetThreshold) {
          phase.silenceStart = null;
          phase.pauseReported = false;
        }
        if (phase.silenceStart === null) return [];
        const events: SpeechEvent[] = [];
        if (!phase.pauseReported && frameEnd - phase.silenceStart >= pauseSamples) {
          phase.pauseReported = true;
          const stop = phase.silenceStart;
          events.push({ type: 'speech-pause', atMs: toMs(stop), audio: audioBetween(phase.start - preRollSamples, stop + postRollSamples) });
        }
        if (frameEnd - phase.silenceStart < minSilenceSamples()) return events;
        const ended = finish(phase.start, phase.silenceStart);
        phase = { name: 'quiet', runStart: null };
        return [...events, ended];
      }
    }
  };

  /** Drops kept frames that neither the pre-roll nor the open utterance can still need. */
  const forget = () => {
    const earliest = phase.name === 'quiet' ? (phase.runStart ?? at) : phase.start;
    while (kept.length > 0 && keptFrom + vadFrameSamples <= earliest - preRollSamples) {
      kept.shift();
      keptFrom += vadFrameSamples;
    }
  };

  const consume = async (pcm16: Int16Array): Promise<SpeechEvent[]> => {
    const samples = new Int16Array(partial.length + pcm16.length);
    samples.set(partial);
    samples.set(pcm16, partial.length);
    const events: SpeechEvent[] = [];
    let offset = 0;
    try {
      for (; offset + vadFrameSamples <= samples.length; offset += vadFrameSamples) {
        const frame = samples.slice(offset, offset + vadFrameSamples);
        const p = await vad.frame(toFloat(frame));
        if (kept.length === 0) keptFrom = at;
        kept.push(frame);
        events.push(...step(at, p));
        at += vadFrameSamples;
        forget();
      }
    } finally {
      // If the VAD failed, the frame it failed on is tried again with the next push.
      partial = samples.slice(offset);
    }
    return events;
  };

  const close = async (): Promise<SpeechEvent[]> => {
    if (phase.name !== 'speaking') return [];
    const ended = finish(phase.start, phase.silenceStart ?? at);
    phase = { name: 'quiet', runStart: null };
    kept = [];
    return [ended];
  };

  let queue: Promise<unknown> = Promise.resolve();
  const inOrder = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work);
    queue = result.catch(() => undefined);
    return result;
  };

  return {
    push: (pcm16) => {
      const copy = pcm16.slice();
      return inOrder(() => consume(copy));
    },
    end: () => inOrder(close),
  };
};
