import { describe, expect, it } from 'vitest';
import { startFakeGemini } from '../../../tests/fakes/gemini-server';
import { createGeminiTranscriber } from './gemini';
import type { TranscriptionRequest } from './port';
import { encodeWav } from '../../../shared/wav';
import { untilRequested } from '../../../tests/fakes/vendor-server';
import { transcriberContract } from '../../../tests/providers/contracts';
import { geminiVendor } from '../../../tests/providers/vendors';
import { freshFake, resilientTranscriberFor, timesOutThreeAttempts, tone, toneUtterance, transcriptionFailure } from '../../../tests/providers/scaffold';

const utterance = (overrides: Partial<TranscriptionRequest> = {}): TranscriptionRequest => toneUtterance({ language: 'en', ...overrides });

const fake = freshFake(startFakeGemini);

const gemini = () => createGeminiTranscriber({ apiKey: 'test-key', baseUrl: fake.baseUrl });

const resilient = (timeoutMs = 2000) => resilientTranscriberFor(gemini(), timeoutMs);

describe('gemini transcriber against the fake Gemini API', () => {
  it('posts the utterance as base64 WAV inline data to :generateContent with the key header', async () => {
    await gemini().transcribe(utterance());
    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1beta/models/gemini-2.5-flash:generateContent' });
    expect(sent!.headers['x-goog-api-key']).toBe('test-key');
    const [instruction, audio] = sent!.body.contents[0].parts;
    expect(audio.inlineData.mimeType).toBe('audio/wav');
    const wav = Buffer.from(audio.inlineData.data, 'base64');
    expect(wav.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(wav.subarray(8, 12).toString('latin1')).toBe('WAVE');
    expect(wav.readUInt32LE(24)).toBe(16_000);
    expect(wav.equals(Buffer.from(encodeWav(tone, 16_000)))).toBe(true);
    expect(instruction.text).toMatch(/^Transcribe the speech in this audio verbatim/);
    expect(instruction.text).toContain('Names and terms that may be said: Nora Lind, Omar Haddad.');
    expect(instruction.text).toContain('The expected language is "en".');
    expect(sent!.body.generationConfig).toMatchObject({ temperature: 0, thinkingConfig: { thinkingBudget: 0 } });
  });

  it('carries the sample rate of the utterance in the WAV header', async () => {
    await gemini().transcribe(utterance({ sampleRate: 48_000, hints: undefined, language: undefined }));
    const [instruction, audio] = fake.requests[0]!.body.contents[0].parts;
    expect(Buffer.from(audio.inlineData.data, 'base64').readUInt32LE(24)).toBe(48_000);
    expect(instruction.text).not.toMatch(/Names and terms|expected language/);
  });

  it('returns the transcript without surrounding whitespace, and no language (Gemini does not report one)', async () => {
    fake.script({ chunks: [' Omar, can the backend ', 'be ready by March?\n'] });
    expect(await gemini().transcribe(utterance())).toEqual({ text: 'Omar, can the backend be ready by March?' });
  });

  it('uses the configured model', async () => {
    await createGeminiTranscriber({ apiKey: 'test-key', baseUrl: fake.baseUrl, model: 'gemini-2.5-flash-lite' }).transcribe(utterance());
    expect(fake.requests[0]!.path).toBe('/v1beta/models/gemini-2.5-flash-lite:generateContent');
  });

});

describe('gemini transcriber behind resilientTranscriber', () => {
  it('retries a 429 after the delay Gemini asked for, then returns the transcript', async () => {
    fake.script({ status: 429, retryAfterSeconds: 2 }, { chunks: ['March works.'] });
    const { transcriber, sleeps } = resilient();
    expect(await transcriber.transcribe(utterance())).toEqual({ text: 'March works.' });
    expect(fake.requests).toHaveLength(2);
    expect(sleeps).toEqual([2000]);
  });

  it('gives up after repeated 500s with an error naming the vendor, the reason and the attempts', async () => {
    fake.failNext(3, { status: 500 });
    const { transcriber, sleeps, lines } = resilient();
    const error = await transcriptionFailure(transcriber.transcribe(utterance()));
    expect(error.message).toBe('gemini could not transcribe the utterance');
    expect(lines).toEqual([expect.stringMatching(/^vendor gemini \(transcription\) failed: HTTP 500: An internal error has occurred.* \(3 attempts\); the utterance was not transcribed$/)]);
    expect(error.details.status).toBe(500);
    expect(fake.requests).toHaveLength(3);
    // Equal jitter with random() = 0.5: 3/4 of 250 ms, then of 500 ms.
    expect(sleeps).toEqual([188, 375]);
  });

  it('does not retry a 401: a bad key does not get better', async () => {
    fake.setDefault({ status: 401 });
    const { transcriber, sleeps, lines } = resilient();
    const error = await transcriptionFailure(transcriber.transcribe(utterance()));
    expect(error.message).toBe('gemini could not transcribe the utterance');
    expect(lines).toEqual([expect.stringMatching(/^vendor gemini \(transcription\) failed: HTTP 401: API key not valid.*; the utterance was not transcribed$/)]);
    expect(fake.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('times out a request Gemini does not answer, and retries it', timesOutThreeAttempts('gemini', fake, resilient, utterance));

  it('stops at once when the caller aborts', async () => {
    fake.setDefault({ delayMs: 3000 });
    const { transcriber } = resilient();
    const controller = new AbortController();
    const transcribed = transcriber.transcribe(utterance(), controller.signal);
    await untilRequested(fake, 1);
    controller.abort(new Error('the speaker left'));
    await expect(transcribed).rejects.toThrow('the speaker left');
    expect(fake.requests).toHaveLength(1);
  });
});

transcriberContract('gemini', { ...geminiVendor, vendor: (fake) => createGeminiTranscriber({ apiKey: 'test-key', baseUrl: fake.baseUrl }) });
