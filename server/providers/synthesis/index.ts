/**
 * Picks the speech synthesizer by name and configures it from the environment.
 *
 * | variable | for | default |
 * | --- | --- | --- |
 * | `SYNTHESIZER` | all | `espeak` (embedded, offline) |
 * | `ELEVENLABS_API_KEY` | elevenlabs | required |
 * | `ELEVENLABS_BASE_URL` | elevenlabs | the ElevenLabs API |
 * | `ELEVENLABS_TTS_MODEL` | elevenlabs | `eleven_flash_v2_5` |
 * | `ESPEAK_WORKERS` | espeak (and the fallback) | one per core, at most 8 |
 * | `SYNTHESIZER_TIMEOUT_MS` | elevenlabs | `3000`: the longest an attempt waits for its first audio, and for each chunk after |
 * | `SYNTHESIZER_BUDGET_MS` | elevenlabs | `4000`: the longest a clause waits for its first audio, all attempts together, before eSpeak speaks it |
 *
 * ElevenLabs gives character timestamps; their visemes come from eSpeak's phonemizer, so both
 * vendors share one phoneme-to-viseme table.
 */
import { createElevenLabsSynthesizer } from './elevenlabs';
import { createEspeakSynthesizer, phonemize } from './espeak';
import type { Synthesizer } from './port';
import { secretsOf } from '../redact';
import { limitFrom, type ResilienceOptions } from '../resilience';
import { phonemesToVisemes } from './visemes';

export const synthesizerNames = ['espeak', 'elevenlabs', 'none'] as const;
export type SynthesizerName = (typeof synthesizerNames)[number];

export const synthesizerVariables = ['SYNTHESIZER', 'ELEVENLABS_API_KEY', 'ELEVENLABS_BASE_URL', 'ELEVENLABS_TTS_MODEL', 'ESPEAK_WORKERS', 'SYNTHESIZER_TIMEOUT_MS', 'SYNTHESIZER_BUDGET_MS'] as const;

/** ESPEAK_WORKERS: eSpeak processes shared by every session (default: one per core, at most 8). */
export const espeakWorkersFrom = (env: Record<string, string | undefined>): number | undefined => {
  const raw = env.ESPEAK_WORKERS?.trim();
  if (!raw) return undefined;
  const workers = Number(raw);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64) throw new Error(`ESPEAK_WORKERS must be a whole number from 1 to 64, got "${raw}"`);
  return workers;
};

/**
 * A vendor voice's time limits, the keys to blank from its failures in the log and the variable to
 * check when it refuses its key, for `resilientSynthesizer(vendor, espeak, { ...synthesisLimitsFrom(env), breaker, log })`.
 */
export const synthesisLimitsFrom = (env: Record<string, string | undefined>): Pick<ResilienceOptions, 'timeoutMs' | 'budgetMs' | 'secrets' | 'credential'> => ({
  timeoutMs: limitFrom(env, 'SYNTHESIZER_TIMEOUT_MS', 3000),
  budgetMs: limitFrom(env, 'SYNTHESIZER_BUDGET_MS', 4000),
  secrets: secretsOf(env),
  // ElevenLabs is the one vendor voice.
  credential: 'ELEVENLABS_API_KEY',
});

export const createSynthesizer = (name: SynthesizerName, env: Record<string, string | undefined>): Synthesizer | null => {
  if (name === 'none') return null;
  const workers = espeakWorkersFrom(env);
  if (name === 'espeak') return createEspeakSynthesizer(workers ? { workers } : {});
  if (name !== 'elevenlabs') throw new Error(`SYNTHESIZER must be one of ${synthesizerNames.join(', ')}, got "${String(name)}"`);
  const apiKey = env.ELEVENLABS_API_KEY?.trim();
  if (!apiKey) throw new Error('ELEVENLABS_API_KEY is not set: the elevenlabs synthesizer needs it. Use SYNTHESIZER=espeak to run without one.');
  const baseUrl = env.ELEVENLABS_BASE_URL?.trim();
  if (baseUrl && !/^https?:\/\//.test(baseUrl)) throw new Error(`ELEVENLABS_BASE_URL must be an http(s) URL, got "${baseUrl}"`);
  synthesisLimitsFrom(env);
  return createElevenLabsSynthesizer({
    apiKey,
    ...(baseUrl ? { baseUrl } : {}),
    ...(env.ELEVENLABS_TTS_MODEL?.trim() ? { model: env.ELEVENLABS_TTS_MODEL.trim() } : {}),
    phonemize: (text) => phonemize(text),
    phonemeToViseme: (phoneme) => phonemesToVisemes([phoneme])[0] ?? [],
  });
};
