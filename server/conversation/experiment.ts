/**
 * MMAgents' experiment (§4.1) run through the simulator's shell: the scene under each condition's
 * turn-taking policy (metrics/experiment.ts: EQUAL, SS, CSSN-or-SS), N simulated sessions each
 * (drive.ts, as `npm run simulate` drives them), run k of every condition with seed `seed + k - 1`.
 * Each log is handed to the analysis as its session ends (metrics/experiment.ts: breakdowns,
 * answers, the floor), then the conditions are compared; the analysis never runs a session.
 *
 * ```ts
 * const result = await runExperiment(scene, { runs: 20, seed: 1, generator: createScriptedGenerator() });
 * process.stdout.write(formatExperiment(result)); // metrics/experiment.ts
 * ```
 */
import type { SessionEvent } from '../../shared/events';
import { compareConditions, judgeRun, mmagentsConditions, type Condition, type ExperimentResult, type RunResult } from '../metrics/experiment';
import { rulesJudge, type BreakdownJudge } from '../metrics/judge';
import type { Generator } from '../providers/generator/port';
import type { LoadedScene } from '../../shared/scene/schema';
import { driveSession } from './drive';

export interface ExperimentOptions {
  /** Runs per condition. */
  runs: number;
  /** Run k (1-based) of every condition uses seed `seed + k - 1`. */
  seed: number;
  /** The longest session, in turns; the scene's own length when not given. */
  turns?: number;
  generator: Generator;
  /** Who finds the breakdowns (default: the rules). */
  judge?: BreakdownJudge;
  approvals?: 'approve' | 'dismiss';
  /** Called after each run, e.g. to write its log or draw progress. */
  onRun?: (run: { condition: Condition; k: number; events: SessionEvent[] }) => void | Promise<void>;
}

/** Runs MMAgents' three conditions on `scene`, one after another, and compares them. */
export const runExperiment = async (scene: LoadedScene, options: ExperimentOptions): Promise<ExperimentResult> => {
  const judge = options.judge ?? rulesJudge;
  const conditions: Array<{ condition: Condition; runs: RunResult[] }> = [];
  for (const condition of mmagentsConditions) {
    const variant: LoadedScene = { ...scene, turnTaking: { ...scene.turnTaking, policy: condition.policy } };
    const runs: RunResult[] = [];
    for (let k = 1; k <= options.runs; k++) {
      const seed = options.seed + k - 1;
      const events = await driveSession(variant, {
        seed,
        generator: options.generator,
        approvals: options.approvals,
        ...(options.turns ? { maxTurns: options.turns } : {}),
      });
      // Judged against the scene as written: the condition changes who speaks, not what the scene asks.
      runs.push(await judgeRun(events, scene, judge, seed));
      await options.onRun?.({ condition, k, events });
    }
    conditions.push({ condition, runs });
  }
  return compareConditions(
    { scene: scene.id, generator: options.generator.name, judge: judge.name, runs: options.runs, seed: options.seed, turns: options.turns ?? null },
    conditions,
  );
};
