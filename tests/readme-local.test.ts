/**
 * The README's "Fully local" command, run as written except that its two addresses point at local
 * fakes of an OpenAI-compatible LLM server and a Whisper-compatible transcription server: the
 * server starts with both, says so, and a typed question is answered by the local model.
 */
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from './fakes/openai-server';
import { startFakeWhisper, type FakeWhisper } from './fakes/whisper-server';
import { api, Client, closeClients, startChild, tempDir, type ChildServer } from './server/helpers';

const readme = readFileSync('README.md', 'utf8');
const section = readme.split('## Fully local')[1]!.split('\n## ')[0]!;
const command = section.split('\n').find((line) => line.includes('GENERATOR=openai') && line.trim().endsWith('npm start'))!;
/** The variables the command sets, as a shell would read them. */
const env = Object.fromEntries([...command.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));

let llm: FakeOpenAI;
let whisper: FakeWhisper;
let server: ChildServer;

beforeAll(async () => {
  llm = await startFakeOpenAI();
  whisper = await startFakeWhisper();
  server = await startChild(tempDir(), { env: { ...env, OPENAI_BASE_URL: llm.baseUrl, WHISPER_BASE_URL: whisper.baseUrl } });
}, 120_000);

afterAll(async () => {
  await closeClients();
  await server?.close();
  if (server) rmSync(server.dataDir, { recursive: true, force: true });
  await llm?.close();
  await whisper?.close();
});

describe("the README's fully local setup", () => {
  it('names the local servers the way the server reads them', () => {
    expect(env).toMatchObject({ GENERATOR: 'openai', TRANSCRIBER: 'openai', OPENAI_BASE_URL: 'http://localhost:11434/v1', WHISPER_BASE_URL: 'http://localhost:8000/v1' });
    expect(env.OPENAI_MODEL).toBeTruthy();
  });

  it('starts with the local LLM and transcriber, and the local model answers a typed question', async () => {
    const health = (await (await api(server, '/api/health')).json()) as { providers: Record<string, string> };
    expect(health.providers).toMatchObject({ generator: 'openai', transcription: 'openai', synthesis: 'espeak' });

    // Every call of the local model answers this (memory notes and the persona's line alike).
    llm.setDefault({ chunks: ['I', ' would look at', ' same-day cancellations first.'] });
    const res = await api(server, '/api/sessions', { method: 'POST', body: { scene: 'job-interview', pace: 'instant' } });
    const created = (await res.json()) as { id: string; tokens: Record<string, string> };
    const alex = await Client.connect(server, created.id, created.tokens.alex!);
    await alex.waitFor((m) => m.some((x) => x.type === 'welcome'), 'the welcome');
    const welcome = alex.messages.find((m) => m.type === 'welcome');
    expect(welcome?.type === 'welcome' && welcome.voice.input).toBe(true);
    await alex.waitForEvent((e) => e.type === 'human-input-required' && e.participant === 'alex', 'the panel asking Alex', 0, 60_000);
    alex.send({ type: 'say', text: 'Hannah, which number would you look at first?' });
    const answer = await alex.waitForEvent((e) => e.type === 'utterance' && e.speaker === 'hannah' && e.source === 'ai', "Hannah's answer", 0, 60_000);
    expect(answer.type === 'utterance' && answer.text).toContain('same-day cancellations');
    expect(llm.requests.map((r) => (r.body as { model?: string }).model)).toContain(env.OPENAI_MODEL);
  }, 120_000);
});
