import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repo, runCli, type Exit } from './cli';
import { SessionEvent } from '../shared/events';
import { aggregateMetrics, runMetrics } from '../server/metrics/metrics';
import { reportOf } from '../server/review/report';
import { Report } from '../shared/review/report';
import { loadScene } from '../server/scene/load';

const scene = existsSync(join(repo, 'scenes/team-standup.yaml'))
  ? 'scenes/team-standup.yaml'
  : `scenes/${readdirSync(join(repo, 'scenes')).filter((f) => f.endsWith('.yaml')).sort()[0]}`;

/** Runs the CLI as a user would. */
const simulate = (args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Exit> => runCli('server/cli/simulate.ts', args, env);

const readRuns = async (dir: string, runs: number): Promise<SessionEvent[][]> =>
  Promise.all(
    Array.from({ length: runs }, async (_, i) => {
      const text = await readFile(join(dir, `run-${i + 1}.jsonl`), 'utf8');
      return text
        .trimEnd()
        .split('\n')
        .map((line) => SessionEvent.parse(JSON.parse(line)));
    }),
  );

// Each test starts the CLI (tsx) a few times: on a loaded 2-core machine that alone can take 20 s.
// The checks of a refusal or of --help start their CLIs side by side (it.concurrent): each is a process of its own.
describe('npm run simulate', { timeout: 60_000 }, () => {
  let tmp: string;
  const dirs = { first: '', second: '', nextSeed: '' };
  const exits: Exit[] = [];

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'simulate-cli-'));
    dirs.first = join(tmp, 'first');
    dirs.second = join(tmp, 'second');
    dirs.nextSeed = join(tmp, 'next-seed');
    exits.push(
      ...(await Promise.all([
        simulate([scene, '--runs', '3', '--seed', '7', '--out', dirs.first]),
        simulate([scene, '--runs', '3', '--seed', '7', '--out', dirs.second]),
        simulate([scene, '--runs', '1', '--seed', '8', '--out', dirs.nextSeed]),
      ])),
    );
  }, 300_000);

  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('exits 0 and prints only a one-line summary to stderr when it is not a terminal', () => {
    for (const exit of exits) {
      expect(exit.stderr).not.toContain('\r');
      expect(exit.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(exit.code, exit.stderr).toBe(0);
    }
  });

  it('writes one event log per run and a summary', () => {
    for (const file of ['run-1.jsonl', 'run-2.jsonl', 'run-3.jsonl', 'summary.json']) {
      expect(existsSync(join(dirs.first, file)), file).toBe(true);
    }
  });

  it('writes one SessionEvent per line, starting with session-start', async () => {
    for (const events of await readRuns(dirs.first, 3)) {
      expect(events[0]?.type).toBe('session-start');
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    }
  });

  it('writes byte-identical files for the same seed', async () => {
    for (const file of ['run-1.jsonl', 'run-2.jsonl', 'run-3.jsonl', 'summary.json']) {
      const [a, b] = await Promise.all([readFile(join(dirs.first, file)), readFile(join(dirs.second, file))]);
      expect(a.equals(b), file).toBe(true);
    }
  });

  it('runs run k with seed S + k - 1', async () => {
    const [seed7run1, seed7run2, seed8run1] = await Promise.all([
      readFile(join(dirs.first, 'run-1.jsonl'), 'utf8'),
      readFile(join(dirs.first, 'run-2.jsonl'), 'utf8'),
      readFile(join(dirs.nextSeed, 'run-1.jsonl'), 'utf8'),
    ]);
    expect(seed8run1).not.toBe(seed7run1);
    expect(seed8run1).toBe(seed7run2);
  });

  it('summarizes the metrics of the written runs', async () => {
    const summary = JSON.parse(await readFile(join(dirs.first, 'summary.json'), 'utf8'));
    const loaded = await loadScene(join(repo, scene));
    const runs = (await readRuns(dirs.first, 3)).map((events) => runMetrics(events, loaded));
    expect(summary).toEqual({
      scene: scene.replace(/^scenes\/|\.yaml$/g, ''),
      generator: 'scripted',
      runs: 3,
      seed: 7,
      metrics: { runs, aggregate: aggregateMetrics(runs) },
    });
  });

  it('writes each run\'s report next to its log, as the server computes it for a session', async () => {
    const loaded = await loadScene(join(repo, scene));
    const runs = await readRuns(dirs.first, 3);
    for (const [i, events] of runs.entries()) {
      const written = JSON.parse(await readFile(join(dirs.first, `report-${i + 1}.json`), 'utf8'));
      expect(Report.parse(written)).toEqual(reportOf(events, loaded));
      expect(written.turns).toBe(events.filter((e) => e.type === 'utterance').length);
      const [a, b] = await Promise.all([readFile(join(dirs.first, `report-${i + 1}.json`)), readFile(join(dirs.second, `report-${i + 1}.json`))]);
      expect(a.equals(b)).toBe(true);
    }
  });

  it.concurrent('exits 1 naming a scene file that does not exist', { timeout: 180_000 }, async () => {
    const exit = await simulate(['scenes/no-such-scene.yaml', '--out', join(tmp, 'missing')]);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain('scenes/no-such-scene.yaml');
  });

  it.concurrent('exits 1 with the loader’s problems for an invalid scene', { timeout: 180_000 }, async () => {
    const file = join(tmp, 'broken.yaml');
    await writeFile(file, 'title: Broken\ntopic: nothing\nformation: pyramid\n');
    const exit = await simulate([file, '--out', join(tmp, 'broken')]);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(/broken\.yaml:\d+:\d+ /);
  });

  it.concurrent('exits 1 on an unknown flag or a bad number', { timeout: 180_000 }, async () => {
    const [flag, runs] = await Promise.all([simulate([scene, '--fast']), simulate([scene, '--runs', 'three'])]);
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain('--fast');
    expect(runs.code).toBe(1);
    expect(runs.stderr).toContain('--runs expects a positive integer, got "three"');
  });

  it.concurrent('exits 1 telling which key to set for a vendor generator without one', { timeout: 180_000 }, async () => {
    const { GEMINI_API_KEY: _, ...env } = process.env;
    const exit = await simulate([scene, '--generator', 'gemini', '--out', join(tmp, 'gemini')], env);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain('set GEMINI_API_KEY=');
  });

  it.concurrent('prints usage for --help', { timeout: 180_000 }, async () => {
    const exit = await simulate(['--help']);
    expect(exit.code).toBe(0);
    expect(exit.stdout).toContain('--runs <N>');
    expect(exit.stdout).toContain('--all');
    expect(exit.stdout).toContain('--experiment <name>');
    expect(exit.stdout).toContain('--turns <T>');
  });

  it.concurrent('exits 1 when given both --all and a scene file', { timeout: 180_000 }, async () => {
    const exit = await simulate(['--all', scene]);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain('not both');
  });
});

