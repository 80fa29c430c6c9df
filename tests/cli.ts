/** Running the project's CLIs as a user would, for the tests that check them. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeArgs } from './server/bundle';

export const repo = fileURLToPath(new URL('..', import.meta.url));

export interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `script` (a path under the repo) with `args`, stdout and stderr piped (so not a TTY): its
 * bundle when the run made one (tests/server/bundle.ts), else through tsx.
 */
export const runCli = (script: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Exit> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs(script), ...args], { cwd: repo, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
