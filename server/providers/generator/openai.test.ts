import OpenAI from 'openai';
import { describe, expect, it, vi } from 'vitest';
import { startFakeOpenAI } from '../../../tests/fakes/openai-server';
import { createGenerator } from './index';
import { createOpenAIGenerator } from './openai';
import { complete } from './port';
import type { Cue } from '../../engine/requests';
import { quietCue } from '../../../tests/fakes/cue';
import { createScriptedGenerator } from './scripted';
import { timeOutAttempts } from '../../../tests/fakes/vendor-server';
import { generatorContract } from '../../../tests/providers/contracts';
import { openaiWire } from '../../../tests/providers/vendors';
import { deltasOf, freshFake, resilientGeneratorFor, utteranceRequest } from '../../../tests/providers/scaffold';

const cue: Cue = {
  speaker: { id: 'pia', name: 'Pia Berg', shortName: 'Pia', role: 'designer', mood: 'curious', traits: ['warm'] },
  participants: [
    { id: 'nora', name: 'Nora Lind', shortName: 'Nora', kind: 'ai' },
    { id: 'omar', name: 'Omar Haddad', shortName: 'Omar', kind: 'ai' },
    { id: 'pia', name: 'Pia Berg', shortName: 'Pia', kind: 'ai' },
  ],
  topic: 'the onboarding flow of the Aurora budgeting app',
  snippet: { id: 'review', goal: 'Decide which onboarding screens to cut', pattern: 'disagree' },
  act: 'statement',
  addressee: null,
  obligation: null,
  lastMessage: { speaker: 'omar', shortName: 'Omar', text: 'We should drop the bank-linking step from onboarding entirely.' },
  facts: ['Testers abandoned onboarding most often at the bank-linking step', 'Pia designed the progress bar'],
  goals: ['ship the beta on time'],
  ...quietCue,
  variant: 987,
};

const request = utteranceRequest(cue, {
  system: 'You are Pia Berg, designer.',
  prompt: 'Omar said: "We should drop the bank-linking step from onboarding entirely." Respectfully challenge it.',
  temperature: 0.9,
  maxTokens: 80,
});

const fake = freshFake(startFakeOpenAI);

const openai = () => createOpenAIGenerator({ apiKey: 'none', baseUrl: fake.baseUrl, model: 'llama3.2' });

const resilient = (timeoutMs = 2000) => resilientGeneratorFor(openai(), timeoutMs);

describe('OpenAI-compatible generator against the fake server', () => {
  it('posts a streaming chat completion with model, messages, sampling and the bearer key', async () => {
    await complete(openai(), request());
    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(sent!.headers.authorization).toBe('Bearer none');
    expect(sent!.body).toMatchObject({
      model: 'llama3.2',
      stream: true,
      temperature: 0.9,
      max_tokens: 80,
      messages: [
        { role: 'system', content: 'You are Pia Berg, designer.' },
        { role: 'user', content: request().prompt },
      ],
    });
    expect(sent!.body.response_format).toBeUndefined();
  });

  it('asks for a JSON object in JSON mode', async () => {
    fake.script({ chunks: ['{"thought": "Omar named my step", ', '"action": "speak", "importance": 8}'] });
    const text = await complete(openai(), request({ purpose: 'think', json: true }));
    expect(JSON.parse(text)).toEqual({ thought: 'Omar named my step', action: 'speak', importance: 8 });
    expect(fake.requests[0]!.body.response_format).toEqual({ type: 'json_object' });
  });

  it('returns malformed JSON from the selector as-is, leaving parsing to the engine', async () => {
    fake.script({ chunks: ['next: ', 'Omar'] });
    expect(await complete(openai(), request({ purpose: 'select', json: true }))).toBe('next: Omar');
  });

  it('is served by a fake that also speaks the non-streaming chat.completion format', async () => {
    fake.script({ chunks: ['Keep ', 'the step.'] });
    const client = new OpenAI({ apiKey: 'none', baseURL: fake.baseUrl, maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'Keep it?' }] });
    expect(reply.choices[0]!.message.content).toBe('Keep the step.');
    expect(fake.requests[0]!.body.stream).toBeUndefined();
  });

});

