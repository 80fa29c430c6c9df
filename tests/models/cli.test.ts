/**
 * `npm run models` as a user runs it, against a fake hub: plain progress lines when not on a
 * terminal. Fetching the speech recogniser also builds whisper.cpp for this CPU: here in the folder
 * the tests share (already built: tests/fixtures/models/whisper-runtime.ts), or with a compiler that
 * fails (held-compiler.ts), so no test spends the real build's CPU-minute.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockModel } from '../../server/models/lock';
import { whisperSources } from '../../server/providers/transcription/whisper-build';
import { repo, runCli } from '../cli';
import { startModelHub, type ModelHub } from '../fakes/model-hub';
import { whisperBuildDir } from '../fixtures/models/whisper-runtime';
import { until } from '../until';
import { nodeArgs } from '../server/bundle';
import { modelBytes } from './files';
import { heldCompiler } from './held-compiler';

let hub: ModelHub;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  hub = await startModelHub();
  dir = mkdtempSync(join(tmpdir(), 'models-cli-'));
  hub.serve('acme/tiny-chat/resolve/main/tiny-chat.gguf', modelBytes('gguf', 6 << 20));
  hub.serve('acme/tiny-ears/resolve/main/ggml-tiny-ears.bin', modelBytes('whisper-ggml', 2 << 20));
  env = { ...process.env, MODELS_DIR: dir, MODEL_HUB_URL: hub.url, LOCAL_LLM_MODEL: 'acme/tiny-chat/tiny-chat.gguf', LOCAL_ASR_MODEL: 'acme/tiny-ears/ggml-tiny-ears.bin', LOCAL_ASR_RUNTIME: whisperBuildDir };
});

afterEach(async () => {
  await hub.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run models', () => {
  it('fetches both models with a progress line at least every 10%, then lists them as verified', async () => {
    const fetched = await runCli('server/cli/models.ts', ['fetch'], env);
    expect(fetched.stderr).toBe('');
    expect(fetched.code).toBe(0);
    expect(fetched.stdout).toMatch(/models: fetching the language model tiny-chat\.gguf \(6 MB\) from 127\.0\.0\.1:\d+ into /);
    expect(fetched.stdout).toMatch(/models: language model tiny-chat\.gguf: downloading, \d+% of 6 MB\n/);
    expect(fetched.stdout).toContain('models: language model tiny-chat.gguf: downloading, 100% of 6 MB');
    expect(fetched.stdout).toContain(`speech recogniser ggml-tiny-ears.bin: ready (2 MB): ${join(dir, 'ggml-tiny-ears.bin')}`);
    expect(fetched.stdout).toMatch(new RegExp(`whisper build: already built for this CPU: ${whisperBuildDir}/whisper-[^/]+/whisper\\.node\n`));

    const listed = await runCli('server/cli/models.ts', ['list', '--verify'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/tiny-chat\.gguf +6 MB {2}verified {2}\(the language model\)/);
    expect(listed.stdout).toMatch(/ggml-tiny-ears\.bin +2 MB {2}verified {2}\(the speech recogniser\)/);
  }, 60_000);

  it('fails with the reason when the hub has no such file', async () => {
    const run = await runCli('server/cli/models.ts', ['fetch', 'asr'], { ...env, LOCAL_ASR_MODEL: 'acme/missing/ggml-none.bin' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/speech recogniser ggml-none\.bin: failed: the hub has no such file \(HTTP 404 .*\); check LOCAL_ASR_MODEL/);
  }, 30_000);

  it('builds whisper.cpp into MODELS_DIR/.runtime after the recogniser, step by step, and fails with the compiler\'s words', async () => {
    const compiler = heldCompiler(dir);
    compiler.release();
    const { LOCAL_ASR_RUNTIME: _shared, ...own } = env;
    const run = await runCli('server/cli/models.ts', ['fetch', 'asr'], { ...own, CXX: compiler.path });
    expect(run.stdout).toContain('speech recogniser ggml-tiny-ears.bin: ready (2 MB)');
    expect(run.stdout).toMatch(/^whisper build: compiling whisper\.cpp for this CPU against node-llama-cpp's ggml v[\d.]+ \(about a CPU-minute, once per machine\)$/m);
    expect(run.stdout).toContain("whisper build: reading ggml headers from node-llama-cpp's source bundle\nwhisper build: compiled 0 of 8\n");
    expect(run.stderr).toContain(`whisper build: failed: ${compiler.path} could not compile `);
    expect(run.stderr).toContain(`${compiler.says}; the server would use the prebuilt whisper.cpp, several times slower`);
    expect(run.code).toBe(1);
    // Nothing half-built is left where the server looks.
    expect(existsSync(join(dir, '.runtime', (whisperSources() as { key: string }).key, 'whisper.node'))).toBe(false);
  }, 60_000);

  it('fetches without building with --no-build', async () => {
    const runtime = join(dir, 'runtime');
    const run = await runCli('server/cli/models.ts', ['fetch', 'asr', '--no-build'], { ...env, LOCAL_ASR_RUNTIME: runtime });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('speech recogniser ggml-tiny-ears.bin: ready (2 MB)');
    expect(run.stdout).not.toContain('whisper build');
    expect(existsSync(runtime)).toBe(false);
  }, 30_000);

  it("waits for another process's build under the same lock, and builds nothing itself", async () => {
    const runtime = join(dir, 'runtime');
    const { key } = whisperSources() as { key: string };
    mkdirSync(runtime);
    // The other process: a server building whisper.cpp in this folder.
    const release = await lockModel(join(runtime, `${key}.lock`));
    // A compiler that would fail: a build here would show.
    const compiler = heldCompiler(dir);
    compiler.release();
    const child = spawn(process.execPath, [...nodeArgs('server/cli/models.ts'), 'fetch', 'asr'], { cwd: repo, env: { ...env, LOCAL_ASR_RUNTIME: runtime, CXX: compiler.path } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      await until(() => stdout.includes('whisper build: another process is building whisper.cpp for this CPU; waiting for it\n'), 'the CLI to wait for the lock', 30_000);
      mkdirSync(join(runtime, key));
      writeFileSync(join(runtime, key, 'whisper.node'), 'built by the other process');
    } finally {
      release();
    }
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(new RegExp(`whisper build: ready at ${runtime}/${key}/whisper\\.node, built by another process \\(waited \\d+ s\\)\n`));
    expect(stdout).not.toContain('compiling');
  }, 60_000);

  it('says how it is used when asked for something it does not do', async () => {
    const run = await runCli('server/cli/models.ts', ['fetch', 'everything'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('fetch expects asr, llm or all, got "everything"');
  }, 30_000);
});
