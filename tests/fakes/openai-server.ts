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
import type { ServerResponse } from 'node:http';
import { retryAfterHeader, startVendorServer, writeEvents, type FakeReply, type FakeVendor } from './vendor-server';

export type { FakeReply, ReceivedRequest } from './vendor-server';
/** `baseUrl` ends in `/v1`, as OpenAI-compatible servers expect. */
export type FakeOpenAI = FakeVendor;

const errors: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Invalid request.' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided: sk-bad.' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory', message: 'Country, region, or territory not supported' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests. Please try again in 1s.' },
  500: { type: 'server_error', code: null, message: 'The server had an error while processing your request. Sorry about that!' },
  503: { type: 'server_error', code: null, message: 'The engine is currently overloaded, please try again later' },
};

const answer = async (res: ServerResponse, reply: FakeReply, request: { model?: string; stream?: boolean }): Promise<void> => {
  if (reply.status && reply.status >= 400) {
    const error = errors[reply.status] ?? { type: 'server_error', code: null, message: `HTTP ${reply.status}` };
    res.writeHead(reply.status, {
      'content-type': 'application/json',
      'x-request-id': 'req_fake',
      ...retryAfterHeader(reply),
    });
    res.end(JSON.stringify({ error: { ...error, ...(reply.message !== undefined ? { message: reply.message } : {}), param: null } }));
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
  const events = chunks.map((content, i) => (reply.malformed !== undefined && i === chunks.length - 1 ? `data: ${reply.malformed}\n\n` : event({ content }, null)));
  if (!(await writeEvents(res, reply, events))) return;
  res.write(event({}, 'stop'));
  res.end('data: [DONE]\n\n');
};

export const startFakeOpenAI = (): Promise<FakeOpenAI> =>
  startVendorServer(async (request, reply, res) => {
    if (request.method !== 'POST' || request.path !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Unknown request URL: ${request.method} ${request.path}`, type: 'invalid_request_error', param: null, code: 'unknown_url' } }));
      return;
    }
    const body = request.body;
    await answer(res, reply, typeof body === 'object' && body !== null ? body : {});
  }, '/v1');