// Each test starts the CLI (tsx) a few times: on a loaded 2-core machine that alone can take 20 s.
describe('npm run simulate -- --all', { timeout: 60_000 }, () => {
  const scenes = readdirSync(join(repo, 'scenes'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.replace(/\.yaml$/, ''))
    .sort();
  let tmp: string;
  let exit: Exit;

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'simulate-all-'));
    exit = await simulate(['--all', '--runs', '1', '--seed', '3', '--out', tmp]);
  }, 300_000);

  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('runs every scene, writing each one’s files under <out>/<scene id> and a stderr line per scene', () => {
    expect(exit.code, exit.stderr).toBe(0);
    expect(scenes).toHaveLength(9);
    for (const id of scenes) {
      expect(existsSync(join(tmp, id, 'run-1.jsonl')), id).toBe(true);
      expect(existsSync(join(tmp, id, 'summary.json')), id).toBe(true);
    }
    expect(exit.stderr.trimEnd().split('\n').map((l) => /^1 run of (\S+) /.exec(l)?.[1])).toEqual(scenes);
  });

  it('prints one table: a row per scene in file order, then all, every number readable', async () => {
    const [header, ...rows] = exit.stdout.trimEnd().split('\n').map((l) => l.trim().split(/\s+/));
    expect(header).toEqual(['scene', 'runs', 'turns', 'answered-next', 'answered', 'partly', 'repeat', 'near-dup', 'rephrased', 'top-opening', 'leaks', 'role-adherence', 'breakdowns', 'selector-fallbacks']);
    expect(rows.map((r) => r[0])).toEqual([...scenes, 'all']);
    for (const row of rows) {
      expect(row, row.join(' ')).toHaveLength(header!.length);
      const [, runs, turns, ...measures] = row;
      expect(Number(runs)).toBe(row[0] === 'all' ? scenes.length : 1);
      expect(Number(turns)).toBeGreaterThan(0);
      for (const value of measures) expect(value === '-' || Number.isFinite(parseFloat(value)), `${row[0]}: ${value}`).toBe(true);
    }
    // The table's means are the summaries' (turns of run 1 here).
    const summary = JSON.parse(await readFile(join(tmp, scenes[0]!, 'summary.json'), 'utf8'));
    expect(Number(rows[0]![2])).toBeCloseTo(summary.metrics.runs[0].turns, 1);
    // Beside answered-next, the questions answered by content and in part, from the summary's runs.
    const rate = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(1)}%`);
    const [run] = summary.metrics.runs;
    expect(run.answers.questions).toBeGreaterThan(0);
    expect(run.answers.answered + run.answers.partly + run.answers.not).toBe(run.answers.questions);
    expect(rows[0]!.slice(4, 6)).toEqual([rate(run.answeredByContent), rate(run.partlyAnswered)]);
    expect(rows[0]![8]).toBe(rate(run.meaningRepeatRate));
  });
});

// Each test starts the CLI (tsx) a few times: on a loaded 2-core machine that alone can take 20 s.
describe('npm run simulate -- --experiment mmagents', { timeout: 60_000 }, () => {
  const scenes = readdirSync(join(repo, 'scenes'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.replace(/\.yaml$/, ''))
    .sort();
  let tmp: string;
  let text: Exit;
  let json: Exit;
  let all: Exit;

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'simulate-experiment-'));
    [text, json, all] = await Promise.all([
      simulate(['--experiment', 'mmagents', scene, '--runs', '3', '--turns', '12', '--out', join(tmp, 'one')]),
      simulate(['--experiment', 'mmagents', scene, '--runs', '3', '--turns', '12', '--json']),
      simulate(['--experiment', 'mmagents', '--all', '--runs', '2', '--turns', '8', '--json']),
    ]);
  }, 300_000);

  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('prints a row per condition with breakdowns per 10 turns and their interval, answered-next and the longest monologue', () => {
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.split('\n');
    const header = lines.findIndex((l) => l.startsWith('condition'));
    expect(lines[header]!.split(/\s{2,}/)).toEqual(['condition', 'turns', 'breakdowns/10 turns', '95% CI', 'answered-next', '95% CI', 'answered', '95% CI', 'longest monologue', 'max', 'top speaker']);
    const rows = lines.slice(header + 1, header + 4).map((l) => l.split(/\s{2,}/));
    expect(rows.map((r) => r[0])).toEqual(['EQUAL', 'SS', 'CSSN-or-SS']);
    for (const [, turns, per10, interval, answered] of rows) {
      expect(Number(turns)).toBeLessThanOrEqual(12);
      const [low, high] = interval!.slice(1, -1).split(', ').map(Number);
      expect(low).toBeLessThanOrEqual(Number(per10));
      expect(Number(per10)).toBeLessThanOrEqual(high!);
      expect(answered).toMatch(/^\d+\.\d%$|^-$/);
    }
    expect(text.stdout).toMatch(/^Kruskal-Wallis on breakdowns per 10 turns: /m);
    expect(text.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^mmagents on \S+: 3 conditions x 3 runs \(scripted, seed 1, breakdowns by rules\): \d+ turns -> /)]);
  });

  it('writes every run’s log under its condition, and the result, with --out', async () => {
    for (const condition of ['equal', 'ss', 'cssn-or-ss']) {
      for (const k of [1, 2, 3]) expect(existsSync(join(tmp, 'one', condition, `run-${k}.jsonl`)), `${condition} ${k}`).toBe(true);
    }
    const written = JSON.parse(await readFile(join(tmp, 'one', 'experiment.json'), 'utf8'));
    expect(written).toEqual(JSON.parse(json.stdout)[0]);
  });

  it('prints JSON with --json: one result per scene, the same as the text', () => {
    expect(json.code, json.stderr).toBe(0);
    const [result] = JSON.parse(json.stdout);
    expect(result).toMatchObject({ experiment: 'mmagents', runs: 3, seed: 1, turns: 12, judge: 'rules' });
    expect(result.conditions.map((c: { name: string }) => c.name)).toEqual(['EQUAL', 'SS', 'CSSN-or-SS']);
    expect(text.stdout).toContain(`${result.conditions[0].breakdownsPer10.mean.toFixed(2)}  [${result.conditions[0].breakdownsPer10.low.toFixed(2)}, `);
  });

  it('runs on every shipped scene with --all', () => {
    expect(all.code, all.stderr).toBe(0);
    const results = JSON.parse(all.stdout);
    expect(scenes).toHaveLength(9);
    expect(results.map((r: { scene: string }) => r.scene)).toEqual(scenes);
    for (const r of results) {
      expect(r.conditions, r.scene).toHaveLength(3);
      for (const c of r.conditions) expect(c.runs, `${r.scene} ${c.name}`).toHaveLength(2);
    }
  });

  it.concurrent('takes a shipped scene by id', { timeout: 180_000 }, async () => {
    const exit = await simulate(['--experiment', 'mmagents', 'team-standup', '--runs', '1', '--turns', '6']);
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stdout).toMatch(/^MMAgents experiment on team-standup: 1 run per condition \(seed 1\), at most 6 turns/);
  });

  it.concurrent('exits 1 on an unknown experiment, or experiment options without one', { timeout: 180_000 }, async () => {
    const [unknown, turns, judge] = await Promise.all([
      simulate(['--experiment', 'dialoglab', scene]),
      simulate([scene, '--turns', '10']),
      simulate([scene, '--json', '--judge', 'rules']),
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--experiment expects one of mmagents, got "dialoglab"');
    expect(turns.code).toBe(1);
    expect(turns.stderr).toContain('--turns only apply to an experiment');
    expect(judge.code).toBe(1);
    expect(judge.stderr).toContain('--judge, --json only apply to an experiment');
  });

  it.concurrent('exits 1 telling which key to set for a vendor judge without one', { timeout: 180_000 }, async () => {
    const { GEMINI_API_KEY: _, ...env } = process.env;
    const exit = await simulate(['--experiment', 'mmagents', scene, '--judge', 'gemini', '--runs', '1'], env);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain('simulate: the judge: GEMINI_API_KEY is not set');
    expect(exit.stderr).toContain('set GEMINI_API_KEY=');
  });
});
