/**
 * A local fake of an OpenAI-compatible transcription server (OpenAI, speaches, LocalAI) speaking
 * the real wire format of `POST /v1/audio/transcriptions`: a multipart form with `file`, `model`
 * and optional `language`, `prompt`, `response_format`; the answer `{"text": "..."}`; errors
 * with `{"error": {"message", "type", "param", "code"}}`.
 *
 * ```ts
 * const whisper = await startFakeWhisper();
 * whisper.script({ status: 429, retryAfterSeconds: 1 }, { chunks: ['Hello Nora.'] });
 * const transcriber = createOpenAITranscriber({ apiKey: 'none', baseUrl: whisper.baseUrl });
 * const form = whisper.requests[0]!.body as MultipartForm; // fields.model, files.file
 * ```
 */
import type { MultipartForm } from './multipart';
import { retryAfterHeader, startVendorServer, type FakeVendor } from './vendor-server';

export type { MultipartForm } from './multipart';
export type { FakeReply, ReceivedRequest } from './vendor-server';
/** `baseUrl` ends in `/v1`, as OpenAI-compatible servers expect. */
export type FakeWhisper = FakeVendor;

const errors: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Invalid file format.' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided: sk-bad.' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests. Please try again in 1s.' },
  500: { type: 'server_error', code: null, message: 'The server had an error while processing your request. Sorry about that!' },
  503: { type: 'server_error', code: null, message: 'The engine is currently overloaded, please try again later' },
};

export const startFakeWhisper = (): Promise<FakeWhisper> =>
  startVendorServer(async (request, reply, res) => {
    const fail = (status: number, error: { type: string; code: string | null; message: string; param?: string }) => {
      res.writeHead(status, {
        'content-type': 'application/json',
        'x-request-id': 'req_fake',
        ...retryAfterHeader(reply),
      });
      res.end(JSON.stringify({ error: { param: null, ...error } }));
    };
    if (request.method !== 'POST' || request.path !== '/v1/audio/transcriptions') {
      return fail(404, { type: 'invalid_request_error', code: 'unknown_url', message: `Unknown request URL: ${request.method} ${request.path}` });
    }
    if (reply.status && reply.status >= 400) {
      return fail(reply.status, errors[reply.status] ?? { type: 'server_error', code: null, message: `HTTP ${reply.status}` });
    }
    const form = request.body as MultipartForm | undefined;
    if (!form?.files?.file) return fail(400, { type: 'invalid_request_error', code: null, param: 'file', message: "'file' is a required property" });
    if (!form.fields.model) return fail(400, { type: 'invalid_request_error', code: null, param: 'model', message: "'model' is a required property" });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(reply.malformed ?? JSON.stringify({ text: (reply.chunks ?? [' Hello from Whisper.']).join('') }));
  }, '/v1');
