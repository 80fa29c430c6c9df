/**
 * The LiveKit media plane's routes:
 *
 *   POST /api/sessions/:id/livekit-token   any role of the session: { url, token } for its LiveKit room (the
 *                                          author gets an observer's); 409 livekit-off without LiveKit
 *   POST /api/livekit/webhook              LiveKit's signed webhooks (only with LiveKit): humans' media presence,
 *                                          checked against LiveKit's signature of the body, not a token
 *
 * ```ts
 * app.route('/api', livekit({ authorize, livekit: config.livekit ?? null, rooms, now, onPresence }));
 * ```
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { roles } from '../../shared/claims';
import type { Config } from '../config';
import { mintLiveKitToken } from '../livekit/tokens';
import { createWebhookHandler } from '../livekit/webhooks';
import type { Rooms } from '../rooms/rooms';
import type { ApiEnv, Authorize } from './access';
import { problem } from './problem';

export interface LiveKitOptions {
  authorize: Authorize;
  /** LIVEKIT_URL and its key; null: LiveKit is off (tokens answer 409, no webhook route). */
  livekit: Config['livekit'] | null;
  rooms: Rooms;
  now: () => number;
  /** A human joined (true) or left (false) a session's LiveKit room, as LiveKit's webhooks report it. */
  onPresence?(session: string, participant: string, present: boolean): void;
}

/**
 * A LiveKit token is checked only when a client connects (LiveKit renews it on a live connection),
 * so it lives an hour at most, and never past the session token it was traded for.
 */
const LIVEKIT_TOKEN_TTL_MS = 3_600_000;
/** LiveKit's webhook events are a few hundred bytes. */
const MAX_WEBHOOK_BYTES = 64 * 1024;

export const livekit = (options: LiveKitOptions): Hono<ApiEnv> => {
  const { livekit: config, rooms, now } = options;
  const app = new Hono<ApiEnv>();

  app.post('/sessions/:id/livekit-token', options.authorize(roles), async (c) => {
    if (!config) {
      return problem(c, 409, 'livekit-off', 'LiveKit is not configured on this server (LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET); use the session socket.');
    }
    const id = c.req.param('id');
    const room = rooms.get(id);
    if (!room || room.ended()) return problem(c, 404, 'not-found', `No live session "${id}".`);
    const access = c.get('access');
    const ttlMs = Math.min(LIVEKIT_TOKEN_TTL_MS, (access.expiresAt ?? Infinity) - now());
    const ttlSeconds = Math.max(1, Math.floor(ttlMs / 1000));
    let token: string;
    if (access.role === 'participant') {
      const seat = room.scene.participants.find((p) => p.id === access.participant);
      if (!seat) return problem(c, 403, 'forbidden', 'This token names no seat of the session.');
      token = await mintLiveKitToken(config, { session: id, role: 'participant', participant: seat.id, name: seat.name, avatar: seat.avatar ?? null, ttlSeconds });
    } else {
      // Observers and the author hold no seat: hidden, listening only (DESIGN.md §8).
      token = await mintLiveKitToken(config, { session: id, role: 'observer', participant: null, name: access.role === 'author' ? 'Author' : 'Observer', avatar: null, ttlSeconds });
    }
    return c.json({ url: config.url, token });
  });

  if (config) {
    const receive = createWebhookHandler({
      apiKey: config.apiKey,
      apiSecret: config.apiSecret,
      onPresence: (session, participant, present) => options.onPresence?.(session, participant, present),
    });
    app.post(
      '/livekit/webhook',
      bodyLimit({ maxSize: MAX_WEBHOOK_BYTES, onError: (c) => problem(c, 413, 'too-large', `Webhook bodies are limited to ${MAX_WEBHOOK_BYTES} bytes.`) }),
      async (c) => {
        // The signature covers the exact bytes sent, so the body is read as text, never re-serialised.
        const outcome = await receive(await c.req.text(), c.req.header('authorization'));
        if (!outcome.ok) return problem(c, outcome.reason === 'malformed' ? 400 : 401, outcome.reason, outcome.message);
        return c.json({ received: outcome.event });
      },
    );
  }
  return app;
};
