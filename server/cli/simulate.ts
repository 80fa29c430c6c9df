/**
 * The batch simulator: runs a scene several times with every human simulated, writes each run's
 * event log and report (the figures the review dashboard shows) and a summary of conversation metrics. With `--all` it does so for every scene in
 * `scenes/` and prints one table comparing them. With `--experiment mmagents` it reruns MMAgents'
 * comparison of turn-taking conditions on the scene (conversation/experiment.ts runs it, metrics/experiment.ts
 * analyses the logs) and prints its result.
 *
 *   npm run -s simulate -- scenes/team-standup.yaml --runs 10 --seed 1 --out out/standup
 *   npm run -s simulate -- --all --runs 3
 *   npm run -s simulate -- --experiment mmagents scenes/murder-mystery.yaml --runs 20
 *
 * Run k (1-based) uses seed S + k - 1. The summary holds nothing from the wall clock, so with the
 * scripted generator the same scene and seed write byte-identical files.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { optionsOrExit, readCommandLine, UsageError } from './command-line';
import { driveSession } from '../conversation/drive';
import type { SessionEvent } from '../../shared/events';
import { runExperiment } from '../conversation/experiment';
import { experimentNames, formatExperiment, mmagentsConditions, type ExperimentName, type ExperimentResult } from '../metrics/experiment';
import { createModelJudge, rulesJudge, type BreakdownJudge } from '../metrics/judge';
import { aggregateMetrics, runMetrics, type RunMetrics } from '../metrics/metrics';
import { formatTable, type TableRow } from '../metrics/table';
import { createGenerator, generatorNames, type GeneratorName } from '../providers/generator/index';
import { reportOf } from '../review/report';
import type { Generator } from '../providers/generator/port';
import { loadScene, loadScenes, SceneError, type LoadedScene } from '../scene/load';
import { provideWordVectors } from '../engine/embeddings';
import { installedWordVectors } from '../providers/word-vectors';

// Similarity compares by meaning with the installation's word vectors (read on the first comparison).
provideWordVectors(installedWordVectors);

/** Where `--all` finds the scenes, relative to the working directory. */
const scenesDir = 'scenes';

const usage = `Usage: npm run -s simulate -- <scene file or id> [options]
       npm run -s simulate -- --all [options]
       npm run -s simulate -- --experiment mmagents <scene file> | --all [options]

Runs a scene N times with every human simulated and writes
  <out>/run-<k>.jsonl   the event log of run k, one JSON event per line
  <out>/report-<k>.json run k's report, as the server gives it for a session (review/report.ts)
  <out>/summary.json    conversation metrics per run and aggregated over runs

With --all, runs every scene in ${scenesDir}/ (sorted by file name), writes each one's files
under <out>/<scene id>/ and prints one table to stdout: a row per scene and one for all runs,
with the mean per run of turns, answered-next rate (the addressee of a designated question spoke
next), the shares of designated questions and requests answered and partly answered by content,
repeat, near-duplicate and rephrased rates (a persona saying its own earlier sentence again in
other words), the most frequent opening's share, private-knowledge leaks, role adherence,
breakdowns (utterances that lead to one) and LLM turn-selector fallbacks.

With --experiment mmagents, runs the scene (or every scene) under MMAgents' three conditions,
EQUAL, SS and CSSN-or-SS, N runs each with the same seeds, and prints per condition: utterances
that lead to a dialogue breakdown per 10 turns (mean, 95% percentile bootstrap interval over
runs), answered-next (designated first pair parts whose addressee spoke next), answered
(designated questions and requests the reply answered by content), the longest monologue
(consecutive turns by one speaker: mean and max), the most active speaker's share of turns, the breakdown types (MMAgents Table 1), and a Kruskal-Wallis test across conditions with
Dunn's pairwise tests. It writes files only with --out: <out>/<condition>/run-<k>.jsonl and
<out>/experiment.json (with --all, under <out>/<scene id>/).

Options:
  --all                   run every scene in ${scenesDir}/ instead of one scene file
  --runs <N>              number of sessions per scene, per condition in an experiment (default 1; 20 in an experiment)
  --seed <S>              seed of run 1; run k uses S + k - 1 (default 1)
  --out <dir>             output folder (default out/<scene id>; with --all, the parent folder, default out)
  --generator <name>      scripted | gemini | openai | local (default scripted)
  --approvals <decision>  approve | dismiss: how simulated approvals are resolved
  --experiment <name>     mmagents: rerun a paper's experiment on the scene
  --turns <T>             in an experiment, end each session after T turns (default: the scene's length;
                          the paper judged 10-turn conversations)
  --judge <name>          in an experiment, who finds the breakdowns: rules | gemini | openai | local
                          (default: rules with the scripted generator, else the generator's vendor)
  --json                  in an experiment, print the result as JSON (an array, one object per scene)
  -h, --help              show this help

The gemini generator and judge need GEMINI_API_KEY; openai needs OPENAI_BASE_URL and
OPENAI_MODEL (OPENAI_API_KEY if the server wants one); local needs LOCAL_LLM_MODEL. Vendor runs are not reproducible byte for
byte. A judge that fails, or answers twice without the JSON asked for, leaves those turns to the
rules, and the experiment's result says so.
`;

