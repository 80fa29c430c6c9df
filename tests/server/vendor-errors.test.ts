/**
 * A vendor whose error text echoes the API key it was sent, seen from the running server
 * (`server/main.ts` with an OpenAI-compatible generator and ElevenLabs voices, both local fakes
 * that fail with the key in their error bodies): the key reaches no client, no stored event and
 * no transcript; the rooms hear a short notice naming what stood in; the server's log has one
 * line per failure, with the key blanked.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeElevenLabs, type FakeElevenLabs } from '../fakes/elevenlabs-server';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server';
import { api, Client, createSession, logOf, startChild, tempDir, until, type ChildServer } from './helpers';

const OPENAI_KEY = 'sk-proj-Zq81LeakedKeyDoNotShow0001';
const ELEVENLABS_KEY = 'xi-Leaked-ElevenLabs-Key-0002';

let openai: FakeOpenAI;
let elevenlabs: FakeElevenLabs;
let server: ChildServer;

beforeAll(async () => {
  openai = await startFakeOpenAI();
  elevenlabs = await startFakeElevenLabs();
  // The vendors' own words, as some really answer: the key they were sent, quoted back.
  openai.setDefault({ status: 401, message: `Incorrect API key provided: ${OPENAI_KEY}. You can find your API key at https://platform.openai.com/account/api-keys.` });
  elevenlabs.setDefault({ status: 500, message: `upstream failed for request with xi-api-key: ${ELEVENLABS_KEY}` });
  server = await startChild(tempDir(), {
    env: {
      GENERATOR: 'openai',
      OPENAI_BASE_URL: openai.baseUrl,
      OPENAI_MODEL: 'llama3.2',
      OPENAI_API_KEY: OPENAI_KEY,
      SYNTHESIZER: 'elevenlabs',
      ELEVENLABS_API_KEY: ELEVENLABS_KEY,
      ELEVENLABS_BASE_URL: elevenlabs.baseUrl,
    },
  });
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (server) rmSync(server.dataDir, { recursive: true, force: true });
  await openai?.close();
  await elevenlabs?.close();
});

describe('a vendor that fails with the key in its error text', () => {
  it('keeps the key from clients, the stored log and the transcript, and logs the failure on the server with the key blanked', { timeout: 120_000 }, async () => {
    const { id, tokens } = await createSession(server, 'team-standup', 'instant');
    const observer = await Client.connect(server, id, tokens.observer!);
    const noticed = (code: string) => observer.events().some((e) => e.type === 'system' && e.code === code);
    await observer.waitFor(() => noticed('generator-fallback') && noticed('synthesis-fallback'), 'both vendors to fail', 60_000);
    await observer.waitFor(() => observer.events().filter((e) => e.type === 'utterance').length >= 2, 'two utterances', 60_000);
    expect((await api(server, `/api/sessions/${id}`, { method: 'DELETE' })).status).toBe(200);
    await observer.waitForEvent((e) => e.type === 'end', 'the end');

    const broadcast = observer.messages.map((m) => JSON.stringify(m)).join('\n');
    const stored = (await logOf(server, id)).map((e) => JSON.stringify(e)).join('\n');
    const transcript = await (await api(server, `/api/sessions/${id}/transcript`)).text();
    for (const [where, text] of [['broadcast', broadcast], ['stored log', stored], ['transcript', transcript]] as const) {
      for (const key of [OPENAI_KEY, ELEVENLABS_KEY]) expect(text.includes(key), `${where} holds a key`).toBe(false);
      // Not even the vendor's words: they are the server log's, not the room's.
      expect(text, where).not.toMatch(/Incorrect API key|upstream failed/);
    }
    const notices = observer.events().flatMap((e) => (e.type === 'system' && /^(generator|synthesis)-/.test(e.code) ? [e.message] : []));
    // A refused key (401) opens the generator's circuit at once, and the room is told which variable to check.
    expect(notices).toContain('openai refused the key (HTTP 401): check OPENAI_API_KEY; the scripted generator wrote this turn.');
    expect(notices).toContain('The elevenlabs voice failed; espeak spoke instead.');

    await until(() => server.stdout.some((line) => line.startsWith('vendor elevenlabs (synthesis)')), 'the voice failure in the server log');
    const log = [...server.stdout, ...server.stderr].join('\n');
    for (const key of [OPENAI_KEY, ELEVENLABS_KEY]) expect(log.includes(key), 'the server log holds a key').toBe(false);
    expect(server.stdout).toContain(
      'vendor openai (generator) failed: HTTP 401: Incorrect API key provided: [redacted]. You can find your API key at https://platform.openai.com/account/api-keys.; check OPENAI_API_KEY; the scripted generator wrote this turn',
    );
    expect(server.stdout).toContain('vendor openai (generator) refused the key (HTTP 401): circuit open at once, not called for 30 s; check OPENAI_API_KEY');
    expect(server.stdout).toContain('vendor elevenlabs (synthesis) failed: HTTP 500: upstream failed for request with xi-api-key: [redacted] (internal_server_error) (2 attempts); espeak spoke instead');
  });
});
