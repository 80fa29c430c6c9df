/**
 * What a join token claims: a session, a seat and a role, until an expiry. The roles (DESIGN §8):
 * a `participant` holds a seat and speaks in the room; an `observer` (the instructor) is hidden,
 * reads everything and steers; the `author` creates sessions and may open any of them.
 *
 * One source for the tokens that sign the claims (tokens.ts), the API's routes, the realtime
 * protocol's `welcome` and the client, which reads its own token's claims (unverified: the server
 * checks them). No Node here, so the browser imports it.
 */
import { z } from 'zod';

export const roles = ['participant', 'observer', 'author'] as const;
export const Role = z.enum(roles);
export type Role = z.infer<typeof Role>;

export const Claims = z.strictObject({
  session: z.string().min(1),
  /** The seat's participant id; null for observers and authors, who hold no seat. */
  participant: z.string().min(1).nullable(),
  role: Role,
  /** Expiry, milliseconds since the epoch; the token is valid while `now < exp`. */
  exp: z.number().int(),
});
export type Claims = z.infer<typeof Claims>;
