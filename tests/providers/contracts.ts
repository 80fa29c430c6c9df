/**
 * What every vendor adapter of a port promises, written once and run by each adapter's own test
 * file against its local fake (a real HTTP server speaking the vendor's wire format). A new vendor
 * runs the contract of its port before anything else is written about it.
 *
 * ```ts
 * // geminiVendor (./vendors.ts): its fake, its environment, its key's variable, what its errors say.
 * generatorContract('gemini', { ...geminiVendor, vendor: (fake) => createGeminiGenerator({ apiKey: 'test-key', baseUrl: fake.baseUrl }) });
 * ```
 *
 * Each port's contract: the adapter answers what the fake scripted (text in order; the transcript;
 * audio in order with cues inside it), stops with the caller's reason when the caller aborts,
 * reports a vendor's error as the port's typed error with its status and how long it asked to wait
 * (seconds, and an HTTP date for vendors that send the header), sends one request per call (the
 * one place that retries is providers/resilience.ts), and, configured from the environment as
 * the server does, a vendor that refuses its key (401, 403) opens its circuit at once and names
 * the variable to check.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { GenerateRequest } from '../../server/engine/requests';
import { GeneratorError, SynthesisError, TranscriptionError, type ProviderError } from '../../server/providers/errors';
import { createGenerator, type GeneratorName } from '../../server/providers/generator';
import { complete, type Generator } from '../../server/providers/generator/port';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import type { Notice } from '../../server/providers/notice';
import { createBreaker, resilientSynthesizer, type ResilienceOptions } from '../../server/providers/resilience';
import { synthesisLimitsFrom } from '../../server/providers/synthesis';
import type { SpeechChunk, SynthesisRequest, Synthesizer } from '../../server/providers/synthesis/port';
import { createTranscriber, type TranscriberName } from '../../server/providers/transcription';
import type { Transcriber, TranscriptionRequest } from '../../server/providers/transcription/port';
import { moderatorCue } from '../fakes/cue';
import { untilRequested, type FakeVendor } from '../fakes/vendor-server';
import { deltasOf, freshFake, tone } from './scaffold';

type Env = Record<string, string>;

/** Where the vendor says how long to wait: a Retry-After header, or its error body (Gemini's RetryInfo). */
type RetryAfterIn = 'header' | 'body';

export interface VendorUnderTest<Port> {
  /** Starts the vendor's fake; one per test, so no script leaks into the next. */
  start: () => Promise<FakeVendor>;
  /** The adapter, pointed at the fake. */
  vendor: (fake: FakeVendor) => Port;
  /** The server's environment for this vendor, pointed at the fake. */
  env: (fake: FakeVendor) => Env;
  /** The variable holding the vendor's key. */
  credential: string;
  /** What the adapter's error says, by status: the vendor's own reason, kept for the server's log. */
  says: { 429: RegExp; 500: RegExp };
  retryAfter: RetryAfterIn;
}

