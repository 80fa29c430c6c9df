import { describe, expect, it } from 'vitest';
import { redact, secretsOf } from './redact';

describe('redact', () => {
  it('blanks the configured secrets wherever they appear', () => {
    expect(redact('bad key abc123XYZ in request; abc123XYZ again', ['abc123XYZ'])).toBe('bad key [redacted] in request; [redacted] again');
  });

  it.each([
    ['GET https://x.test/v1/models?key=AIzaSyD-0123456789abcdefghijk&alt=sse', 'GET https://x.test/v1/models?key=[redacted]&alt=sse'],
    ['header x-goog-api-key: 9f8e7d6c5b4a', 'header x-goog-api-key: [redacted]'],
    ['{"xi-api-key":"0a1b2c3d4e"}', '{"xi-api-key":"[redacted]"}'],
    ['Authorization: Bearer eyJhbGciOi.J9.abc', 'Authorization: [redacted]'],
    ['sent Bearer tok_123456 to the vendor', 'sent Bearer [redacted] to the vendor'],
    ['Incorrect API key provided: sk-proj-abc123.', 'Incorrect API key provided: [redacted].'],
    ['api_key=hunter2hunter2 and token=abc', 'api_key=[redacted] and token=[redacted]'],
  ])('blanks anything shaped like a credential: %s', (text, safe) => {
    expect(redact(text)).toBe(safe);
  });

  it('leaves ordinary vendor text alone', () => {
    const text = 'HTTP 401: API key not valid. Please pass a valid API key. (maxOutputTokens: 60)';
    expect(redact(text, ['none'])).toBe(text);
  });
});

describe('secretsOf', () => {
  it('takes the values of *_KEY, *_SECRET and *_TOKEN variables, not short placeholders or other settings', () => {
    const env = { GEMINI_API_KEY: ' AIzaSecret123 ', OPENAI_API_KEY: 'none', TOKEN_SECRET: 's'.repeat(32), ADMIN_TOKEN: 'admin-token-1', GEMINI_MODEL: 'gemini-2.5-flash', PORT: '8787' };
    expect(secretsOf(env).sort()).toEqual(['AIzaSecret123', 'admin-token-1', 's'.repeat(32)].sort());
  });
});
