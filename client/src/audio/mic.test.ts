import { describe, expect, it } from 'vitest';
import { createDownsampleState, downsampleTo16k, microphoneWorkletSource } from './mic';

const sine = (frequency: number, rate: number, samples: number, amplitude = 0.5) =>
  Float32Array.from({ length: samples }, (_, i) => amplitude * Math.sin((2 * Math.PI * frequency * i) / rate));

/** The frequency of a clean tone, from its rising zero crossings. */
const frequencyOf = (pcm: Int16Array, rate: number): number => {
  const rises: number[] = [];
  for (let i = 1; i < pcm.length; i++) if (pcm[i - 1]! < 0 && pcm[i]! >= 0) rises.push(i);
  return ((rises.length - 1) * rate) / (rises.at(-1)! - rises[0]!);
};

const peak = (pcm: Int16Array) => pcm.reduce((max, sample) => Math.max(max, Math.abs(sample)), 0);

/** Feeds `input` through in blocks of `size`, as the audio thread does (128-sample render quanta). */
const inBlocks = (input: Float32Array, rate: number, size: number): Int16Array => {
  const state = createDownsampleState();
  const parts: number[] = [];
  for (let i = 0; i < input.length; i += size) parts.push(...downsampleTo16k(input.subarray(i, i + size), rate, state));
  return Int16Array.from(parts);
};

describe('downsampleTo16k', () => {
  it('turns one second at 48 kHz into one second at 16 kHz', () => {
    expect(downsampleTo16k(new Float32Array(48_000), 48_000, createDownsampleState())).toHaveLength(16_000);
  });

  it('turns 44.1 kHz into 16 kHz, carrying the fraction from block to block', () => {
    expect(inBlocks(new Float32Array(44_100), 44_100, 128).length).toBeCloseTo(16_000, -1);
  });

  it('keeps the pitch and the loudness of a tone', () => {
    const output = downsampleTo16k(sine(440, 48_000, 48_000), 48_000, createDownsampleState());
    expect(frequencyOf(output, 16_000)).toBeCloseTo(440, 0);
    // A box filter over 3 samples barely touches 440 Hz.
    expect(peak(output) / 32767).toBeGreaterThan(0.48);
    expect(peak(output) / 32767).toBeLessThanOrEqual(0.5);
  });

  it('gives the same samples whatever the block size', () => {
    const input = sine(1000, 44_100, 4410);
    const whole = downsampleTo16k(input, 44_100, createDownsampleState());
    expect(inBlocks(input, 44_100, 128)).toEqual(whole);
    expect(inBlocks(input, 44_100, 7)).toEqual(whole);
  });

  it('averages the input over each output sample', () => {
    const output = downsampleTo16k(Float32Array.from([0.3, 0.3, 0.3, -0.6, 0, 0]), 48_000, createDownsampleState());
    expect([...output]).toEqual([Math.round(0.3 * 32767), Math.round(-0.2 * 32768)]);
  });

  it('clips beyond full scale to the int16 range', () => {
    const output = downsampleTo16k(Float32Array.from([1.5, 1.5, 1.5, -2, -2, -2, 1, 1, 1]), 48_000, createDownsampleState());
    expect([...output]).toEqual([32767, -32768, 32767]);
  });

  it('passes 16 kHz through', () => {
    const input = Float32Array.from([0, 0.5, -0.5, 0.25]);
    expect([...downsampleTo16k(input, 16_000, createDownsampleState())]).toEqual([0, 16384, -16384, 8192]);
  });
});

describe('the microphone worklet', () => {
  /** Runs the worklet's source with a fake AudioWorkletGlobalScope; returns its processor. */
  const loadWorklet = (rate: number) => {
    const posted: Int16Array[] = [];
    let registered: (new () => { process(inputs: Float32Array[][]): boolean }) | undefined;
    class AudioWorkletProcessor {
      port = { postMessage: (frame: Int16Array) => posted.push(frame) };
    }
    const registerProcessor = (_name: string, processor: typeof registered) => {
      registered = processor;
    };
    new Function('AudioWorkletProcessor', 'registerProcessor', 'sampleRate', microphoneWorkletSource)(AudioWorkletProcessor, registerProcessor, rate);
    return { processor: new registered!(), posted };
  };

  it('posts 20 ms frames of 320 samples at 16 kHz from 48 kHz render quanta', () => {
    const { processor, posted } = loadWorklet(48_000);
    const input = sine(300, 48_000, 48_000 / 10); // 100 ms
    for (let i = 0; i < input.length; i += 128) expect(processor.process([[input.subarray(i, i + 128)]])).toBe(true);
    expect(posted).toHaveLength(5);
    for (const frame of posted) expect(frame).toHaveLength(320);
    expect(posted.flatMap((frame) => [...frame])).toEqual([...downsampleTo16k(input, 48_000, createDownsampleState())].slice(0, 1600));
  });

  it('mixes stereo to mono', () => {
    const { processor, posted } = loadWorklet(16_000);
    const left = new Float32Array(128).fill(0.5);
    const right = new Float32Array(128).fill(-0.25);
    for (let i = 0; i < 3; i++) processor.process([[left, right]]);
    expect(posted).toHaveLength(1);
    expect(posted[0]!.every((sample) => sample === Math.round(0.125 * 32767))).toBe(true);
  });
});
