/**
 * The generator port: the one streaming interface every text generator implements
 * (Gemini, OpenAI-compatible, scripted). The engine never calls it; the engine's shell does,
 * carrying out the engine's `generate` requests and feeding the text back.
 *
 * Requests (`GenerateRequest`, its `Cue` and `Purpose`) are the engine's: server/engine/requests.ts.
 */
import type { GenerateRequest } from '../../engine/requests';
import type { OnNotice } from '../notice';

export interface Generator {
  /** Provider name as reported by /api/health: "scripted", "gemini", "openai". */
  readonly name: string;
  /**
   * Streams the reply as text deltas. A vendor throws on failure; a resilient generator
   * (providers/resilience.ts) retries and falls back instead, and tells `onNotice` so.
   */
  stream(request: GenerateRequest, signal?: AbortSignal, onNotice?: OnNotice): AsyncIterable<string>;
}

/** Collects a generator's stream into one string. */
export const complete = async (generator: Generator, request: GenerateRequest, signal?: AbortSignal, onNotice?: OnNotice): Promise<string> => {
  let text = '';
  for await (const delta of generator.stream(request, signal, onNotice)) text += delta;
  return text;
};
