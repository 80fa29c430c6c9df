/**
 * Generator for any OpenAI-compatible chat endpoint (Ollama, llama.cpp server, vLLM, OpenAI)
 * via the `openai` SDK: streams `POST {baseUrl}/chat/completions` with `stream: true`.
 *
 * ```ts
 * const local = createOpenAIGenerator({ apiKey: 'none', baseUrl: 'http://localhost:11434/v1', model: 'llama3.2' });
 * for await (const delta of local.stream(request)) process.stdout.write(delta);
 * ```
 *
 * The SDK's retries stay off (`maxRetries: 0`): `resilientGenerator` (providers/resilience.ts) is
 * the one place that retries, and it bounds the wait for each delta.
 */
import OpenAI, { APIError, APIUserAbortError } from 'openai';
import { GeneratorError, retryAfterMs } from '../errors';
import type { Generator } from './port';

export interface OpenAIOptions {
  /** Local servers ignore it; the SDK still needs a value. */
  apiKey: string;
  /** Up to and including the version, e.g. `http://localhost:11434/v1`. */
  baseUrl: string;
  model: string;
}

export const createOpenAIGenerator = (options: OpenAIOptions): Generator => {
  const { apiKey, baseUrl, model } = options;
  const client = new OpenAI({ apiKey, baseURL: baseUrl, maxRetries: 0 });

  return {
    name: 'openai',
    async *stream(request, signal) {
      try {
        const chunks = await client.chat.completions.create(
          {
            model,
            messages: [
              { role: 'system', content: request.system },
              { role: 'user', content: request.prompt },
            ],
            temperature: request.temperature,
            // max_tokens, not max_completion_tokens: the one Ollama, llama.cpp and vLLM all read.
            max_tokens: request.maxTokens,
            response_format: request.json ? { type: 'json_object' } : undefined,
            stream: true,
          },
          { signal },
        );
        for await (const chunk of chunks) {
          const text = chunk.choices[0]?.delta?.content;
          if (text) yield text;
        }
        // The SDK ends an aborted stream quietly: that is no complete reply.
        signal?.throwIfAborted();
      } catch (error) {
        // The caller's reason, as every port's adapter gives it (the SDK's own abort error says less).
        if (signal?.aborted) throw signal.reason;
        if (error instanceof APIUserAbortError) throw error;
        if (error instanceof APIError && error.status !== undefined) {
          const detail = (error.error as { message?: unknown } | undefined)?.message;
          throw new GeneratorError(`HTTP ${error.status}: ${typeof detail === 'string' ? detail : error.message}`, {
            status: error.status,
            retryAfterMs: retryAfterMs(error.headers),
            cause: error,
          });
        }
        throw GeneratorError.from(error);
      }
    },
  };
};
