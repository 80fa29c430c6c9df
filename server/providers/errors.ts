/**
 * What every provider port (generator, synthesis, transcription) reports when a vendor call fails:
 * the facts a retry policy needs. Each port names its own subclass, so logs say which port failed.
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
  const retryAfter = Number(error.rawResponse?.headers.get('retry-after') ?? Number.NaN);
  return {
    message: error.statusCode !== undefined ? `HTTP ${error.statusCode}: ${text}` : text,
    status: error.statusCode,
    retryAfterMs: Number.isFinite(retryAfter) ? retryAfter * 1000 : undefined,
  };
};

/** Gemini puts its Retry-After in the error body: `details: [{ "@type": ".../google.rpc.RetryInfo", "retryDelay": "7s" }]`. */
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
