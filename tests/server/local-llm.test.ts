/**
 * `GENERATOR=local` in the real server process: with a GGUF model file (a tiny one the test writes,
 * the real architecture with random weights) and no key, health shows the model at work beside its
 * file (`models.llm.runtime`: loading or ready, its queue and late turns), and a session runs on it,
 * each persona line the model's or, where its words do not pass the screen, the scripted one's.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyModel } from '../fixtures/models/gguf';
import { until } from '../until';
import { api, startChild, tempDir, type ChildServer } from './helpers';

let server: ChildServer;

beforeAll(async () => {
  server = await startChild(tempDir(), { env: { GENERATOR: 'local', LOCAL_LLM_MODEL: await tinyModel(), SYNTHESIZER: 'none' } });
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (server) rmSync(server.dataDir, { recursive: true, force: true });
});

interface Health {
  providers: Record<string, string>;
  models?: { llm?: { state: string; runtime?: { state: string; waiting: number; lateTurns: number } } };
}

describe('GENERATOR=local', () => {
  it('shows the model at work in health, and runs a session on it', async () => {
    const health = async () => (await (await api(server, '/api/health')).json()) as Health;
    expect((await health()).providers).toMatchObject({ generator: 'local' });
    await until(async () => (await health()).models?.llm?.runtime?.state === 'ready', 'the local model to be loaded', 90_000);
    expect((await health()).models?.llm?.runtime).toMatchObject({ state: 'ready', waiting: 0 });

    const res = await api(server, '/api/sessions', { method: 'POST', body: { scene: 'team-standup', pace: 'instant', standIns: true } });
    const { id } = (await res.json()) as { id: string };
    const events = async () => (await (await api(server, `/api/sessions/${id}/events`)).text()).trim().split('\n').map((line) => JSON.parse(line) as { type: string; source?: string; code?: string });
    const personaLines = async () => (await events()).filter((e) => e.type === 'utterance' && e.source !== 'human' && e.source !== 'stand-in');
    await until(async () => (await personaLines()).length >= 2, 'two persona lines', 120_000);
    // Each line the model's words (`ai`) or, where they did not pass the screen in time, the scripted generator's.
    expect((await personaLines()).every((e) => e.source === 'ai' || e.source === 'scripted')).toBe(true);
    expect((await api(server, `/api/sessions/${id}`, { method: 'DELETE' })).status).toBe(200);
  }, 240_000);
});
