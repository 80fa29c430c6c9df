/**
 * ElevenLabs speech-to-text via `@elevenlabs/elevenlabs-js`: multipart `POST {baseUrl}/v1/speech-to-text`
 * with the `xi-api-key` header, `model_id` and the utterance as a WAV `file`; the answer is
 * `{ language_code, language_probability, text, words: [...] }`.
 *
 * ```ts
 * const scribe = createElevenLabsTranscriber({ apiKey: process.env.ELEVENLABS_API_KEY! });
 * const { text, language } = await scribe.transcribe({ pcm, sampleRate: 16_000 });
 * ```
 *
 * The SDK retries 408/429/5xx twice on its own by default; that stays off (`maxRetries: 0`) so
 * `resilientTranscriber` (providers/resilience.ts) is the one place that retries and times out:
 * it aborts `signal` when the time is up.
 */
import type { Transcriber } from './port';
import { elevenLabsFailure, TranscriptionError } from '../errors';
import { encodeWav } from '../../../shared/wav';
import { elevenLabsClient, elevenLabsSdk } from '../elevenlabs-sdk';

export interface ElevenLabsTranscriberOptions {
  apiKey: string;
  model?: string;
  /** Overrides https://api.elevenlabs.io (fake servers, proxies, data-residency hosts). */
  baseUrl?: string;
  /**
   * Sends `hints` as `keyterms` to bias recognition towards participants' names. Off by default:
   * ElevenLabs bills keyterms with a surcharge and not every Scribe model accepts them.
   */
  keyterms?: boolean;
}

/** Scribe reports ISO 639-3 ("eng"); the port speaks BCP-47, which uses the two-letter code where one exists. */
const twoLetter: Record<string, string> = {
  ara: 'ar', ces: 'cs', dan: 'da', deu: 'de', ell: 'el', eng: 'en', fin: 'fi', fra: 'fr', heb: 'he', hin: 'hi',
  hun: 'hu', ind: 'id', ita: 'it', jpn: 'ja', kor: 'ko', nld: 'nl', nor: 'no', pol: 'pl', por: 'pt', ron: 'ro',
  rus: 'ru', spa: 'es', swe: 'sv', tha: 'th', tur: 'tr', ukr: 'uk', vie: 'vi', zho: 'zh', cmn: 'zh',
};

export const createElevenLabsTranscriber = (options: ElevenLabsTranscriberOptions): Transcriber => {
  const { apiKey, model = 'scribe_v1', baseUrl, keyterms = false } = options;
  const { client, ready } = elevenLabsClient({ apiKey, ...(baseUrl ? { baseUrl } : {}) });

  return {
    name: 'elevenlabs',
    ready,
    async transcribe(request, signal) {
      const sdk = await client;
      try {
        const result = await sdk.speechToText.convert(
          {
            modelId: model,
            file: { data: encodeWav(request.pcm, request.sampleRate), filename: 'utterance.wav', contentType: 'audio/wav' },
            // Scribe takes ISO 639-1 or 639-3, not a region: "en-GB" -> "en".
            languageCode: request.language?.split('-')[0],
            // "(laughter)" and the like are not words anyone said.
            tagAudioEvents: false,
            keyterms: keyterms && request.hints?.length ? request.hints : undefined,
          },
          { abortSignal: signal, maxRetries: 0 },
        );
        const code = result.languageCode?.toLowerCase();
        return { text: result.text.trim(), language: code ? (twoLetter[code] ?? code) : undefined };
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        const { ElevenLabsError } = await elevenLabsSdk();
        if (!(error instanceof ElevenLabsError)) throw TranscriptionError.from(error);
        const { message, ...details } = elevenLabsFailure(error);
        throw new TranscriptionError(message, { ...details, cause: error });
      }
    },
  };
};
