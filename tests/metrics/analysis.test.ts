/**
 * The metrics are the analysis layer: they read event logs (and ask a judge's model through the
 * generator port), and never run a session. Experiments run through the simulator's shell
 * (conversation/experiment.ts), so the live room, the simulator and the experiment cannot disagree
 * on how a session runs, and any log, live or simulated, can be analysed alike.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * What the metrics may import besides themselves: the engine, the shared modules (the log, the scene format, the report's schema), the port a model
 * judge asks, its notices, and resilience.ts's ask-again-on-bad-JSON (every retry is there).
 */
const allowed = /^\.\.\/engine\/|^\.\.\/\.\.\/shared\/|^\.\.\/providers\/generator\/port$|^\.\.\/providers\/(?:notice|resilience)$|^\.\/|^node:|^zod$/;

describe('the metrics', () => {
  const files = readdirSync('server/metrics').filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  const importsOf = (file: string): string[] => [...readFileSync(`server/metrics/${file}`, 'utf8').matchAll(/^(?:import|export)\b[^'"]*?from '([^']+)'/gm)].map((m) => m[1]!);

  it('finds the imports it checks', () => {
    expect(importsOf('experiment.ts')).toEqual(expect.arrayContaining(['../../shared/events', './breakdowns', './stats']));
  });

  it.each(files)('%s reads logs and runs no session: it imports no shell', (file) => {
    expect(importsOf(file).filter((target) => !allowed.test(target))).toEqual([]);
  });
});
