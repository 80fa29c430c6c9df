/**
 * Picks the generator by name and configures it from the environment. Vendors are wrapped
 * with `resilientGenerator(vendor, scripted)` (providers/resilience.ts), so a vendor outage costs a
 * notice, never a turn.
 *
 * ```ts
 * const generator = createGenerator('gemini', process.env);
 * for await (const delta of generator.stream(request, signal, (n) => console.warn(n.message))) show(delta);
 * ```
 *
 * | variable | for | default |
 * | --- | --- | --- |
 * | `GEMINI_API_KEY` | gemini | required |
 * | `GEMINI_MODEL` | gemini | `gemini-2.5-flash` |
 * | `GEMINI_BASE_URL` | gemini | the Gemini API |
 * | `OPENAI_BASE_URL` | openai | required, e.g. `http://localhost:11434/v1` |
 * | `OPENAI_API_KEY` | openai | `none` (local servers need no key) |
 * | `OPENAI_MODEL` | openai | required |
 * | `LOCAL_LLM_MODEL` | local | required: a GGUF file, e.g. `./models/qwen2.5-1.5b-instruct-q4_k_m.gguf` |
 * | `LOCAL_LLM_THREADS` | local | `1`: CPU threads for the model |
 * | `GENERATOR_TIMEOUT_MS` | all | `4000`: the longest an attempt waits for its first delta, and for each one after |
 * | `GENERATOR_BUDGET_MS` | all | `6000`: the longest a turn waits for its first delta, all attempts together, before the scripted generator writes it |
 *
 * The local model (local.ts) is tried once per turn, never retried: a failure there is the file or
 * the machine, which a second try at once does not mend. A turn waits for it at most half of
 * GENERATOR_TIMEOUT_MS while other rooms' turns use it, so it still has the other half for its prompt.
 *
 * A vendor's failures are logged (`options.log`, default standard error) with the environment's
 * keys blanked; the room hears only that the scripted generator stood in. A vendor that refuses
 * its key (401, 403) is not called again until its circuit's cooldown, and both say which
 * variable to check.
 */
import { createGeminiGenerator } from './gemini';
import { createLocalGenerator, type LocalGenerator } from './local';
import { createOpenAIGenerator } from './openai';
import type { Generator } from './port';
import { createScriptedGenerator } from './scripted';
import { secretsOf } from '../redact';
import { limitFrom, resilientGenerator, type ResilienceOptions } from '../resilience';

export const generatorNames = ['scripted', 'gemini', 'openai', 'local'] as const;
export type GeneratorName = (typeof generatorNames)[number];

/**
 * Retries, breaker, sleep, jitter and log for the vendor; the time limits come from the environment.
 * `preload`: the local model starts loading now, not on the first turn (the server's start; never
 * the configuration check, which builds a generator only to check its variables). `model`: where
 * the local model's file comes from (the server's model store, server/models/: fetched once,
 * verified), instead of LOCAL_LLM_MODEL as a path.
 */
export type CreateGeneratorOptions = Omit<ResilienceOptions, 'timeoutMs' | 'budgetMs'> & {
  preload?: boolean;
  model?: () => Promise<string>;
  /** Told the local model when GENERATOR=local: its loading, queue and late turns, for /api/health. */
  onLocal?: (local: LocalGenerator) => void;
};

const required = (env: Record<string, string | undefined>, variable: string, vendor: string, hint: string): string => {
  const value = env[variable]?.trim();
  if (!value) throw new Error(`${variable} is not set: the ${vendor} generator needs it (${hint}). Use the scripted generator to run without one.`);
  return value;
};

const urlFrom = (variable: string, value: string): string => {
  const protocol = URL.canParse(value) ? new URL(value).protocol : '';
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new Error(`${variable} must be an http(s) URL such as http://localhost:11434/v1, got "${value}"`);
  }
  return value;
};

/** A vendor generator's time limits (GENERATOR_TIMEOUT_MS, GENERATOR_BUDGET_MS) and the keys to blank from its failures in the log. */
export const generatorLimitsFrom = (env: Record<string, string | undefined>): Pick<ResilienceOptions, 'timeoutMs' | 'budgetMs' | 'secrets'> => ({
  timeoutMs: limitFrom(env, 'GENERATOR_TIMEOUT_MS', 4000),
  budgetMs: limitFrom(env, 'GENERATOR_BUDGET_MS', 6000),
  secrets: secretsOf(env),
});

const localThreadsFrom = (env: Record<string, string | undefined>): number => {
  const raw = env.LOCAL_LLM_THREADS?.trim();
  if (!raw) return 1;
  const threads = Number(raw);
  if (!Number.isInteger(threads) || threads < 1 || threads > 256) throw new Error(`LOCAL_LLM_THREADS must be a whole number of threads from 1, got "${raw}"`);
  return threads;
};

export const createGenerator = (
  name: GeneratorName,
  env: Record<string, string | undefined>,
  options: CreateGeneratorOptions = {},
): Generator => {
  const scripted = createScriptedGenerator();
  if (name === 'scripted') return scripted;
  const limits = generatorLimitsFrom(env);
  if (name === 'local') {
    const local = createLocalGenerator({
      model: options.model ?? required(env, 'LOCAL_LLM_MODEL', 'local', 'the path of a GGUF file, e.g. a Qwen2.5-1.5B-Instruct Q4_K_M'),
      threads: localThreadsFrom(env),
      maxWaitMs: Math.round(limitFrom(env, 'GENERATOR_TIMEOUT_MS', 4000) / 2),
      ...(options.log ? { log: options.log } : {}),
    });
    const { preload, model: _model, onLocal, ...resilience } = options;
    onLocal?.(local);
    // Its failure is logged by the model and told to each turn it would have written.
    if (preload) local.load().catch(() => undefined);
    return resilientGenerator(local, scripted, { secrets: limits.secrets, retries: 0, ...resilience, timeoutMs: limits.timeoutMs, budgetMs: limits.budgetMs });
  }
  const vendor =
    name === 'gemini'
      ? createGeminiGenerator({
          apiKey: required(env, 'GEMINI_API_KEY', 'gemini', 'get one at https://aistudio.google.com/apikey'),
          model: env.GEMINI_MODEL?.trim() || undefined,
          baseUrl: env.GEMINI_BASE_URL?.trim() ? urlFrom('GEMINI_BASE_URL', env.GEMINI_BASE_URL.trim()) : undefined,
        })
      : createOpenAIGenerator({
          baseUrl: urlFrom('OPENAI_BASE_URL', required(env, 'OPENAI_BASE_URL', 'openai', 'e.g. http://localhost:11434/v1 for Ollama')),
          model: required(env, 'OPENAI_MODEL', 'openai', 'the model name your server serves, e.g. llama3.2'),
          apiKey: env.OPENAI_API_KEY?.trim() || 'none',
        });
  const credential = name === 'gemini' ? 'GEMINI_API_KEY' : 'OPENAI_API_KEY';
  const { preload: _, model: _local, ...resilience } = options;
  return resilientGenerator(vendor, scripted, { secrets: limits.secrets, credential, ...resilience, timeoutMs: limits.timeoutMs, budgetMs: limits.budgetMs });
};
