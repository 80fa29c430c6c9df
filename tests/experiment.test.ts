/**
 * MMAgents' experiment on a shipped scene, small: every condition runs with the same seeds, the
 * intervals hold their means, designation makes addressees speak next, and the result prints. The
 * sessions run through the simulator's shell; the analysis reads only their logs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../shared/events';
import { breakdownKinds } from '../shared/review/report';
import { runExperiment } from '../server/conversation/experiment';
import { compareConditions, formatExperiment, judgeRun, mmagentsConditions, type Condition, type ExperimentResult, type RunResult } from '../server/metrics/experiment';
import { rulesJudge } from '../server/metrics/judge';
import type { BreakdownJudge } from '../server/metrics/judge';
import { createScriptedGenerator } from '../server/providers/generator/scripted';
import { loadScene } from '../server/scene/load';
import type { LoadedScene } from '../shared/scene/schema';

describe('runExperiment (mmagents)', () => {
  let scene: LoadedScene;
  let result: ExperimentResult;
  const policies: string[] = [];
  const logs: Array<{ condition: Condition; events: SessionEvent[] }> = [];

  beforeAll(async () => {
    scene = await loadScene('scenes/poster-session.yaml');
    result = await runExperiment(scene, {
      runs: 4,
      seed: 11,
      turns: 16,
      generator: createScriptedGenerator(),
      onRun: ({ condition, events }) => {
        policies.push(events[0]!.type === 'session-start' ? events[0]!.policy : '');
        logs.push({ condition, events });
      },
    });
  }, 60_000);

  it("finds the same result again from the runs' logs alone", async () => {
    const byCondition: Array<{ condition: Condition; runs: RunResult[] }> = mmagentsConditions.map((condition) => ({ condition, runs: [] }));
    for (const [i, { condition, events }] of logs.entries()) {
      byCondition.find((c) => c.condition === condition)!.runs.push(await judgeRun(events, scene, rulesJudge, 11 + (i % 4)));
    }
    const again = compareConditions({ scene: scene.id, generator: 'scripted', judge: 'rules', runs: 4, seed: 11, turns: 16 }, byCondition);
    expect(JSON.stringify(again)).toBe(JSON.stringify(result));
  });

  it('runs EQUAL, SS and CSSN-or-SS in that order, each with the same seeds, under its own policy', () => {
    expect(result.conditions.map((c) => [c.name, c.policy])).toEqual([
      ['EQUAL', 'equal'],
      ['SS', 'self-selection'],
      ['CSSN-or-SS', 'cssn-or-ss'],
    ]);
    for (const c of result.conditions) expect(c.runs.map((r) => r.seed)).toEqual([11, 12, 13, 14]);
    expect(policies).toEqual(['equal', 'self-selection', 'cssn-or-ss'].flatMap((p) => [p, p, p, p]));
    expect(scene.turnTaking.policy).toBe('cssn-or-ss'); // the scene itself is left as it was
    expect(result).toMatchObject({ experiment: 'mmagents', scene: 'poster-session', generator: 'scripted', judge: 'rules', runs: 4, seed: 11, turns: 16 });
  });

  it('ends each run at the turn limit and counts breakdowns per 10 turns', () => {
    for (const c of result.conditions) {
      for (const r of c.runs) {
        expect(r.turns).toBeLessThanOrEqual(16);
        expect(r.breakdownsPer10).toBeCloseTo((r.breakdowns / r.turns) * 10, 12);
        // An utterance with several types counts once.
        expect(r.breakdowns).toBeLessThanOrEqual(breakdownKinds.reduce((sum, k) => sum + r.kinds[k], 0));
      }
    }
  });

  it('gives intervals that hold their means', () => {
    for (const c of result.conditions) {
      for (const i of [c.breakdownsPer10, c.answeredNext!, c.answeredByContent!]) {
        expect(i.low).toBeLessThanOrEqual(i.mean);
        expect(i.mean).toBeLessThanOrEqual(i.high);
      }
      expect(c.longestRun.mean).toBeLessThanOrEqual(c.longestRun.max);
      expect(c.topSpeakerShare).toBeGreaterThan(0);
    }
  });

  it('lets the addressee speak next at least as often under CSSN-or-SS as under EQUAL and SS, with fewer breakdowns', () => {
    const [equal, ss, cssn] = result.conditions;
    expect(cssn!.answeredNext!.mean).toBeGreaterThanOrEqual(equal!.answeredNext!.mean);
    expect(cssn!.answeredNext!.mean).toBeGreaterThanOrEqual(ss!.answeredNext!.mean);
    expect(cssn!.breakdownsPer10.mean).toBeLessThan(equal!.breakdownsPer10.mean);
    expect(cssn!.kinds['ignore-question']).toBeLessThan(equal!.kinds['ignore-question']);
  });

  it('tests the conditions against each other: Kruskal-Wallis, then Dunn for each pair', () => {
    expect(result.kruskalWallis).toMatchObject({ df: 2 });
    expect(result.kruskalWallis!.p).toBeGreaterThan(0);
    expect(result.dunn.map((d) => `${d.a} vs ${d.b}`)).toEqual(['EQUAL vs SS', 'EQUAL vs CSSN-or-SS', 'SS vs CSSN-or-SS']);
  });

  it('prints a row per condition, the breakdown types by the paper’s names, and the tests', () => {
    const text = formatExperiment(result);
    const lines = text.split('\n');
    expect(lines[0]).toBe('MMAgents experiment on poster-session: 4 runs per condition (seeds 11-14), at most 16 turns, scripted generator, breakdowns found by the rules');
    const header = lines.findIndex((l) => l.startsWith('condition'));
    expect(lines[header]!.split(/\s{2,}/)).toEqual(['condition', 'turns', 'breakdowns/10 turns', '95% CI', 'answered-next', '95% CI', 'answered', '95% CI', 'longest monologue', 'max', 'top speaker']);
    expect(lines.slice(header + 1, header + 4).map((l) => l.split(/\s+/)[0])).toEqual(mmagentsConditions.map((c) => c.name));
    // Beside answered-next, the share answered by content, as a percentage.
    expect(lines.slice(header + 1, header + 4).map((l) => l.split(/\s{2,}/)[6])).toEqual(result.conditions.map((c) => `${(c.answeredByContent!.mean * 100).toFixed(1)}%`));
    expect(text).toMatch(/^Ignore question\s+\d+\s+\d+\s+\d+$/m);
    expect(text).toMatch(/^Interlocutor contradiction\s+\d+\s+\d+\s+\d+$/m);
    expect(text).toMatch(/^Kruskal-Wallis on breakdowns per 10 turns: H = \d+\.\d{3} \(chi-squared, df = 2\), p [<=] /m);
    expect(text.endsWith('\n')).toBe(true);
  });

  it('finds the breakdowns with the judge it is given', async () => {
    const seen: number[] = [];
    const judge: BreakdownJudge = {
      name: 'stub',
      judge: async (utterances) => {
        seen.push(utterances.length);
        return { breakdowns: [{ utterance: utterances[0]!.id, kind: 'repetition' }], judgedBy: { model: 1, rules: 0 }, notes: ['a note'] };
      },
    };
    const judged = await runExperiment(scene, { runs: 1, seed: 1, turns: 10, generator: createScriptedGenerator(), judge });
    expect(seen).toHaveLength(3);
    expect(judged.judge).toBe('stub');
    for (const c of judged.conditions) {
      expect(c.runs[0]).toMatchObject({ breakdowns: 1, judgedBy: { model: 1, rules: 0 }, notes: ['a note'] });
      expect(c.kinds.repetition).toBe(1);
    }
    expect(judged.kruskalWallis).toBeNull(); // every run has the same value
    expect(formatExperiment(judged)).toContain('breakdowns judged by stub (3 samples; 0 left to the rules)');
  });
});
