/**
 * The statistics the experiments report, as the papers report them: means with a bootstrap
 * confidence interval over runs, the Kruskal-Wallis test across conditions (MMAgents §5 gives its
 * H as χ²), and Dunn's pairwise comparisons with the Bonferroni correction. Pure; the bootstrap
 * draws from the engine's seeded generator, so the same runs give the same interval.
 *
 * ```ts
 * kruskalWallis([[2.9, 3.0, 2.5, 2.6, 3.2], [3.8, 2.7, 4.0, 2.4], [2.8, 3.4, 3.7, 2.2, 2.0]]); // { h: 0.771, df: 2, p: 0.680 }
 * bootstrapInterval([1, 2, 3, 4]); // { mean: 2.5, low: 1.5, high: 3.5 }
 * ```
 */
import { rngFrom } from '../../shared/rng';

export const mean = (values: readonly number[]): number => values.reduce((sum, v) => sum + v, 0) / values.length;

/** The sample standard deviation; 0 for fewer than two values. */
export const sampleStd = (values: readonly number[]): number => {
  if (values.length < 2) return 0;
  const m = mean(values);
  return Math.sqrt(values.reduce((sum, v) => sum + (v - m) ** 2, 0) / (values.length - 1));
};

export interface Interval {
  mean: number;
  low: number;
  high: number;
}

export interface BootstrapOptions {
  /** Resamples drawn (default 10,000). */
  resamples?: number;
  /** Coverage (default 0.95). */
  level?: number;
  /** Seed of the resampling (default 1): fixed, so a report is reproducible. */
  seed?: number;
}

/**
 * The mean and its percentile bootstrap interval (Efron & Tibshirani 1993, §13.3): the mean of
 * `resamples` samples drawn with replacement, and the (1 − level)/2 and (1 + level)/2 quantiles
 * of those means, widened if need be to hold the mean itself. One value gives a zero-width
 * interval. Throws on no values.
 */
export const bootstrapInterval = (values: readonly number[], options: BootstrapOptions = {}): Interval => {
  const { resamples = 10_000, level = 0.95, seed = 1 } = options;
  if (values.length === 0) throw new Error('bootstrapInterval: no values');
  const m = mean(values);
  const rng = rngFrom(seed);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < values.length; i++) sum += values[Math.floor(rng.next() * values.length)]!;
    means[r] = sum / values.length;
  }
  means.sort();
  const at = (q: number): number => means[Math.min(resamples - 1, Math.max(0, Math.round(q * (resamples - 1))))]!;
  return { mean: m, low: Math.min(m, at((1 - level) / 2)), high: Math.max(m, at((1 + level) / 2)) };
};

/** ln Γ(x) for x > 0: Lanczos' approximation with g = 671/128 and 14 terms (Numerical Recipes, 3rd ed., §6.1), about 15 digits. */
const logGammaTerms = [
  57.1562356658629235, -59.5979603554754912, 14.1360979747417471, -0.491913816097620199, 0.339946499848118887e-4, 0.465236289270485756e-4,
  -0.983744753048795646e-4, 0.158088703224912494e-3, -0.210264441724104883e-3, 0.217439618115212643e-3, -0.16431810653676389e-3,
  0.844182239838527433e-4, -0.261908384015814087e-4, 0.368991826595316234e-5,
];
const logGamma = (x: number): number => {
  const t = x + 671 / 128;
  let series = 0.999999999999997092;
  logGammaTerms.forEach((term, j) => (series += term / (x + j + 1)));
  return (x + 0.5) * Math.log(t) - t + Math.log((2.5066282746310005 * series) / x);
};

/**
 * The regularised upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a): by its series below
 * x < a + 1, by Lentz's continued fraction above (Numerical Recipes, §6.2).
 */
const upperGamma = (a: number, x: number): number => {
  if (x <= 0) return 1;
  const front = Math.exp(-x + a * Math.log(x) - logGamma(a));
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 1000 && Math.abs(term) > Math.abs(sum) * 1e-15; n++) {
      term *= x / (a + n);
      sum += term;
    }
    return Math.max(0, 1 - sum * front);
  }
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-15) break;
  }
  return Math.min(1, front * h);
};

