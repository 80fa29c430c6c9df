/**
 * `npm run bench -- response-gap` (bench/response-gap.bench.ts) prints its figures and exits: the
 * browser, the server, the conversation and the eSpeak worker it starts are all closed. One typed
 * trial in one scene and three turns of each kind through the endpointing keep the run short (all
 * 53 of pauses.json took 34 s of a 78 s run on a loaded machine, three of each 4 s). What the
 * figures are is the bench's business: no timing is asserted here.
 */
import { describe, expect, it } from 'vitest';
import { runBench } from './run-bench';

describe('npm run bench -- response-gap', () => {
  it('reports the typed and spoken response gaps, the thinking pause and the false cut-off rate, and exits', async () => {
    const { code, lines, stderr } = await runBench('response-gap', { RESPONSE_GAP_TRIALS: '1', RESPONSE_GAP_SCENES: 'job-interview', RESPONSE_GAP_PAUSES: '3' });
    expect(stderr).not.toMatch(/failed/);
    expect(code).toBe(0);
    const figures = Object.fromEntries(lines.map((line) => JSON.parse(line) as { name: string; value: number; unit: string }).map((f) => [f.name, f]));
    expect(Object.keys(figures).sort()).toEqual([
      'response_gap.false_cutoff_rate',
      'response_gap.finished_wait_p50_ms',
      'response_gap.thinking_pause_ms',
      'response_gap.typed_p50_ms',
      'response_gap.typed_p90_ms',
      'response_gap.typed_server_p50_ms',
      'response_gap.voice_p50_ms',
      'response_gap.voice_p90_ms',
    ]);
    for (const figure of Object.values(figures)) expect(Number.isFinite(figure.value), figure.name).toBe(true);
    expect(figures['response_gap.false_cutoff_rate']!.unit).toBe('ratio');
    expect(figures['response_gap.false_cutoff_rate']!.value).toBeGreaterThanOrEqual(0);
    expect(figures['response_gap.false_cutoff_rate']!.value).toBeLessThanOrEqual(1);
  }, 600_000);
});
