/**
 * Resilience for vendor generators: retry a failed turn with backoff, then let the embedded
 * generator speak for that turn, so a room never stalls on a flaky or rate-limited vendor.
 *
 * ```ts
 * const generator = withFallback(createGeminiGenerator({ apiKey }), createScriptedGenerator(), {
 *   onNotice: (notice) => log.append({ type: 'system', level: 'warn', ...notice }),
 * });
 * ```
 *
 * Text already shown is never repeated: a vendor that fails after its first delta ends the turn
 * with what it said (`generator-truncated`); only a turn with no text yet is handed to the fallback.
 * A vendor that answers with no text at all is handed to the fallback at once.
 */
import { rngFrom } from '../../engine/rng';
import type { Generator } from './port';
import type { GenerateRequest } from '../../engine/requests';
import { GeneratorError } from '../errors';
import { sleepFor } from '../sleep';

export { GeneratorError };

export interface Notice {
  /** `generator-fallback` (the fallback spoke this turn) or `generator-truncated` (the reply stopped mid-way). */
  code: string;
  message: string;
}

export interface FallbackOptions {
  /** Retries after the first attempt, for retryable failures (network, timeout, 408, 429, 5xx). */
  retries?: number;
  baseDelayMs?: number;
  /** Caps both the exponential backoff and a vendor's Retry-After. */
  maxDelayMs?: number;
  /** Longest wait for the first delta, and between deltas. */
  timeoutMs?: number;
  onNotice?: (notice: Notice) => void;
  /** Injectable so tests do not wait. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const statusOf = (error: unknown): number | undefined => {
  const status = (error as { details?: { status?: unknown }; status?: unknown } | null)?.details?.status ??
    (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
};

/** 4xx other than 408 and 429 means the request itself is wrong (bad key, bad model): retrying cannot help. */
const isRetryable = (error: unknown): boolean => {
  const status = statusOf(error);
  return status === undefined || status === 408 || status === 429 || status >= 500;
};

const describe = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error);
  const status = statusOf(error);
  const text = status !== undefined && !message.startsWith(`HTTP ${status}`) ? `HTTP ${status}: ${message}` : message;
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
};

/** The variant seeds the jitter: deterministic per turn, yet spread across concurrent turns. */
const jitterSeed = (request: GenerateRequest, attempt: number): number => {
  const { variant } = request.cue;
  const base = Number.isInteger(variant) ? variant : Math.floor(variant * 2 ** 32);
  return (base ^ Math.imul(attempt, 0x9e3779b1)) >>> 0;
};

/**
 * Yields `source`'s deltas, failing with a timeout when the first delta or any later one takes
 * longer than `timeoutMs`. On timeout it aborts `controller`, so the vendor request is cancelled.
 */
async function* within<T>(source: AsyncIterable<T>, timeoutMs: number, controller: AbortController): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let finished = false;
  try {
    while (true) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const next = iterator.next();
      // The losing promise of the race may still reject later; it is already handled here.
      next.catch(() => undefined);
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new GeneratorError(`timed out after ${timeoutMs} ms`, { timeout: true })), timeoutMs);
      });
      try {
        const result = await Promise.race([next, timeout]);
        if (result.done) {
          finished = true;
          return;
        }
        yield result.value;
      } catch (error) {
        if (error instanceof GeneratorError && error.details.timeout) controller.abort(error);
        throw error;
      } finally {
        clearTimeout(timer);
      }
    }
  } finally {
    // Close the vendor stream without waiting for it: after a timeout it may never settle.
    if (!finished) iterator.return?.().catch(() => undefined);
  }
}

/**
 * Wraps `primary` so that a failed turn is retried and, when retries cannot help, spoken by
 * `fallback` instead. The returned generator reports the primary's name.
 */
export const withFallback = (primary: Generator, fallback: Generator, options: FallbackOptions = {}): Generator => {
  const { retries = 2, baseDelayMs = 250, maxDelayMs = 4000, timeoutMs = 20_000, onNotice, sleep = sleepFor } = options;

  const delayBefore = (attempt: number, error: unknown, request: GenerateRequest): number => {
    const retryAfterMs = (error as { details?: { retryAfterMs?: number } } | null)?.details?.retryAfterMs;
    if (statusOf(error) === 429 && retryAfterMs !== undefined) return Math.min(retryAfterMs, maxDelayMs);
    // Exponential backoff with "equal jitter": half fixed, half random.
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + (rngFrom(jitterSeed(request, attempt)).next() * ceiling) / 2);
  };

  return {
    name: primary.name,
    async *stream(request, signal) {
      let lastError: unknown;
      let attempts = 0;
      for (let attempt = 0; attempt <= retries; attempt++) {
        if (attempt > 0) await sleep(delayBefore(attempt, lastError, request), signal);
        signal?.throwIfAborted();
        attempts++;
        const controller = new AbortController();
        const forwardAbort = () => controller.abort(signal?.reason);
        signal?.addEventListener('abort', forwardAbort, { once: true });
        let yielded = false;
        try {
          for await (const delta of within(primary.stream(request, controller.signal), timeoutMs, controller)) {
            yielded = true;
            yield delta;
          }
          if (yielded) return;
          // An empty reply (a safety block, a token budget spent on thinking) is no utterance.
          lastError = new GeneratorError('returned no text');
          break;
        } catch (error) {
          if (signal?.aborted) throw error;
          if (yielded) {
            onNotice?.({
              code: 'generator-truncated',
              message: `${primary.name} stopped mid-reply (${describe(error)}); kept the partial text for this turn`,
            });
            return;
          }
          lastError = error;
          if (!isRetryable(error)) break;
        } finally {
          signal?.removeEventListener('abort', forwardAbort);
        }
      }
      const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
      onNotice?.({
        code: 'generator-fallback',
        message: `${primary.name} failed (${describe(lastError)})${tries}; used ${fallback.name} for this turn`,
      });
      yield* fallback.stream(request, signal);
    },
  };
};
