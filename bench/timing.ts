/**
 * Timing helpers shared by the benchmarks. Benchmarks measure; tests never assert timings
 * (DESIGN §9).
 *
 * @example
 * const us = timeEach((i) => detectDesignation(cases[i % cases.length]!), { calls: 20_000 });
 * [{ name: 'designation.p50_us', value: percentile(us, 50), unit: 'us' }];
 */

/** One measurement, printed by `bench/run.ts` as a JSON line. */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
}

/** A `bench/*.bench.ts` module's default export. */
export type Bench = () => Promise<BenchResult[]>;

/** The p-th percentile (0..100) by nearest rank: a value that was actually measured. */
export const percentile = (values: readonly number[], p: number): number => {
  if (values.length === 0) throw new Error('percentile: no values');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
};

/**
 * Calls `call(i)` `warmup` times untimed (so the JIT has settled), then `calls` times, timing each
 * call with `process.hrtime.bigint()`. Returns the microseconds of each timed call.
 */
export const timeEach = (call: (i: number) => unknown, options: { calls: number; warmup?: number }): number[] => {
  const { calls, warmup } = { warmup: 2000, ...options };
  for (let i = 0; i < warmup; i++) call(i);
  const micros = new Array<number>(calls);
  for (let i = 0; i < calls; i++) {
    const begin = process.hrtime.bigint();
    call(i);
    micros[i] = Number(process.hrtime.bigint() - begin) / 1000;
  }
  return micros;
};

/** Milliseconds `work` takes, from `process.hrtime.bigint()`. */
export const timeAsync = async <T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> => {
  const begin = process.hrtime.bigint();
  const result = await work();
  return { result, ms: Number(process.hrtime.bigint() - begin) / 1e6 };
};

/** Rounds for printing: benchmarks report a few significant digits, not float noise. */
export const round = (value: number, digits = 3): number => Number(value.toFixed(digits));