const approvalDecisions = ['approve', 'dismiss'] as const;
type ApprovalDecision = (typeof approvalDecisions)[number];
/** Who finds an experiment's breakdowns: the rules, or a vendor's model. */
const judgeNames = ['rules', 'gemini', 'openai', 'local'] as const satisfies readonly ('rules' | GeneratorName)[];
type JudgeName = (typeof judgeNames)[number];

/** What each generator cannot start without (see providers/generator/index.ts), to tell the user what to set. */
const requiredVariables: Record<GeneratorName, string[]> = {
  scripted: [],
  gemini: ['GEMINI_API_KEY'],
  openai: ['OPENAI_BASE_URL', 'OPENAI_MODEL'],
  local: ['LOCAL_LLM_MODEL'],
};

interface Options {
  /** A scene file (a bare id is a file in scenes/), or `null` for every scene (--all). */
  scene: string | null;
  runs: number;
  seed: number;
  out: string | undefined;
  generator: GeneratorName;
  approvals: ApprovalDecision | undefined;
  experiment: ExperimentName | undefined;
  /** In an experiment: the turn limit, the judge, and JSON output. */
  turns: number | undefined;
  judge: JudgeName;
  json: boolean;
}

const integer = (flag: string, value: string | undefined, fallback: number, min = Number.MIN_SAFE_INTEGER): number => {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) {
    throw new UsageError(`${flag} expects ${min >= 1 ? 'a positive integer' : 'an integer'}, got "${value}"`);
  }
  return n;
};

const oneOf = <T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined => {
  if (value === undefined || (allowed as readonly string[]).includes(value)) return value as T | undefined;
  throw new UsageError(`${flag} expects one of ${allowed.join(', ')}, got "${value}"`);
};

