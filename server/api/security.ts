/**
 * What every HTTP answer carries and every request is held to, in one place: security headers
 * (a Content-Security-Policy that allows no inline script, nosniff, no framing, no referrer),
 * the cluster's cross-origin calls (CORS for its own origins only), a body limit with a clear 413,
 * and the public address join links are built from.
 *
 * ```ts
 * app.use(securityHeaders({ publicUrl: config.publicUrl, livekitUrl: config.livekit?.url, clusterOrigins: config.clusterOrigins }));
 * app.use('/api/*', clusterCors({ origins: config.clusterOrigins, publicUrl: config.publicUrl }));
 * app.use(limitBodies());
 * const origin = publicOrigin({ publicUrl: config.publicUrl });
 * const link = `${origin(c)}/room/${id}?token=${token}`;
 * ```
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';
import { problem } from './problem';

export interface SecurityOptions {
  /** PUBLIC_URL, when set: its WebSocket origin is allowed to the client besides its own origin. */
  publicUrl?: string | null;
  /** LIVEKIT_URL, when set: browsers connect there for media (signalling socket and its HTTP checks). */
  livekitUrl?: string | null;
  /** CLUSTER_ORIGINS: the other nodes a page calls and opens sockets to when a session runs there (cluster/routing.ts). */
  clusterOrigins?: readonly string[];
}

/** `wss://host` and `https://host` for `https://host/path` (and the ws/http pair likewise). */
const socketAndHttp = (url: string): string[] => {
  const { host, protocol } = new URL(url);
  const secure = protocol === 'https:' || protocol === 'wss:';
  return [`${secure ? 'wss' : 'ws'}://${host}`, `${secure ? 'https' : 'http'}://${host}`];
};

/**
 * The headers on every response: HTML, API, assets and errors alike. What the client needs and
 * nothing more: its own scripts (and the microphone's AudioWorklet, loaded from a blob: URL),
 * styles (React and the WebXR emulator set some inline; no script can be), textures that glTF
 * unpacks into blob: URLs, sockets to this server (and LiveKit, the cluster's other nodes when
 * configured). No frame may hold the room, and links leave no referrer: join links carry tokens.
 */
export const securityHeaders = (options: SecurityOptions = {}): MiddlewareHandler => {
  const extraConnect = [
    ...(options.publicUrl ? socketAndHttp(options.publicUrl) : []),
    ...(options.livekitUrl ? socketAndHttp(options.livekitUrl) : []),
    ...(options.clusterOrigins ?? []).flatMap(socketAndHttp),
  ];
  const headers = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'", 'blob:'],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:', 'blob:'],
      mediaSrc: ["'self'", 'blob:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'", 'blob:', 'data:', ...new Set(extraConnect)],
      workerSrc: ["'self'", 'blob:'],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
    xFrameOptions: 'DENY',
    referrerPolicy: 'no-referrer',
    // TLS is the proxy's: a header pinning HTTPS on localhost would outlive this server.
    strictTransportSecurity: false,
  });
  return async (c, next) => {
    await headers(c, next);
    // API answers hold tokens and session state: never cached on the way. Set on the answer's own
    // headers, as secureHeaders sets its: `c.header()` after the answer is made rebuilds it, and
    // under @hono/node-server the rebuilt answer kept only the handler's headers (no CSP, no nosniff).
    if (c.req.path.startsWith('/api/')) c.res.headers.set('Cache-Control', 'no-store');
  };
};

export interface ClusterCorsOptions {
  /** CLUSTER_ORIGINS: the origins whose pages may call this node. */
  origins: readonly string[];
  /** PUBLIC_URL: this node's own pages, when their origin differs from the address asked. */
  publicUrl?: string | null;
}

/** What a page of the cluster sends another node: the token, a JSON body, a scene's version. */
const CORS_HEADERS = 'authorization, content-type, if-match, accept';
const CORS_METHODS = 'GET, POST, PUT, DELETE';
/** Seconds a browser keeps a preflight's answer: one per path and ten minutes, not one per call. */
const CORS_MAX_AGE_S = 600;

/**
 * CORS for the API, for the cluster's own origins only (never `*`, never cookies: the token goes in
 * the Authorization header): a page on one node reaches a session's owner directly
 * (cluster/routing.ts answers a moved call with 421 and the owner's origin; client/src/net/api.ts
 * calls it there). A preflight from an origin of the cluster is answered 204 with the methods and
 * headers the client sends; from any other, 403 naming CLUSTER_ORIGINS. Every API answer says it
 * varies with Origin, so no cache hands one origin's answer to another.
 */
