import { describe, expect, it } from 'vitest';
import { retryAfterMs } from './errors';

const now = Date.parse('2026-03-02T10:00:00Z');
const asked = (headers: Record<string, string>) => retryAfterMs(new Headers(headers), now);

describe('retryAfterMs, the one Retry-After parser', () => {
  it('reads delay-seconds', () => {
    expect(asked({ 'retry-after': '2' })).toBe(2000);
    expect(asked({ 'retry-after': '0' })).toBe(0);
    expect(asked({ 'retry-after': ' 120 ' })).toBe(120_000);
    expect(asked({ 'retry-after': '1.5' })).toBe(1500);
  });

  it('reads an HTTP date as the time until then', () => {
    expect(asked({ 'retry-after': 'Mon, 02 Mar 2026 10:00:07 GMT' })).toBe(7000);
    // The obsolete forms RFC 9110 still asks recipients to accept.
    expect(asked({ 'retry-after': 'Monday, 02-Mar-26 10:00:30 GMT' })).toBe(30_000);
    expect(asked({ 'retry-after': 'Mon Mar  2 10:01:00 2026' })).toBeGreaterThan(0);
  });

  it('waits nothing for a date already past', () => {
    expect(asked({ 'retry-after': 'Mon, 02 Mar 2026 09:59:00 GMT' })).toBe(0);
  });

  it("prefers OpenAI's retry-after-ms", () => {
    expect(asked({ 'retry-after-ms': '250', 'retry-after': '3' })).toBe(250);
    expect(asked({ 'retry-after-ms': 'soon', 'retry-after': '3' })).toBe(3000);
  });

  it('leaves a bad or missing value to the backoff', () => {
    for (const value of ['', '   ', '-1', '2s', 'soon', '1e3', 'NaN', 'Infinity', 'Mon, 32 Foo 2026']) {
      expect(asked({ 'retry-after': value }), value).toBeUndefined();
    }
    expect(asked({ 'retry-after-ms': '-5' })).toBeUndefined();
    expect(asked({})).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});
