/**
 * Secrets out of a vendor's words. A vendor's error text can echo the credential it was sent
 * ("Incorrect API key provided: sk-…", a URL with `?key=`); before such text reaches the server's
 * log it passes through `redact`, which blanks the configured secret values and anything shaped
 * like a credential. Clients never see vendor text at all (providers/resilience.ts).
 *
 * ```ts
 * const secrets = secretsOf(process.env); // every *_KEY, *_SECRET and *_TOKEN value
 * log(redact('HTTP 401: Incorrect API key provided: sk-live-123', secrets)); // "HTTP 401: Incorrect API key provided: [redacted]"
 * ```
 */

const HIDDEN = '[redacted]';

/** Shapes of credentials, whatever their value: query parameters, headers, bearer tokens, known key formats. */
const shapes: readonly [RegExp, string][] = [
  // ?key=…, &api_key=…, access_token=…, "token": "…"
  [/\b((?:api[_-]?)?key|access[_-]?token|token|secret|password)(["']?\s*[=:]\s*["']?)[^\s"'&,;}]+/gi, `$1$2${HIDDEN}`],
  // Headers as a client sends them, or as a vendor quotes them back.
  [/\b(x-goog-api-key|xi-api-key|x-api-key|api-key|authorization)(["']?\s*[=:]\s*["']?)(?:Bearer\s+)?[^\s"',;}]+/gi, `$1$2${HIDDEN}`],
  [/\bBearer\s+[\w.~+/=-]+/gi, `Bearer ${HIDDEN}`],
  // OpenAI-style (sk-…, sk-proj-…) and Google (AIza…) keys.
  [/\bsk-[\w-]{3,}/g, HIDDEN],
  [/\bAIza[\w-]{20,}/g, HIDDEN],
];

/** Configured values shorter than this are not secrets worth hunting for ("none", "test"). */
const MIN_SECRET_LENGTH = 6;

/** The values of every variable named like a credential (`*_KEY`, `*_SECRET`, `*_TOKEN`). */
export const secretsOf = (env: Record<string, string | undefined>): string[] =>
  Object.entries(env).flatMap(([name, value]) => {
    const trimmed = value?.trim();
    return /(_KEY|_SECRET|_TOKEN)$/.test(name) && trimmed && trimmed.length >= MIN_SECRET_LENGTH ? [trimmed] : [];
  });

/** `text` with every secret in `secrets`, and anything shaped like a credential, replaced by `[redacted]`. */
export const redact = (text: string, secrets: readonly string[] = []): string => {
  let safe = text;
  // Longest first, so a secret that contains another is blanked whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length >= MIN_SECRET_LENGTH) safe = safe.split(secret).join(HIDDEN);
  }
  for (const [shape, replacement] of shapes) safe = safe.replace(shape, replacement);
  return safe;
};
