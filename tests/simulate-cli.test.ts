import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionEvent } from '../server/engine/events';
import { aggregateMetrics, runMetrics } from '../server/metrics/metrics';
import { loadScene } from '../server/scene/load';

const repo = fileURLToPath(new URL('..', import.meta.url));
const scene = existsSync(join(repo, 'scenes/team-standup.yaml'))
  ? 'scenes/team-standup.yaml'
  : `scenes/${readdirSync(join(repo, 'scenes')).filter((f) => f.endsWith('.yaml')).sort()[0]}`;

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI as a user would, with stdout and stderr piped (so not a TTY). */
const simulate = (args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Exit> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/simulate.ts', ...args], { cwd: repo, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });

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

describe('npm run simulate', () => {
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
  }, 120_000);

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

  it('exits 1 naming a scene file that does not exist', async () => {
    const exit = await simulate(['scenes/no-such-scene.yaml', '--out', join(tmp, 'missing')]);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain('scenes/no-such-scene.yaml');
  });

  it('exits 1 with the loader’s problems for an invalid scene', async () => {
    const file = join(tmp, 'broken.yaml');
    await writeFile(file, 'title: Broken\ntopic: nothing\nformation: pyramid\n');
    const exit = await simulate([file, '--out', join(tmp, 'broken')]);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(/broken\.yaml:\d+:\d+ /);
  });

  it('exits 1 on an unknown flag or a bad number', async () => {
    const [flag, runs] = await Promise.all([simulate([scene, '--fast']), simulate([scene, '--runs', 'three'])]);
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain('--fast');
    expect(runs.code).toBe(1);
    expect(runs.stderr).toContain('--runs expects a positive integer, got "three"');
  });

  it('exits 1 telling which key to set for a vendor generator without one', async () => {
    const { GEMINI_API_KEY: _, ...env } = process.env;
    const exit = await simulate([scene, '--generator', 'gemini', '--out', join(tmp, 'gemini')], env);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain('set GEMINI_API_KEY=');
  });

  it('prints usage for --help', async () => {
    const exit = await simulate(['--help']);
    expect(exit.code).toBe(0);
    expect(exit.stdout).toContain('--runs <N>');
    expect(exit.stdout).toContain('--all');
  });

  it('exits 1 when given both --all and a scene file', async () => {
    const exit = await simulate(['--all', scene]);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain('not both');
  });
});

describe('npm run simulate -- --all', () => {
  const scenes = readdirSync(join(repo, 'scenes'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.replace(/\.yaml$/, ''))
    .sort();
  let tmp: string;
  let exit: Exit;

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'simulate-all-'));
    exit = await simulate(['--all', '--runs', '1', '--seed', '3', '--out', tmp]);
  }, 120_000);

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
    expect(header).toEqual(['scene', 'runs', 'turns', 'answered-next', 'repeat', 'near-dup', 'top-opening', 'leaks', 'role-adherence', 'breakdowns']);
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
  });
});
