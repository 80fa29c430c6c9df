import { describe, expect, it, vi } from 'vitest';
import { fakeSample, startFakeElevenLabs, TRAILING_SILENCE_SECONDS } from '../../../tests/fakes/elevenlabs-server';
import { SynthesisError } from '../errors';
import type { Phonemize } from './align';
import { createElevenLabsSynthesizer } from './elevenlabs';
import type { SpeechChunk, SynthesisRequest, Viseme } from './port';
import { synthesizerContract } from '../../../tests/providers/contracts';
import { elevenlabsVendor } from '../../../tests/providers/vendors';
import { freshFake } from '../../../tests/providers/scaffold';

/** Stand-ins for eSpeak and its viseme table: every letter is a phoneme. */
const letters: Phonemize = async (text) =>
  text
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => ({ word: word.toLowerCase(), phonemes: [...word.toLowerCase()].filter((c) => /\p{L}/u.test(c)) }));
const table: Record<string, Viseme> = { a: 'aa', e: 'E', i: 'I', o: 'O', u: 'U', m: 'PP', b: 'PP', f: 'FF', v: 'FF', n: 'nn', r: 'RR', s: 'SS', t: 'DD', h: 'kk', l: 'nn' };
const phonemeToViseme = (phoneme: string): Viseme => table[phoneme] ?? 'DD';

const request = (overrides: Partial<SynthesisRequest> = {}): SynthesisRequest => ({
  text: 'Hi Nora, March works.',
  voice: { elevenlabs: 'voice-omar' },
  ...overrides,
});

const fake = freshFake(startFakeElevenLabs);

const elevenlabs = (overrides: { timeoutMs?: number; model?: string } = {}) =>
  createElevenLabsSynthesizer({ apiKey: 'test-key', baseUrl: fake.baseUrl, phonemize: letters, phonemeToViseme, timeoutMs: 2000, ...overrides });

/** Everything the stream yielded, and how it ended; `hold` runs while the caller holds each chunk. */
const drain = async (stream: AsyncIterable<SpeechChunk>, hold?: () => Promise<unknown>, chunks: SpeechChunk[] = []): Promise<{ chunks: SpeechChunk[]; error?: unknown }> => {
  try {
    for await (const chunk of stream) {
      chunks.push(chunk);
      await hold?.();
    }
    return { chunks };
  } catch (error) {
    return { chunks, error };
  }
};

/** Waits, on real time, until `done()`: the fake server answers over real sockets while the timers are fake. */
const untilAnswered = async (done: () => boolean): Promise<void> => {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
};

const samplesOf = (chunks: SpeechChunk[]): number[] => chunks.flatMap((c) => Array.from(c.pcm));

const failure = (error: unknown): SynthesisError => {
  expect(error).toBeInstanceOf(SynthesisError);
  return error as SynthesisError;
};

