/**
 * Issue 16, items 2 and 10: how the real server (server/main.ts, bundled as the tests start it, and
 * under tsx as `npm start` does for a bad configuration and a stop) starts, or refuses to. A DATA_DIR belongs to one server at a time: a second one exits with one line naming
 * the directory, having touched nothing, while the first serves on; a killed server's lock does
 * not block the next start. Every configuration problem (a bad DATA_DIR, a port in use, a bad
 * value) is one clear line on stderr and exit code 1, never a stack trace. Once serving, an error
 * nobody caught is one line in the log and the server goes on.
 */
import { spawn } from 'node:child_process';
import { chmodSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ADMIN, Client, api, closeClients, createSession, logOf, startChild, tempDir, until, type ChildServer } from './helpers';
import { nodeArgs } from './bundle';

const repoRoot = new URL('../../', import.meta.url).pathname;
const children: ChildServer[] = [];
const dirs: string[] = [];
const dir = () => {
  const made = tempDir();
  dirs.push(made);
  return made;
};
/** Text-only rooms keep the servers quick. */
const textOnly = { SYNTHESIZER: 'none' };

afterEach(async () => {
  await closeClients();
});
afterAll(async () => {
  for (const child of children) await child.kill9();
  for (const made of dirs) rmSync(made, { recursive: true, force: true });
});

const started = async (dataDir: string) => {
  const child = await startChild(dataDir, { env: textOnly });
  children.push(child);
  return child;
};

interface Refusal {
  code: number | null;
  stderr: string[];
  stdout: string;
}

/**
 * Starts the server with `env` over the test defaults and waits for it to exit (it must not start).
 * The server is the run's bundle (bundle.ts), a start that costs a third of tsx's; `tsx`: the
 * source under tsx, as `npm start` runs it.
 */
const refused = (env: Record<string, string>, options: { uid?: number; tsx?: boolean } = {}): Promise<Refusal> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, options.tsx ? ['--import', 'tsx', 'server/main.ts'] : nodeArgs('server/main.ts'), {
      cwd: repoRoot,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info', GENERATOR: 'scripted', ...textOnly, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.uid !== undefined ? { uid: options.uid, gid: options.uid } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('LISTENING')) {
        child.kill('SIGKILL');
        reject(new Error(`the server started with ${JSON.stringify(env)}`));
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr: stderr.split('\n').filter((line) => line.trim()) }));
  });

/** One line, no stack trace, exit code 1. */
const expectOneLine = (refusal: Refusal, pattern: RegExp) => {
  expect(refusal.code).toBe(1);
  expect(refusal.stderr).toHaveLength(1);
  expect(refusal.stderr[0]).toMatch(pattern);
  expect(refusal.stderr[0]).not.toMatch(/^\s+at |\n/);
};

describe('one server per DATA_DIR', () => {
  it('a second server on the same DATA_DIR refuses with one line naming it, and the first serves on untouched', { timeout: 120_000 }, async () => {
    const dataDir = dir();
    const first = await started(dataDir);
    const live = await createSession(first, 'team-standup', 'realtime');
    const observer = await Client.connect(first, live.id, live.tokens.observer!);
    await observer.waitForEvent((e) => e.type === 'utterance', 'a first utterance');
    // Paused, the first server writes nothing while the second tries its luck: any change is the second's.
    observer.send({ type: 'pause' });
    const paused = await observer.waitForEvent((e) => e.type === 'system' && e.code === 'paused', 'the session to pause');
    const files = Object.fromEntries(readdirSync(dataDir).map((name) => [name, statSync(join(dataDir, name)).mtimeMs]));

    const second = await refused({ DATA_DIR: dataDir });
    expectOneLine(second, new RegExp(`^DATA_DIR ${dataDir} is in use by another server \\(pid ${first.child.pid} `));
    expect(second.stdout).not.toContain('interrupted');

    // No crash recovery, no writes: the first server's session is live, its files as they were.
    expect(Object.fromEntries(readdirSync(dataDir).map((name) => [name, statSync(join(dataDir, name)).mtimeMs]))).toEqual(files);
    expect(observer.closed).toBeNull();
    const snapshot = (await (await api(first, `/api/sessions/${live.id}`)).json()) as { status: string };
    expect(snapshot.status).not.toBe('ended');
    const log = await logOf(first, live.id);
    expect(log.some((e) => e.type === 'system' && e.code === 'server-restarted')).toBe(false);
    observer.send({ type: 'resume' });
    await observer.waitForEvent((e) => e.type === 'system' && e.code === 'resumed' && e.seq > paused.seq, 'the first server to go on serving the session');
  });

  it("a killed server's lock does not block the next start on its DATA_DIR", { timeout: 120_000 }, async () => {
    const dataDir = dir();
    const first = await started(dataDir);
    const live = await createSession(first, 'team-standup', 'realtime');
    await first.kill9();
    const next = await started(dataDir);
    expect(next.stdout.join('\n')).toContain(`recovered 1 interrupted session(s), each resumed or ended as said above: ${live.id}`);
    expect((await api(next, '/api/health', { token: null })).status).toBe(200);
  });
});

