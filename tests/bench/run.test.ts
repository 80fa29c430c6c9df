/**
 * `npm run bench` prints its figures as JSON lines and then exits: a benchmark that leaves a
 * worker or a socket open must not keep the process waiting.
 */
import { describe, expect, it } from 'vitest';
import { runBench } from './run-bench';

describe('npm run bench', () => {
  it('prints one {name, value, unit} line per figure and exits on its own', async () => {
    const { code, lines, stderr } = await runBench('designation');
    expect(stderr).not.toMatch(/failed/);
    expect(code).toBe(0);
    const figures = lines.map((line) => JSON.parse(line) as { name: string; value: number; unit: string });
    expect(figures.map((f) => f.name)).toEqual(expect.arrayContaining(['designation.p50_us', 'designation.p99_us']));
    for (const figure of figures) {
      expect(Object.keys(figure)).toEqual(['name', 'value', 'unit']);
      expect(Number.isFinite(figure.value)).toBe(true);
    }
  }, 120_000);

  it('fails, naming the filter, when no benchmark matches', async () => {
    const { code, lines, stderr } = await runBench('no-such-benchmark');
    expect(code).toBe(1);
    expect(lines).toEqual([]);
    expect(stderr).toContain('no bench/*.bench.ts matches no-such-benchmark');
  }, 60_000);
});
