/**
 * Whether a model fits in this machine's memory, checked before it is loaded: a model that does not
 * fit makes the kernel swap or kill the whole server, every room with it.
 *
 * ```ts
 * memoryProblem('llm', 1_117_320_736, { totalBytes: 4e9, freeBytes: 1e9 });
 * // "the language model needs about 1.6 GB of memory; 1.0 GB of this machine's 4.0 GB is free: …"
 * ```
 */
import { freemem, totalmem } from 'node:os';
import { formatBytes, modelNames, type ModelKind } from '../../shared/models';

export interface Memory {
  totalBytes: number;
  /** What can be had without swapping: Node reads MemAvailable on Linux (page cache counts as free). */
  freeBytes: number;
}

export const machineMemory = (): Memory => ({ totalBytes: totalmem(), freeBytes: freemem() });

/**
 * Beyond the weights (mapped from the file): llama.cpp's KV cache and compute buffers for a 4k
 * context of a 1.5B model (~0.1 GB of f16 cache plus ~0.3 GB of buffers) with a margin; whisper.cpp's
 * encoder and decoder buffers (its README gives 388 MB in use for base.en's 142 MB file).
 */
const workingBytes: Record<ModelKind, number> = { llm: 512e6, asr: 300e6 };

export const memoryNeeded = (kind: ModelKind, fileBytes: number): number => fileBytes + workingBytes[kind];

/** Why the model cannot be loaded now, with the figures; null when it fits. */
export const memoryProblem = (kind: ModelKind, fileBytes: number, memory: Memory = machineMemory()): string | null => {
  const needed = memoryNeeded(kind, fileBytes);
  const variable = kind === 'llm' ? 'LOCAL_LLM_MODEL' : 'LOCAL_ASR_MODEL';
  if (needed > memory.totalBytes) {
    return `the ${modelNames[kind]} needs about ${formatBytes(needed)} of memory and this machine has ${formatBytes(memory.totalBytes)} in all; choose a smaller ${variable}`;
  }
  if (needed > memory.freeBytes) {
    return `the ${modelNames[kind]} needs about ${formatBytes(needed)} of memory; ${formatBytes(memory.freeBytes)} of this machine's ${formatBytes(memory.totalBytes)} is free: free some, or choose a smaller ${variable}`;
  }
  return null;
};
