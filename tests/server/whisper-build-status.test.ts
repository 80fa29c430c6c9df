/**
 * `TRANSCRIBER=local` on a machine whose whisper.cpp is not built yet, in the real server process:
 * the build starts with the server (not at the first utterance), /api/health shows it under way
 * (its step, the time so far, participants typing meanwhile), then why it failed and that the
 * prebuilt binary is used, with no folder of the server's in it; the log has one line when it
 * starts and one when it ends. The compiler is held by the test (held-compiler.ts), so the build
 * ends when the test says, and costs seconds rather than a CPU-minute.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelsHealth } from '../../shared/models';
import { tinyWhisper, writeWhisperModel } from '../fixtures/models/ggml-whisper';
import { heldCompiler, type HeldCompiler } from '../models/held-compiler';
import { until } from '../until';
import { api, startChild, tempDir, type ChildServer } from './helpers';

let models: string;
let compiler: HeldCompiler;
let server: ChildServer;

beforeAll(async () => {
  models = tempDir();
  compiler = heldCompiler(models);
  const model = await writeWhisperModel(join(models, 'ggml-tiny-test.bin'), tinyWhisper);
  server = await startChild(tempDir(), { env: { TRANSCRIBER: 'local', LOCAL_ASR_MODEL: model, LOCAL_ASR_RUNTIME: join(models, 'runtime'), CXX: compiler.path, SYNTHESIZER: 'none' } });
}, 120_000);

afterAll(async () => {
  compiler?.release();
  await server?.close();
  if (server) rmSync(server.dataDir, { recursive: true, force: true });
  rmSync(models, { recursive: true, force: true });
});

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const health = async () => ((await (await api(server, '/api/health')).json()) as { models?: ModelsHealth }).models;
const buildLines = () => server.stdout.filter((line) => /whisper/.test(line));

describe('whisper.cpp built for this CPU, as the server shows it', () => {
  it('is building from the start, with its step, its time so far and typing meanwhile; then failed, with the reason, on the prebuilt one', async () => {
    await until(async () => {
      const build = (await health())?.asr?.build;
      return build?.state === 'building' && build.step === 'compiled 0 of 8';
    }, 'the build to reach the compiler', 60_000);
    const building = (await health())!.asr!;
    expect(building).toMatchObject({ state: 'ready', file: 'ggml-tiny-test.bin', build: { state: 'building', step: 'compiled 0 of 8', using: 'typing' } });
    const { elapsedMs } = building.build!;
    await until(async () => ((await health())?.asr?.build?.elapsedMs ?? 0) > elapsedMs, 'the time so far to grow');
    expect(buildLines()).toEqual([expect.stringMatching(/^whisper build: compiling whisper\.cpp for this CPU against node-llama-cpp's ggml v[\d.]+ \(about a CPU-minute, once per machine\)$/)]);

    compiler.release();
    await until(async () => (await health())?.asr?.build?.state === 'failed', 'the build to fail', 30_000);
    const failed = (await health())!.asr!.build!;
    // Two sources compile at a time: either may be the one whose failure ends the build.
    expect(failed).toMatchObject({ state: 'failed', using: 'prebuilt', reason: expect.stringMatching(new RegExp(`^held-c\\+\\+ could not compile [\\w-]+\\.(cpp|cc): ${escaped(compiler.says)}$`)) });
    expect(failed.state === 'failed' && failed.elapsedMs).toBeGreaterThan(elapsedMs);
    // Anyone may read /api/health: no folder of the server's.
    expect(JSON.stringify(await health())).not.toMatch(/\/(tmp|work|home|node_modules)\b|rehearsal-server-test/);
    await until(() => buildLines().length === 2, 'the line that ends the build');
    expect(buildLines()[1]).toMatch(new RegExp(`^local transcriber: using the prebuilt whisper\\.cpp, several times slower on this CPU: ${escaped(compiler.path)} could not compile /\\S+\\.(cpp|cc): ${escaped(compiler.says)}$`));
  }, 120_000);
});
