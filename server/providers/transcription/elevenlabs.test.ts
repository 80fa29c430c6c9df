import { describe, expect, it } from 'vitest';
import { startFakeElevenLabs, type MultipartForm } from '../../../tests/fakes/elevenlabs-server';
import { fileBytes } from '../../../tests/fakes/multipart';
import { createElevenLabsTranscriber } from './elevenlabs';
import { encodeWav } from '../../../shared/wav';
import { untilRequested } from '../../../tests/fakes/vendor-server';
import { transcriberContract } from '../../../tests/providers/contracts';
import { elevenlabsVendor } from '../../../tests/providers/vendors';
import { freshFake, resilientTranscriberFor, timesOutThreeAttempts, tone, toneUtterance, transcriptionFailure } from '../../../tests/providers/scaffold';

const fake = freshFake(startFakeElevenLabs);

const scribe = () => createElevenLabsTranscriber({ apiKey: 'test-key', baseUrl: fake.baseUrl });

const resilient = (timeoutMs = 2000) => resilientTranscriberFor(scribe(), timeoutMs);

describe('elevenlabs transcriber against the fake ElevenLabs API', () => {
  it('posts a multipart form to /v1/speech-to-text with the key header, model_id and the WAV file', async () => {
    await scribe().transcribe(toneUtterance({ language: 'en-GB' }));
    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/speech-to-text' });
    expect(sent!.headers['xi-api-key']).toBe('test-key');
    expect(sent!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const form = sent!.body as MultipartForm;
    expect(form.fields).toEqual({ model_id: 'scribe_v1', language_code: 'en', tag_audio_events: 'false' });
    expect(form.files.file).toMatchObject({ filename: 'utterance.wav', contentType: 'audio/wav' });
    const wav = fileBytes(form, 'file');
    expect(wav.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(wav.readUInt32LE(24)).toBe(16_000);
    expect(wav.equals(Buffer.from(encodeWav(tone, 16_000)))).toBe(true);
  });

  it('returns the text and the detected language as a BCP-47 tag ("eng" -> "en")', async () => {
    fake.script({ chunks: ['Omar, can the backend be ready by March? '] });
    expect(await scribe().transcribe(toneUtterance())).toEqual({ text: 'Omar, can the backend be ready by March?', language: 'en' });
  });

  it('sends the hints as keyterms only when asked to (they cost extra)', async () => {
    const withKeyterms = createElevenLabsTranscriber({ apiKey: 'test-key', baseUrl: fake.baseUrl, model: 'scribe_v2', keyterms: true });
    await withKeyterms.transcribe(toneUtterance());
    const form = fake.requests[0]!.body as MultipartForm;
    expect(form.fields.model_id).toBe('scribe_v2');
    expect(form.fields.keyterms).toEqual(['Nora Lind', 'Omar Haddad']);
  });

});

describe('elevenlabs transcriber behind resilientTranscriber', () => {
  it('retries a 429 after its Retry-After, then returns the transcript', async () => {
    fake.script({ status: 429, retryAfterSeconds: 1 }, { chunks: ['March works.'] });
    const { transcriber, sleeps } = resilient();
    expect(await transcriber.transcribe(toneUtterance())).toEqual({ text: 'March works.', language: 'en' });
    expect(fake.requests).toHaveLength(2);
    expect(sleeps).toEqual([1000]);
  });

  it('gives up after repeated 500s with an error naming the vendor, the reason and the attempts', async () => {
    fake.failNext(3, { status: 500 });
    const { transcriber, sleeps, lines } = resilient();
    const error = await transcriptionFailure(transcriber.transcribe(toneUtterance()));
    expect(error.message).toBe('elevenlabs could not transcribe the utterance');
    expect(lines).toEqual(['vendor elevenlabs (transcription) failed: HTTP 500: An internal server error occurred. Please try again. (internal_server_error) (3 attempts); the utterance was not transcribed']);
    expect(fake.requests).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it('does not retry a 401 invalid_api_key', async () => {
    fake.setDefault({ status: 401 });
    const { transcriber, sleeps, lines } = resilient();
    const error = await transcriptionFailure(transcriber.transcribe(toneUtterance()));
    expect(error.message).toBe('elevenlabs could not transcribe the utterance');
    expect(lines).toEqual(['vendor elevenlabs (transcription) failed: HTTP 401: Invalid API key (invalid_api_key); the utterance was not transcribed']);
    expect(error.details.status).toBe(401);
    expect(fake.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('times out a request ElevenLabs does not answer, and retries it', timesOutThreeAttempts('elevenlabs', fake, resilient, toneUtterance));

  it('rejects with the caller’s reason when the caller aborts, without retrying', async () => {
    fake.setDefault({ delayMs: 3000 });
    const controller = new AbortController();
    const transcribed = resilient().transcriber.transcribe(toneUtterance(), controller.signal);
    await untilRequested(fake, 1);
    controller.abort(new Error('the speaker left'));
    await expect(transcribed).rejects.toThrow('the speaker left');
    expect(fake.requests).toHaveLength(1);
  });
});

transcriberContract('elevenlabs', { ...elevenlabsVendor, vendor: (fake) => createElevenLabsTranscriber({ apiKey: 'test-key', baseUrl: fake.baseUrl }) });
