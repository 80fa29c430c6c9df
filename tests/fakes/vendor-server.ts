/**
 * The shared core of the local fake vendor servers: a node:http server on 127.0.0.1 with a
 * scripted queue of replies, a record of every request, and helpers to answer with delays,
 * streams and connections cut mid-reply. Each vendor file supplies only its routes and wire format.
 *
 * ```ts
 * const fake = await startVendorServer(async (request, reply, res) => { ... }, '/v1');
 * fake.script({ status: 429, retryAfterSeconds: 2 }, { chunks: ['Hello', ' there'] });
 * ```
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { vi } from 'vitest';
import { parseMultipart } from './multipart';

/** One scripted answer. Calls consume the queue in order; when it is empty, the default answers. */
export interface FakeReply {
  /** Text deltas, one stream event each (the whole text for a non-streaming call). */
  chunks?: string[];
  /** An HTTP error status (401, 429, 500, ...), answered with the vendor's error body. */
  status?: number;
  /** With `status`: the error body's message instead of the vendor's usual one (say, one that echoes the key). */
  message?: string;
  /** With a 429: the `Retry-After` header (and any vendor-specific retry hint). */
  retryAfterSeconds?: number;
  /** With an error: the `Retry-After` header as sent, instead of `retryAfterSeconds` (an HTTP date, a bad value). */
  retryAfter?: string;
  /** Wait this long before answering at all (for timeouts). */
  delayMs?: number;
  /** Wait this long between stream events. */
  chunkDelayMs?: number;
  /** Send this raw text as the body, or as the last stream event's data, instead of valid JSON. */
  malformed?: string;
  /** Destroy the socket after this many stream events: a connection lost mid-reply. */
  cutAfter?: number;
}

export interface ReceivedRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  /** The parsed body: JSON, a `MultipartForm` for uploads, else the text. */
  body: any;
  /** The bytes as received. */
  raw: Buffer;
}

export interface FakeVendor {
  baseUrl: string;
  requests: ReceivedRequest[];
  /** Queues answers for the next calls, in order. */
  script(...replies: FakeReply[]): void;
  /** The same answer for the next `count` calls. */
  failNext(count: number, reply: FakeReply): void;
  /** The answer once the queue is empty. */
  setDefault(reply: FakeReply): void;
  close(): Promise<void>;
}

/** Resolves after `ms` with whether the client is still listening (false once it hung up). */
export const wait = (ms: number, res: ServerResponse): Promise<boolean> =>
  new Promise((resolve) => {
    if (ms <= 0) return resolve(!res.destroyed);
    const timer = setTimeout(() => resolve(!res.destroyed), ms);
    // The client gave up (timeout, abort): stop instead of writing to a closed socket.
    res.once('close', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });

/**
 * Writes stream events in order, honouring the reply's `chunkDelayMs` and `cutAfter`.
 * Returns false when the stream was cut or the client left, so the caller skips its trailer.
 */
export const writeEvents = async (res: ServerResponse, reply: FakeReply, events: readonly string[]): Promise<boolean> => {
  for (const [i, event] of events.entries()) {
    if (reply.cutAfter !== undefined && i >= reply.cutAfter) {
      // Let the events already written reach the client, then drop the connection.
      await new Promise<void>((resolve) => res.write('', () => resolve()));
      res.socket?.destroy();
      return false;
    }
    if (i > 0 && !(await wait(reply.chunkDelayMs ?? 0, res))) return false;
    res.write(event);
  }
  return true;
};

/** The reply's `Retry-After` header, if it has one. */
export const retryAfterHeader = (reply: FakeReply): Record<string, string> =>
  reply.retryAfter !== undefined ? { 'retry-after': reply.retryAfter } : reply.retryAfterSeconds !== undefined ? { 'retry-after': String(reply.retryAfterSeconds) } : {};

export type Route = (request: ReceivedRequest, reply: FakeReply, res: ServerResponse) => Promise<void>;

/** Starts a fake on an ephemeral port; `basePath` is appended to the base URL clients are given. */
export const startVendorServer = async (route: Route, basePath = ''): Promise<FakeVendor> => {
  const requests: ReceivedRequest[] = [];
  const queue: FakeReply[] = [];
  let fallback: FakeReply = {};

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const text = raw.toString('utf8');
    let body: any = parseMultipart(raw, req.headers['content-type']) ?? text;
    if (body === text) {
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // recorded as the raw text
      }
    }
    const request: ReceivedRequest = { method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body, raw };
    requests.push(request);
    const reply = queue.shift() ?? fallback;
    if (!(await wait(reply.delayMs ?? 0, res))) return;
    await route(request, reply, res);
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}${basePath}`,
    requests,
    script: (...replies) => void queue.push(...replies),
    failNext: (count, reply) => void queue.push(...Array.from({ length: count }, () => reply)),
    setDefault: (reply) => void (fallback = reply),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
};

/** Waits, on real time, until `fake` has been asked `count` times. */
export const untilRequested = async (fake: FakeVendor, count: number): Promise<void> => {
  while (fake.requests.length < count) await new Promise((resolve) => setImmediate(resolve));
};

/**
 * On fake timers (the fake server's delays run on them too): lets `attempts` requests reach
 * `fake` one after another, each running out of its `timeoutMs`.
 */
export const timeOutAttempts = async (fake: FakeVendor, attempts: number, timeoutMs: number): Promise<void> => {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    await untilRequested(fake, attempt);
    await vi.advanceTimersByTimeAsync(timeoutMs);
  }
};
