/**
 * Requests for a session another node runs, sent there (several servers on one database). Only
 * what needs the live room is sent: its snapshot and its end (`/api/sessions/:id`), its socket and
 * its LiveKit token. Everything else (the sessions page, the events, the review, the debrief, the
 * compare, the exports) reads the shared store and is answered by whichever node was asked.
 *
 * HTTP, a page's call in a browser (`Sec-Fetch-Dest: empty`, which browsers send with a script's
 * fetch and no script can set; Node's fetch sends none) or any client asking for JSON: 421 Misdirected Request, `{ error: 'moved', message, owner }`
 * with the owner's public URL, and `Location`. A 307 cannot send a browser on: it follows a
 * cross-origin redirect without the Authorization header (Fetch, HTTP-redirect fetch: a "CORS
 * non-wildcard request-header name" is deleted when the origin changes), so the call would reach
 * the owner unauthenticated. client/src/net/api.ts calls the owner itself, once, with the same
 * headers (the token stays out of the URL), and remembers it for the session; the owner lets it
 * (server/api/security.ts: CORS for CLUSTER_ORIGINS). Anything else (curl, a navigation): 307 to
 * the same path and query on the owner's public URL, the method and body kept.
 * A socket: accepted, then closed with CLOSE_MOVED and the owner's URL as the close reason
 * (browsers do not follow a redirected WebSocket handshake); client/src/net/connection.ts
 * reconnects there. A session this node runs, or whose lease ran out (its node is dead and its
 * sessions wait to be taken over), is answered here as before.
 *
 * ```ts
 * app.use('/api/sessions/:id/*', toOwner({ rooms, elsewhere: ownership.elsewhere, upgrades }));
 * ```
 */
import type { MiddlewareHandler } from 'hono';
import { CLOSE_MOVED } from '../../shared/protocol/messages';
import type { Upgrades } from '../api/upgrade';
import type { Rooms } from '../rooms/rooms';
import type { Lease } from '../store/store';
import { problem } from '../api/problem';

export interface ToOwnerOptions {
  rooms: Pick<Rooms, 'get'>;
  /** The live lease of a session another node runs, or null (ownership.ts). */
  elsewhere(session: string): Promise<Lease | null>;
  upgrades: Pick<Upgrades, 'upgrade'>;
}

/** The parts of a session's path that need its live room: '' (snapshot, end), the socket, the LiveKit token. */
const live = new Set(['', '/socket', '/livekit-token']);

/** The longest close reason a WebSocket close frame carries (RFC 6455 §5.5: 125 bytes, less the code). */
const MAX_CLOSE_REASON_BYTES = 123;

/** A page's fetch (not a navigation, a socket or another program), or a client that wants JSON answers. */
const wantsMoved = (fetchDest: string | undefined, accept: string | undefined): boolean => fetchDest === 'empty' || (accept ?? '').includes('application/json');

export const toOwner =
  (options: ToOwnerOptions): MiddlewareHandler =>
  async (c, next) => {
    const id = c.req.param('id') ?? '';
    const prefix = `/api/sessions/${id}`;
    const path = c.req.path;
    const rest = path.startsWith(prefix) ? path.slice(prefix.length) : null;
    if (!id || rest === null || !live.has(rest) || options.rooms.get(id)) return next();
    const lease = await options.elsewhere(id);
    if (!lease) return next();
    if (!lease.url) return problem(c, 503, 'elsewhere', `Session "${id}" runs on server ${lease.node}, which has no PUBLIC_URL to send you to.`);
    const target = `${lease.url.replace(/\/+$/, '')}${path}${new URL(c.req.url).search}`;
    const upgrade = c.req.header('upgrade')?.toLowerCase() === 'websocket';
    if (upgrade && Buffer.byteLength(lease.url) <= MAX_CLOSE_REASON_BYTES) {
      return options.upgrades.upgrade(() => (ws) => ws.close(CLOSE_MOVED, lease.url!))(c, next);
    }
    if (wantsMoved(c.req.header('sec-fetch-dest'), c.req.header('accept'))) {
      const owner = lease.url.replace(/\/+$/, '');
      return c.json({ error: 'moved', message: `Session "${id}" runs on ${owner}: ask there.`, owner }, 421, { Location: target });
    }
    return c.redirect(target, 307);
  };
