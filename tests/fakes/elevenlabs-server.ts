/**
 * A local fake of the ElevenLabs API (api.elevenlabs.io) speaking its real wire format:
 *
 * - `POST /v1/text-to-speech/{voice_id}/stream/with-timestamps?output_format=pcm_16000` answers
 *   newline-delimited JSON, one object per chunk: `{"audio_base64", "alignment": {"characters",
 *   "character_start_times_seconds", "character_end_times_seconds"}, "normalized_alignment"}`.
 *   Times count from the start of the request's audio. The last object carries trailing silence
 *   with `"alignment": null`, and chunk boundaries fall mid-sample: nothing in the format
 *   promises a chunk holds whole samples.
 * - `POST /v1/speech-to-text` (multipart: `file`, `model_id`, ...) answers
 *   `{"language_code": "eng", "language_probability", "text", "words": [...]}`.
 * - Errors carry `{"detail": {"status": "invalid_api_key", "message": "..."}}`.
 *
 * Each scripted `chunks` entry is the text of one TTS chunk (default: the request's text, two
 * words a chunk), or the whole transcript for speech-to-text. Every character lasts
 * `CHARACTER_SECONDS` and its audio is `fakeSample(i)` for the i-th sample of the request.
 *
 * ```ts
 * const elevenlabs = await startFakeElevenLabs();
 * elevenlabs.script({ status: 429 }, { chunks: ['Hello ', 'Nora.'], cutAfter: 1 });
 * const client = new ElevenLabsClient({ apiKey: 'test-key', baseUrl: elevenlabs.baseUrl });
 * ```
 */
import type { ServerResponse } from 'node:http';
import type { MultipartForm } from './multipart';
import { retryAfterHeader, startVendorServer, writeEvents, type FakeReply, type FakeVendor, type ReceivedRequest } from './vendor-server';

export type { MultipartForm } from './multipart';
export type { FakeReply, ReceivedRequest } from './vendor-server';
/** Pass `baseUrl` to the SDK, which appends `/v1/...`. */
export type FakeElevenLabs = FakeVendor;

export const CHARACTER_SECONDS = 0.06;
/** Trailing silence in the last chunk, which has no alignment. */
export const TRAILING_SILENCE_SECONDS = 0.1;

/** The i-th sample of the fake speech: a deterministic sawtooth, so tests can check decoding. */
export const fakeSample = (i: number): number => ((i * 37) % 2000) - 1000;

const errors: Record<number, { status: string; message: string }> = {
  400: { status: 'invalid_request', message: 'The request was malformed.' },
  401: { status: 'invalid_api_key', message: 'Invalid API key' },
  404: { status: 'voice_not_found', message: 'A voice with the voice_id was not found.' },
  429: {
    status: 'too_many_concurrent_requests',
    message: 'Too many concurrent requests. Your current subscription is associated with a maximum of 2 concurrent requests.',
  },
  500: { status: 'internal_server_error', message: 'An internal server error occurred. Please try again.' },
  503: { status: 'service_unavailable', message: 'The service is temporarily unavailable. Please try again later.' },
};

const fail = (res: ServerResponse, status: number, reply: FakeReply, detail: unknown = errors[status] ?? { status: 'error', message: `HTTP ${status}` }) => {
  res.writeHead(status, {
    'content-type': 'application/json',
    'request-id': 'fake-request-id',
    ...retryAfterHeader(reply),
  });
  res.end(JSON.stringify({ detail }));
};

/** FastAPI's answer to a missing field. */
const missing = (field: string) => [{ type: 'missing', loc: ['body', field], msg: 'Field required', input: null }];

const seconds = (characters: number) => Math.round(characters * CHARACTER_SECONDS * 1000) / 1000;

const speak = async (request: ReceivedRequest, reply: FakeReply, res: ServerResponse): Promise<void> => {
  const text: string | undefined = typeof request.body?.text === 'string' ? request.body.text : undefined;
  if (!text) return fail(res, 422, reply, missing('text'));
  const rate = Number(/^pcm_(\d+)$/.exec(request.query.output_format ?? 'pcm_16000')?.[1] ?? Number.NaN);
  if (!Number.isFinite(rate)) return fail(res, 422, reply, { status: 'invalid_output_format', message: 'This fake speaks pcm_* formats only.' });

  const texts = reply.chunks ?? (text.match(/\S+\s*\S*\s*/g) ?? [text]);
  const alignments = texts.map((chunk, i) => {
    const before = texts.slice(0, i).join('').length;
    const characters = [...chunk];
    return {
      characters,
      character_start_times_seconds: characters.map((_, k) => seconds(before + k)),
      character_end_times_seconds: characters.map((_, k) => seconds(before + k + 1)),
    };
  });
  // Sample boundaries of the chunks, then the trailing silence.
  const boundaries = [0, ...texts.map((_, i) => Math.round(seconds(texts.slice(0, i + 1).join('').length) * rate))];
  const speechSamples = boundaries.at(-1)!;
  const totalSamples = speechSamples + Math.round(TRAILING_SILENCE_SECONDS * rate);
  const audio = Buffer.alloc(totalSamples * 2);
  for (let i = 0; i < speechSamples; i++) audio.writeInt16LE(fakeSample(i), i * 2);
  // Byte boundaries one past each sample boundary: every chunk but the first starts mid-sample.
  const cuts = [0, ...boundaries.slice(1).map((samples) => samples * 2 + 1), audio.length];

  const events = cuts.slice(0, -1).map((from, i) => {
    const alignment = alignments[i] ?? null;
    const data = { audio_base64: audio.subarray(from, cuts[i + 1]).toString('base64'), alignment, normalized_alignment: alignment };
    return `${reply.malformed !== undefined && i === cuts.length - 2 ? reply.malformed : JSON.stringify(data)}\n`;
  });
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'fake-request-id', 'character-cost': String(text.length) });
  if (await writeEvents(res, reply, events)) res.end();
};

const transcribe = (request: ReceivedRequest, reply: FakeReply, res: ServerResponse): void => {
  const form = request.body as MultipartForm | undefined;
  if (!form?.fields?.model_id) return fail(res, 422, reply, missing('model_id'));
  if (!form.files.file) return fail(res, 400, reply, { status: 'invalid_request', message: 'Either file or cloud_storage_url must be provided.' });
  const text = (reply.chunks ?? ['Hello from Scribe.']).join('');
  let at = 0;
  const words = (text.match(/\S+|\s+/g) ?? []).map((token) => {
    const start = at;
    at += seconds(token.length);
    return { text: token, start, end: at, type: /\s/.test(token) ? 'spacing' : 'word', speaker_id: 'speaker_0', logprob: /\s/.test(token) ? 0 : -0.05 };
  });
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'fake-request-id' });
  res.end(
    reply.malformed ??
      JSON.stringify({ language_code: 'eng', language_probability: 0.98, text, words, transcription_id: 'fake-transcription-id' }),
  );
};

export const startFakeElevenLabs = (): Promise<FakeElevenLabs> =>
  startVendorServer(async (request, reply, res) => {
    const tts = /^\/v1\/text-to-speech\/[^/]+\/stream\/with-timestamps$/.test(request.path);
    const stt = request.path === '/v1/speech-to-text';
    if (request.method !== 'POST' || (!tts && !stt)) return fail(res, 404, reply, 'Not Found');
    if (reply.status && reply.status >= 400) {
      return fail(res, reply.status, reply, reply.message !== undefined ? { status: errors[reply.status]?.status ?? 'error', message: reply.message } : undefined);
    }
    if (tts) return speak(request, reply, res);
    transcribe(request, reply, res);
  });