/** Rejects unless `promise` fails with an error of `type`; returns it. */
const failure = async <E extends ProviderError>(promise: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> => {
  const error = await promise.then(
    () => expect.fail('expected the call to fail'),
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(type);
  return error as E;
};

/** A Retry-After as an HTTP date `seconds` from now (whole seconds: the format has no finer unit). */
const dateIn = (seconds: number) => new Date(Date.now() + seconds * 1000).toUTCString();

/**
 * The tests every port runs on a vendor's HTTP errors: the typed error with its status, its reason
 * and its wait (`waitSeconds`, as the fake's 429 asks), a Retry-After given as a date for vendors
 * that send the header, and one request per call however often the vendor fails.
 */
const httpErrorTests = <E extends ProviderError>(
  fake: FakeVendor,
  vendor: Pick<VendorUnderTest<unknown>, 'says' | 'retryAfter'>,
  call: () => Promise<unknown>,
  type: new (...args: never[]) => E,
  waitSeconds: number,
): void => {
  it(`reports an HTTP error as a ${type.name} with its status, its reason and how long to wait`, async () => {
    fake.script({ status: 429, retryAfterSeconds: waitSeconds });
    const error = await failure(call(), type);
    expect(error.details).toMatchObject({ status: 429, retryAfterMs: waitSeconds * 1000 });
    expect(error.message).toMatch(vendor.says[429]);
  });

  if (vendor.retryAfter === 'header') {
    it('reads a Retry-After given as an HTTP date', async () => {
      fake.script({ status: 429, retryAfter: dateIn(30) });
      const { details } = await failure(call(), type);
      expect(details.retryAfterMs).toBeGreaterThan(25_000);
      expect(details.retryAfterMs).toBeLessThanOrEqual(30_000);
    });
  }

  it('sends one request per call: retrying is the resilience module’s', async () => {
    fake.failNext(3, { status: 500 });
    const error = await failure(call(), type);
    expect(error.message).toMatch(vendor.says[500]);
    expect(error.details.status).toBe(500);
    expect(fake.requests).toHaveLength(1);
  });
};

/** Options for a wrapper that waits for nothing and logs to `lines`. */
const quiet = (lines: string[]): ResilienceOptions => ({ sleep: async () => undefined, log: (line) => lines.push(line), breaker: createBreaker({ now: () => 0 }) });

// ---------------------------------------------------------------- generator

const request: GenerateRequest = {
  purpose: 'utterance',
  system: 'You are Hugo, who chairs the meeting.',
  prompt: 'Open the meeting.',
  temperature: 0.7,
  json: false,
  maxTokens: 60,
  cue: moderatorCue,
};

export const generatorContract = (name: GeneratorName, vendor: VendorUnderTest<Generator>): void => {
  describe(`the ${name} generator keeps the generator port's contract`, () => {
    const fake = freshFake(vendor.start);
    const adapter = () => vendor.vendor(fake);

    it('streams the text as deltas, in order', async () => {
      fake.script({ chunks: ['Good morning, ', 'everyone. ', 'Shall we start?'] });
      expect(await deltasOf(adapter().stream(request))).toEqual(['Good morning, ', 'everyone. ', 'Shall we start?']);
    });

    it("stops with the caller's reason when the caller aborts mid-stream", async () => {
      fake.script({ chunks: ['Good morning, ', 'everyone.'], chunkDelayMs: 5000 });
      const controller = new AbortController();
      const deltas: string[] = [];
      const stopped = deltasOf(adapter().stream(request, controller.signal), (delta) => {
        deltas.push(delta);
        controller.abort(new Error('barge-in'));
      });
      await expect(stopped).rejects.toThrow('barge-in');
      expect(deltas).toEqual(['Good morning, ']);
    });

    httpErrorTests(fake, vendor, () => complete(adapter(), request), GeneratorError, 3);

    it.each([401, 403])(`configured from the environment, opens its circuit at once on HTTP %i and names ${vendor.credential}`, async (status) => {
      fake.setDefault({ status });
      const lines: string[] = [];
      const options = quiet(lines);
      const generator = createGenerator(name, vendor.env(fake), options);
      const notices: Notice[] = [];
      const scripted = await complete(createScriptedGenerator(), request);
      expect(await complete(generator, request, undefined, (n) => notices.push(n))).toBe(scripted);
      expect(fake.requests).toHaveLength(1);
      expect(options.breaker!.state).toBe('open');
      expect(await complete(generator, request, undefined, (n) => notices.push(n))).toBe(scripted);
      expect(fake.requests).toHaveLength(1);
      expect(notices).toEqual([
        { code: 'generator-fallback', message: `${name} refused the key (HTTP ${status}): check ${vendor.credential}; the scripted generator wrote this turn.` },
        { code: 'generator-circuit-open', message: `${name} refused the key and is not called for now (check ${vendor.credential}; next try in 30 s); the scripted generator wrote this turn.` },
      ]);
      expect(lines[0]).toBe(`vendor ${name} (generator) refused the key (HTTP ${status}): circuit open at once, not called for 30 s; check ${vendor.credential}`);
    });
  });
};

// ---------------------------------------------------------------- transcription

/** 100 ms of a loud tone at 16 kHz. */
const utterance: TranscriptionRequest = { pcm: tone, sampleRate: 16_000, language: 'en' };

export const transcriberContract = (name: Exclude<TranscriberName, 'none'>, vendor: VendorUnderTest<Transcriber>): void => {
  describe(`the ${name} transcriber keeps the transcription port's contract`, () => {
    const fake = freshFake(vendor.start);
    const adapter = () => vendor.vendor(fake);

    it('returns the transcript, without the whitespace around it', async () => {
      fake.script({ chunks: [' March works for us. '] });
      expect((await adapter().transcribe(utterance)).text).toBe('March works for us.');
    });

    it("stops with the caller's reason when the caller aborts", async () => {
      fake.script({ delayMs: 5000 });
      const controller = new AbortController();
      const transcribed = adapter().transcribe(utterance, controller.signal);
      await untilRequested(fake, 1);
      controller.abort(new Error('left the room'));
      await expect(transcribed).rejects.toThrow('left the room');
    });

    httpErrorTests(fake, vendor, () => adapter().transcribe(utterance), TranscriptionError, 2);

    it.each([401, 403])(`configured from the environment, opens its circuit at once on HTTP %i and names ${vendor.credential}`, async (status) => {
      fake.setDefault({ status });
      const lines: string[] = [];
      const options = quiet(lines);
      const transcriber = createTranscriber(name, vendor.env(fake), options)!;
      const first = await failure(transcriber.transcribe(utterance), TranscriptionError);
      expect(first.message).toBe(`${name} could not transcribe the utterance (it refused the key (HTTP ${status}): check ${vendor.credential})`);
      expect(options.breaker!.state).toBe('open');
      const second = await failure(transcriber.transcribe(utterance), TranscriptionError);
      expect(second.message).toBe(`${name} could not transcribe the utterance (it refused the key and is not called for now (check ${vendor.credential}; next try in 30 s))`);
      expect(fake.requests).toHaveLength(1);
      expect(lines[0]).toBe(`vendor ${name} (transcription) refused the key (HTTP ${status}): circuit open at once, not called for 30 s; check ${vendor.credential}`);
    });
  });
};

// ---------------------------------------------------------------- synthesis

export interface SynthesizerUnderTest {
  /** The synthesizer, with its fake when it calls one over HTTP. */
  make: (fake: FakeVendor | undefined) => Synthesizer;
  /** A request it can speak. */
  request: SynthesisRequest;
  /** A request it cannot: a voice it does not have. */
  unspeakable: SynthesisRequest;
  /** A vendor over HTTP: its fake, the server's environment and what its errors say. */
  http?: Omit<VendorUnderTest<Synthesizer>, 'vendor'>;
}

const chunksOf = async (stream: AsyncIterable<SpeechChunk>): Promise<SpeechChunk[]> => {
  const chunks: SpeechChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
};

/** A stand-in for eSpeak behind a vendor voice: one short chunk of silence. */
const standIn: Synthesizer = {
  name: 'stand-in',
  async *synthesize() {
    yield { pcm: new Int16Array(160), sampleRate: 16_000, offsetMs: 0, cues: [], words: [] };
  },
};

export const synthesizerContract = (name: string, under: SynthesizerUnderTest): void => {
  describe(`the ${name} synthesizer keeps the synthesis port's contract`, () => {
    const http = under.http;
    const fake = http ? freshFake(http.start) : undefined;
    // One over HTTP is made for each test's fake; one that runs processes (eSpeak) is kept, and closed at the end.
    let kept: Synthesizer | undefined;
    const synthesizer = () => (http ? under.make(fake) : (kept ??= under.make(undefined)));
    afterAll(async () => {
      await kept?.close?.();
    });

    it('streams audio in order, each chunk placed after the audio before it, its cues in time order within the audio', async () => {
      const chunks = await chunksOf(synthesizer().synthesize(under.request));
      expect(chunks.length).toBeGreaterThan(0);
      expect(chunks.reduce((n, c) => n + c.pcm.length, 0)).toBeGreaterThan(0);
      let end = 0;
      for (const chunk of chunks) {
        expect(chunk.sampleRate).toBeGreaterThan(0);
        // Within a millisecond: a chunk starts on a whole sample.
        expect(chunk.offsetMs).toBeGreaterThanOrEqual(end - 1);
        end = chunk.offsetMs + (chunk.pcm.length / chunk.sampleRate) * 1000;
      }
      // A word's cues may come with the chunk that completes the word (ElevenLabs), so they are checked over the whole stream.
      const cues = chunks.flatMap((c) => c.cues);
      expect(cues.length).toBeGreaterThan(0);
      cues.forEach((cue, i) => {
        expect(cue.t).toBeGreaterThanOrEqual(i === 0 ? 0 : cues[i - 1]!.t);
        expect(cue.t).toBeLessThanOrEqual(end + 1);
      });
    });

    it("stops with the caller's reason when the caller aborts", async () => {
      const controller = new AbortController();
      controller.abort(new Error('barge-in'));
      await expect(chunksOf(synthesizer().synthesize(under.request, controller.signal))).rejects.toThrow('barge-in');
    });

    it('reports a request it cannot speak as a SynthesisError', async () => {
      await failure(chunksOf(synthesizer().synthesize(under.unspeakable)), SynthesisError);
    });

    if (!http) return;

    httpErrorTests(fake!, http, () => chunksOf(synthesizer().synthesize(under.request)), SynthesisError, 2);

    it.each([401, 403])(`configured from the environment, opens its circuit at once on HTTP %i and names ${http.credential}`, async (status) => {
      fake!.setDefault({ status });
      const lines: string[] = [];
      const options = quiet(lines);
      // As the server wraps its vendor voice (server/main.ts), with a stand-in for eSpeak.
      const voice = resilientSynthesizer(synthesizer(), standIn, { ...synthesisLimitsFrom(http.env(fake!)), ...options });
      const notices: Notice[] = [];
      await chunksOf(voice.synthesize(under.request, undefined, (n) => notices.push(n)));
      expect(options.breaker!.state).toBe('open');
      await chunksOf(voice.synthesize(under.request, undefined, (n) => notices.push(n)));
      expect(fake!.requests).toHaveLength(1);
      expect(notices).toEqual([
        { code: 'synthesis-fallback', message: `The ${name} voice refused the key (HTTP ${status}): check ${http.credential}; stand-in spoke instead.` },
        { code: 'synthesis-circuit-open', message: `The ${name} voice refused the key and is not called for now (check ${http.credential}; next try in 30 s); stand-in spoke instead.` },
      ]);
      expect(lines[0]).toBe(`vendor ${name} (synthesis) refused the key (HTTP ${status}): circuit open at once, not called for 30 s; check ${http.credential}`);
    });
  });
};
