/**
 * LiveKit's webhooks: who joined and left a session's media room. Each POST carries a JWT in
 * `Authorization`, signed with our API secret, whose `sha256` claim is the body's SHA-256; anything
 * unsigned, signed by someone else or changed on the way is refused before it is read.
 *
 * ```ts
 * const handle = createWebhookHandler({ apiKey, apiSecret, onPresence: (session, who, present) => … });
 * const outcome = await handle(await c.req.text(), c.req.header('authorization'));
 * if (!outcome.ok) return c.json({ error: outcome.reason, message: outcome.message }, outcome.reason === 'malformed' ? 400 : 401);
 * ```
 */
import { WebhookReceiver } from 'livekit-server-sdk';
import { isReservedIdentity, sessionOfRoom } from './tokens';

export interface WebhookOptions {
  apiKey: string;
  apiSecret: string;
  /** A human's presence in a session's media room changed (never for personas, the bridge or observers). */
  onPresence(session: string, participant: string, present: boolean): void;
}

export type WebhookOutcome =
  | { ok: true; event: string }
  | { ok: false; reason: 'unsigned' | 'bad-signature' | 'malformed'; message: string };

export type WebhookHandler = (body: string, authorization: string | undefined) => Promise<WebhookOutcome>;

/** jose's token errors (`ERR_JWS_*`, `ERR_JWT_*`) and the receiver's checksum mismatch: the signature failed. */
const isSignatureFailure = (error: unknown): boolean =>
  (typeof (error as { code?: unknown })?.code === 'string' && (error as { code: string }).code.startsWith('ERR_JW')) ||
  /sha256 checksum/.test((error as Error)?.message ?? '');

export const createWebhookHandler = (options: WebhookOptions): WebhookHandler => {
  const receiver = new WebhookReceiver(options.apiKey, options.apiSecret);
  // A reload rejoins under the same identity and LiveKit drops the old connection, possibly
  // reporting the new join first: present while any connection (sid) of that identity is in the room.
  const connections = new Map<string, Set<string>>();

  return async (body, authorization) => {
    const token = authorization?.replace(/^Bearer\s+/i, '').trim();
    if (!token) return { ok: false, reason: 'unsigned', message: 'Webhooks must carry LiveKit\'s signed token in Authorization.' };
    let event;
    try {
      event = await receiver.receive(body, token);
    } catch (error) {
      if (isSignatureFailure(error)) return { ok: false, reason: 'bad-signature', message: 'The webhook signature does not match this server\'s LiveKit key and this body.' };
      return { ok: false, reason: 'malformed', message: `The webhook body is not a LiveKit event: ${(error as Error).message}` };
    }
    const joined = event.event === 'participant_joined';
    const left = event.event === 'participant_left' || event.event === 'participant_connection_aborted';
    const session = sessionOfRoom(event.room?.name ?? '');
    const identity = event.participant?.identity ?? '';
    if ((joined || left) && session && identity && !isReservedIdentity(identity)) {
      const key = `${session}\u0000${identity}`;
      const sids = connections.get(key) ?? new Set<string>();
      const sid = event.participant?.sid || identity;
      if (joined) sids.add(sid);
      else sids.delete(sid);
      if (sids.size > 0) connections.set(key, sids);
      else connections.delete(key);
      options.onPresence(session, identity, sids.size > 0);
    }
    return { ok: true, event: event.event };
  };
};
