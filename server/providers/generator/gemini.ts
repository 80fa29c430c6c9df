/**
 * Gemini generator via `@google/genai`: streams `POST {baseUrl}/v1beta/models/{model}:streamGenerateContent?alt=sse`
 * with the `x-goog-api-key` header.
 *
 * ```ts
 * const gemini = createGeminiGenerator({ apiKey: process.env.GEMINI_API_KEY! });
 * for await (const delta of gemini.stream(request)) process.stdout.write(delta);
 * ```
 *
 * The SDK's own retries and automatic continuation stay off, and so does its time limit:
 * `resilientGenerator` (providers/resilience.ts) is the one place that retries and times out, so
 * a turn is never sent twice behind its back.
 */
import { ApiError, GoogleGenAI } from '@google/genai';
import { geminiErrorText, geminiRetryDelayMs, GeneratorError } from '../errors';
import type { Generator } from './port';

export interface GeminiOptions {
  apiKey: string;
  model?: string;
  /** Overrides https://generativelanguage.googleapis.com (fake servers, proxies). */
  baseUrl?: string;
}

export const createGeminiGenerator = (options: GeminiOptions): Generator => {
  const { apiKey, model = 'gemini-2.5-flash', baseUrl } = options;
  // vertexai: false keeps us on the Gemini API whatever GOOGLE_GENAI_USE_VERTEXAI says.
  const ai = new GoogleGenAI({ apiKey, vertexai: false, httpOptions: { baseUrl } });
  // Turns are short and latency-bound; on 2.5 Flash a thinking budget would also eat maxOutputTokens.
  const thinkingConfig = /flash/.test(model) ? { thinkingBudget: 0 } : undefined;

  return {
    name: 'gemini',
    async *stream(request, signal) {
      try {
        const chunks = await ai.models.generateContentStream({
          model,
          contents: request.prompt,
          config: {
            systemInstruction: request.system,
            temperature: request.temperature,
            maxOutputTokens: request.maxTokens,
            responseMimeType: request.json ? 'application/json' : undefined,
            thinkingConfig,
            automaticContinuation: false,
            abortSignal: signal,
          },
        });
        for await (const chunk of chunks) {
          const text = chunk.text;
          if (text) yield text;
        }
        // An SDK may end an aborted stream quietly: that is no complete reply.
        signal?.throwIfAborted();
      } catch (error) {
        // The caller's reason, as every port's adapter gives it (the SDK's own abort error says less).
        if (signal?.aborted) throw signal.reason;
        if (error instanceof ApiError) {
          throw new GeneratorError(`HTTP ${error.status}: ${geminiErrorText(error.message)}`, {
            status: error.status,
            retryAfterMs: geminiRetryDelayMs(error.message),
            cause: error,
          });
        }
        throw GeneratorError.from(error);
      }
    },
  };
};
