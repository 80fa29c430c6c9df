/**
 * The room's connection to the session server: the realtime protocol over a WebSocket
 * (shared/protocol/messages.ts), reconnecting with `?after=<last seq>` so no event is lost or
 * repeated, plus microphone frames as binary messages. The transport interface is what the rest
 * of the client uses; the LiveKit transport will implement the same one.
 *
 * Several servers (server/cluster/): a server that does not run the session closes the socket with
 * CLOSE_MOVED and the owner's URL as the reason; the connection goes there at once, resuming as
 * after any reconnect, and the API's calls for the session go there too (api.ts); a session the API
 * already found on another node opens its socket there directly. Any other drop reconnects through
 * the address it started with (the load balancer), so a session taken over after its server died
 * is found again.
 *
 * ```ts
 * const link = connect({ session, token, onMessage: (m) => dispatch(m), lastSeq: () => view.lastSeq });
 * link.send({ type: 'say', text: 'Nora, what did the client say?' });
 * link.sendAudio(pcm16);
 * ```
 */
import { Claims } from '../../../shared/claims';
import { CLOSE_MOVED, ServerMessage, type ClientMessage } from '../../../shared/protocol/messages';
import { ownerOf, rememberOwner } from './api';

export interface Transport {
  send(message: ClientMessage): void;
  /** A microphone frame: PCM16, 16 kHz, mono. */
  sendAudio(pcm16: Int16Array): void;
  close(): void;
  /** Reconnects now, resuming after the last event applied (to fill a gap in the stream). */
  resync(): void;
  readonly open: boolean;
}

export interface ConnectOptions {
  session: string;
  token: string;
  onMessage(message: ServerMessage): void;
  /** The seq of the last event applied, for resuming after a reconnect. */
  lastSeq(): number;
  onStatus?(status: 'open' | 'reconnecting' | 'closed', detail?: string): void;
  /** Defaults to this page's origin. */
  base?: string;
  /** 'livekit': the live stream comes on LiveKit data topics; the socket brings the welcome and backlog. */
  stream?: 'socket' | 'livekit';
}

/**
 * Close codes after which reconnecting cannot help: left, the session is gone, a newer tab took
 * the seat (reconnecting would take it back, and so on), the token expired. Any other close (a
 * reader dropped for falling behind, a dead connection) reconnects with ?after=.
 */
const final = new Set([1000, 4404, 4409, 4401]);

/** Redirects followed in a row before backing off: two servers that each name the other. */
const MAX_MOVES = 5;

/** The socket base (ws: or wss:, with any path) of the server a CLOSE_MOVED reason names, or null if it names none. */
export const movedTo = (reason: string): string | null => {
  if (!URL.canParse(reason)) return null;
  const url = new URL(reason);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return `${url.protocol === 'https:' ? 'wss:' : 'ws:'}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
};

export const connect = (options: ConnectOptions): Transport => {
  const origin = options.base ?? `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}`;
  /** Where the session runs: `origin`, or the server it was moved to. */
  const known = options.base === undefined ? ownerOf(options.session) : null;
  let base = (known && movedTo(known)) ?? origin;
  let moves = 0;
  let socket: WebSocket | null = null;
  let closed = false;
  let attempt = 0;
  const outbox: ClientMessage[] = [];

  const open = () => {
    const after = options.lastSeq();
    const query = new URLSearchParams({ token: options.token, ...(after > 0 ? { after: String(after) } : {}), ...(options.stream === 'livekit' ? { stream: 'livekit' } : {}) });
    const ws = new WebSocket(`${base}/api/sessions/${encodeURIComponent(options.session)}/socket?${query}`);
    ws.binaryType = 'arraybuffer';
    socket = ws;
    ws.onopen = () => {
      attempt = 0;
      moves = 0;
      options.onStatus?.('open');
      for (const message of outbox.splice(0)) ws.send(JSON.stringify(message));
    };
    ws.onmessage = (event) => {
      if (typeof event.data !== 'string') return;
      const parsed = ServerMessage.safeParse(JSON.parse(event.data));
      if (parsed.success) options.onMessage(parsed.data);
      else console.warn('unexpected message from the server', parsed.error.issues[0]);
    };
    ws.onclose = (event) => {
      socket = null;
      if (closed || final.has(event.code)) {
        closed = true;
        options.onStatus?.('closed', event.reason || undefined);
        return;
      }
      const owner = event.code === CLOSE_MOVED ? movedTo(event.reason) : null;
      if (owner && moves < MAX_MOVES) {
        moves += 1;
        base = owner;
        rememberOwner(options.session, event.reason);
        open();
        return;
      }
      // Through the address we started with: the server we were sent to may be the one that died.
      base = origin;
      rememberOwner(options.session, null);
      // Back off 0.5 s, 1 s, 2 s … up to 10 s, and resume after the last event seen.
      const delay = Math.min(10_000, 500 * 2 ** attempt++);
      options.onStatus?.('reconnecting', `retrying in ${Math.round(delay / 1000)} s`);
      setTimeout(() => !closed && open(), delay);
    };
  };
  open();

  return {
    send(message) {
      if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
      else if (!closed) outbox.push(message);
    },
    sendAudio(pcm16) {
      // Audio is live: frames that cannot go now are dropped, never queued.
      if (socket?.readyState === WebSocket.OPEN) socket.send(pcm16.buffer.slice(pcm16.byteOffset, pcm16.byteOffset + pcm16.byteLength));
    },
    close() {
      closed = true;
      if (socket && socket.readyState <= WebSocket.OPEN) {
        socket.send(JSON.stringify({ type: 'leave' } satisfies ClientMessage));
        socket.close(1000, 'left');
      }
    },
    resync() {
      if (closed || !socket) return;
      // onclose reconnects at once (attempt 0) with ?after= the last seq applied.
      attempt = 0;
      socket.close(4000, 'resync');
    },
    get open() {
      return socket?.readyState === WebSocket.OPEN;
    },
  };
};

/** The role and seat a join token names (read, not verified: the server checks it). */
export const readToken = (token: string): Claims | null => {
  const payload = token.split('.')[1];
  if (!payload) return null;
  let json: unknown;
  try {
    json = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    return null;
  }
  const claims = Claims.safeParse(json);
  return claims.success ? claims.data : null;
};