export const clusterCors = (options: ClusterCorsOptions): MiddlewareHandler => {
  const allowed = new Set([...options.origins, ...(options.publicUrl ? [new URL(options.publicUrl).origin] : [])]);
  return async (c, next) => {
    const origin = c.req.header('origin');
    const preflight = c.req.method === 'OPTIONS' && c.req.header('access-control-request-method') !== undefined;
    if (origin !== undefined && preflight) {
      if (!allowed.has(origin)) {
        return problem(c, 403, 'cross-origin', `Pages from ${origin} may not call this server: it answers other origins only when they are in CLUSTER_ORIGINS.`, { Vary: 'Origin' });
      }
      return c.body(null, 204, {
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': CORS_METHODS,
        'Access-Control-Allow-Headers': CORS_HEADERS,
        'Access-Control-Max-Age': String(CORS_MAX_AGE_S),
        Vary: 'Origin',
      });
    }
    await next();
    // On the answer's own headers, as securityHeaders does (see there).
    if (origin !== undefined && allowed.has(origin)) c.res.headers.set('Access-Control-Allow-Origin', origin);
    c.res.headers.append('Vary', 'Origin');
  };
};

/** No endpoint takes more but those of `LARGER_BODIES`: sessions are made from a few fields; LiveKit's webhooks have their own, lower limit. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The routes that take reports (review/report.ts) in their body: simulated runs compared or judged
 * from their files. A simulated run's report is tens of kilobytes; a long session's, half a megabyte.
 * Scenes from the editor: the largest shipped scene is 17 KB, so 256 KB is room for any real one.
 * Uploads: the largest file allowed (a 10 MB PDF, server/scene/uploads.ts) and its multipart wrapping.
 * A `:name` segment stands for any one path segment.
 */
export const LARGER_BODIES: Readonly<Record<string, number>> = {
  '/api/compare': 4 * 1024 * 1024,
  '/api/compare/judge': 2 * 1024 * 1024,
  '/api/scenes/:id': 256 * 1024,
  '/api/scenes/:id/uploads': 10 * 1024 * 1024 + 64 * 1024,
};

/**
 * Refuses a body over `maxBytes` (over its own limit on a route of `larger`) with 413 and a message
 * saying the limit: at once when its Content-Length says so (nothing of it is read), else as soon
 * as that much has arrived. The connection closes after the answer, so the rest is never waited for.
 */
export const limitBodies = (maxBytes = MAX_BODY_BYTES, larger: Readonly<Record<string, number>> = LARGER_BODIES): MiddlewareHandler => {
  const limit = (size: number) =>
    bodyLimit({
      maxSize: size,
      onError: (c) => problem(c, 413, 'too-large', `Request bodies are limited to ${size} bytes.`, { Connection: 'close' }),
    });
  const common = limit(maxBytes);
  const byPath = Object.entries(larger).map(([path, size]) => ({ pattern: new RegExp(`^${path.replace(/:[^/]+/g, '[^/]+')}$`), limit: limit(size) }));
  return (c, next) => (byPath.find((p) => p.pattern.test(c.req.path))?.limit ?? common)(c, next);
};

export interface PublicOriginOptions {
  /** PUBLIC_URL without its trailing slash, or null. */
  publicUrl: string | null;
  /** Where the warning goes when links are built behind a proxy without PUBLIC_URL. Default: standard error. */
  warn?: (line: string) => void;
}

const forwarded = ['forwarded', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-for'] as const;

/**
 * Where join links point: PUBLIC_URL when set. Otherwise the address the request came to, which
 * is right on localhost and for direct connections; behind a proxy (X-Forwarded-* or Forwarded
 * headers) it may be the proxy's view of this server, so the first such request warns, once,
 * loudly. Forwarded headers are never trusted for the address: anyone can send them.
 */
export const publicOrigin = (options: PublicOriginOptions): ((c: Context) => string) => {
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  let warned = false;
  return (c) => {
    if (options.publicUrl) return options.publicUrl;
    const origin = new URL(c.req.url).origin;
    const proxy = forwarded.find((name) => c.req.header(name) !== undefined);
    if (proxy && !warned) {
      warned = true;
      warn(`WARNING: PUBLIC_URL is not set and requests come through a proxy (${proxy} header): join links point to ${origin}, which people may not reach. Set PUBLIC_URL to the address they use, e.g. PUBLIC_URL=https://rehearse.example.org`);
    }
    return origin;
  };
};
