import { describe, expect, it } from 'vitest';
import { createDownsampleState, downsampleTo16k, meterLevel, microphoneWorkletSource, rootMeanSquare } from './mic';

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

/** A seeded pseudo-random source, so the buffers are the same on every run. */
const random = (seed: number) => () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) * 2 - 1;

/** `frames` 20 ms frames at 16 kHz, scaled so that the whole has the RMS level `dbfs`. */
const atLevel = (signal: (i: number) => number, frames: number, dbfs: number): Int16Array[] => {
  const samples = Float64Array.from({ length: frames * 320 }, (_, i) => signal(i));
  const rms = Math.sqrt(samples.reduce((sum, x) => sum + x * x, 0) / samples.length);
  const gain = 10 ** (dbfs / 20) / rms;
  return Array.from({ length: frames }, (_, f) => Int16Array.from(samples.subarray(f * 320, (f + 1) * 320), (x) => Math.round(x * gain * 32767)));
};

/**
 * Voiced speech, roughly: a 120 Hz voice with its harmonics shaped by two vowel formants (700 and
 * 1200 Hz), a little breath noise, and syllables at 4 per second (the envelope dips 12 dB between them).
 */
const voice = () => {
  const noise = random(7);
  return (i: number) => {
    const t = i / 16_000;
    let sample = 0;
    for (let h = 1; h * 120 < 4000; h++) {
      const f = h * 120;
      const formants = Math.exp(-(((f - 700) / 200) ** 2)) + 0.6 * Math.exp(-(((f - 1200) / 250) ** 2)) + 0.05;
      sample += (formants / h) * Math.sin(2 * Math.PI * f * t + h);
    }
    const syllable = 0.25 + 0.75 * Math.sin(Math.PI * ((t * 4) % 1)) ** 2;
    return syllable * sample + 0.02 * noise();
  };
};

const median = (values: number[]) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('the level meter', () => {
  it('reads conversational speech (-40 to -25 dBFS RMS) at 40-70 %', () => {
    for (const dbfs of [-40, -33, -25]) {
      const readings = atLevel(voice(), 50, dbfs).map((frame) => meterLevel(rootMeanSquare(frame)));
      expect(median(readings), `speech at ${dbfs} dBFS`).toBeGreaterThanOrEqual(0.38);
      expect(median(readings), `speech at ${dbfs} dBFS`).toBeLessThanOrEqual(0.72);
    }
  });

  it('reads a quiet room near zero and clips a shout at full', () => {
    const room = atLevel(random(3), 50, -66).map((frame) => meterLevel(rootMeanSquare(frame)));
    expect(Math.max(...room)).toBeLessThan(0.05);
    expect(meterLevel(rootMeanSquare(new Int16Array(320)))).toBe(0);
    expect(meterLevel(rootMeanSquare(new Int16Array(320).fill(20_000)))).toBe(1);
  });

  it('rises with loudness, one step per decibel', () => {
    expect(meterLevel(10 ** (-30 / 20))).toBeCloseTo(0.6, 6);
    expect(meterLevel(10 ** (-29 / 20)) - meterLevel(10 ** (-30 / 20))).toBeCloseTo(0.02, 6);
  });
});
