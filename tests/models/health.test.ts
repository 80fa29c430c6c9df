/** GET /api/health over a real socket shows the local models' state: file names, never where they are. */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { health, type HealthOptions } from '../../server/api/health';
import type { Rooms } from '../../server/rooms/rooms';
import type { ModelKind, ModelStatus, RuntimeBuild } from '../../shared/models';

const served = async (models: () => Partial<Record<ModelKind, ModelStatus>>, localGenerator?: HealthOptions['localGenerator'], whisperBuild?: HealthOptions['whisperBuild']) => {
  const app = health({ version: 't', config: { generator: 'scripted', synthesizer: 'none', transcriber: whisperBuild ? 'local' : 'none' }, rooms: { list: () => [] } as unknown as Rooms, liveKitProbe: null, models, localGenerator, ...(whisperBuild ? { whisperBuild } : {}) });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { get: async () => (await fetch(`${base}/`)).json() as Promise<Record<string, unknown>>, close: () => new Promise((resolve) => server.close(resolve)) };
};

describe('/api/health', () => {
  it('shows a model downloading, with its bytes and percent', async () => {
    const status: ModelStatus = { state: 'downloading', file: 'qwen2.5-1.5b-instruct-q4_k_m.gguf', bytes: 458_000_000, totalBytes: 1_117_320_736, percent: 40 };
    const api = await served(() => ({ llm: status }));
    expect((await api.get()).models).toEqual({ llm: status });
    await api.close();
  });

  it("shows the language model at work beside its file: loaded or not, turns waiting, late turns, no path", async () => {
    const file: ModelStatus = { state: 'ready', file: 'qwen2.5-1.5b-instruct-q4_k_m.gguf', bytes: 1_117_320_736 };
    const generator = { status: { state: 'failed' as const, reason: 'the model file /secret/place/qwen.gguf could not be loaded' }, waiting: 2, lateTurns: 3 };
    const api = await served(() => ({ llm: file }), generator);
    const { models } = await api.get();
    expect(models).toEqual({ llm: { ...file, runtime: { state: 'failed', waiting: 2, lateTurns: 3 } } });
    expect(JSON.stringify(models)).not.toContain('/secret/place');
    await api.close();
  });

  it("shows whisper.cpp's build for this CPU beside the recogniser's file: its step, time so far and what transcribes meanwhile", async () => {
    const file: ModelStatus = { state: 'ready', file: 'ggml-base.en-q5_1.bin', bytes: 59_721_011 };
    let build: RuntimeBuild | null = null;
    const api = await served(() => ({ asr: file }), undefined, () => build);
    expect((await api.get()).models).toEqual({ asr: file });
    build = { state: 'building', step: 'compiled 3 of 8', elapsedMs: 41_000, using: 'typing' };
    expect((await api.get()).models).toEqual({ asr: { ...file, build } });
    build = { state: 'failed', reason: 'c++ could not compile whisper.cpp', elapsedMs: 2000, using: 'prebuilt' };
    expect((await api.get()).models).toEqual({ asr: { ...file, build } });
    await api.close();
  });

  it('says nothing of models when none is used', async () => {
    const api = await served(() => ({}));
    expect(await api.get()).not.toHaveProperty('models');
    await api.close();
  });
});
