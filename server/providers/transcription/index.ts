/**
 * Picks the transcriber by name (`TRANSCRIBER`) and configures it from the environment. Vendors
 * are wrapped with `resilientTranscriber` (providers/resilience.ts: time limit, retries, breaker);
 * a transcription that still fails throws a `TranscriptionError` for the caller to log as a
 * `system` event. With `none` there is no transcriber: humans type.
 *
 * ```ts
 * const transcriber = createTranscriber(config.transcriber, process.env); // null for 'none'
 * ```
 *
 * | variable | for | default |
 * | --- | --- | --- |
 * | `TRANSCRIBER` | all | `none` |
 * | `GEMINI_API_KEY` | gemini | required |
 * | `GEMINI_BASE_URL` | gemini | the Gemini API |
 * | `ELEVENLABS_API_KEY` | elevenlabs | required |
 * | `ELEVENLABS_BASE_URL` | elevenlabs | https://api.elevenlabs.io |
 * | `WHISPER_BASE_URL` | openai | required, e.g. `http://localhost:8000/v1` |
 * | `WHISPER_MODEL` | openai | `whisper-1` |
 * | `WHISPER_API_KEY` | openai | `none` (local servers need no key) |
 * | `LOCAL_ASR_MODEL` | local | required: the path of a whisper.cpp ggml model, e.g. `data/models/ggml-base.en-q5_1.bin` |
 * | `LOCAL_ASR_RUNTIME` | local | `MODELS_DIR/.runtime`: where whisper.cpp built for this CPU is kept (Linux; local.ts says why), or `prebuilt` for the package's binary |
 * | `TRANSCRIBER_TIMEOUT_MS` | all | `8000`: the limit for one attempt, upload to answer |
 * | `TRANSCRIBER_BUDGET_MS` | all | `12000`: the limit for all attempts together; then the human is asked to type |
 *
 * A vendor's failures are logged (`options.log`, default standard error) with the environment's
 * keys blanked; the error thrown names the vendor, never its words.
 */
import { createElevenLabsTranscriber } from './elevenlabs';
import { existsSync } from 'node:fs';
import { createGeminiTranscriber } from './gemini';
import { createLocalTranscriber } from './local';
import { createOpenAITranscriber } from './openai';
import type { Transcriber } from './port';
import { secretsOf } from '../redact';
import { limitFrom, resilientTranscriber, type ResilienceOptions } from '../resilience';

export const transcriberNames = ['none', 'gemini', 'elevenlabs', 'openai', 'local'] as const;
export type TranscriberName = (typeof transcriberNames)[number];

/** Every variable `createTranscriber` reads, for the server's configuration check. */
export const transcriberVariables = [
  'TRANSCRIBER',
  'GEMINI_API_KEY',
  'GEMINI_BASE_URL',
  'ELEVENLABS_API_KEY',
  'ELEVENLABS_BASE_URL',
  'WHISPER_BASE_URL',
  'WHISPER_MODEL',
  'WHISPER_API_KEY',
  'LOCAL_ASR_MODEL',
  'TRANSCRIBER_TIMEOUT_MS',
  'TRANSCRIBER_BUDGET_MS',
] as const;

type Env = Record<string, string | undefined>;

const required = (env: Env, variable: string, vendor: string, hint: string): string => {
  const value = env[variable]?.trim();
  if (!value) throw new Error(`${variable} is not set: the ${vendor} transcriber needs it (${hint}). Set TRANSCRIBER=none to type instead.`);
  return value;
};

const urlFrom = (env: Env, variable: string, example: string): string | undefined => {
  const value = env[variable]?.trim();
  if (!value) return undefined;
  const protocol = URL.canParse(value) ? new URL(value).protocol : '';
  if (protocol !== 'http:' && protocol !== 'https:') throw new Error(`${variable} must be an http(s) URL such as ${example}, got "${value}"`);
  return value;
};

/**
 * Retries, breaker, sleep, jitter and log for the vendor; the time limits come from the environment.
 * `model`: where the local recogniser's file comes from (the server's model store, server/models/),
 * instead of LOCAL_ASR_MODEL as a path. `preload`: the local recogniser fetches its model and builds
 * or loads whisper.cpp now, not at the first utterance (the server's start; never the configuration
 * check).
 */
export type CreateTranscriberOptions = Omit<ResilienceOptions, 'timeoutMs' | 'budgetMs'> & { model?: () => Promise<string>; preload?: boolean };

/** Returns null for `none`; throws an error naming the variable when one is missing or malformed. */
export const createTranscriber = (name: TranscriberName, env: Env, options: CreateTranscriberOptions = {}): Transcriber | null => {
  if (name === 'none') return null;
  if (!transcriberNames.includes(name)) {
    throw new Error(`TRANSCRIBER must be one of ${transcriberNames.join(', ')}, got "${String(name)}"`);
  }
  const timeoutMs = limitFrom(env, 'TRANSCRIBER_TIMEOUT_MS', 8000);
  const budgetMs = limitFrom(env, 'TRANSCRIBER_BUDGET_MS', 12_000);
  if (name === 'local') {
    const { model, preload, ...resilience } = options;
    let modelPath: string | (() => Promise<string>);
    if (model) modelPath = model;
    else {
      modelPath = required(env, 'LOCAL_ASR_MODEL', 'local', 'the path of a whisper.cpp ggml model, e.g. data/models/ggml-base.en-q5_1.bin');
      if (!existsSync(modelPath)) throw new Error(`LOCAL_ASR_MODEL: no model file at ${modelPath}. Set TRANSCRIBER=none to type instead.`);
    }
    const runtime = env.LOCAL_ASR_RUNTIME?.trim();
    const build = runtime ? { build: runtime === 'prebuilt' ? (false as const) : runtime } : {};
    const local = createLocalTranscriber({ modelPath, ...build, ...(preload ? { preload } : {}), ...(resilience.log ? { log: resilience.log } : {}) });
    // A retry would only queue the same work again behind the calls that made this one late.
    return resilientTranscriber(local, { secrets: secretsOf(env), retries: 0, ...resilience, timeoutMs, budgetMs });
  }
  const vendor =
    name === 'gemini'
      ? createGeminiTranscriber({
          apiKey: required(env, 'GEMINI_API_KEY', 'gemini', 'get one at https://aistudio.google.com/apikey'),
          baseUrl: urlFrom(env, 'GEMINI_BASE_URL', 'https://generativelanguage.googleapis.com'),
        })
      : name === 'elevenlabs'
        ? createElevenLabsTranscriber({
            apiKey: required(env, 'ELEVENLABS_API_KEY', 'elevenlabs', 'get one at https://elevenlabs.io/app/settings/api-keys'),
            baseUrl: urlFrom(env, 'ELEVENLABS_BASE_URL', 'https://api.elevenlabs.io'),
          })
        : createOpenAITranscriber({
            baseUrl:
              urlFrom(env, 'WHISPER_BASE_URL', 'http://localhost:8000/v1') ??
              required(env, 'WHISPER_BASE_URL', 'openai', 'the address of an OpenAI-compatible Whisper server, e.g. http://localhost:8000/v1'),
            model: env.WHISPER_MODEL?.trim() || undefined,
            apiKey: env.WHISPER_API_KEY?.trim() || 'none',
          });
  const credential = name === 'gemini' ? 'GEMINI_API_KEY' : name === 'elevenlabs' ? 'ELEVENLABS_API_KEY' : 'WHISPER_API_KEY';
  const { model: _local, preload: _preload, ...resilience } = options;
  return resilientTranscriber(vendor, { secrets: secretsOf(env), credential, ...resilience, timeoutMs, budgetMs });
};
