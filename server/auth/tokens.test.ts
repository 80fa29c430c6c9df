import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTokens } from './tokens';

const secret = 'a-test-secret-that-is-32-chars!!';
const tokens = createTokens(secret);
const now = 1_700_000_000_000;
const hour = 3_600_000;
const ana = { session: 'standup-1', participant: 'ana', role: 'participant' } as const;

const decode = (part: string): unknown => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('join tokens', () => {
  it('round-trips the claims with an expiry ttl from now', () => {
    const token = tokens.sign(ana, hour, now);
    expect(token).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(tokens.verify(token, now)).toEqual({ ok: true, claims: { ...ana, exp: now + hour } });
  });

  it('carries a null participant for observers and authors', () => {
    const token = tokens.sign({ session: 'standup-1', participant: null, role: 'observer' }, hour, now);
    expect(tokens.verify(token, now)).toMatchObject({ ok: true, claims: { participant: null, role: 'observer' } });
  });

  it('signs "v1." + payload with HMAC-SHA256, as documented', () => {
    const [version, payload, signature] = tokens.sign(ana, hour, now).split('.');
    expect(version).toBe('v1');
    expect(decode(payload!)).toEqual({ ...ana, exp: now + hour });
    expect(signature).toBe(createHmac('sha256', secret).update(`v1.${payload}`).digest('base64url'));
  });

  it('rejects a payload promoted to author under the original signature', () => {
    const [, payload, signature] = tokens.sign(ana, hour, now).split('.');
    const forged = `v1.${encode({ ...(decode(payload!) as object), role: 'author' })}.${signature}`;
    expect(tokens.verify(forged, now)).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('rejects a token whose signature was altered', () => {
    const token = tokens.sign(ana, hour, now);
    const [version, payload, signature] = token.split('.');
    const first = signature!.startsWith('A') ? 'B' : 'A';
    expect(tokens.verify(`${version}.${payload}.${first}${signature!.slice(1)}`, now)).toEqual({ ok: false, reason: 'bad-signature' });
    expect(tokens.verify(token.slice(0, -2), now)).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('rejects another encoding of the same signature bytes', () => {
    // 32 bytes take 43 base64url characters; the last one's two low bits are padding that decoding drops.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const token = tokens.sign(ana, hour, now);
    const twin = token.slice(0, -1) + alphabet[alphabet.indexOf(token.at(-1)!) ^ 1];
    expect(Buffer.from(twin.split('.')[2]!, 'base64url')).toEqual(Buffer.from(token.split('.')[2]!, 'base64url'));
    expect(tokens.verify(twin, now)).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('rejects a token signed with another secret', () => {
    const other = createTokens('another-secret-also-32-chars-long');
    expect(tokens.verify(other.sign(ana, hour, now), now)).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('accepts a token until the millisecond before it expires', () => {
    const token = tokens.sign(ana, hour, now);
    expect(tokens.verify(token, now + hour - 1).ok).toBe(true);
    expect(tokens.verify(token, now + hour)).toEqual({ ok: false, reason: 'expired' });
    expect(tokens.verify(token, now + 10 * hour)).toEqual({ ok: false, reason: 'expired' });
  });

  it('reports a bad signature before expiry, so a forged token learns nothing', () => {
    const other = createTokens('another-secret-also-32-chars-long');
    expect(tokens.verify(other.sign(ana, hour, now), now + 2 * hour)).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it.each([
    ['the empty string', ''],
    ['garbage', 'not a token'],
    ['two parts', 'v1.abc'],
    ['four parts', 'v1.abc.def.ghi'],
    ['another version', `v2.${encode({ ...ana, exp: now + hour })}.abc`],
    ['an empty payload', 'v1..abc'],
    ['an empty signature', 'v1.abc.'],
    ['characters outside base64url', 'v1.ab+c.de/f'],
  ])('rejects %s as malformed', (_, token) => {
    expect(tokens.verify(token, now)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('rejects correctly signed payloads that are not valid claims as malformed', () => {
    const signed = (payload: string) => `v1.${payload}.${createHmac('sha256', secret).update(`v1.${payload}`).digest('base64url')}`;
    expect(tokens.verify(signed(Buffer.from('{not json').toString('base64url')), now)).toEqual({ ok: false, reason: 'malformed' });
    expect(tokens.verify(signed(encode({ ...ana, role: 'admin', exp: now + hour })), now)).toEqual({ ok: false, reason: 'malformed' });
    expect(tokens.verify(signed(encode({ session: 'standup-1', role: 'author' })), now)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses to sign claims it would not accept', () => {
    expect(() => tokens.sign({ ...ana, session: '' }, hour, now)).toThrow();
  });

  it('refuses an empty secret', () => {
    expect(() => createTokens('')).toThrow(/non-empty secret/);
  });
});
