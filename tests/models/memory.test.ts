/**
 * The memory check before a model is loaded (server/models/memory.ts), for both kinds: the figures
 * in the refusal, and the recogniser's working memory counted beside its file.
 */
import { describe, expect, it } from 'vitest';
import { memoryNeeded, memoryProblem } from '../../server/models/memory';

describe('memoryProblem', () => {
  it("refuses a speech recogniser larger than the free memory, naming its figure and LOCAL_ASR_MODEL", () => {
    expect(memoryProblem('asr', 148e6, { totalBytes: 1e9, freeBytes: 2e8 })).toBe(
      "the speech recogniser needs about 448 MB of memory; 200 MB of this machine's 1.0 GB is free: free some, or choose a smaller LOCAL_ASR_MODEL",
    );
  });

  it('refuses a language model larger than the whole machine, saying so', () => {
    expect(memoryProblem('llm', 3e9, { totalBytes: 2e9, freeBytes: 1.5e9 })).toMatch(/^the language model needs about 3\.5 GB of memory and this machine has 2\.0 GB in all; choose a smaller LOCAL_LLM_MODEL$/);
  });

  it('lets a model that fits be loaded', () => {
    expect(memoryProblem('asr', 148e6, { totalBytes: 8e9, freeBytes: 4e9 })).toBeNull();
    expect(memoryNeeded('asr', 148e6)).toBeGreaterThan(148e6);
  });
});
