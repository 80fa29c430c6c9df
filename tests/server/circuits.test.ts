/**
 * A vendor that keeps failing, seen from the running server (`server/main.ts` with an
 * OpenAI-compatible generator against a local fake that answers 500): its turns are retried and
 * then written by the scripted generator, its circuit opens so it is no longer called, /api/health
 * says so, and the session goes on to its end.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server';
import { api, createSession, logOf, startChild, tempDir, type ChildServer } from './helpers';

let openai: FakeOpenAI;
let server: ChildServer;

beforeAll(async () => {
  openai = await startFakeOpenAI();
  openai.setDefault({ status: 500 });
  server = await startChild(tempDir(), { env: { SYNTHESIZER: 'none', GENERATOR: 'openai', OPENAI_BASE_URL: openai.baseUrl, OPENAI_MODEL: 'llama3.2' } });
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (server) rmSync(server.dataDir, { recursive: true, force: true });
  await openai?.close();
});

describe('a vendor that keeps failing', () => {
  it('opens its circuit: the scripted generator writes the turns without calling it, health reports it open, the session ends', { timeout: 120_000 }, async () => {
    const before = (await (await api(server, '/api/health', { token: null })).json()) as { circuits: Record<string, string> };
    expect(before.circuits).toEqual({ generator: 'closed' });

    const { id } = await createSession(server, 'team-standup', 'instant');
    let log = await logOf(server, id);
    while (log.at(-1)?.type !== 'end') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      log = await logOf(server, id);
    }

    const codes = log.flatMap((e) => (e.type === 'system' ? [e.code] : []));
    expect(codes).toContain('generator-fallback');
    expect(codes).toContain('generator-circuit-open');
    // The circuit opens at the fifth failed attempt in a row and no probe comes before 30 s. With a
    // model, an utterance's knowledge is normalised while the next turn is asked for, so one more
    // call may already be on its way when the circuit opens; none comes after.
    const utterances = log.filter((e) => e.type === 'utterance').length;
    expect(utterances).toBeGreaterThan(10);
    expect(openai.requests.length).toBeGreaterThanOrEqual(5);
    expect(openai.requests.length).toBeLessThanOrEqual(6);

    const after = (await (await api(server, '/api/health', { token: null })).json()) as { status: string; circuits: Record<string, string> };
    expect(after).toMatchObject({ status: 'ok', circuits: { generator: 'open' } });
  });
});
