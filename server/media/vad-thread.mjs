/**
 * The Silero VAD's thread (vad.ts starts it, one per model file): it holds the ONNX session and
 * runs each batch of frames it is sent, every stream of the batch in one call, off the server's
 * event loop. Plain JavaScript: it needs nothing but onnxruntime-node, so it loads no TypeScript.
 *
 * ```ts
 * const thread = new Worker(new URL('./vad-thread.mjs', import.meta.url), { workerData: { modelPath }, execArgv: [] });
 * thread.postMessage({ id: 1, n: 2, input, state }, [input.buffer, state.buffer]);
 * // <- { type: 'batch', id: 1, probabilities: Float32Array(2), state: Float32Array(2 * 2 * 128) }
 * ```
 *
 * A batch of `n` streams: `input` is [n, 576] (each stream's 64 samples of context, then its 512
 * new ones), `state` is the model's [2, n, 128]. Replies: `{ type: 'ready' }` once the model is
 * loaded, or `{ type: 'failed', message }`; then one `batch` or `error` per batch, by `id`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';

const inputSamples = 576;
const sr = new ort.Tensor('int64', BigInt64Array.of(16_000n), []);

let session;
try {
  // One intra-op thread: a batch of 200 streams takes 10 ms on one, and the other core is the
  // server's and eSpeak's.
  session = await ort.InferenceSession.create(workerData.modelPath, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  parentPort.postMessage({ type: 'ready' });
} catch (error) {
  parentPort.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
}

parentPort.on('message', async ({ id, n, input, state }) => {
  try {
    const out = await session.run({
      input: new ort.Tensor('float32', input, [n, inputSamples]),
      state: new ort.Tensor('float32', state, [2, n, 128]),
      sr,
    });
    // Copies: the tensors' memory belongs to onnxruntime and cannot be handed to another thread.
    const probabilities = Float32Array.from(out.output.data);
    const nextState = Float32Array.from(out.stateN.data);
    parentPort.postMessage({ type: 'batch', id, probabilities, state: nextState }, [probabilities.buffer, nextState.buffer]);
  } catch (error) {
    parentPort.postMessage({ type: 'error', id, message: error instanceof Error ? error.message : String(error) });
  }
});