describe('OpenAI-compatible generator behind resilientGenerator', () => {
  it('retries a 429 after Retry-After, then streams the answer', async () => {
    fake.script({ status: 429, retryAfterSeconds: 1 }, { chunks: ['Keep it', ', simplify it.'] });
    const { generator, notices, sleeps } = resilient();
    expect(await complete(generator, request())).toBe('Keep it, simplify it.');
    expect(fake.requests).toHaveLength(2);
    expect(sleeps).toEqual([1000]);
    expect(notices).toEqual([]);
  });

  it('caps a long Retry-After at the maximum delay', async () => {
    fake.script({ status: 429, retryAfterSeconds: 120 }, { chunks: ['Fine.'] });
    const { generator, sleeps } = resilient();
    expect(await complete(generator, request())).toBe('Fine.');
    expect(sleeps).toEqual([4000]);
  });

  it('falls back to the scripted answer after repeated 500s, with a notice', async () => {
    fake.failNext(3, { status: 500 });
    const { generator, notices, lines } = resilient();
    expect(await complete(generator, request())).toBe(await complete(createScriptedGenerator(), request()));
    expect(fake.requests).toHaveLength(3);
    expect(notices).toEqual([{ code: 'generator-fallback', message: 'openai failed; the scripted generator wrote this turn.' }]);
    expect(lines).toEqual([expect.stringMatching(/^vendor openai \(generator\) failed: HTTP 500: The server had an error.* \(3 attempts\); the scripted generator wrote this turn$/)]);
  });

  it('falls back when the server does not answer in time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    fake.setDefault({ delayMs: 3000 });
    const { generator, notices, lines } = resilient(150);
    const answer = complete(generator, request());
    await timeOutAttempts(fake, 3, 150);
    expect(await answer).toBe(await complete(createScriptedGenerator(), request()));
    expect(fake.requests).toHaveLength(3);
    expect(notices[0]!.code).toBe('generator-fallback');
    expect(lines[0]).toContain('timed out after 150 ms (3 attempts)');
  });

  it('falls back when the stream stalls before the first delta', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    fake.setDefault({ chunks: ['', 'late'], chunkDelayMs: 3000 });
    const { generator, notices } = resilient(150);
    const answer = complete(generator, request());
    await timeOutAttempts(fake, 3, 150);
    expect(await answer).toBe(await complete(createScriptedGenerator(), request()));
    expect(notices[0]!.code).toBe('generator-fallback');
  });

  it('falls back at once on 401, logging the reason with the key it echoes blanked', async () => {
    fake.setDefault({ status: 401 });
    const { generator, notices, sleeps, lines } = resilient();
    expect(await complete(generator, request())).toBe(await complete(createScriptedGenerator(), request()));
    expect(fake.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(notices[0]!.message).toBe('openai failed; the scripted generator wrote this turn.');
    expect(lines).toEqual(['vendor openai (generator) failed: HTTP 401: Incorrect API key provided: [redacted].; the scripted generator wrote this turn']);
  });

  it('keeps the partial text without duplicating it when the stream is cut mid-way', async () => {
    fake.script({ chunks: ['Respectfully, ', 'I disagree, ', 'Omar.'], cutAfter: 2 });
    const { generator, notices } = resilient();
    expect(await deltasOf(generator.stream(request()))).toEqual(['Respectfully, ', 'I disagree, ']);
    expect(fake.requests).toHaveLength(1);
    expect(notices).toEqual([{ code: 'generator-truncated', message: expect.stringContaining('openai stopped mid-reply') }]);
  });
});

describe("createGenerator('openai', env)", () => {
  it('reads OPENAI_BASE_URL and OPENAI_MODEL, defaults the key to "none", and wraps the vendor with the scripted fallback', async () => {
    const generator = createGenerator('openai', { OPENAI_BASE_URL: fake.baseUrl, OPENAI_MODEL: 'qwen2.5:7b' });
    expect(generator.name).toBe('openai');
    fake.script({ chunks: ['Local ', 'model here.'] });
    expect(await complete(generator, request())).toBe('Local model here.');
    expect(fake.requests[0]!.body.model).toBe('qwen2.5:7b');
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer none');
  });

  it('sends OPENAI_API_KEY when set', async () => {
    const generator = createGenerator('openai', { OPENAI_BASE_URL: fake.baseUrl, OPENAI_MODEL: 'gpt-4o-mini', OPENAI_API_KEY: 'sk-test' });
    await complete(generator, request());
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-test');
  });

  it('names the missing base URL, even when a key is set', () => {
    expect(() => createGenerator('openai', { OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'm' })).toThrow(/OPENAI_BASE_URL is not set/);
  });

  it('names the missing model', () => {
    expect(() => createGenerator('openai', { OPENAI_BASE_URL: 'http://localhost:11434/v1' })).toThrow(/OPENAI_MODEL is not set/);
  });

  it('rejects a base URL that is not a URL', () => {
    expect(() => createGenerator('openai', { OPENAI_BASE_URL: 'localhost:11434', OPENAI_MODEL: 'm' })).toThrow(/OPENAI_BASE_URL must be an http\(s\) URL/);
  });
});

generatorContract('openai', {
  start: startFakeOpenAI,
  vendor: (fake) => createOpenAIGenerator({ apiKey: 'none', baseUrl: fake.baseUrl, model: 'llama3.2' }),
  env: (fake) => ({ OPENAI_BASE_URL: fake.baseUrl, OPENAI_MODEL: 'llama3.2', OPENAI_API_KEY: 'sk-test' }),
  credential: 'OPENAI_API_KEY',
  ...openaiWire,
});