// Each refusal is a server process of its own that exits at once: they start side by side, so each
// may wait for the others' start on a loaded machine (two copies of the suite on two cores).
describe.concurrent('start-up problems: one clear line each, exit code 1', () => {
  it('a DATA_DIR that is a file', { timeout: 180_000 }, async () => {
    const file = join(dir(), 'data');
    writeFileSync(file, 'not a directory');
    expectOneLine(await refused({ DATA_DIR: file }), new RegExp(`^DATA_DIR ${file} is not a directory`));
  });

  it('a DATA_DIR under a file', { timeout: 180_000 }, async () => {
    const file = join(dir(), 'data');
    writeFileSync(file, 'not a directory');
    expectOneLine(await refused({ DATA_DIR: join(file, 'store') }), /^DATA_DIR .*data\/store is not a directory/);
  });

  it('a DATA_DIR this user cannot write', { timeout: 180_000 }, async () => {
    const parent = dir();
    const dataDir = join(parent, 'data');
    // Root writes anywhere: then the server runs as nobody, in a directory only root may write.
    const root = process.getuid?.() === 0;
    chmodSync(parent, 0o755);
    if (!root) chmodSync(parent, 0o555);
    const refusal = await refused({ DATA_DIR: dataDir }, root ? { uid: 65534 } : {});
    chmodSync(parent, 0o755);
    expectOneLine(refusal, new RegExp(`^DATA_DIR ${dataDir} is not writable by this user`));
  });

  it('a port in use', { timeout: 180_000 }, async () => {
    const taken: Server = createServer();
    const port = await new Promise<number>((resolve) => taken.listen(0, '127.0.0.1', () => resolve((taken.address() as { port: number }).port)));
    try {
      const dataDir = dir();
      const refusal = await refused({ DATA_DIR: dataDir, PORT: String(port) });
      expectOneLine(refusal, new RegExp(`^PORT ${port} is already in use on 127.0.0.1`));
      // Nothing was recovered or written: the store was never opened.
      expect(readdirSync(dataDir)).not.toContain('rehearsal.db');
    } finally {
      taken.close();
    }
  });

  it('a host that is no address of this machine', { timeout: 180_000 }, async () => {
    expectOneLine(await refused({ DATA_DIR: dir(), HOST: '203.0.113.7' }), /^HOST 203\.0\.113\.7 is not an address of this machine/);
  });

  it('bad values: one line for each variable', { timeout: 180_000 }, async () => {
    // Through tsx, as `npm start` starts it: the configuration is read the same on that path.
    const refusal = await refused({ DATA_DIR: dir(), PORT: 'eighty', TOKEN_TTL_HOURS: '-1', LOG_LEVEL: 'loud' }, { tsx: true });
    expect(refusal.code).toBe(1);
    expect(refusal.stderr).toEqual([
      'invalid configuration: PORT: must be a whole number (got "eighty")',
      'invalid configuration: TOKEN_TTL_HOURS: must be greater than 0 (got "-1")',
      'invalid configuration: LOG_LEVEL: must be one of info, warn, error, silent (got "loud")',
    ]);
  });

  it('a token secret file that is too short', { timeout: 180_000 }, async () => {
    const dataDir = dir();
    writeFileSync(join(dataDir, 'token-secret'), 'short\n', { mode: 0o600 });
    expectOneLine(await refused({ DATA_DIR: dataDir }), /token-secret holds a 5-character secret; it must be at least 32/);
  });
});

describe('once serving', () => {
  it('an error nobody caught is one line in the log, and the server goes on', { timeout: 120_000 }, async () => {
    const child = await startChild(dir(), { env: { ...textOnly, NODE_OPTIONS: '--import=./tests/fixtures/fail-after-start.mjs' } });
    children.push(child);
    await until(() => child.stderr.length >= 2, 'the two errors to be logged');
    expect(child.stderr.toSorted()).toEqual([
      expect.stringMatching(/^uncaught error \(the server goes on\): Error: thrown from a timer \(test\) \(at .*fail-after-start\.mjs:\d+:\d+\)+$/),
      expect.stringMatching(/^unhandled rejection \(the server goes on\): Error: rejected and never awaited \(test\) \(at .*fail-after-start\.mjs:\d+:\d+\)+$/),
    ]);
    const session = await createSession(child, 'team-standup', 'instant');
    const observer = await Client.connect(child, session.id, session.tokens.observer!);
    await observer.waitForEvent((e) => e.type === 'end', 'a session to run to its end');
    expect(child.child.exitCode).toBeNull();
  });

  it('stops on SIGTERM when nobody reads its log any more (the pipe closed: it spun at full CPU instead)', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      cwd: repoRoot,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir(), ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info', GENERATOR: 'scripted', ...textOnly },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stdout = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()).includes('LISTENING') && resolve());
        child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
      });
      // Whoever read its log goes away; then the server is asked to stop, which it logs.
      child.stdout.destroy();
      child.stderr.destroy();
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 15_000))]);
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
