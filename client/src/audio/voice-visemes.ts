/**
 * A human's mouth from their voice: visemes estimated in the browser from the audio being heard,
 * whichever way it came (the server's relayed `voice` frames or a LiveKit track). Personas need
 * none of this: their speech comes with viseme cues (lipsync.ts).
 *
 * Each frame looks at the last few milliseconds of the voice (`VoiceOutput.waveform`): its energy
 * opens the mouth, and its spectral shape picks the shape. Vowels put their energy low in the
 * spectrum, in the first two formants: much of it around 500-1000 Hz (a high first formant) is an
 * open "aa", a strong second formant above 1300 Hz a spread "E" (or "I" with a low first), both
 * formants low a rounded "O" or "U". Fricatives put theirs high: above 4 kHz a hissed "SS",
 * 2-4 kHz a hushed "CH", and they cross zero often. A loudness that adapts to the speaker (a slowly
 * decaying peak) makes quiet and loud voices open the mouth alike, and each viseme's weight eases
 * toward its target (fast attack, slower release) so the mouth does not flutter with the frames.
 *
 * ```ts
 * const mouth = createVoiceMouth();
 * const samples = new Float32Array(1024);
 * useFrame((_, dt) => {
 *   const rate = voices.waveform('casey', samples); // 0: nothing heard from Casey
 *   rigInput.visemes = rate ? mouth.update(samples, rate, dt) : mouth.update(null, 0, dt);
 * });
 * ```
 *
 * Allocation-free per frame: the spectrum's scratch arrays and the weights object are made once.
 */
import { visemes, type Viseme } from '../../../shared/visemes';
import type { VisemeWeights } from './lipsync';

export interface VoiceFeatures {
  /** Root mean square, 0..1 of full scale. */
  rms: number;
  /** Share of samples where the sign changes. */
  zeroCrossings: number;
  /** Shares of the pre-emphasised spectrum's magnitude (80 Hz to 8 kHz) in each band; they sum to 1 (all 0 in silence). */
  bands: { low: number; first: number; back: number; front: number; high: number; hiss: number };
}

export interface VoiceMouthOptions {
  /** RMS under which the voice counts as silence (the mouth closes). */
  silenceLevel?: number;
  /** Seconds a viseme takes to reach about two thirds of a rise, and of a fall. */
  attack?: number;
  release?: number;
  /** Seconds the loudness reference (the voice's recent peak) takes to fall to a third. */
  peakMemory?: number;
}

const defaults = { silenceLevel: 0.01, attack: 0.03, release: 0.08, peakMemory: 2 } satisfies Required<VoiceMouthOptions>;

/** Samples analysed per frame: 32 ms at 16 kHz, 11 ms at 48 kHz; a power of two for the FFT. */
const SIZE = 512;
/**
 * Band edges in Hz: low (a closed vowel's first formant, 80-450), first (an open vowel's first
 * formant, 450-800), back (a back vowel's second formant, 800-1300), front (a front vowel's second
 * formant, 1300-2400), high (2.4-4 kHz: "sh") and hiss (4-8 kHz: "s").
 */
const edges = [80, 450, 800, 1300, 2400, 4000, 8000] as const;
/** The loudness reference never falls below this, so background hiss is not blown up into speech. */
const PEAK_FLOOR = 0.05;

/** Everything the spectrum needs, made once per analyser. */
interface Scratch {
  re: Float64Array;
  im: Float64Array;
  window: Float64Array;
  cos: Float64Array;
  sin: Float64Array;
  energy: Float64Array;
}

const scratchFor = (): Scratch => {
  const window = new Float64Array(SIZE);
  for (let i = 0; i < SIZE; i++) window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (SIZE - 1));
  const cos = new Float64Array(SIZE / 2);
  const sin = new Float64Array(SIZE / 2);
  for (let i = 0; i < SIZE / 2; i++) {
    cos[i] = Math.cos((2 * Math.PI * i) / SIZE);
    sin[i] = -Math.sin((2 * Math.PI * i) / SIZE);
  }
  return { re: new Float64Array(SIZE), im: new Float64Array(SIZE), window, cos, sin, energy: new Float64Array(edges.length - 1) };
};

/** In-place iterative radix-2 FFT of `re` + i·`im` (length SIZE). */
const fft = ({ re, im, cos, sin }: Scratch): void => {
  for (let i = 1, j = 0; i < SIZE; i++) {
    let bit = SIZE >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let length = 2; length <= SIZE; length <<= 1) {
    const half = length >> 1;
    const step = SIZE / length;
    for (let start = 0; start < SIZE; start += length) {
      for (let k = 0; k < half; k++) {
        const wr = cos[k * step]!;
        const wi = sin[k * step]!;
        const a = start + k;
        const b = a + half;
        const tr = re[b]! * wr - im[b]! * wi;
        const ti = re[b]! * wi + im[b]! * wr;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
      }
    }
  }
};

/**
 * Energy, zero crossings and band shares of the last SIZE samples of `samples` (fewer are padded
 * with silence). Writes into `into` and returns it.
 */
