import { GoogleGenAI } from '@google/genai';
import { describe, expect, it, vi } from 'vitest';
import { startFakeGemini } from '../../../tests/fakes/gemini-server';
import { createGeminiGenerator } from './gemini';
import { createGenerator } from './index';
import { complete } from './port';
import type { Cue } from '../../engine/requests';
import { quietCue } from '../../../tests/fakes/cue';
import { createScriptedGenerator } from './scripted';
import { timeOutAttempts } from '../../../tests/fakes/vendor-server';
import { createBreaker } from '../resilience';
import type { Notice } from '../notice';
import { generatorContract } from '../../../tests/providers/contracts';
import { geminiVendor } from '../../../tests/providers/vendors';
import { deltasOf, freshFake, resilientGeneratorFor, utteranceRequest } from '../../../tests/providers/scaffold';

const cue: Cue = {
  speaker: { id: 'omar', name: 'Omar Haddad', shortName: 'Omar', role: 'backend lead', mood: 'calm', traits: ['analytical'] },
  participants: [
    { id: 'nora', name: 'Nora Lind', shortName: 'Nora', kind: 'ai' },
    { id: 'omar', name: 'Omar Haddad', shortName: 'Omar', kind: 'ai' },
    { id: 'pia', name: 'Pia Berg', shortName: 'Pia', kind: 'human' },
  ],
  topic: 'the launch date for the Aurora budgeting app',
  snippet: { id: 'timeline', goal: 'Agree on a realistic launch date', pattern: 'neutral' },
  act: 'answer',
  addressee: { id: 'nora', shortName: 'Nora' },
  obligation: { pair: 'question', from: 'nora', fromShortName: 'Nora', text: 'Omar, can the backend be ready by March?' },
  lastMessage: { speaker: 'nora', shortName: 'Nora', text: 'Omar, can the backend be ready by March?' },
  facts: ['The sync service still fails under load', 'Two engineers are on leave in February'],
  goals: ['ship the beta on time'],
  ...quietCue,
  variant: 1234,
};

const request = utteranceRequest(cue, {
  system: 'You are Omar Haddad, backend lead.',
  prompt: 'Nora asked you: "Omar, can the backend be ready by March?" Answer her.',
  temperature: 0.8,
  maxTokens: 120,
});

const fake = freshFake(startFakeGemini);

const gemini = () => createGeminiGenerator({ apiKey: 'test-key', baseUrl: fake.baseUrl });

const resilient = (timeoutMs = 2000) => resilientGeneratorFor(gemini(), timeoutMs);

describe('gemini generator against the fake Gemini API', () => {
  it('posts to :streamGenerateContent?alt=sse with the key header, model, system instruction and sampling', async () => {
    await complete(gemini(), request());
    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent', query: { alt: 'sse' } });
    expect(sent!.headers['x-goog-api-key']).toBe('test-key');
    expect(sent!.body.contents).toEqual([{ role: 'user', parts: [{ text: request().prompt }] }]);
    expect(sent!.body.systemInstruction.parts).toEqual([{ text: 'You are Omar Haddad, backend lead.' }]);
    expect(sent!.body.generationConfig).toMatchObject({ temperature: 0.8, maxOutputTokens: 120, thinkingConfig: { thinkingBudget: 0 } });
    expect(sent!.body.generationConfig.responseMimeType).toBeUndefined();
  });

  it('asks for JSON output in JSON mode and uses the configured model', async () => {
    fake.script({ chunks: ['{"next": "Pia"}'] });
    const pro = createGeminiGenerator({ apiKey: 'test-key', baseUrl: fake.baseUrl, model: 'gemini-2.5-pro' });
    expect(await complete(pro, request({ purpose: 'select', json: true }))).toBe('{"next": "Pia"}');
    expect(fake.requests[0]!.path).toBe('/v1beta/models/gemini-2.5-pro:streamGenerateContent');
    expect(fake.requests[0]!.body.generationConfig.responseMimeType).toBe('application/json');
    expect(fake.requests[0]!.body.generationConfig.thinkingConfig).toBeUndefined();
  });

  it('returns malformed JSON from the selector as-is, leaving parsing to the engine', async () => {
    fake.script({ chunks: ['{"next": ', '"Pia"'] });
    expect(await complete(gemini(), request({ purpose: 'select', json: true }))).toBe('{"next": "Pia"');
  });

  it('is served by a fake that also speaks the non-streaming :generateContent format', async () => {
    fake.script({ chunks: ['Ready ', 'by March.'] });
    const ai = new GoogleGenAI({ apiKey: 'test-key', vertexai: false, httpOptions: { baseUrl: fake.baseUrl } });
    const reply = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'When?' });
    expect(reply.text).toBe('Ready by March.');
    expect(fake.requests[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
  });

});