describe('elevenlabs synthesizer against the fake ElevenLabs API', () => {
  it('streams from /stream/with-timestamps with the key header, model, PCM format and language', async () => {
    await drain(elevenlabs().synthesize(request({ language: 'en-GB' })));
    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/text-to-speech/voice-omar/stream/with-timestamps', query: { output_format: 'pcm_16000' } });
    expect(sent!.headers['xi-api-key']).toBe('test-key');
    expect(sent!.body).toEqual({ text: 'Hi Nora, March works.', model_id: 'eleven_flash_v2_5', language_code: 'en' });
  });

  it('sends no language_code to models that refuse it', async () => {
    await drain(elevenlabs({ model: 'eleven_multilingual_v2' }).synthesize(request({ language: 'en' })));
    expect(fake.requests[0]!.body).toEqual({ text: 'Hi Nora, March works.', model_id: 'eleven_multilingual_v2' });
  });

  it('decodes the PCM16 audio in order, even when a chunk ends mid-sample, with each chunk’s offset', async () => {
    fake.script({ chunks: ['Hi Nora, ', 'March works.'] });
    const { chunks, error } = await drain(elevenlabs().synthesize(request()));
    expect(error).toBeUndefined();
    // 21 characters of 60 ms at 16 kHz, then the trailing silence.
    const speech = Math.round(21 * 0.06 * 16_000);
    const expected = [...Array.from({ length: speech }, (_, i) => fakeSample(i)), ...new Array(TRAILING_SILENCE_SECONDS * 16_000).fill(0)];
    expect(samplesOf(chunks)).toEqual(expected);
    expect(chunks.map((c) => c.sampleRate)).toEqual([16_000, 16_000, 16_000]);
    // The first chunk holds 9 characters (8640 samples) but ends one byte into the next sample.
    expect(chunks.map((c) => c.offsetMs)).toEqual([0, 540, 1260]);
  });

  it('turns the character timings into words and viseme cues, with the chunk that completes each word', async () => {
    fake.script({ chunks: ['Hi Nora, ', 'March works.'] });
    const { chunks } = await drain(elevenlabs().synthesize(request()));
    expect(chunks[0]!.words).toEqual([
      { word: 'Hi', start: 0, end: 120 },
      { word: 'Nora', start: 180, end: 420 },
    ]);
    expect(chunks[0]!.cues).toEqual([
      { t: 0, viseme: 'kk' },
      { t: 60, viseme: 'I' },
      { t: 180, viseme: 'nn' },
      { t: 240, viseme: 'O' },
      { t: 300, viseme: 'RR' },
      { t: 360, viseme: 'aa' },
    ]);
    expect(chunks[1]!.words).toEqual([
      { word: 'March', start: 540, end: 840 },
      { word: 'works', start: 900, end: 1200 },
    ]);
    // The pause at the comma closes the mouth; the end of the text closes it for good.
    expect(chunks[1]!.cues.at(0)).toEqual({ t: 420, viseme: 'sil' });
    expect(chunks[1]!.cues.at(-1)).toEqual({ t: 1200, viseme: 'sil' });
    expect(chunks[2]).toMatchObject({ cues: [], words: [] });
  });

  it('keeps a word split across chunks whole', async () => {
    fake.script({ chunks: ['Hi No', 'ra, March works.'] });
    const { chunks } = await drain(elevenlabs().synthesize(request()));
    expect(chunks[0]!.words.map((w) => w.word)).toEqual(['Hi']);
    expect(chunks[1]!.words.map((w) => w.word)).toEqual(['Nora', 'March', 'works']);
    expect(chunks[1]!.cues[0]).toEqual({ t: 180, viseme: 'nn' });
  });

  it('sends the last word’s cues in a final chunk without samples when the characters are not the request’s text', async () => {
    // ElevenLabs normalized "5" to "five": nothing tells whether "five" is complete until the stream ends.
    fake.script({ chunks: ['Meet at ', 'five'] });
    const { chunks } = await drain(elevenlabs().synthesize(request({ text: 'Meet at 5' })));
    expect(chunks).toHaveLength(4);
    const last = chunks.at(-1)!;
    expect(last.pcm.length).toBe(0);
    // After all the audio: 12 characters of 60 ms and the trailing silence.
    expect(last.offsetMs).toBe(720 + TRAILING_SILENCE_SECONDS * 1000);
    expect(last.words).toEqual([{ word: 'five', start: 480, end: 720 }]);
    expect(last.cues.at(-1)).toEqual({ t: 720, viseme: 'sil' });
  });

  it('says so when the voice has no ElevenLabs voice id', async () => {
    const { error } = await drain(elevenlabs().synthesize(request({ voice: { espeak: 'en-us' } })));
    expect(failure(error).message).toMatch(/no ElevenLabs voice id \(voice\.elevenlabs\)/);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('elevenlabs synthesizer failures (one request per call; the caller retries)', () => {
  it('reports a 429 with its status and Retry-After, and the next call succeeds', async () => {
    fake.script({ status: 429, retryAfterSeconds: 2 });
    const first = await drain(elevenlabs().synthesize(request()));
    expect(first.chunks).toEqual([]);
    expect(failure(first.error).details).toMatchObject({ status: 429, retryAfterMs: 2000 });
    expect(failure(first.error).message).toMatch(/^HTTP 429: Too many concurrent requests\..* \(too_many_concurrent_requests\)$/);
    const second = await drain(elevenlabs().synthesize(request()));
    expect(second.error).toBeUndefined();
    expect(second.chunks.length).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(2);
  });

  it('reports each 500 as retryable, never retrying on its own', async () => {
    fake.failNext(3, { status: 500 });
    for (let call = 1; call <= 3; call++) {
      const { chunks, error } = await drain(elevenlabs().synthesize(request()));
      expect(chunks).toEqual([]);
      expect(failure(error).details.status).toBe(500);
      expect(fake.requests).toHaveLength(call);
    }
  });

  it('reports a 401 invalid_api_key with the vendor’s message', async () => {
    fake.setDefault({ status: 401 });
    const { error } = await drain(elevenlabs().synthesize(request()));
    expect(failure(error).message).toBe('HTTP 401: Invalid API key (invalid_api_key)');
    expect(failure(error).details.status).toBe(401);
    expect(fake.requests).toHaveLength(1);
  });

  it('times out when no answer comes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    fake.setDefault({ delayMs: 3000 });
    const drained = drain(elevenlabs({ timeoutMs: 150 }).synthesize(request()));
    await untilAnswered(() => fake.requests.length === 1);
    await vi.advanceTimersByTimeAsync(150);
    const { chunks, error } = await drained;
    expect(chunks).toEqual([]);
    expect(failure(error).details.timeout).toBe(true);
    expect(failure(error).message).toBe('timed out: no audio for 150 ms');
  });

  it('times out a stream that stalls, after yielding what it had', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    fake.script({ chunks: ['Hi Nora, ', 'March works.'], chunkDelayMs: 3000 });
    const received: SpeechChunk[] = [];
    const drained = drain(elevenlabs({ timeoutMs: 150 }).synthesize(request()), undefined, received);
    await untilAnswered(() => received.length === 1);
    await vi.advanceTimersByTimeAsync(150);
    const { chunks, error } = await drained;
    expect(chunks).toHaveLength(1);
    expect(failure(error).message).toBe('timed out after 1 chunk: no audio for 150 ms');
  });

  it('does not count the time the caller holds a chunk against the timeout', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    fake.script({ chunks: ['Hi Nora, ', 'March works.'] });
    const { chunks, error } = await drain(elevenlabs({ timeoutMs: 100 }).synthesize(request()), () => vi.advanceTimersByTimeAsync(150));
    expect(error).toBeUndefined();
    expect(chunks).toHaveLength(3);
  });

  it('yields every chunk received before the stream was cut, then throws', async () => {
    fake.script({ chunks: ['Hi Nora, ', 'March ', 'works.'], cutAfter: 2 });
    const { chunks, error } = await drain(elevenlabs().synthesize(request()));
    expect(chunks.map((c) => c.words.map((w) => w.word))).toEqual([['Hi', 'Nora'], ['March']]);
    expect(failure(error).message).toMatch(/^stream broke after 2 chunks \(terminated/);
    expect(failure(error).details.status).toBeUndefined();
  });

  it('fails on a malformed line', async () => {
    fake.script({ chunks: ['Hi Nora, ', 'March works.'], malformed: '{"audio_base64": ' });
    const { chunks, error } = await drain(elevenlabs().synthesize(request()));
    expect(chunks).toHaveLength(2);
    expect(failure(error).message).toMatch(/^stream broke after 2 chunks/);
  });

  it('rejects with the caller’s reason when the caller aborts', async () => {
    fake.setDefault({ delayMs: 3000 });
    const controller = new AbortController();
    const drained = drain(elevenlabs().synthesize(request(), controller.signal));
    await untilAnswered(() => fake.requests.length === 1);
    controller.abort(new Error('interrupted by Pia'));
    const { error } = await drained;
    expect(error).toEqual(new Error('interrupted by Pia'));
  });
});

synthesizerContract('elevenlabs', {
  make: (fake) => createElevenLabsSynthesizer({ apiKey: 'test-key', baseUrl: fake!.baseUrl, phonemize: letters, phonemeToViseme, timeoutMs: 2000 }),
  request: request(),
  unspeakable: request({ voice: { espeak: 'en-us' } }),
  http: elevenlabsVendor,
});
