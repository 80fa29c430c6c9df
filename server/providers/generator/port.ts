/**
 * The generator port: the one streaming interface every text generator implements
 * (Gemini, OpenAI-compatible, scripted). The engine never calls it; the engine's shell does,
 * carrying out the engine's `generate` requests and feeding the text back.
 *
 * Requests (`GenerateRequest`, its `Cue` and `Purpose`) are the engine's: server/engine/requests.ts.
 */
import type { GenerateRequest } from '../../engine/requests';

export interface Generator {
  /** Provider name as reported by /api/health: "scripted", "gemini", "openai". */
  readonly name: string;
  /** Streams the reply as text deltas. Throws on failure; the caller retries and falls back. */
  stream(request: GenerateRequest, signal?: AbortSignal): AsyncIterable<string>;
}

/** Collects a generator's stream into one string. */
export const complete = async (generator: Generator, request: GenerateRequest, signal?: AbortSignal): Promise<string> => {
  let text = '';
  for await (const delta of generator.stream(request, signal)) text += delta;
  return text;
};