export const analyseVoice = (samples: ArrayLike<number>, sampleRate: number, into: VoiceFeatures = { rms: 0, zeroCrossings: 0, bands: { low: 0, first: 0, back: 0, front: 0, high: 0, hiss: 0 } }, scratch: Scratch = scratchFor()): VoiceFeatures => {
  const n = Math.min(SIZE, samples.length);
  const offset = samples.length - n;
  let sum = 0;
  let crossings = 0;
  for (let i = 0; i < SIZE; i++) {
    const x = i < n ? samples[offset + i]! : 0;
    sum += x * x;
    const previous = i > 0 && i < n ? samples[offset + i - 1]! : 0;
    if (i > 0 && i < n && (x >= 0) !== (previous >= 0)) crossings++;
    // Pre-emphasis (+6 dB an octave), as speech analysis does: a vowel's second formant sits 20-30
    // dB under its first and would otherwise not count.
    scratch.re[i] = (x - 0.95 * previous) * scratch.window[i]!;
    scratch.im[i] = 0;
  }
  into.rms = n === 0 ? 0 : Math.sqrt(sum / n);
  into.zeroCrossings = n > 1 ? crossings / (n - 1) : 0;
  fft(scratch);
  const { energy } = scratch;
  energy.fill(0);
  const binHz = sampleRate / SIZE;
  for (let k = 1; k < SIZE / 2; k++) {
    const hz = k * binHz;
    if (hz < edges[0] || hz >= edges[edges.length - 1]!) continue;
    let band = 0;
    while (hz >= edges[band + 1]!) band++;
    // Magnitudes rather than power: a band's share then follows its level more evenly.
    energy[band] = energy[band]! + Math.hypot(scratch.re[k]!, scratch.im[k]!);
  }
  let total = 0;
  for (const e of energy) total += e;
  const share = (i: number) => (total > 0 ? energy[i]! / total : 0);
  into.bands.low = share(0);
  into.bands.first = share(1);
  into.bands.back = share(2);
  into.bands.front = share(3);
  into.bands.high = share(4);
  into.bands.hiss = share(5);
  return into;
};

const smoothstep = (a: number, b: number, x: number): number => {
  const t = Math.min(1, Math.max(0, (x - a) / (b - a)));
  return t * t * (3 - 2 * t);
};

/** What the features ask of the mouth: target weights per viseme, written into `target`. */
const shapeOf = (features: VoiceFeatures, loudness: number, target: Record<Viseme, number>): void => {
  for (const viseme of visemes) target[viseme] = 0;
  if (loudness <= 0) return;
  const { low, first, back, front, high, hiss } = features.bands;
  // Fricatives: most of the energy above 2.4 kHz, and a noisy, often-crossing wave.
  const fricative = smoothstep(0.35, 0.65, high + hiss) * smoothstep(0.08, 0.2, features.zeroCrossings);
  const voiced = 1 - fricative;
  // The vowel by its first formant (high: open) and its second (high: front), as in the vowel chart.
  const open = first / (low + first || 1);
  const fronted = front / (back + front || 1);
  const aa = open * (1 - fronted);
  const E = open * fronted;
  const I = (1 - open) * fronted;
  const O = 4 * open * (1 - open) * (1 - fronted);
  const U = (1 - open) * (1 - fronted);
  const sum = aa + E + I + O + U || 1;
  target.aa = (loudness * voiced * aa) / sum;
  target.E = (loudness * voiced * E) / sum;
  target.I = (loudness * voiced * I) / sum;
  target.O = (loudness * voiced * O) / sum;
  target.U = (loudness * voiced * U) / sum;
  const hissed = hiss / (high + hiss || 1);
  // A fricative barely opens the jaw: its weight is the shape, held near full while it sounds.
  const held = Math.min(1, 0.4 + loudness);
  target.SS = fricative * held * hissed;
  target.CH = fricative * held * (1 - hissed);
};

export interface VoiceMouth {
  /**
   * One frame: the latest samples heard (null or empty: nothing heard) at `sampleRate`, `dt`
   * seconds after the last frame. Returns the smoothed weights (one object, reused), or null once
   * the mouth has closed.
   */
  update(samples: ArrayLike<number> | null, sampleRate: number, dt: number): VisemeWeights | null;
  /** The features of the last frame analysed. */
  readonly features: VoiceFeatures;
}

export const createVoiceMouth = (options?: VoiceMouthOptions): VoiceMouth => {
  const settings = { ...defaults, ...options } satisfies Required<VoiceMouthOptions>;
  const scratch = scratchFor();
  const features: VoiceFeatures = { rms: 0, zeroCrossings: 0, bands: { low: 0, first: 0, back: 0, front: 0, high: 0, hiss: 0 } };
  const target = Object.fromEntries(visemes.map((v) => [v, 0])) as Record<Viseme, number>;
  const weights = Object.fromEntries(visemes.map((v) => [v, 0])) as Record<Viseme, number>;
  let peak = PEAK_FLOOR;
  return {
    features,
    update(samples, sampleRate, dt) {
      const step = Math.min(Math.max(dt, 0), 0.1);
      let loudness = 0;
      if (samples && samples.length > 0 && sampleRate > 0) {
        analyseVoice(samples, sampleRate, features, scratch);
        peak = Math.max(PEAK_FLOOR, features.rms, peak * Math.exp(-step / settings.peakMemory));
        // The square root, as loudness is heard: speech's softer syllables still open the mouth.
        if (features.rms >= settings.silenceLevel) loudness = Math.min(1, Math.sqrt(features.rms / (0.5 * peak)));
      } else features.rms = 0;
      shapeOf(features, loudness, target);
      let open = false;
      for (const viseme of visemes) {
        const goal = target[viseme];
        const tau = goal > weights[viseme] ? settings.attack : settings.release;
        weights[viseme] += (goal - weights[viseme]) * (1 - Math.exp(-step / tau));
        if (weights[viseme] > 0.01) open = true;
      }
      return open ? weights : null;
    },
  };
};
