/**
 * WebSocket upgrades on Node for a Hono app. The upgrade request goes through the app like any
 * other request (its middleware, its credential check); a route accepts it with `upgrade`, and
 * the socket opens once the handshake is done. A refused upgrade is sent the app's whole answer:
 * status, headers (the security headers with them) and body. (The @hono/node-ws package, used before, sent a
 * bare status line: no CSP, no nosniff, no `{ error, message }`.)
 *
 * ```ts
 * const upgrades = createUpgrades({ maxPayload: 1 << 20 });
 * app.get('/chat', authorize(roles), upgrades.upgrade((c) => (ws) => ws.on('message', (data) => ws.send(data))));
 * upgrades.inject(server, app); // server: what @hono/node-server's serve() returned
 * ```
 */
import type { IncomingMessage, Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Http2SecureServer, Http2Server } from 'node:http2';
import type { Duplex } from 'node:stream';
import type { Context, Env, MiddlewareHandler } from 'hono';
import { WebSocketServer, type WebSocket } from 'ws';

export interface UpgradeOptions {
  /** The largest frame a socket may receive: a larger one closes it (1009). */
  maxPayload: number;
}

/** What answers an upgrade request: the app's `request`, as Hono's `app.request`. */
interface Answers {
  request(input: string | URL, init: RequestInit, env: unknown): Response | Promise<Response>;
}

export interface Upgrades {
  /** A route's last handler: accepts the upgrade; `accept(c)` is what to do with the socket once it is open. */
  upgrade<E extends Env>(accept: (c: Context<E>) => (ws: WebSocket) => void): MiddlewareHandler<E>;
  /** Answers `server`'s upgrade requests with `app`. */
  inject(server: Server | Http2Server | Http2SecureServer, app: Answers): void;
}

/** An HTTP/1.1 answer written on the raw connection, all of it, then closed. */
const refuse = async (socket: Duplex, response: Response): Promise<void> => {
  // The headers first: @hono/node-server's Response keeps headers set after it was made (the
  // security headers) only until its body is read, when it is rebuilt from what it was made with.
  const head = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}`];
  response.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'connection' && name !== 'transfer-encoding') head.push(`${name}: ${value}`);
  });
  const body = Buffer.from(await response.arrayBuffer());
  head.push('Connection: close', `Content-Length: ${body.length}`, '', '');
  socket.end(Buffer.concat([Buffer.from(head.join('\r\n')), body]));
};

export const createUpgrades = (options: UpgradeOptions): Upgrades => {
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload });
  /** Upgrade requests a route accepted, and what to do with their socket. */
  const accepted = new WeakMap<IncomingMessage, (ws: WebSocket) => void>();
  return {
    upgrade: (accept) => async (c, next) => {
      const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
      // A plain GET (no upgrade) goes on, to a 404.
      if (c.req.header('upgrade')?.toLowerCase() !== 'websocket' || !incoming) return next();
      accepted.set(incoming, accept(c));
      return new Response(null);
    },
    inject(server, app) {
      (server as Server).on('upgrade', async (request: IncomingMessage, socket: Duplex, head: Buffer) => {
        // A client gone mid-handshake is no error of the server's.
        socket.on('error', () => socket.destroy());
        const headers = new Headers();
        for (const [name, value] of Object.entries(request.headers)) if (value) headers.append(name, Array.isArray(value) ? value[0]! : value);
        const url = new URL(request.url ?? '/', 'http://localhost');
        try {
          const response = await app.request(url, { headers }, { incoming: request, outgoing: undefined });
          const open = accepted.get(request);
          accepted.delete(request);
          if (!open) return await refuse(socket, response);
          wss.handleUpgrade(request, socket, head, open);
        } catch (error) {
          process.stderr.write(`upgrade ${request.url}: ${(error as Error).stack ?? String(error)}\n`);
          socket.destroy();
        }
      });
    },
  };
};
