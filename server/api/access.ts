/**
 * Who a request is, checked against what its route allows: the author's ADMIN_TOKEN, or a signed
 * session token whose session and role fit the route. No token: 401. A token for another session
 * or role: 403. The route's handlers read the caller as `c.get('access')`.
 *
 * ```ts
 * const authorize = authorization({ adminToken: config.adminToken, tokens, now });
 * sessions.get('/:id/events', authorize(['observer', 'author']), (c) => c.json(c.get('access')));
 * ```
 */
import { timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import type { Claims, Role } from '../../shared/claims';
import type { Tokens } from '../auth/tokens';
import { problem } from './problem';

/** `expiresAt`: when the session token expires (ms since the epoch); null for the admin token. */
export type Access = { role: Role; session: string | null; participant: string | null; expiresAt: number | null };
/** What every authorized route's context holds. */
export type ApiEnv = { Variables: { access: Access } };

export interface AuthorizationOptions {
  adminToken: string;
  tokens: Tokens;
  now: () => number;
}

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The credential a request carries (the header's, else `?token=`), to tell one person from another; '' without one. */
export const credentialOf = (c: { req: Pick<Context['req'], 'header' | 'query'> }): string => {
  const header = c.req.header('authorization');
  return header?.startsWith('Bearer ') ? header.slice(7).trim() : (c.req.query('token') ?? '');
};

/**
 * Reads the credential (Authorization header, or a session token as ?token= for sockets and join
 * links) and checks it against the route. The admin token counts only in the header: a URL ends
 * up in logs, proxies and browser history.
 */
export const authorization =
  (options: AuthorizationOptions) =>
  (allowed: readonly Role[]): MiddlewareHandler<ApiEnv> =>
  async (c, next) => {
    const header = c.req.header('authorization');
    const fromHeader = header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined;
    const token = fromHeader ?? c.req.query('token');
    if (!token) return problem(c, 401, 'unauthorized', 'Send a token: Authorization: Bearer <token>, or ?token= on sockets.');
    let access: Access;
    if (sameSecret(token, options.adminToken)) {
      if (fromHeader === undefined) {
        return problem(c, 401, 'token-in-url', 'The admin token is accepted only in the Authorization header (Authorization: Bearer <token>), never in a URL. Send it as a header, or use a session token (the observer link) in the URL.');
      }
      access = { role: 'author', session: null, participant: null, expiresAt: null };
    } else {
      const verified = options.tokens.verify(token, options.now());
      if (!verified.ok) return problem(c, 401, 'unauthorized', `The token is ${verified.reason === 'expired' ? 'expired' : 'not valid'}.`);
      const claims: Claims = verified.claims;
      access = { role: claims.role, session: claims.session, participant: claims.participant, expiresAt: claims.exp };
    }
    const id = c.req.param('id') ?? '';
    if (id && access.role !== 'author' && access.session !== id) return problem(c, 403, 'forbidden', 'This token is for another session.');
    if (!allowed.includes(access.role)) return problem(c, 403, 'forbidden', `This needs the ${allowed.join(' or ')} role.`);
    c.set('access', access);
    await next();
  };

/** The `authorize(roles)` an `authorization(...)` makes, as the route factories receive it. */
export type Authorize = ReturnType<typeof authorization>;
