/**
 * Resilience for a synthesis vendor: a request that fails before any audio is retried once
 * (after the vendor's Retry-After, or a short backoff), then spoken by the fallback synthesizer
 * (embedded eSpeak) with a notice. A stream that breaks after some audio keeps what it gave:
 * the reply goes on with its next clause, and a notice says so.
 *
 * ```ts
 * const synthesizer = withSynthesisFallback(elevenlabs, espeak, { onNotice: (n) => log(n) });
 * ```
 */
import { SynthesisError } from '../errors';
import { sleepFor } from '../sleep';
import type { Synthesizer } from './port';

export interface SynthesisFallbackOptions {
  onNotice?: (notice: { code: string; message: string }) => void;
  /** Backoff before the one retry when the vendor gives no Retry-After. Default 250 ms. */
  backoffMs?: number;
  /** Longest Retry-After honoured; a longer one goes straight to the fallback. Default 1000 ms. */
  maxWaitMs?: number;
}

/** Worth trying again: rate limits, server errors, timeouts and transport failures (no status). */
const retryable = (error: unknown): boolean => {
  if (!(error instanceof SynthesisError)) return true;
  const { status, timeout } = error.details;
  return timeout === true || status === undefined || status === 429 || status >= 500;
};

export const withSynthesisFallback = (primary: Synthesizer, fallback: Synthesizer | null, options: SynthesisFallbackOptions = {}): Synthesizer => {
  const backoffMs = options.backoffMs ?? 250;
  const maxWaitMs = options.maxWaitMs ?? 1000;
  return {
    name: primary.name,
    async *synthesize(request, signal) {
      let lastError: unknown;
      for (let attempt = 0; attempt < 2; attempt++) {
        let yielded = 0;
        try {
          for await (const chunk of primary.synthesize(request, signal)) {
            yielded++;
            yield chunk;
          }
          return;
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          lastError = error;
          if (yielded > 0) {
            options.onNotice?.({ code: 'synthesis-cut', message: `${primary.name} speech stopped mid-way (${(error as Error).message}); the reply goes on with its next clause` });
            return;
          }
          const wait = error instanceof SynthesisError ? (error.details.retryAfterMs ?? backoffMs) : backoffMs;
          if (attempt > 0 || !retryable(error) || wait > maxWaitMs) break;
          await sleepFor(wait, signal);
        }
      }
      if (!fallback) throw lastError;
      options.onNotice?.({ code: 'synthesis-fallback', message: `${primary.name} failed (${(lastError as Error).message}); spoke with ${fallback.name} instead` });
      yield* fallback.synthesize(request, signal);
    },
    async close() {
      await primary.close?.();
    },
  };
};