describe('gemini behind resilientGenerator', () => {
  it('retries a 429 after the delay Gemini asked for, then streams the answer', async () => {
    fake.script({ status: 429, retryAfterSeconds: 2 }, { chunks: ['March works', ' for us.'] });
    const { generator, notices, sleeps } = resilient();
    expect(await complete(generator, request())).toBe('March works for us.');
    expect(fake.requests).toHaveLength(2);
    expect(sleeps).toEqual([2000]);
    expect(notices).toEqual([]);
  });

  it('falls back to the scripted answer after repeated 500s, with a notice', async () => {
    fake.failNext(3, { status: 500 });
    const { generator, notices, sleeps, lines } = resilient();
    const text = await complete(generator, request());
    expect(text).toBe(await complete(createScriptedGenerator(), request()));
    expect(fake.requests).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    expect(notices).toEqual([{ code: 'generator-fallback', message: 'gemini failed; the scripted generator wrote this turn.' }]);
    expect(lines).toEqual([expect.stringMatching(/^vendor gemini \(generator\) failed: HTTP 500: An internal error .* \(3 attempts\); the scripted generator wrote this turn$/)]);
  });

  it('falls back when Gemini does not answer in time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    fake.setDefault({ delayMs: 3000 });
    const { generator, notices, lines } = resilient(150);
    const answer = complete(generator, request());
    await timeOutAttempts(fake, 3, 150);
    const text = await answer;
    expect(text).toBe(await complete(createScriptedGenerator(), request()));
    expect(fake.requests).toHaveLength(3);
    expect(notices[0]!.code).toBe('generator-fallback');
    expect(lines[0]).toContain('timed out after 150 ms (3 attempts)');
  });

  it('falls back at once on 401: a bad key does not get better with retries', async () => {
    fake.setDefault({ status: 401 });
    const { generator, notices, sleeps, lines } = resilient();
    expect(await complete(generator, request())).toBe(await complete(createScriptedGenerator(), request()));
    expect(fake.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(notices[0]!.message).toBe('gemini failed; the scripted generator wrote this turn.');
    expect(lines[0]).toMatch(/^vendor gemini \(generator\) failed: HTTP 401: API key not valid.*; the scripted generator wrote this turn$/);
  });

  it('keeps the partial text without duplicating it when the stream is cut mid-way', async () => {
    fake.script({ chunks: ['Honestly, ', 'March is ', 'tight but ', 'doable.'], cutAfter: 2 });
    const { generator, notices } = resilient();
    const deltas = await deltasOf(generator.stream(request()));
    expect(deltas).toEqual(['Honestly, ', 'March is ']);
    expect(fake.requests).toHaveLength(1);
    expect(notices).toEqual([{ code: 'generator-truncated', message: expect.stringContaining('gemini stopped mid-reply') }]);
  });

  it('falls back when the stream carries a malformed event before any text', async () => {
    fake.setDefault({ chunks: ['x'], malformed: '{"candidates": [' });
    const { generator, notices } = resilient();
    expect(await complete(generator, request())).toBe(await complete(createScriptedGenerator(), request()));
    expect(notices[0]!.code).toBe('generator-fallback');
  });
});

describe("createGenerator('gemini', env)", () => {
  it('reads GEMINI_API_KEY, GEMINI_MODEL and GEMINI_BASE_URL, and wraps the vendor with the scripted fallback', async () => {
    const notices: Notice[] = [];
    const env = { GEMINI_API_KEY: 'env-key', GEMINI_MODEL: 'gemini-2.5-flash-lite', GEMINI_BASE_URL: fake.baseUrl, GENERATOR_TIMEOUT_MS: '2000' };
    const generator = createGenerator('gemini', env, { sleep: async () => undefined });
    expect(generator.name).toBe('gemini');
    fake.setDefault({ status: 500 });
    expect(await complete(generator, request(), undefined, (n) => notices.push(n))).toBe(await complete(createScriptedGenerator(), request()));
    expect(fake.requests[0]!.path).toBe('/v1beta/models/gemini-2.5-flash-lite:streamGenerateContent');
    expect(fake.requests[0]!.headers['x-goog-api-key']).toBe('env-key');
    expect(notices.map((n) => n.code)).toEqual(['generator-fallback']);
  });

  it('stops calling Gemini while its circuit is open, and says so', async () => {
    const env = { GEMINI_API_KEY: 'env-key', GEMINI_BASE_URL: fake.baseUrl };
    const generator = createGenerator('gemini', env, { breaker: createBreaker({ failures: 3, now: () => 0 }), sleep: async () => undefined, log: () => undefined });
    fake.setDefault({ status: 503 });
    await complete(generator, request());
    expect(fake.requests).toHaveLength(3);
    const notices: Notice[] = [];
    expect(await complete(generator, request(), undefined, (n) => notices.push(n))).toBe(await complete(createScriptedGenerator(), request()));
    expect(fake.requests).toHaveLength(3);
    expect(notices).toEqual([{ code: 'generator-circuit-open', message: expect.stringMatching(/^gemini keeps failing and is not called for now/) }]);
  });

  it('names the missing key', () => {
    expect(() => createGenerator('gemini', {})).toThrow(/GEMINI_API_KEY is not set/);
  });

  it('rejects a timeout that is not a number', () => {
    expect(() => createGenerator('gemini', { GEMINI_API_KEY: 'k', GENERATOR_TIMEOUT_MS: 'soon' })).toThrow(/GENERATOR_TIMEOUT_MS/);
  });

  it('rejects a budget that is not a positive number', () => {
    expect(() => createGenerator('gemini', { GEMINI_API_KEY: 'k', GENERATOR_BUDGET_MS: '-5' })).toThrow(/^GENERATOR_BUDGET_MS must be a positive number of milliseconds, got "-5"$/);
  });

  it('needs nothing for the scripted generator', () => {
    expect(createGenerator('scripted', {}).name).toBe('scripted');
  });
});

generatorContract('gemini', { ...geminiVendor, vendor: (fake) => createGeminiGenerator({ apiKey: 'test-key', baseUrl: fake.baseUrl }) });
