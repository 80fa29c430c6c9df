/** `npm run models` as a user runs it, against a fake hub: plain progress lines when not on a terminal. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli';
import { startModelHub, type ModelHub } from '../fakes/model-hub';
import { modelBytes } from './files';

let hub: ModelHub;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  hub = await startModelHub();
  dir = mkdtempSync(join(tmpdir(), 'models-cli-'));
  hub.serve('acme/tiny-chat/resolve/main/tiny-chat.gguf', modelBytes('gguf', 6 << 20));
  hub.serve('acme/tiny-ears/resolve/main/ggml-tiny-ears.bin', modelBytes('whisper-ggml', 2 << 20));
  env = { ...process.env, MODELS_DIR: dir, MODEL_HUB_URL: hub.url, LOCAL_LLM_MODEL: 'acme/tiny-chat/tiny-chat.gguf', LOCAL_ASR_MODEL: 'acme/tiny-ears/ggml-tiny-ears.bin' };
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

  it('says how it is used when asked for something it does not do', async () => {
    const run = await runCli('server/cli/models.ts', ['fetch', 'everything'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('fetch expects asr, llm or all, got "everything"');
  }, 30_000);
});
