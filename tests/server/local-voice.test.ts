/**
 * `TRANSCRIBER=local` in the real server process: with a whisper.cpp model file (a tiny one
 * written for the test) and no key, health names the local transcriber and the room offers the
 * microphone; with the file missing, the server refuses to start and names the variable.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyWhisper, writeWhisperModel } from '../fixtures/models/ggml-whisper';
import { whisperBuildDir } from '../fixtures/models/whisper-runtime';
import { api, Client, closeClients, startChild, tempDir, type ChildServer } from './helpers';

let models: string;
let server: ChildServer;

beforeAll(async () => {
  models = tempDir();
  const model = await writeWhisperModel(join(models, 'ggml-tiny-test.bin'), tinyWhisper);
  server = await startChild(tempDir(), { env: { TRANSCRIBER: 'local', LOCAL_ASR_MODEL: model, LOCAL_ASR_RUNTIME: whisperBuildDir } });
}, 120_000);

afterAll(async () => {
  await closeClients();
  await server?.close();
  if (server) rmSync(server.dataDir, { recursive: true, force: true });
  rmSync(models, { recursive: true, force: true });
});

describe('TRANSCRIBER=local', () => {
  it('is reported by health and makes the room offer voice input', async () => {
    const health = (await (await api(server, '/api/health')).json()) as { providers: Record<string, string> };
    expect(health.providers).toMatchObject({ transcription: 'local' });

    const res = await api(server, '/api/sessions', { method: 'POST', body: { scene: 'job-interview', pace: 'instant' } });
    const created = (await res.json()) as { id: string; tokens: Record<string, string> };
    const alex = await Client.connect(server, created.id, created.tokens.alex!);
    await alex.waitFor((m) => m.some((x) => x.type === 'welcome'), 'the welcome');
    const welcome = alex.messages.find((m) => m.type === 'welcome');
    expect(welcome?.type === 'welcome' && welcome.voice).toMatchObject({ input: true });
  }, 120_000);

  it('does not start without its model file, and says which variable to fix', async () => {
    const dataDir = tempDir();
    try {
      await expect(startChild(dataDir, { env: { TRANSCRIBER: 'local', LOCAL_ASR_MODEL: join(models, 'missing.bin') } })).rejects.toThrow(/LOCAL_ASR_MODEL: no model file at .*missing\.bin/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
