/**
 * ElevenLabs synthesizer via `@elevenlabs/elevenlabs-js`: streams
 * `POST {baseUrl}/v1/text-to-speech/{voice_id}/stream/with-timestamps?output_format=pcm_16000`
 * with the `xi-api-key` header. The answer is newline-delimited JSON, one object per chunk:
 * base64 PCM16 audio and the characters it speaks with their start and end times.
 * Each chunk becomes a `SpeechChunk`; its character timings become viseme cues through `align.ts`.
 *
 * ```ts
 * const elevenlabs = createElevenLabsSynthesizer({ apiKey, phonemize, phonemeToViseme });
 * for await (const chunk of elevenlabs.synthesize({ text: 'Hi Nora.', voice: { elevenlabs: 'JBFqnCBsd6RMkjVDRZzb' } })) {
 *   play(chunk.pcm, chunk.sampleRate, chunk.cues);
 * }
 * ```
 *
 * Failures: one request per call, no retries here (`resilientSynthesizer` in providers/resilience.ts
 * retries and falls back; the SDK's own two retries are off). Errors are `SynthesisError`s with the HTTP status and any
 * Retry-After, or `timeout` when no chunk came for `timeoutMs`. A stream that breaks mid-way has
 * already yielded every complete chunk it received; the generator then throws, and the caller
 * cuts the utterance there. Aborting `signal` rejects with its reason.
 *
 * Character times count from the start of the request's audio, across chunks (not per chunk).
 *
 * Cues of a word arrive with the chunk that completes the word. When ElevenLabs' characters
 * mirror the request's text (they do for `alignment`) a word is known complete as soon as its
 * last character arrives; otherwise only when a space follows, and the last word's cues then
 * come in a final chunk with no samples.
 */
import { elevenLabsFailure, SynthesisError } from '../errors';
import { within } from '../resilience';
import { alignCharactersToVisemes, type CharacterAlignment, type Phonemize, type PhonemeToViseme } from './align';
import type { SpeechChunk, Synthesizer } from './port';
import { elevenLabsClient, elevenLabsSdk } from '../elevenlabs-sdk';

export type PcmFormat = 'pcm_8000' | 'pcm_16000' | 'pcm_22050' | 'pcm_24000' | 'pcm_32000' | 'pcm_44100' | 'pcm_48000';

export interface ElevenLabsSynthesizerOptions {
  apiKey: string;
  /** Overrides https://api.elevenlabs.io (fake servers, proxies, data-residency hosts). */
  baseUrl?: string;
  model?: string;
  /** Raw PCM16 mono; the number is the sample rate. */
  outputFormat?: PcmFormat;
  /** Text to phonemes for the viseme cues (eSpeak's `phonemize`). */
  phonemize: Phonemize;
  /** Phoneme to one of the 15 visemes (the table for `phonemize`'s phoneme set). */
  phonemeToViseme: PhonemeToViseme;
  /** Longest wait for the answer, and for each chunk after it. Time the caller holds a chunk does not count. */
  timeoutMs?: number;
}

const none: CharacterAlignment = { characters: [], starts: [], ends: [] };

const concat = (a: CharacterAlignment, b: CharacterAlignment): CharacterAlignment => ({
  characters: [...a.characters, ...b.characters],
  starts: [...a.starts, ...b.starts],
  ends: [...a.ends, ...b.ends],
});

const slice = (a: CharacterAlignment, from: number, to?: number): CharacterAlignment => ({
  characters: a.characters.slice(from, to),
  starts: a.starts.slice(from, to),
  ends: a.ends.slice(from, to),
});

const isSpace = (character: string | undefined) => character !== undefined && /^\s+$/u.test(character);

/** `language_code` enforces a language on the models that take it; the others answer 400 to it. */
const takesLanguage = (model: string) => /_v2_5$/.test(model);

