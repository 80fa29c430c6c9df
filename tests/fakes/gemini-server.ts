/**
 * A local fake of the Gemini API (generativelanguage.googleapis.com, v1beta) speaking its real wire format:
 * `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` answers with SSE events of
 * `GenerateContentResponse` JSON; `POST /v1beta/models/{model}:generateContent` with one JSON object;
 * errors with Google's `{"error": {"code", "message", "status", "details"}}` body.
 *
 * ```ts
 * const gemini = await startFakeGemini();
 * gemini.script({ status: 429, retryAfterSeconds: 2 }, { chunks: ['Hello', ' there'] });
 * const generator = createGeminiGenerator({ apiKey: 'test-key', baseUrl: gemini.baseUrl });
 * ```
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer. Calls consume the queue in order; when it is empty, the default answers. */
export interface FakeReply {
  /** Text deltas, one SSE event each (the whole text for `:generateContent`). */
  chunks?: string[];
  /** An HTTP error status (401, 429, 500, ...), answered with Google's error body. */
  status?: number;
  /** With a 429: both the `Retry-After` header and Gemini's `RetryInfo.retryDelay`. */
  retryAfterSeconds?: number;
  /** Wait this long before answering at all (for timeouts). */
  delayMs?: number;
  /** Wait this long between stream events. */
  chunkDelayMs?: number;
  /** Send this raw text as the body, or as one SSE event's data, instead of valid JSON. */
  malformed?: string;
  /** Destroy the socket after this many stream events: a connection lost mid-reply. */
  cutAfter?: number;
}

export interface ReceivedRequest {
  method: string;
  /** Path without the query, e.g. `/v1beta/models/gemini-2.5-flash:streamGenerateContent`. */
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: any;
}

export interface FakeGemini {
  /** Pass as `baseUrl`; the SDK appends `/v1beta/...`. */
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

const statusNames: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

const modelVersion = 'gemini-2.5-flash';

const response = (text: string, finished: boolean, outputTokens: number) => ({
  candidates: [
    {
      content: { parts: [{ text }], role: 'model' },
      ...(finished ? { finishReason: 'STOP' } : {}),
      index: 0,
    },
  ],
  usageMetadata: {
    promptTokenCount: 42,
    candidatesTokenCount: outputTokens,
    totalTokenCount: 42 + outputTokens,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: 42 }],
  },
  modelVersion,
  responseId: 'fake-response-id',
});

const errorBody = (status: number, retryAfterSeconds?: number) => ({
  error: {
    code: status,
    message:
      status === 429
        ? 'You exceeded your current quota, please check your plan and billing details.'
        : status === 401
          ? 'API key not valid. Please pass a valid API key.'
          : 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
    status: statusNames[status] ?? 'UNKNOWN',
    ...(retryAfterSeconds !== undefined
      ? { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfterSeconds}s` }] }
      : {}),
  },
});

const wait = (ms: number, res: ServerResponse): Promise<boolean> =>
  new Promise((resolve) => {
    if (ms <= 0) return resolve(!res.destroyed);
    const timer = setTimeout(() => resolve(!res.destroyed), ms);
    // The client gave up (timeout, abort): stop instead of writing to a closed socket.
    res.once('close', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });

const readBody = async (req: IncomingMessage): Promise<string> => {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body;
};

const answer = async (res: ServerResponse, reply: FakeReply, streaming: boolean): Promise<void> => {
  if (!(await wait(reply.delayMs ?? 0, res))) return;
  if (reply.status && reply.status >= 400) {
    res.writeHead(reply.status, {
      'content-type': 'application/json; charset=UTF-8',
      ...(reply.retryAfterSeconds !== undefined ? { 'retry-after': String(reply.retryAfterSeconds) } : {}),
    });
    res.end(JSON.stringify(errorBody(reply.status, reply.retryAfterSeconds)));
    return;
  }
  const chunks = reply.chunks ?? ['Hello', ' from', ' Gemini.'];
  if (!streaming) {
    res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
    res.end(reply.malformed ?? JSON.stringify(response(chunks.join(''), true, chunks.length)));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
  for (const [i, text] of chunks.entries()) {
    if (reply.cutAfter !== undefined && i >= reply.cutAfter) {
      // Let the events already written reach the client, then drop the connection.
      await new Promise<void>((resolve) => res.write('', () => resolve()));
      res.socket?.destroy();
      return;
    }
    if (i > 0 && !(await wait(reply.chunkDelayMs ?? 0, res))) return;
    const data = reply.malformed !== undefined && i === chunks.length - 1 ? reply.malformed : JSON.stringify(response(text, i === chunks.length - 1, i + 1));
    // Google's SSE separates events with CRLF CRLF.
    res.write(`data: ${data}\r\n\r\n`);
  }
  res.end();
};

export const startFakeGemini = async (): Promise<FakeGemini> => {
  const requests: ReceivedRequest[] = [];
  const queue: FakeReply[] = [];
  let fallback: FakeReply = {};

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const text = await readBody(req);
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // recorded as the raw text
    }
    requests.push({ method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body });
    const match = /^\/v1beta\/models\/[^/:]+:(streamGenerateContent|generateContent)$/.exec(url.pathname);
    if (req.method !== 'POST' || !match) {
      res.writeHead(404, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(JSON.stringify({ error: { code: 404, message: `no route for ${req.method} ${url.pathname}`, status: 'NOT_FOUND' } }));
      return;
    }
    await answer(res, queue.shift() ?? fallback, match[1] === 'streamGenerateContent');
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
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
