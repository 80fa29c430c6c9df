import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeElevenLabs, type FakeElevenLabs } from '../../../tests/fakes/elevenlabs-server';
import { SynthesisError } from '../errors';
import { createElevenLabsSynthesizer } from './elevenlabs';
import { createEspeakSynthesizer, phonemize } from './espeak';
import type { SpeechChunk, Synthesizer } from './port';
import { withSynthesisFallback } from './resilient';
import { phonemesToVisemes } from './visemes';

const chunk = (marker: number): SpeechChunk => ({ pcm: new Int16Array([marker]), sampleRate: 16_000, offsetMs: 0, cues: [], words: [] });

/** A synthesizer that fails with `failures` in turn (then succeeds), yielding `before` chunks first. */
const flaky = (failures: (SynthesisError | null)[], before = 0) => {
  let calls = 0;
  const synthesizer: Synthesizer = {
    name: 'vendor',
    async *synthesize() {
      const failure = failures[calls++] ?? null;
      for (let i = 0; i < before; i++) yield chunk(1);
      if (failure) throw failure;
      yield chunk(1);
    },
  };
  return { synthesizer, calls: () => calls };
};

const backup: Synthesizer = {
  name: 'espeak',
  async *synthesize() {
    yield chunk(2);
  },
};

const collect = async (synthesizer: Synthesizer) => {
  const markers: number[] = [];
  for await (const c of synthesizer.synthesize({ text: 'Hello.', voice: { espeak: 'en-us', elevenlabs: 'voice' } })) markers.push(c.pcm[0]!);
  return markers;
};

describe('withSynthesisFallback', () => {
  it('retries a server error once, after a backoff, and keeps the vendor when the retry works', async () => {
    const vendor = flaky([new SynthesisError('HTTP 500', { status: 500 })]);
    const notices: string[] = [];
    const markers = await collect(withSynthesisFallback(vendor.synthesizer, backup, { backoffMs: 5, onNotice: (n) => notices.push(n.code) }));
    expect(markers).toEqual([1]);
    expect(vendor.calls()).toBe(2);
    expect(notices).toEqual([]);
  });

  it('falls back to eSpeak after a second failure, and says so', async () => {
    const vendor = flaky([new SynthesisError('HTTP 503', { status: 503 }), new SynthesisError('timed out', { timeout: true })]);
    const notices: { code: string; message: string }[] = [];
    const markers = await collect(withSynthesisFallback(vendor.synthesizer, backup, { backoffMs: 5, onNotice: (n) => notices.push(n) }));
    expect(markers).toEqual([2]);
    expect(notices).toEqual([{ code: 'synthesis-fallback', message: expect.stringContaining('vendor failed (timed out); spoke with espeak') }]);
  });

  it('does not retry what cannot succeed (a bad key), nor wait out a long Retry-After', async () => {
    const badKey = flaky([new SynthesisError('HTTP 401: invalid_api_key', { status: 401 })]);
    expect(await collect(withSynthesisFallback(badKey.synthesizer, backup))).toEqual([2]);
    expect(badKey.calls()).toBe(1);
    const slow = flaky([new SynthesisError('HTTP 429', { status: 429, retryAfterMs: 30_000 })]);
    expect(await collect(withSynthesisFallback(slow.synthesizer, backup))).toEqual([2]);
    expect(slow.calls()).toBe(1);
  });

  it('keeps the audio of a stream that broke mid-way, without repeating it', async () => {
    const vendor = flaky([new SynthesisError('stream broke after 2 chunks')], 2);
    const notices: string[] = [];
    expect(await collect(withSynthesisFallback(vendor.synthesizer, backup, { onNotice: (n) => notices.push(n.code) }))).toEqual([1, 1]);
    expect(notices).toEqual(['synthesis-cut']);
  });

  it('throws the vendor error when there is no fallback', async () => {
    const vendor = flaky([new SynthesisError('HTTP 400', { status: 400 })]);
    await expect(collect(withSynthesisFallback(vendor.synthesizer, null))).rejects.toThrow('HTTP 400');
  });
});

describe('ElevenLabs falling back to the embedded voice', () => {
  let fake: FakeElevenLabs;
  const espeak = createEspeakSynthesizer();
  beforeAll(async () => {
    fake = await startFakeElevenLabs();
  });
  afterAll(async () => {
    await fake.close();
    await espeak.close();
  });

  it('speaks with eSpeak, visemes and all, when the ElevenLabs server keeps failing', async () => {
    fake.script({ status: 500 }, { status: 500 });
    const elevenlabs = createElevenLabsSynthesizer({
      apiKey: 'test-key',
      baseUrl: fake.baseUrl,
      phonemize: (text) => phonemize(text),
      phonemeToViseme: (p) => phonemesToVisemes([p])[0] ?? [],
    });
    const notices: string[] = [];
    const chunks: SpeechChunk[] = [];
    const voiced = withSynthesisFallback(elevenlabs, espeak, { backoffMs: 5, onNotice: (n) => notices.push(n.message) });
    for await (const c of voiced.synthesize({ text: 'Papa is here.', voice: { espeak: 'en-us', elevenlabs: 'JBFqnCBsd6RMkjVDRZzb' } })) chunks.push(c);
    expect(fake.requests.length).toBe(2);
    expect(notices[0]).toMatch(/^elevenlabs failed \(HTTP 500.*\); spoke with espeak instead$/);
    expect(chunks[0]!.sampleRate).toBe(22_050);
    expect(chunks.flatMap((c) => c.cues).find((c) => c.viseme !== 'sil')?.viseme).toBe('PP');
  });
});
