/**
 * Resilience for transcription vendors: retry a failed utterance with backoff, then give up with
 * one clear error. There is no offline fallback transcriber, so the caller turns that error into
 * a `system` event and the human types instead.
 *
 * ```ts
 * const transcriber = withRetries(createElevenLabsTranscriber({ apiKey, timeoutMs: 15_000 }));
 * try {
 *   const { text } = await transcriber.transcribe({ pcm, sampleRate: 16_000, hints: ['Nora', 'Omar'] });
 * } catch (error) {
 *   log.append({ type: 'system', level: 'warn', message: (error as Error).message });
 * }
 * ```
 */
import type { Transcriber } from './port';
import { TranscriptionError } from '../errors';
import { sleepFor } from '../sleep';

export { TranscriptionError };

/**
 * Runs `call` with a signal that aborts on the caller's signal or after `timeoutMs`. A timeout
 * becomes a `TranscriptionError` saying so; the caller's abort rejects with the signal's reason,
 * whatever the SDK threw; other failures go through `describe`.
 */
export const withTimeout = async <T>(
  timeoutMs: number,
  signal: AbortSignal | undefined,
  call: (signal: AbortSignal) => Promise<T>,
  describe: (error: unknown) => TranscriptionError,
): Promise<T> => {
  const timer = AbortSignal.timeout(timeoutMs);
  try {
    return await call(signal ? AbortSignal.any([signal, timer]) : timer);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (timer.aborted) throw new TranscriptionError(`timed out after ${timeoutMs} ms`, { timeout: true, cause: error });
    throw describe(error);
  }
};

export interface RetryOptions {
  /** Retries after the first attempt, for retryable failures (network, timeout, 408, 429, 5xx). */
  retries?: number;
  baseDelayMs?: number;
  /** Caps both the exponential backoff and a vendor's Retry-After. */
  maxDelayMs?: number;
  /** Injectable so tests do not wait. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injectable jitter source, 0..1. */
  random?: () => number;
}

const detailsOf = (error: unknown): TranscriptionError['details'] => (error instanceof TranscriptionError ? error.details : {});

/** 4xx other than 408 and 429 means the request itself is wrong (bad key, bad model): retrying cannot help. */
const isRetryable = (error: unknown): boolean => {
  const { status } = detailsOf(error);
  return status === undefined || status === 408 || status === 429 || status >= 500;
};

const describe = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error);
  const { status } = detailsOf(error);
  const text = status !== undefined && !message.startsWith(`HTTP ${status}`) ? `HTTP ${status}: ${message}` : message;
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
};

/**
 * Wraps `transcriber` so a failed utterance is retried when retrying can help. After the last
 * attempt it throws a `TranscriptionError` naming the vendor, the reason and the attempts, with
 * the last failure's details (status, timeout) and the failure itself as `cause`.
 */
export const withRetries = (transcriber: Transcriber, options: RetryOptions = {}): Transcriber => {
  const { retries = 2, baseDelayMs = 250, maxDelayMs = 4000, sleep = sleepFor, random = Math.random } = options;

  const delayBefore = (attempt: number, error: unknown): number => {
    const { status, retryAfterMs } = detailsOf(error);
    if (status === 429 && retryAfterMs !== undefined) return Math.min(retryAfterMs, maxDelayMs);
    // Exponential backoff with "equal jitter": half fixed, half random.
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + (random() * ceiling) / 2);
  };

  return {
    name: transcriber.name,
    async transcribe(request, signal) {
      let lastError: unknown;
      let attempts = 0;
      for (let attempt = 0; attempt <= retries; attempt++) {
        if (attempt > 0) await sleep(delayBefore(attempt, lastError), signal);
        signal?.throwIfAborted();
        attempts++;
        try {
          return await transcriber.transcribe(request, signal);
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          lastError = error;
          if (!isRetryable(error)) break;
        }
      }
      const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
      throw new TranscriptionError(`${transcriber.name} could not transcribe the utterance (${describe(lastError)})${tries}`, {
        ...detailsOf(lastError),
        cause: lastError,
      });
    },
  };
};
