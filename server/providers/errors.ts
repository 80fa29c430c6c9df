/**
 * What every provider port (generator, synthesis, transcription) reports when a vendor call fails:
 * the facts a retry policy needs. Each port names its own subclass, so logs say which port failed.
 */
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
