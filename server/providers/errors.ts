/**
 * What every provider port (generator, synthesis, transcription) reports when a vendor call fails:
 * the facts a retry policy needs. Each port names its own subclass, so logs say which port failed.
 * Every vendor reads how long it was asked to wait with `retryAfterMs`, the one Retry-After parser:
 *
 * ```ts
 * throw new GeneratorError(`HTTP ${status}: ${text}`, { status, retryAfterMs: retryAfterMs(response.headers) });
 * retryAfterMs(new Headers({ 'retry-after': '2' })); // 2000
 * retryAfterMs(new Headers({ 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' })); // ms until then, 0 if past
 * ```
 */
import type { ElevenLabsError } from '@elevenlabs/elevenlabs-js';

export interface ProviderErrorDetails {
  /** HTTP status, when the vendor answered with one. */
  status?: number;
  /** How long the vendor asked us to wait (Retry-After, Gemini's RetryInfo). */
  retryAfterMs?: number;
  /** No answer within the time limit. */
  timeout?: boolean;
  cause?: unknown;
}

export class ProviderError extends Error {
  constructor(
    message: string,
    readonly details: ProviderErrorDetails = {},
  ) {
    super(message, { cause: details.cause });
  }

  /** Wraps a transport failure, keeping its cause's reason ("fetch failed: connect ECONNREFUSED ..."). */
  static from<E extends ProviderError>(this: new (message: string, details?: ProviderErrorDetails) => E, error: unknown): E {
    if (error instanceof this) return error;
    if (!(error instanceof Error)) return new this(String(error), { cause: error });
    const reason = error.cause instanceof Error ? error.cause.message : undefined;
    return new this(reason ? `${error.message}: ${reason}` : error.message, { cause: error });
  }
}

export class GeneratorError extends ProviderError {
  override readonly name = 'GeneratorError';
}

export class SynthesisError extends ProviderError {
  override readonly name = 'SynthesisError';
}

export class TranscriptionError extends ProviderError {
  override readonly name = 'TranscriptionError';
}

/** A non-negative number, as HTTP's delay-seconds is (a fraction tolerated): "2", "1.5"; not "-1", "2s", "". */
const DELAY = /^\s*\d+(?:\.\d+)?\s*$/;

/**
 * How long a vendor asked us to wait, in ms, from its answer's headers: OpenAI's `retry-after-ms`,
 * else `Retry-After` (RFC 9110 §10.2.3) as seconds or as an HTTP date (a date already past: 0).
 * Anything else (absent, negative, "soon") is undefined: the backoff decides. `now` is for tests.
 */
export const retryAfterMs = (headers: Pick<Headers, 'get'> | undefined, now = Date.now()): number | undefined => {
  const ms = headers?.get('retry-after-ms');
  if (ms && DELAY.test(ms)) return Number(ms);
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  if (DELAY.test(value)) return Math.round(Number(value) * 1000);
  // Only a date names a weekday or a month; Date.parse alone would take "12" for the year 2001.
  if (!/[a-z]{3}/i.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
};

const detailText = (detail: unknown): string | undefined => {
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) return detail.map((item: { msg?: unknown }) => String(item?.msg ?? JSON.stringify(item))).join('; ');
  const { message, status } = (detail ?? {}) as { message?: unknown; status?: unknown };
  if (typeof message !== 'string') return undefined;
  return typeof status === 'string' ? `${message} (${status})` : message;
};

/**
 * What a retry policy needs from an `ElevenLabsError`: the status, the human part of the body
 * (`{"detail": {"status": "invalid_api_key", "message": "..."}}`, or FastAPI's `{"detail": [{"msg": ...}]}`)
 * and any `Retry-After`. Shared by the ElevenLabs synthesizer and transcriber.
 */
export const elevenLabsFailure = (error: ElevenLabsError): { message: string; status?: number; retryAfterMs?: number } => {
  // Without a body the SDK's own message is "Status code: 500\nBody: ..." on several lines.
  const text = detailText((error.body as { detail?: unknown } | undefined)?.detail) ?? error.message.replace(/\s+/g, ' ');
  return {
    message: error.statusCode !== undefined ? `HTTP ${error.statusCode}: ${text}` : text,
    status: error.statusCode,
    retryAfterMs: retryAfterMs(error.rawResponse?.headers),
  };
};

/** Gemini sends no Retry-After header the SDK passes on; it puts the delay in the error body: `details: [{ "@type": ".../google.rpc.RetryInfo", "retryDelay": "7s" }]`. */
export const geminiRetryDelayMs = (message: string): number | undefined => {
  const match = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(message);
  return match ? Math.round(Number(match[1]) * 1000) : undefined;
};

/** `@google/genai`'s `ApiError.message` is the JSON error body; keep its human part. */
export const geminiErrorText = (message: string): string => {
  try {
    const body = JSON.parse(message) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') return body.error.message;
  } catch {
    // not JSON: the message is already plain text
  }
  return message;
};
