import { describe, expect, it } from 'vitest';
import { bootstrapInterval, chiSquareSurvival, dunn, kruskalWallis, mean, normalTwoSided, sampleStd } from './stats';

describe('kruskalWallis', () => {
  it('matches the worked example of R’s kruskal.test (Hollander & Wolfe 1973, p. 116): H = 0.7714, df 2, p = 0.68', () => {
    const normal = [2.9, 3.0, 2.5, 2.6, 3.2];
    const airway = [3.8, 2.7, 4.0, 2.4];
    const asbestosis = [2.8, 3.4, 3.7, 2.2, 2.0];
    const result = kruskalWallis([normal, airway, asbestosis])!;
    expect(result.h).toBeCloseTo(0.771429, 6);
    expect(result.df).toBe(2);
    expect(result.p).toBeCloseTo(0.679965, 6);
  });

  it('corrects for ties (SciPy’s kruskal examples)', () => {
    expect(kruskalWallis([[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]])).toEqual({ h: expect.closeTo(0.272727, 6), df: 1, p: expect.closeTo(0.601508, 6) });
    expect(kruskalWallis([[1, 1, 1], [2, 2, 2], [2, 2]])).toEqual({ h: expect.closeTo(7, 10), df: 2, p: expect.closeTo(0.030197, 6) });
  });

  it('is undefined for fewer than two groups or when every value is the same', () => {
    expect(kruskalWallis([[1, 2, 3]])).toBeNull();
    expect(kruskalWallis([[1, 2], []])).toBeNull();
    expect(kruskalWallis([[2, 2], [2, 2, 2]])).toBeNull();
  });
});

describe('chiSquareSurvival', () => {
  it('gives the upper tail of χ² (values from R’s pchisq(x, df, lower.tail = FALSE))', () => {
    expect(chiSquareSurvival(3.841459, 1)).toBeCloseTo(0.05, 6);
    expect(chiSquareSurvival(5.991465, 2)).toBeCloseTo(0.05, 6);
    expect(chiSquareSurvival(29.267, 4) / 6.899346e-6).toBeCloseTo(1, 5); // airquality Ozone by Month
    expect(chiSquareSurvival(0.5, 10)).toBeCloseTo(0.999993388, 9);
    expect(chiSquareSurvival(0, 3)).toBe(1);
  });

  it('is exp(-x/2) for two degrees of freedom', () => {
    for (const x of [0.1, 1, 7, 42.171]) expect(chiSquareSurvival(x, 2) / Math.exp(-x / 2)).toBeCloseTo(1, 10);
  });

  it('gives the two-sided normal tail', () => {
    expect(normalTwoSided(1.959964)).toBeCloseTo(0.05, 6);
    expect(normalTwoSided(-2.575829)).toBeCloseTo(0.01, 6);
    expect(normalTwoSided(0)).toBe(1);
  });
});

describe('dunn', () => {
  it('compares every pair by mean ranks with the tie-corrected variance, Bonferroni-adjusted', () => {
    const pairs = dunn([[1, 2, 3, 4, 5, 5], [6, 7, 8, 9, 9, 10], [3, 4, 5, 6, 6, 7]]);
    expect(pairs.map(({ a, b }) => [a, b])).toEqual([[0, 1], [0, 2], [1, 2]]);
    expect(pairs.map((p) => p.z)).toEqual([expect.closeTo(-3.400736, 6), expect.closeTo(-1.333088, 6), expect.closeTo(2.067647, 6)]);
    expect(pairs.map((p) => p.p)).toEqual([expect.closeTo(0.002016, 6), expect.closeTo(0.547508, 6), expect.closeTo(0.116020, 6)]);
  });

  it('caps adjusted p at 1 and skips empty groups', () => {
    expect(dunn([[1, 2, 3], [], [2, 3, 1]])).toEqual([{ a: 0, b: 2, z: 0, p: 1 }]);
    expect(dunn([[1, 2, 3]])).toEqual([]);
  });
});

describe('bootstrapInterval', () => {
  it('brackets the mean, narrows with more runs, and repeats itself for the same seed', () => {
    const few = [1, 4, 2, 8, 5];
    const many = [...few, ...few, ...few, ...few];
    const a = bootstrapInterval(few);
    expect(a.mean).toBe(4);
    expect(a.low).toBeLessThan(a.mean);
    expect(a.high).toBeGreaterThan(a.mean);
    expect(a.low).toBeGreaterThanOrEqual(1);
    expect(a.high).toBeLessThanOrEqual(8);
    const b = bootstrapInterval(many);
    expect(b.high - b.low).toBeLessThan(a.high - a.low);
    expect(bootstrapInterval(few)).toEqual(a);
  });

  it('covers about what a normal interval would for a symmetric sample', () => {
    const values = Array.from({ length: 40 }, (_, i) => (i % 10) - 4.5);
    const { low, high } = bootstrapInterval(values);
    const halfWidth = (1.96 * sampleStd(values)) / Math.sqrt(values.length);
    expect(high - low).toBeCloseTo(2 * halfWidth, 0);
    expect(mean(values)).toBeCloseTo(0, 12);
  });

  it('gives a zero-width interval for one value and refuses none', () => {
    expect(bootstrapInterval([3])).toEqual({ mean: 3, low: 3, high: 3 });
    expect(() => bootstrapInterval([])).toThrow(/no values/);
  });
});
