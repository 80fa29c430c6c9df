/**
 * Model files for the tests: the right header (GGUF, or whisper.cpp's ggml magic and vocabulary
 * size) and random weights, so the store's checks see what a real model looks like.
 *
 * ```ts
 * const bytes = modelBytes('gguf', 12 << 20);
 * ```
 */
import { randomBytes } from 'node:crypto';

export const modelBytes = (format: 'gguf' | 'whisper-ggml', size: number): Buffer => {
  const bytes = randomBytes(size);
  if (format === 'gguf') {
    bytes.write('GGUF', 0, 'latin1');
    bytes.writeUInt32LE(3, 4);
  } else {
    bytes.writeUInt32LE(0x67676d6c, 0);
    bytes.writeInt32LE(51_864, 4);
  }
  return bytes;
};
