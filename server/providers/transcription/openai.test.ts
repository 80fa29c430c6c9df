import { describe, expect, it } from 'vitest';
import { fileBytes } from '../../../tests/fakes/multipart';
import { startFakeWhisper, type MultipartForm } from '../../../tests/fakes/whisper-server';
import { createOpenAITranscriber } from './openai';
import type { TranscriptionRequest } from './port';
import { encodeWav } from '../../../shared/wav';
import { resilientTranscriber } from '../resilience';
import { transcriberContract } from '../../../tests/providers/contracts';
import { openaiWire } from '../../../tests/providers/vendors';
import { freshFake, resilientTranscriberFor, timesOutThreeAttempts, tone, toneUtterance, transcriptionFailure } from '../../../tests/providers/scaffold';

const utterance = (overrides: Partial<TranscriptionRequest> = {}): TranscriptionRequest => toneUtterance({ language: 'en', ...overrides });

const fake = freshFake(startFakeWhisper);

const whisper = () => createOpenAITranscriber({ apiKey: 'sk-local', baseUrl: fake.baseUrl });

const resilient = (timeoutMs = 2000) => resilientTranscriberFor(whisper(), timeoutMs);

describe('openai transcriber against a fake Whisper server', () => {
  it('posts a multipart form to /v1/audio/transcriptions with a bearer key, model, language, prompt and the WAV file', async () => {
    await whisper().transcribe(utterance({ language: 'en-US' }));
    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/audio/transcriptions' });
    expect(sent!.headers.authorization).toBe('Bearer sk-local');
    expect(sent!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const form = sent!.body as MultipartForm;
    expect(form.fields).toEqual({ model: 'whisper-1', language: 'en', prompt: 'Nora Lind, Omar Haddad.' });
    expect(form.files.file).toMatchObject({ filename: 'utterance.wav', contentType: 'audio/wav' });
    const wav = fileBytes(form, 'file');
    expect(wav.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(wav.readUInt32LE(24)).toBe(16_000);
    expect(wav.equals(Buffer.from(encodeWav(tone, 16_000)))).toBe(true);
  });

  it('leaves out language and prompt when there are none, and uses the configured model', async () => {
    const local = createOpenAITranscriber({ apiKey: 'none', baseUrl: fake.baseUrl, model: 'Systran/faster-whisper-small' });
    await local.transcribe(utterance({ language: undefined, hints: [] }));
    expect((fake.requests[0]!.body as MultipartForm).fields).toEqual({ model: 'Systran/faster-whisper-small' });
  });

  it('returns the text without the leading space Whisper puts there', async () => {
    fake.script({ chunks: [' Omar, can the backend be ready by March?'] });
    expect(await whisper().transcribe(utterance())).toEqual({ text: 'Omar, can the backend be ready by March?' });
  });

});

describe('openai transcriber behind resilientTranscriber', () => {
  it('retries a 429 after its Retry-After, then returns the transcript', async () => {
    fake.script({ status: 429, retryAfterSeconds: 1 }, { chunks: ['March works.'] });
    const { transcriber, sleeps } = resilient();
    expect(await transcriber.transcribe(utterance())).toEqual({ text: 'March works.' });
    expect(fake.requests).toHaveLength(2);
    expect(sleeps).toEqual([1000]);
  });

  it('gives up after repeated 500s with an error naming the vendor, the reason and the attempts', async () => {
    fake.failNext(3, { status: 500 });
    const { transcriber, sleeps, lines } = resilient();
    const error = await transcriptionFailure(transcriber.transcribe(utterance()));
    expect(error.message).toBe('openai could not transcribe the utterance');
    expect(lines).toEqual(['vendor openai (transcription) failed: HTTP 500: The server had an error while processing your request. Sorry about that! (3 attempts); the utterance was not transcribed']);
    expect(fake.requests).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it('does not retry a 401', async () => {
    fake.setDefault({ status: 401 });
    const { transcriber, sleeps, lines } = resilient();
    const error = await transcriptionFailure(transcriber.transcribe(utterance()));
    expect(error.message).toBe('openai could not transcribe the utterance');
    expect(lines).toEqual(['vendor openai (transcription) failed: HTTP 401: Incorrect API key provided: [redacted].; the utterance was not transcribed']);
    expect(fake.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('times out a request the server does not answer, and retries it', timesOutThreeAttempts('openai', fake, resilient, utterance));

  it('says why in the log when the server cannot be reached', async () => {
    const nowhere = createOpenAITranscriber({ apiKey: 'none', baseUrl: 'http://127.0.0.1:9/v1' });
    const lines: string[] = [];
    const error = await transcriptionFailure(resilientTranscriber(nowhere, { retries: 0, timeoutMs: 2000, log: (line) => lines.push(line) }).transcribe(utterance()));
    expect(error.message).toBe('openai could not transcribe the utterance');
    expect(lines).toEqual([expect.stringMatching(/^vendor openai \(transcription\) failed: Connection error/)]);
  });
});

transcriberContract('openai', {
  start: startFakeWhisper,
  vendor: (fake) => createOpenAITranscriber({ apiKey: 'sk-local', baseUrl: fake.baseUrl }),
  env: (fake) => ({ WHISPER_BASE_URL: fake.baseUrl, WHISPER_API_KEY: 'sk-local' }),
  credential: 'WHISPER_API_KEY',
  ...openaiWire,
});
