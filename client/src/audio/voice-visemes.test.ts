/**
 * Visemes from a voice, on synthetic speech: vowels made of a 120 Hz voice's harmonics shaped by
 * their formants (Peterson & Barney's averages for men), fricatives made of noise in their band,
 * fed frame by frame as the room feeds it (the last 1024 samples heard, 60 frames a second).
 */
import { describe, expect, it } from 'vitest';
import { rngFrom } from '../../../shared/rng';
import { visemes, type Viseme } from '../../../shared/visemes';
import type { VisemeWeights } from './lipsync';
import { analyseVoice, createVoiceMouth } from './voice-visemes';

const RATE = 16_000;
const FPS = 60;

/** A vowel: harmonics of 120 Hz, each as loud as the formant resonances make it at its frequency. */
const vowel = (formants: [number, number, number], seconds: number, level = 0.3): Float32Array => {
  const out = new Float32Array(Math.round(seconds * RATE));
  const resonance = (f: number, centre: number, width: number) => 1 / (1 + ((f - centre) / width) ** 2);
  const harmonics: { f: number; a: number }[] = [];
  for (let f = 120; f < 5000; f += 120) {
    const a = (resonance(f, formants[0], 80) + 0.6 * resonance(f, formants[1], 100) + 0.25 * resonance(f, formants[2], 140)) / Math.sqrt(f / 120);
    harmonics.push({ f, a });
  }
  for (let i = 0; i < out.length; i++) for (const { f, a } of harmonics) out[i]! += a * Math.sin((2 * Math.PI * f * i) / RATE);
  let peak = 0;
  for (const x of out) peak = Math.max(peak, Math.abs(x));
  for (let i = 0; i < out.length; i++) out[i] = (out[i]! / peak) * level;
  return out;
};

/** Noise between two frequencies: a hundred sines at random frequencies and phases in the band. */
const noise = (from: number, to: number, seconds: number, level = 0.15): Float32Array => {
  const rng = rngFrom(7);
  const parts = Array.from({ length: 100 }, () => ({ f: from + (to - from) * rng.next(), phase: 2 * Math.PI * rng.next() }));
  const out = new Float32Array(Math.round(seconds * RATE));
  for (let i = 0; i < out.length; i++) for (const { f, phase } of parts) out[i]! += Math.sin((2 * Math.PI * f * i) / RATE + phase);
  let sum = 0;
  for (const x of out) sum += x * x;
  const rms = Math.sqrt(sum / out.length);
  for (let i = 0; i < out.length; i++) out[i] = (out[i]! / rms) * level;
  return out;
};

/** Feeds `signal` frame by frame (the last 1024 samples heard at each frame); the last frame's weights. */
const play = (mouth: ReturnType<typeof createVoiceMouth>, signal: Float32Array): VisemeWeights | null => {
  const step = RATE / FPS;
  let last: VisemeWeights | null = null;
  for (let end = step; end <= signal.length; end += step) last = mouth.update(signal.subarray(Math.max(0, Math.round(end) - 1024), Math.round(end)), RATE, 1 / FPS);
  return last;
};

const strongest = (weights: VisemeWeights | null): Viseme | null => {
  if (!weights) return null;
  let best: Viseme | null = null;
  for (const v of visemes) if ((weights[v] ?? 0) > (best ? (weights[best] ?? 0) : 0)) best = v;
  return best;
};

const openVowels: Viseme[] = ['aa', 'E', 'I', 'O', 'U'];
const openness = (weights: VisemeWeights | null) => openVowels.reduce((sum, v) => sum + (weights?.[v] ?? 0), 0);

describe('a human mouth from their voice', () => {
  it('stays closed in silence', () => {
    const mouth = createVoiceMouth();
    expect(play(mouth, new Float32Array(RATE))).toBeNull();
    expect(mouth.update(null, 0, 1 / FPS)).toBeNull();
  });

  it('opens wide on an open vowel ("ah": F1 730 Hz, F2 1090 Hz)', () => {
    const weights = play(createVoiceMouth(), vowel([730, 1090, 2440], 0.5));
    expect(strongest(weights)).toBe('aa');
    expect(weights!.aa).toBeGreaterThan(0.4);
  });

  it('spreads the lips on a front vowel ("ee": F1 270 Hz, F2 2290 Hz)', () => {
    const weights = play(createVoiceMouth(), vowel([270, 2290, 3010], 0.5));
    expect(['E', 'I']).toContain(strongest(weights));
    expect(weights!.aa ?? 0).toBeLessThan(0.15);
  });

  it('rounds the lips on a back vowel ("oo": F1 300 Hz, F2 870 Hz)', () => {
    const weights = play(createVoiceMouth(), vowel([300, 870, 2240], 0.5));
    expect(['U', 'O']).toContain(strongest(weights));
  });

  it('hisses on "s" (noise above 4 kHz) and hushes on "sh" (noise at 2.5-3.8 kHz)', () => {
    expect(strongest(play(createVoiceMouth(), noise(4500, 7500, 0.4)))).toBe('SS');
    expect(strongest(play(createVoiceMouth(), noise(2500, 3800, 0.4)))).toBe('CH');
  });

  it('opens a quiet speaker\'s mouth too, and closes it soon after the voice stops', () => {
    const mouth = createVoiceMouth();
    const quiet = play(mouth, vowel([730, 1090, 2440], 0.5, 0.04));
    expect(openness(quiet)).toBeGreaterThan(0.4);
    let frames = 0;
    while (mouth.update(new Float32Array(1024), RATE, 1 / FPS) !== null) frames++;
    expect(frames / FPS, 'seconds for the mouth to close').toBeLessThan(0.5);
  });

  it('follows the voice within a few frames, without fluttering between them', () => {
    const mouth = createVoiceMouth();
    const speech = vowel([730, 1090, 2440], 0.3);
    const step = RATE / FPS;
    const values: number[] = [];
    for (let end = step; end <= speech.length; end += step) values.push(mouth.update(speech.subarray(Math.max(0, Math.round(end) - 1024), Math.round(end)), RATE, 1 / FPS)?.aa ?? 0);
    expect(values[5], 'open after 5 frames (83 ms)').toBeGreaterThan(0.3);
    const steady = values.slice(8);
    expect(Math.max(...steady) - Math.min(...steady), 'change over a steady vowel').toBeLessThan(0.15);
  });

  it('measures a vowel\'s energy low and a fricative\'s high', () => {
    const ah = analyseVoice(vowel([730, 1090, 2440], 0.1), RATE);
    expect(ah.bands.first + ah.bands.back).toBeGreaterThan(0.6);
    expect(ah.zeroCrossings).toBeLessThan(0.15);
    const s = analyseVoice(noise(4500, 7500, 0.1), RATE);
    expect(s.bands.hiss).toBeGreaterThan(0.8);
    expect(s.zeroCrossings).toBeGreaterThan(0.3);
  });
});