/** Returns `null` when help was asked for. */
const parseOptions = (argv: string[]): Options | null => {
  const { values, positionals } = readCommandLine(
    argv,
    {
      runs: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
      generator: { type: 'string' },
      approvals: { type: 'string' },
      experiment: { type: 'string' },
      turns: { type: 'string' },
      judge: { type: 'string' },
      json: { type: 'boolean' },
      all: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    { positionals: true },
  );
  if (values.help) return null;
  const [scene, ...extra] = positionals;
  if (values.all && scene !== undefined) throw new UsageError(`--all runs every scene in ${scenesDir}/; give a scene file or --all, not both`);
  if (!values.all && scene === undefined) throw new UsageError('missing the scene file, e.g. scenes/team-standup.yaml (or --all for every scene)');
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  const experiment = oneOf('--experiment', values.experiment, experimentNames);
  if (!experiment) {
    const only = [values.turns !== undefined && '--turns', values.judge !== undefined && '--judge', values.json && '--json'].filter(Boolean);
    if (only.length > 0) throw new UsageError(`${only.join(', ')} only apply to an experiment (--experiment mmagents)`);
  }
  const seed = integer('--seed', values.seed, 1);
  const runs = integer('--runs', values.runs, experiment ? 20 : 1, 1);
  if (!Number.isSafeInteger(seed + runs - 1)) throw new UsageError(`--seed ${seed} with --runs ${runs} overflows the seed range`);
  const generator = oneOf('--generator', values.generator, generatorNames) ?? 'scripted';
  return {
    // A bare id names a shipped scene: murder-mystery is scenes/murder-mystery.yaml.
    scene: scene === undefined ? null : /[\\/]|\.ya?ml$/.test(scene) ? scene : join(scenesDir, `${scene}.yaml`),
    runs,
    seed,
    out: values.out,
    generator,
    approvals: oneOf('--approvals', values.approvals, approvalDecisions),
    experiment,
    turns: values.turns === undefined ? undefined : integer('--turns', values.turns, 0, 1),
    judge: oneOf('--judge', values.judge, judgeNames) ?? (generator === 'scripted' ? 'rules' : generator),
    json: values.json ?? false,
  };
};

const progressBar = (label: string, done: number, total: number, turns: number): string => {
  const width = 20;
  const filled = Math.round((done / total) * width);
  return `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} runs, ${turns} turns`;
};

/** The scene file, or every scene for --all; `null` after telling the user what is wrong. */
const scenesFor = async (options: Options): Promise<LoadedScene[] | null> => {
  const path = options.scene ?? scenesDir;
  try {
    return options.scene === null ? await loadScenes(scenesDir) : [await loadScene(options.scene)];
  } catch (error) {
    // A SceneError's message lists every problem as file:line:col; anything else is the file system's.
    const { code, message: reason } = error as NodeJS.ErrnoException;
    const what = options.scene === null ? 'scenes folder' : 'scene file';
    const message =
      error instanceof SceneError ? error.message : code === 'ENOENT' ? `${what} not found: ${path}` : `cannot read ${what} ${path}: ${reason}`;
    process.stderr.write(`simulate: ${message}\n`);
    return null;
  }
};

/** Runs one scene `options.runs` times, writes its logs and summary to `out`, and returns the runs' metrics. */
const simulateScene = async (scene: LoadedScene, options: Options, generator: Generator, out: string): Promise<RunMetrics[]> => {
  await mkdir(out, { recursive: true });

  // The bar redraws at most every 100 ms: the scripted generator produces thousands of turns a second.
  const tty = process.stderr.isTTY === true;
  let turns = 0;
  let drawnAt = -Infinity;
  const draw = (done: number, force = false): void => {
    if (!tty || (!force && performance.now() - drawnAt < 100)) return;
    drawnAt = performance.now();
    process.stderr.write(`\r${progressBar(scene.id, done, options.runs, turns)}\x1b[K`);
  };

  const metrics: RunMetrics[] = [];
  draw(0, true);
  for (let k = 1; k <= options.runs; k++) {
    const events: SessionEvent[] = await driveSession(scene, {
      seed: options.seed + k - 1,
      generator,
      approvals: options.approvals,
      onEvent: (event) => {
        if (event.type !== 'utterance') return;
        turns += 1;
        draw(k - 1);
      },
    });
    await writeFile(join(out, `run-${k}.jsonl`), events.map((e) => `${JSON.stringify(e)}\n`).join(''));
    await writeFile(join(out, `report-${k}.json`), `${JSON.stringify(reportOf(events, scene), null, 2)}\n`);
    metrics.push(runMetrics(events, scene));
    draw(k, true);
  }
  if (tty) process.stderr.write('\r\x1b[K');

  const summary = {
    scene: scene.id,
    generator: options.generator,
    runs: options.runs,
    seed: options.seed,
    metrics: { runs: metrics, aggregate: aggregateMetrics(metrics) },
  };
  await writeFile(join(out, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);

  const total = metrics.reduce((sum, m) => sum + m.turns, 0);
  const plural = options.runs === 1 ? 'run' : 'runs';
  process.stderr.write(`${options.runs} ${plural} of ${scene.id} (${options.generator}, seed ${options.seed}): ${total} turns -> ${out}\n`);
  return metrics;
};

/**
 * Runs the experiment on each scene in turn and prints each result as it comes (or all of them as
 * one JSON array at the end); with --out, writes every run's log and each result.
 */
const experimentOn = async (scenes: LoadedScene[], options: Options, generator: Generator, judge: BreakdownJudge): Promise<void> => {
  const results: ExperimentResult[] = [];
  const tty = process.stderr.isTTY === true;
  for (const [i, scene] of scenes.entries()) {
    const out = options.out === undefined ? undefined : options.scene === null ? join(options.out, scene.id) : options.out;
    const total = options.runs * mmagentsConditions.length;
    let done = 0;
    let turns = 0;
    const result = await runExperiment(scene, {
      runs: options.runs,
      seed: options.seed,
      turns: options.turns,
      generator,
      judge,
      approvals: options.approvals,
      onRun: async ({ condition, k, events }) => {
        done += 1;
        turns += events.filter((e) => e.type === 'utterance').length;
        if (out) {
          await mkdir(join(out, condition.id), { recursive: true });
          await writeFile(join(out, condition.id, `run-${k}.jsonl`), events.map((e) => `${JSON.stringify(e)}\n`).join(''));
        }
        if (tty) process.stderr.write(`\r${progressBar(`${scene.id} (${condition.id})`, done, total, turns)}\x1b[K`);
      },
    });
    if (tty) process.stderr.write('\r\x1b[K');
    if (out) await writeFile(join(out, 'experiment.json'), `${JSON.stringify(result, null, 2)}\n`);
    const plural = options.runs === 1 ? 'run' : 'runs';
    process.stderr.write(
      `${options.experiment} on ${scene.id}: ${mmagentsConditions.length} conditions x ${options.runs} ${plural} (${options.generator}, seed ${options.seed}, breakdowns by ${judge.name}): ${turns} turns${out ? ` -> ${out}` : ''}\n`,
    );
    results.push(result);
    if (!options.json) process.stdout.write(`${i > 0 ? '\n' : ''}${formatExperiment(result)}`);
  }
  if (options.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
};

/** The generator for a vendor name, or `null` after telling the user which variables to set; `role` names what it is for when that is not generating. */
const generatorFor = (name: GeneratorName, role?: string): Generator | null => {
  try {
    return createGenerator(name, process.env);
  } catch (error) {
    const unset = requiredVariables[name].filter((variable) => !process.env[variable]?.trim());
    process.stderr.write(`simulate: ${role ? `${role}: ` : ''}${(error as Error).message}\n${unset.map((variable) => `set ${variable}=...\n`).join('')}`);
    return null;
  }
};

const main = async (argv: string[]): Promise<number> => {
  const options = optionsOrExit('simulate', usage, () => parseOptions(argv));
  if (typeof options === 'number') return options;

  const scenes = await scenesFor(options);
  if (scenes === null) return 1;

  // A vendor's fallbacks become system events in each run's log, where the metrics count them;
  // its breaker is shared by the runs (and the scenes), so a vendor that is down is not called run after run.
  const generator = generatorFor(options.generator);
  if (generator === null) return 1;

  if (options.experiment) {
    const model = options.judge === 'rules' ? null : generatorFor(options.judge, 'the judge');
    if (options.judge !== 'rules' && model === null) return 1;
    await experimentOn(scenes, options, generator, model ? createModelJudge(model) : rulesJudge);
    return 0;
  }

  if (options.scene !== null) {
    const scene = scenes[0]!;
    await simulateScene(scene, options, generator, options.out ?? join('out', scene.id));
    return 0;
  }

  const rows: TableRow[] = [];
  const everyRun: RunMetrics[] = [];
  for (const scene of scenes) {
    const metrics = await simulateScene(scene, options, generator, join(options.out ?? 'out', scene.id));
    rows.push({ name: scene.id, aggregate: aggregateMetrics(metrics) });
    everyRun.push(...metrics);
  }
  rows.push({ name: 'all', aggregate: aggregateMetrics(everyRun) });
  process.stdout.write(formatTable(rows));
  return 0;
};

process.exitCode = await main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`simulate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 1;
});
