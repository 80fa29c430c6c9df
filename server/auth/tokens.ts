/**
 * Join tokens: signed, expiring claims naming a session, a participant and a role.
 * Stateless, so a restarted server (same secret) still honours the links it handed out.
 *
 * Format: `v1.<base64url(JSON claims)>.<base64url(HMAC-SHA256(secret, "v1." + payload))>`.
 *
 * ```ts
 * const tokens = createTokens(resolveTokenSecret(config));
 * const token = tokens.sign({ session: 's1', participant: 'ana', role: 'participant' }, config.tokenTtlMs, Date.now());
 * const result = tokens.verify(token, Date.now()); // { ok: true, claims } | { ok: false, reason }
 * ```
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Claims } from '../../shared/claims';

export type Verification = { ok: true; claims: Claims } | { ok: false; reason: 'malformed' | 'bad-signature' | 'expired' };

export interface Tokens {
  sign(claims: Omit<Claims, 'exp'>, ttlMs: number, now: number): string;
  verify(token: string, now: number): Verification;
}

const VERSION = 'v1';
const base64url = /^[A-Za-z0-9_-]+$/;

export const createTokens = (secret: string): Tokens => {
  if (secret.length === 0) throw new Error('createTokens needs a non-empty secret');
  const signature = (payload: string): string =>
    createHmac('sha256', secret).update(`${VERSION}.${payload}`).digest('base64url');

  return {
    sign({ session, participant, role }, ttlMs, now) {
      // Parsed here so a bad claim fails when signed, not later as a 'malformed' token.
      const claims = Claims.parse({ session, participant, role, exp: Math.floor(now + ttlMs) });
      const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
      return `${VERSION}.${payload}.${signature(payload)}`;
    },

    verify(token, now) {
      const parts = token.split('.');
      const [version, payload, given] = parts;
      if (parts.length !== 3 || version !== VERSION || !payload || !given || !base64url.test(payload) || !base64url.test(given)) {
        return { ok: false, reason: 'malformed' };
      }
      // Compare the encoded text, not decoded bytes: base64url decoding ignores stray trailing
      // bits, so only the exact encoding we produced is accepted.
      const expected = Buffer.from(signature(payload));
      const actual = Buffer.from(given);
      if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return { ok: false, reason: 'bad-signature' };

      let json: unknown;
      try {
        json = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        return { ok: false, reason: 'malformed' };
      }
      const claims = Claims.safeParse(json);
      if (!claims.success) return { ok: false, reason: 'malformed' };
      if (now >= claims.data.exp) return { ok: false, reason: 'expired' };
      return { ok: true, claims: claims.data };
    },
  };
};
