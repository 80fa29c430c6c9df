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
import type { ServerResponse } from 'node:http';
import { retryAfterHeader, startVendorServer, writeEvents, type FakeReply, type FakeVendor } from './vendor-server';

export type { FakeReply, ReceivedRequest } from './vendor-server';
export type FakeGemini = FakeVendor;

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

const answer = async (res: ServerResponse, reply: FakeReply, streaming: boolean): Promise<void> => {
  if (reply.status && reply.status >= 400) {
    res.writeHead(reply.status, {
      'content-type': 'application/json; charset=UTF-8',
      ...retryAfterHeader(reply),
    });
    const body = errorBody(reply.status, reply.retryAfterSeconds);
    res.end(JSON.stringify(reply.message !== undefined ? { error: { ...body.error, message: reply.message } } : body));
    return;
  }
  const chunks = reply.chunks ?? ['Hello', ' from', ' Gemini.'];
  if (!streaming) {
    res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
    res.end(reply.malformed ?? JSON.stringify(response(chunks.join(''), true, chunks.length)));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
  const events = chunks.map((text, i) => {
    const data = reply.malformed !== undefined && i === chunks.length - 1 ? reply.malformed : JSON.stringify(response(text, i === chunks.length - 1, i + 1));
    // Google's SSE separates events with CRLF CRLF.
    return `data: ${data}\r\n\r\n`;
  });
  if (await writeEvents(res, reply, events)) res.end();
};

/** Pass `baseUrl` to the SDK, which appends `/v1beta/...`. */
export const startFakeGemini = (): Promise<FakeGemini> =>
  startVendorServer(async (request, reply, res) => {
    const match = /^\/v1beta\/models\/[^/:]+:(streamGenerateContent|generateContent)$/.exec(request.path);
    if (request.method !== 'POST' || !match) {
      res.writeHead(404, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(JSON.stringify({ error: { code: 404, message: `no route for ${request.method} ${request.path}`, status: 'NOT_FOUND' } }));
      return;
    }
    await answer(res, reply, match[1] === 'streamGenerateContent');
  });
