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
 * | `GENERATOR_TIMEOUT_MS` | both | `4000`: the longest an attempt waits for its first delta, and for each one after |
 * | `GENERATOR_BUDGET_MS` | both | `6000`: the longest a turn waits for its first delta, all attempts together, before the scripted generator writes it |
 *
 * A vendor's failures are logged (`options.log`, default standard error) with the environment's
 * keys blanked; the room hears only that the scripted generator stood in. A vendor that refuses
 * its key (401, 403) is not called again until its circuit's cooldown, and both say which
 * variable to check.
 */
import { createGeminiGenerator } from './gemini';
import { createOpenAIGenerator } from './openai';
import type { Generator } from './port';
import { createScriptedGenerator } from './scripted';
import { secretsOf } from '../redact';
import { limitFrom, resilientGenerator, type ResilienceOptions } from '../resilience';

export const generatorNames = ['scripted', 'gemini', 'openai'] as const;
export type GeneratorName = (typeof generatorNames)[number];

/** Retries, breaker, sleep, jitter and log for the vendor; the time limits come from the environment. */
export type CreateGeneratorOptions = Omit<ResilienceOptions, 'timeoutMs' | 'budgetMs'>;

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

export const createGenerator = (
  name: GeneratorName,
  env: Record<string, string | undefined>,
  options: CreateGeneratorOptions = {},
): Generator => {
  const scripted = createScriptedGenerator();
  if (name === 'scripted') return scripted;
  const limits = generatorLimitsFrom(env);
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
  return resilientGenerator(vendor, scripted, { secrets: limits.secrets, credential, ...options, timeoutMs: limits.timeoutMs, budgetMs: limits.budgetMs });
};
