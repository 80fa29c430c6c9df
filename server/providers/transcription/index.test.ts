import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeElevenLabs, type FakeElevenLabs } from '../../../tests/fakes/elevenlabs-server';
import { startFakeGemini, type FakeGemini } from '../../../tests/fakes/gemini-server';
import { startFakeWhisper, type FakeWhisper } from '../../../tests/fakes/whisper-server';
import { createTranscriber, transcriberNames, transcriberVariables, type TranscriberName } from './index';
import type { TranscriptionRequest } from './port';

const utterance: TranscriptionRequest = { pcm: new Int16Array(1600), sampleRate: 16_000 };
const noWait = { breaker: null, sleep: async () => undefined, log: () => undefined };

let gemini: FakeGemini;
let elevenlabs: FakeElevenLabs;
let whisper: FakeWhisper;
beforeAll(async () => {
  [gemini, elevenlabs, whisper] = await Promise.all([startFakeGemini(), startFakeElevenLabs(), startFakeWhisper()]);
});
afterAll(() => Promise.all([gemini.close(), elevenlabs.close(), whisper.close()]));
afterEach(() => {
  vi.useRealTimers();
});

describe('createTranscriber(name, env)', () => {
  it('has no transcriber for none: humans type', () => {
    expect(createTranscriber('none', {})).toBeNull();
  });

  it('reads GEMINI_API_KEY and GEMINI_BASE_URL, and retries the vendor', async () => {
    gemini.script({ status: 503 }, { chunks: ['Hello Nora.'] });
    const transcriber = createTranscriber('gemini', { GEMINI_API_KEY: 'env-key', GEMINI_BASE_URL: gemini.baseUrl }, noWait)!;
    expect(transcriber.name).toBe('gemini');
    expect(await transcriber.transcribe(utterance)).toEqual({ text: 'Hello Nora.' });
    expect(gemini.requests.map((r) => r.headers['x-goog-api-key'])).toEqual(['env-key', 'env-key']);
  });

  it('reads ELEVENLABS_API_KEY and ELEVENLABS_BASE_URL', async () => {
    elevenlabs.script({ status: 500 }, { chunks: ['Hello Omar.'] });
    const transcriber = createTranscriber('elevenlabs', { ELEVENLABS_API_KEY: 'xi-key', ELEVENLABS_BASE_URL: elevenlabs.baseUrl }, noWait)!;
    expect(await transcriber.transcribe(utterance)).toEqual({ text: 'Hello Omar.', language: 'en' });
    expect(elevenlabs.requests.at(-1)!.headers['xi-api-key']).toBe('xi-key');
  });

  it('reads WHISPER_BASE_URL, WHISPER_MODEL and WHISPER_API_KEY', async () => {
    const env = { WHISPER_BASE_URL: whisper.baseUrl, WHISPER_MODEL: 'large-v3', WHISPER_API_KEY: 'sk-whisper' };
    const transcriber = createTranscriber('openai', env, noWait)!;
    expect(transcriber.name).toBe('openai');
    await transcriber.transcribe(utterance);
    expect(whisper.requests.at(-1)!.headers.authorization).toBe('Bearer sk-whisper');
    expect(whisper.requests.at(-1)!.body.fields.model).toBe('large-v3');
  });

  it('needs no key for a local Whisper server', async () => {
    await createTranscriber('openai', { WHISPER_BASE_URL: whisper.baseUrl }, noWait)!.transcribe(utterance);
    expect(whisper.requests.at(-1)!.headers.authorization).toBe('Bearer none');
    expect(whisper.requests.at(-1)!.body.fields.model).toBe('whisper-1');
  });

  it('applies TRANSCRIBER_TIMEOUT_MS to each attempt', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    whisper.failNext(2, { delayMs: 2000 });
    const asked = whisper.requests.length;
    const transcriber = createTranscriber('openai', { WHISPER_BASE_URL: whisper.baseUrl, TRANSCRIBER_TIMEOUT_MS: '100' }, { ...noWait, retries: 1 })!;
    const transcribed = transcriber.transcribe(utterance);
    transcribed.catch(() => undefined);
    // Each attempt's time runs out, on fake time, once the server holds its request.
    for (let attempt = 1; attempt <= 2; attempt++) {
      while (whisper.requests.length < asked + attempt) await new Promise((resolve) => setImmediate(resolve));
      await vi.advanceTimersByTimeAsync(100);
    }
    await expect(transcribed).rejects.toMatchObject({
      message: 'openai could not transcribe the utterance in time',
      details: { timeout: true },
    });
  });

  it.each([
    ['gemini', {}, /^GEMINI_API_KEY is not set: the gemini transcriber needs it \(.*\)\. Set TRANSCRIBER=none to type instead\.$/],
    ['elevenlabs', {}, /^ELEVENLABS_API_KEY is not set/],
    ['openai', {}, /^WHISPER_BASE_URL is not set: the openai transcriber needs it \(the address of an OpenAI-compatible Whisper server/],
    ['local', {}, /^LOCAL_ASR_MODEL is not set: the local transcriber needs it \(the path of a whisper.cpp ggml model/],
    ['local', { LOCAL_ASR_MODEL: '/nowhere/ggml-base.en.bin' }, /^LOCAL_ASR_MODEL: no model file at \/nowhere\/ggml-base.en.bin\. Set TRANSCRIBER=none to type instead\.$/],
    ['openai', { WHISPER_BASE_URL: 'localhost:8000' }, /^WHISPER_BASE_URL must be an http\(s\) URL such as http:\/\/localhost:8000\/v1, got "localhost:8000"$/],
    ['elevenlabs', { ELEVENLABS_API_KEY: 'k', ELEVENLABS_BASE_URL: 'api.elevenlabs.io' }, /^ELEVENLABS_BASE_URL must be an http\(s\) URL/],
    ['gemini', { GEMINI_API_KEY: 'k', TRANSCRIBER_TIMEOUT_MS: 'soon' }, /^TRANSCRIBER_TIMEOUT_MS must be a positive number of milliseconds, got "soon"$/],
    ['whisper', {}, /^TRANSCRIBER must be one of none, gemini, elevenlabs, openai, local, got "whisper"$/],
  ] as const)('for %s with %o, names the variable: %s', (name, env, message) => {
    expect(() => createTranscriber(name as TranscriberName, env)).toThrow(message);
  });

  it('lists its names and variables for the server configuration', () => {
    expect(transcriberNames).toEqual(['none', 'gemini', 'elevenlabs', 'openai', 'local']);
    expect(transcriberVariables).toContain('TRANSCRIBER');
    expect(transcriberVariables).toContain('WHISPER_API_KEY');
    expect(transcriberVariables).toContain('LOCAL_ASR_MODEL');
  });
});