export const createElevenLabsSynthesizer = (options: ElevenLabsSynthesizerOptions): Synthesizer => {
  const { apiKey, baseUrl, model = 'eleven_flash_v2_5', outputFormat = 'pcm_16000', phonemize, phonemeToViseme, timeoutMs = 15_000 } = options;
  const sampleRate = Number(outputFormat.slice('pcm_'.length));
  const { client, ready } = elevenLabsClient({ apiKey, ...(baseUrl ? { baseUrl } : {}) });

  return {
    name: 'elevenlabs',
    ready,
    async *synthesize(request, signal) {
      const voiceId = request.voice.elevenlabs;
      if (!voiceId) throw new SynthesisError('this voice has no ElevenLabs voice id (voice.elevenlabs); use the espeak synthesizer for it');
      // Loading the SDK is not the vendor's time: the limits below start once it is here.
      const sdk = await client;
      signal?.throwIfAborted();

      const controller = new AbortController();
      const forwardAbort = () => controller.abort(signal?.reason);
      signal?.addEventListener('abort', forwardAbort, { once: true });

      const text = [...request.text];
      let mirrors = true; // the characters so far are the request's text, in order
      let received = 0;
      let pending = none; // characters of a word whose end has not arrived yet
      let previousEnd: number | undefined;
      let closed = false;
      let samples = 0;
      let oddByte: Buffer | undefined; // a chunk may end mid-sample
      let chunks = 0;
      const after = () => (chunks > 0 ? ` after ${chunks} chunk${chunks === 1 ? '' : 's'}` : '');

      /** Cues and words for the characters that complete words; the rest waits in `pending`. */
      const align = async (incoming: CharacterAlignment, last: boolean) => {
        if (closed) return { cues: [], words: [] };
        mirrors &&= incoming.characters.join('') === text.slice(received, received + incoming.characters.length).join('');
        received += incoming.characters.length;
        const all = concat(pending, incoming);
        const done = last || (mirrors && received >= text.length);
        const wordEnds = mirrors ? received >= text.length || isSpace(text[received]) : isSpace(all.characters.at(-1));
        let ready = all.characters.length;
        if (!done && !wordEnds) while (ready > 0 && !isSpace(all.characters[ready - 1])) ready--;
        pending = slice(all, ready);
        const result = await alignCharactersToVisemes(slice(all, 0, ready), phonemize, phonemeToViseme, { previousEnd, close: done });
        previousEnd = result.words.at(-1)?.end ?? previousEnd;
        closed = done;
        return result;
      };

      /** The answer as speech chunks, before the time limit is put on it. */
      const speech = async function* (): AsyncGenerator<SpeechChunk> {
        const stream = await sdk.textToSpeech.streamWithTimestamps(
          voiceId,
          {
            text: request.text,
            modelId: model,
            outputFormat,
            // Left out, not undefined: the SDK sends an undefined optional field as `null`.
            ...(request.language && takesLanguage(model) ? { languageCode: request.language.split('-')[0] } : {}),
          },
          { abortSignal: controller.signal, maxRetries: 0 },
        );
        for await (const chunk of stream) {
          const bytes = Buffer.from(chunk.audioBase64, 'base64');
          const audio = oddByte ? Buffer.concat([oddByte, bytes]) : bytes;
          const whole = audio.length - (audio.length % 2);
          oddByte = whole < audio.length ? audio.subarray(whole) : undefined;
          const pcm = new Int16Array(whole / 2);
          for (let i = 0; i < pcm.length; i++) pcm[i] = audio.readInt16LE(i * 2);

          const timing = chunk.alignment ?? chunk.normalizedAlignment;
          const characters = timing
            ? { characters: timing.characters, starts: timing.characterStartTimesSeconds, ends: timing.characterEndTimesSeconds }
            : none;
          const { cues, words } = await align(characters, false);
          const piece: SpeechChunk = { pcm, sampleRate, offsetMs: (samples / sampleRate) * 1000, cues, words };
          samples += pcm.length;
          yield piece;
        }
      };

      const limited = within(speech(), timeoutMs, {
        controller,
        timedOut: () => new SynthesisError(`timed out${after()}: no audio for ${timeoutMs} ms`, { timeout: true }),
      });
      try {
        for await (const piece of limited) {
          chunks++;
          yield piece;
        }
        if (!closed && (pending.characters.length > 0 || previousEnd !== undefined)) {
          const { cues, words } = await align(none, true);
          yield { pcm: new Int16Array(0), sampleRate, offsetMs: (samples / sampleRate) * 1000, cues, words };
        }
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (error instanceof SynthesisError && error.details.timeout) throw error;
        const { ElevenLabsError } = await elevenLabsSdk();
        if (error instanceof ElevenLabsError && error.statusCode !== undefined) {
          const { message, ...details } = elevenLabsFailure(error);
          throw new SynthesisError(message, { ...details, cause: error });
        }
        const reason = error instanceof Error ? error.message + (error.cause instanceof Error ? `: ${error.cause.message}` : '') : String(error);
        throw new SynthesisError(chunks > 0 ? `stream broke${after()} (${reason})` : reason, { cause: error });
      } finally {
        signal?.removeEventListener('abort', forwardAbort);
        // The caller stopped early or the stream failed: close the request.
        controller.abort();
      }
    },
  };
};