/** P(X ≥ x) for X ~ χ² with `df` degrees of freedom. */
export const chiSquareSurvival = (x: number, df: number): number => upperGamma(df / 2, x / 2);

/** P(|Z| ≥ |z|) for a standard normal Z: erfc(|z|/√2), which is Q(1/2, z²/2). */
export const normalTwoSided = (z: number): number => upperGamma(0.5, (z * z) / 2);

/** Mid-ranks (1-based; ties share the mean of their ranks) and the tie term Σ(t³ − t). */
const rank = (values: readonly number[]): { ranks: number[]; ties: number } => {
  const order = values.map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v);
  const ranks = new Array<number>(values.length);
  let ties = 0;
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]!.v === order[start]!.v) end++;
    const t = end - start + 1;
    ties += t ** 3 - t;
    for (let k = start; k <= end; k++) ranks[order[k]!.i] = (start + end) / 2 + 1;
    start = end + 1;
  }
  return { ranks, ties };
};

export interface KruskalWallis {
  /** H, corrected for ties; compared with χ² on `df` degrees of freedom. */
  h: number;
  df: number;
  p: number;
}

/**
 * The Kruskal-Wallis H test (1952) that the groups come from one distribution:
 * H = 12 / (N(N+1)) · Σ Rᵢ²/nᵢ − 3(N+1), divided by 1 − Σ(t³ − t)/(N³ − N) for ties, with p from
 * χ² on k − 1 degrees of freedom. `null` when fewer than two groups have values or every value is
 * the same (H is undefined).
 */
export const kruskalWallis = (groups: readonly (readonly number[])[]): KruskalWallis | null => {
  const present = groups.filter((g) => g.length > 0);
  const all = present.flat();
  const n = all.length;
  if (present.length < 2) return null;
  const { ranks, ties } = rank(all);
  const correction = 1 - ties / (n ** 3 - n);
  if (correction <= 0) return null;
  let offset = 0;
  let sum = 0;
  for (const g of present) {
    const r = ranks.slice(offset, offset + g.length).reduce((s, x) => s + x, 0);
    offset += g.length;
    sum += (r * r) / g.length;
  }
  const h = ((12 / (n * (n + 1))) * sum - 3 * (n + 1)) / correction;
  const df = present.length - 1;
  return { h, df, p: chiSquareSurvival(h, df) };
};

export interface PairwiseComparison {
  /** Indexes into the groups. */
  a: number;
  b: number;
  z: number;
  /** Two-sided, Bonferroni-adjusted (times the number of pairs, at most 1). */
  p: number;
}

/**
 * Dunn's test (1964) after Kruskal-Wallis, as MMAgents §5 uses it: for each pair of groups,
 * z = (R̄a − R̄b) / √((N(N+1)/12 − Σ(t³ − t)/(12(N − 1))) · (1/na + 1/nb)), two-sided p with the
 * Bonferroni correction. Groups without values are left out; empty when fewer than two remain.
 */
export const dunn = (groups: readonly (readonly number[])[]): PairwiseComparison[] => {
  const kept = groups.map((g, i) => ({ g, i })).filter(({ g }) => g.length > 0);
  const all = kept.flatMap(({ g }) => g);
  const n = all.length;
  if (kept.length < 2) return [];
  const { ranks, ties } = rank(all);
  let offset = 0;
  const meanRanks = kept.map(({ g }) => {
    const r = ranks.slice(offset, offset + g.length).reduce((s, x) => s + x, 0);
    offset += g.length;
    return r / g.length;
  });
  const variance = (n * (n + 1)) / 12 - ties / (12 * (n - 1));
  const pairs = (kept.length * (kept.length - 1)) / 2;
  const out: PairwiseComparison[] = [];
  for (let x = 0; x < kept.length; x++) {
    for (let y = x + 1; y < kept.length; y++) {
      const se = Math.sqrt(variance * (1 / kept[x]!.g.length + 1 / kept[y]!.g.length));
      const z = se > 0 ? (meanRanks[x]! - meanRanks[y]!) / se : 0;
      out.push({ a: kept[x]!.i, b: kept[y]!.i, z, p: Math.min(1, normalTwoSided(z) * pairs) });
    }
  }
  return out;
};
