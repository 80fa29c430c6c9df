/**
 * The one shape every refusal of the API takes: `{ error, message }`, where `error` is a stable code
 * a client can branch on and `message` says what to do, in a sentence a person can act on.
 *
 * ```ts
 * app.get('/api/sessions/:id', (c) => (store.session(id) ? c.json(row) : problem(c, 404, 'not-found', `No session "${id}".`)));
 * // 404 {"error":"not-found","message":"No session \"abc\"."}
 * ```
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export const problem = (c: Context, status: ContentfulStatusCode, error: string, message: string, headers?: Record<string, string>): Response =>
  c.json({ error, message }, status, headers);
