/**
 * A local fake of an OpenAI-compatible server (OpenAI, Ollama, llama.cpp, vLLM) speaking the real
 * wire format of `POST /v1/chat/completions`: with `stream: true`, SSE `chat.completion.chunk`
 * events ending in `data: [DONE]`; without, one `chat.completion` object; errors with
 * `{"error": {"message", "type", "param", "code"}}`.
 *
 * ```ts
 * const openai = await startFakeOpenAI();
 * openai.script({ status: 429, retryAfterSeconds: 1 }, { chunks: ['Hi', ' there'] });
 * const generator = createOpenAIGenerator({ apiKey: 'none', baseUrl: openai.baseUrl, model: 'llama3.2' });
 * ```
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer. Calls consume the queue in order; when it is empty, the default answers. */
export interface FakeReply {
  /** Content deltas, one chunk event each (the whole content when not streaming). */
  chunks?: string[];
  /** An HTTP error status (401, 429, 500, ...), answered with OpenAI's error body. */
  status?: number;
  /** With a 429: the `Retry-After` header, in seconds. */
  retryAfterSeconds?: number;
  /** Wait this long before answering at all (for timeouts). */
  delayMs?: number;
  /** Wait this long between stream events. */
  chunkDelayMs?: number;
  /** Send this raw text as the body, or as one SSE event's data, instead of valid JSON. */
  malformed?: string;
  /** Destroy the socket after this many content events: a connection lost mid-reply. */
  cutAfter?: number;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body (raw text when it did not parse). */
  body: any;
}

export interface FakeOpenAI {
  /** Pass as `baseUrl`: it ends in `/v1`, as OpenAI-compatible servers expect. */
  baseUrl: string;
  requests: ReceivedRequest[];
  script(...replies: FakeReply[]): void;
  failNext(count: number, reply: FakeReply): void;
  setDefault(reply: FakeReply): void;
  close(): Promise<void>;
}

const errors: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Invalid request.' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided: sk-bad.' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory', message: 'Country, region, or territory not supported' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests. Please try again in 1s.' },
  500: { type: 'server_error', code: null, message: 'The server had an error while processing your request. Sorry about that!' },
  503: { type: 'server_error', code: null, message: 'The engine is currently overloaded, please try again later' },
};

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

const answer = async (res: ServerResponse, reply: FakeReply, request: { model?: string; stream?: boolean }): Promise<void> => {
  if (!(await wait(reply.delayMs ?? 0, res))) return;
  if (reply.status && reply.status >= 400) {
    const error = errors[reply.status] ?? { type: 'server_error', code: null, message: `HTTP ${reply.status}` };
    res.writeHead(reply.status, {
      'content-type': 'application/json',
      'x-request-id': 'req_fake',
      ...(reply.retryAfterSeconds !== undefined ? { 'retry-after': String(reply.retryAfterSeconds) } : {}),
    });
    res.end(JSON.stringify({ error: { ...error, param: null } }));
    return;
  }
  const chunks = reply.chunks ?? ['Hello', ' from', ' the local model.'];
  const id = 'chatcmpl-fake';
  const created = 1_767_225_600;
  const model = request.model ?? 'fake-model';
  if (!request.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      reply.malformed ??
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: chunks.join('') }, logprobs: null, finish_reason: 'stop' }],
          usage: { prompt_tokens: 42, completion_tokens: chunks.length, total_tokens: 42 + chunks.length },
        }),
    );
    return;
  }
  const event = (delta: Record<string, string>, finish: string | null) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': 'req_fake' });
  res.write(event({ role: 'assistant', content: '' }, null));
  for (const [i, content] of chunks.entries()) {
    if (reply.cutAfter !== undefined && i >= reply.cutAfter) {
      // Let the events already written reach the client, then drop the connection.
      await new Promise<void>((resolve) => res.write('', () => resolve()));
      res.socket?.destroy();
      return;
    }
    if (i > 0 && !(await wait(reply.chunkDelayMs ?? 0, res))) return;
    res.write(reply.malformed !== undefined && i === chunks.length - 1 ? `data: ${reply.malformed}\n\n` : event({ content }, null));
  }
  res.write(event({}, 'stop'));
  res.end('data: [DONE]\n\n');
};

export const startFakeOpenAI = async (): Promise<FakeOpenAI> => {
  const requests: ReceivedRequest[] = [];
  const queue: FakeReply[] = [];
  let fallback: FakeReply = {};

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const text = await readBody(req);
    let body: any = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // recorded as the raw text
    }
    requests.push({ method: req.method ?? '', path: url.pathname, headers: req.headers, body });
    if (req.method !== 'POST' || url.pathname !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Unknown request URL: ${req.method} ${url.pathname}`, type: 'invalid_request_error', param: null, code: 'unknown_url' } }));
      return;
    }
    await answer(res, queue.shift() ?? fallback, typeof body === 'object' && body !== null ? body : {});
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
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
