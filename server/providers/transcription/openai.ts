/**
 * Transcriber for any OpenAI-compatible `/v1/audio/transcriptions` endpoint (local Whisper servers
 * such as speaches or LocalAI, or OpenAI itself) via the `openai` SDK: multipart
 * `POST {baseUrl}/audio/transcriptions` with `file`, `model`, `language` and `prompt`; the answer is `{ "text" }`.
 *
 * ```ts
 * const whisper = createOpenAITranscriber({ apiKey: 'none', baseUrl: 'http://localhost:8000/v1', timeoutMs: 15_000 });
 * const { text } = await whisper.transcribe({ pcm, sampleRate: 16_000, language: 'en', hints: ['Nora', 'Omar'] });
 * ```
 *
 * The SDK's retries stay off (`maxRetries: 0`): `withRetries` is the one place that retries.
 * Whisper's `prompt` is text it takes as already said, so the hints go there as a list of names.
 */
import OpenAI, { APIConnectionTimeoutError, APIError, toFile } from 'openai';
import type { Transcriber } from './port';
import { TranscriptionError, withTimeout } from './resilient';
import { encodeWav } from '../../media/wav';

export interface OpenAITranscriberOptions {
  /** Local servers ignore it; the SDK still needs a value. */
  apiKey: string;
  /** Up to and including the version, e.g. `http://localhost:8000/v1`. */
  baseUrl: string;
  model?: string;
  /** Limit for one request, upload to answer. */
  timeoutMs?: number;
}

/** `retry-after-ms` (OpenAI's own), else `retry-after` in seconds. */
const retryAfterMs = (headers: Headers | undefined): number | undefined => {
  const ms = Number(headers?.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(ms)) return ms;
  const seconds = Number(headers?.get('retry-after') ?? Number.NaN);
  return Number.isFinite(seconds) ? seconds * 1000 : undefined;
};

export const createOpenAITranscriber = (options: OpenAITranscriberOptions): Transcriber => {
  const { apiKey, baseUrl, model = 'whisper-1', timeoutMs = 15_000 } = options;
  const client = new OpenAI({ apiKey, baseURL: baseUrl, maxRetries: 0, timeout: timeoutMs });

  return {
    name: 'openai',
    transcribe: (request, signal) =>
      withTimeout(
        timeoutMs,
        signal,
        async (abortSignal) => {
          const file = await toFile(encodeWav(request.pcm, request.sampleRate), 'utterance.wav', { type: 'audio/wav' });
          const result = await client.audio.transcriptions.create(
            {
              file,
              model,
              // Whisper takes ISO 639-1, not a region: "en-GB" -> "en".
              language: request.language?.split('-')[0],
              prompt: request.hints?.length ? `${request.hints.join(', ')}.` : undefined,
            },
            { signal: abortSignal },
          );
          return { text: result.text.trim() };
        },
        (error) => {
          if (error instanceof APIConnectionTimeoutError) {
            return new TranscriptionError(`timed out after ${timeoutMs} ms`, { timeout: true, cause: error });
          }
          if (error instanceof APIError && error.status !== undefined) {
            const detail = (error.error as { message?: unknown } | undefined)?.message;
            return new TranscriptionError(`HTTP ${error.status}: ${typeof detail === 'string' ? detail : error.message}`, {
              status: error.status,
              retryAfterMs: retryAfterMs(error.headers),
              cause: error,
            });
          }
          return TranscriptionError.from(error);
        },
      ),
  };
};
