/**
 * The scaffolding every vendor adapter's test file shares, written once: a fresh fake vendor
 * server for each test, the tone every transcriber hears, the request builder of a generator
 * test, and each port's vendor behind the real resilience wrapper with a sleep that only records.
 * What a vendor promises is in ./contracts.ts; this is only what its tests stand on.
 *
 * ```ts
 * const fake = freshFake(startFakeWhisper);
 * const whisper = () => createOpenAITranscriber({ apiKey: 'sk-local', baseUrl: fake.baseUrl });
 * const resilient = (timeoutMs = 2000) => resilientTranscriberFor(whisper(), timeoutMs);
 * it('retries a 429', async () => {
 *   fake.script({ status: 429, retryAfterSeconds: 1 }, { chunks: ['March works.'] });
 *   expect(await resilient().transcriber.transcribe(toneUtterance())).toEqual({ text: 'March works.' });
 * });
 * ```
 */
import { afterAll, afterEach, beforeEach, expect, vi } from 'vitest';
import type { Cue, GenerateRequest } from '../../server/engine/requests';
import { TranscriptionError } from '../../server/providers/errors';
import type { Generator } from '../../server/providers/generator/port';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import type { Notice } from '../../server/providers/notice';
import { resilientGenerator, resilientTranscriber } from '../../server/providers/resilience';
import type { Transcriber, TranscriptionRequest } from '../../server/providers/transcription/port';
import { timeOutAttempts, type FakeVendor } from '../fakes/vendor-server';

/**
 * The fake vendor of the test running now: started fresh before each test (so no script or
 * request leaks into the next), closed after the file. The handle reads through to the current
 * fake, so it can be held at the top of a file and passed to helpers such as `untilRequested`.
 * The fakes' delays run on the test's timers, so real timers come back after each test.
 */
export const freshFake = (start: () => Promise<FakeVendor>): FakeVendor => {
  let current: FakeVendor | undefined;
  beforeEach(async () => {
    await current?.close();
    current = await start();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(() => current?.close());
  const now = (): FakeVendor => {
    if (!current) throw new Error('the fake vendor starts before each test: use it inside one');
    return current;
  };
  return {
    get baseUrl() {
      return now().baseUrl;
    },
    get requests() {
      return now().requests;
    },
    script: (...replies) => now().script(...replies),
    failNext: (count, reply) => now().failNext(count, reply),
    setDefault: (reply) => now().setDefault(reply),
    close: () => now().close(),
  };
};

// ---------------------------------------------------------------- transcription

/** 100 ms of a loud tone at 16 kHz: every byte value occurs, so mangled audio cannot pass. */
export const tone = Int16Array.from({ length: 1600 }, (_, i) => Math.round(Math.sin(i / 3) * 30_000));

/** The tone as an utterance naming two people; `overrides` may add a language or drop the hints. */
export const toneUtterance = (overrides: Partial<TranscriptionRequest> = {}): TranscriptionRequest => ({
  pcm: tone,
  sampleRate: 16_000,
  hints: ['Nora Lind', 'Omar Haddad'],
  ...overrides,
});

/** `transcriber` behind the real retry wrapper (no breaker), with a sleep that only records and the log kept. */
export const resilientTranscriberFor = (transcriber: Transcriber, timeoutMs: number) => {
  const sleeps: number[] = [];
  const lines: string[] = [];
  const wrapped = resilientTranscriber(transcriber, { timeoutMs, breaker: null, sleep: async (ms) => void sleeps.push(ms), random: () => 0.5, log: (line) => lines.push(line) });
  return { transcriber: wrapped, sleeps, lines };
};

/** Fails the test unless `promise` rejects with a TranscriptionError; returns it. */
export const transcriptionFailure = (promise: Promise<unknown>): Promise<TranscriptionError> =>
  promise.then(
    () => expect.fail('expected the transcription to fail'),
    (error: unknown) => {
      expect(error).toBeInstanceOf(TranscriptionError);
      return error as TranscriptionError;
    },
  );

/**
 * The body of each transcriber's timeout test behind the wrapper: `name`'s fake holds every
 * request, and each of three attempts runs out of its 100 ms on fake time before the error says so.
 */
export const timesOutThreeAttempts =
  (name: string, fake: FakeVendor, resilient: (timeoutMs: number) => { transcriber: Transcriber; lines: string[] }, utterance: () => TranscriptionRequest) =>
  async (): Promise<void> => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    fake.setDefault({ delayMs: 3000 });
    const { transcriber, lines } = resilient(100);
    const failed = transcriptionFailure(transcriber.transcribe(utterance()));
    // Each attempt's time runs out, on fake time, once the server holds its request.
    await timeOutAttempts(fake, 3, 100);
    const error = await failed;
    expect(error.details.timeout).toBe(true);
    expect(error.message).toBe(`${name} could not transcribe the utterance in time`);
    expect(lines).toEqual([`vendor ${name} (transcription) failed: timed out after 100 ms (3 attempts); the utterance was not transcribed`]);
    expect(fake.requests).toHaveLength(3);
  };

// ---------------------------------------------------------------- generator

/** A generator test's request for one utterance of `cue`: `overrides` change the purpose, JSON mode, ... */
export const utteranceRequest =
  (cue: Cue, fields: Pick<GenerateRequest, 'system' | 'prompt' | 'temperature' | 'maxTokens'>) =>
  (overrides: Partial<GenerateRequest> = {}): GenerateRequest => ({
    purpose: 'utterance',
    system: fields.system,
    prompt: fields.prompt,
    temperature: fields.temperature,
    json: false,
    maxTokens: fields.maxTokens,
    cue,
    ...overrides,
  });

/** Every delta of a stream, in order. */
export const deltasOf = async (stream: AsyncIterable<string>, each?: (delta: string) => void): Promise<string[]> => {
  const deltas: string[] = [];
  for await (const delta of stream) {
    deltas.push(delta);
    each?.(delta);
  }
  return deltas;
};

/** `vendor` behind the real resilience wrapper (no breaker) with the scripted fallback, a sleep that only records, and this test's notices. */
export const resilientGeneratorFor = (vendor: Generator, timeoutMs: number) => {
  const notices: Notice[] = [];
  const sleeps: number[] = [];
  const lines: string[] = [];
  const wrapped = resilientGenerator(vendor, createScriptedGenerator(), { timeoutMs, breaker: null, sleep: async (ms) => void sleeps.push(ms), log: (line) => lines.push(line) });
  const generator: Generator = { name: wrapped.name, stream: (request, signal) => wrapped.stream(request, signal, (n) => notices.push(n)) };
  return { generator, notices, sleeps, lines };
};
