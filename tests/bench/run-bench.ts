/**
 * Runs `npm run bench`'s runner as a user would (`node --import tsx bench/run.ts <filter>`), for the
 * tests that check its output: every line a {name, value, unit} figure, and the process exits.
 *
 * ```ts
 * const { code, lines } = await runBench('designation');
 * ```
 */
import { spawn } from 'node:child_process';

const repo = new URL('../../', import.meta.url).pathname;

export interface BenchRun {
  code: number | null;
  lines: string[];
  stderr: string;
}

export const runBench = (filter: string, env: Record<string, string> = {}): Promise<BenchRun> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', filter], {
      cwd: repo,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, lines: stdout.split('\n').filter(Boolean), stderr }));
  });
