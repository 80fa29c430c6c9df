/**
 * Transcriber for any OpenAI-compatible `/v1/audio/transcriptions` endpoint (local Whisper servers
 * such as speaches or LocalAI, or OpenAI itself) via the `openai` SDK: multipart
 * `POST {baseUrl}/audio/transcriptions` with `file`, `model`, `language` and `prompt`; the answer is `{ "text" }`.
 *
 * ```ts
 * const whisper = createOpenAITranscriber({ apiKey: 'none', baseUrl: 'http://localhost:8000/v1' });
 * const { text } = await whisper.transcribe({ pcm, sampleRate: 16_000, language: 'en', hints: ['Nora', 'Omar'] });
 * ```
 *
 * The SDK's retries stay off (`maxRetries: 0`): `resilientTranscriber` (providers/resilience.ts) is
 * the one place that retries and times out.
 * Whisper's `prompt` is text it takes as already said, so the hints go there as a list of names.
 */
import OpenAI, { APIError, toFile } from 'openai';
import { TranscriptionError, retryAfterMs } from '../errors';
import type { Transcriber } from './port';
import { encodeWav } from '../../../shared/wav';

export interface OpenAITranscriberOptions {
  /** Local servers ignore it; the SDK still needs a value. */
  apiKey: string;
  /** Up to and including the version, e.g. `http://localhost:8000/v1`. */
  baseUrl: string;
  model?: string;
}

export const createOpenAITranscriber = (options: OpenAITranscriberOptions): Transcriber => {
  const { apiKey, baseUrl, model = 'whisper-1' } = options;
  const client = new OpenAI({ apiKey, baseURL: baseUrl, maxRetries: 0 });

  return {
    name: 'openai',
    async transcribe(request, signal) {
      try {
        const file = await toFile(encodeWav(request.pcm, request.sampleRate), 'utterance.wav', { type: 'audio/wav' });
        const result = await client.audio.transcriptions.create(
          {
            file,
            model,
            // Whisper takes ISO 639-1, not a region: "en-GB" -> "en".
            language: request.language?.split('-')[0],
            prompt: request.hints?.length ? `${request.hints.join(', ')}.` : undefined,
          },
          { signal },
        );
        return { text: result.text.trim() };
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (error instanceof APIError && error.status !== undefined) {
          const detail = (error.error as { message?: unknown } | undefined)?.message;
          throw new TranscriptionError(`HTTP ${error.status}: ${typeof detail === 'string' ? detail : error.message}`, {
            status: error.status,
            retryAfterMs: retryAfterMs(error.headers),
            cause: error,
          });
        }
        throw TranscriptionError.from(error);
      }
    },
  };
};
