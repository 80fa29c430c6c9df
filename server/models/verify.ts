/**
 * Whether a model file is the one it should be: its format's header, its size, and its checksums
 * (the published ones, else the ones recorded when it was first verified). A file that fails is
 * never handed to a runtime: llama.cpp and whisper.cpp read a truncated or corrupted file as far as
 * it goes and then crash or write nonsense.
 *
 * ```ts
 * const check = await verifyFile('data/models/ggml-base.en-q5_1.bin', 'whisper-ggml', { sha1: 'd26d…' });
 * if (!check.ok) console.log(check.problem); // "its SHA-1 is 0b1c…, not the published d26d…"
 * await recordVerified('data/models/ggml-base.en-q5_1.bin', check, 'https://huggingface.co/…');
 * ```
 *
 * What was verified is recorded beside the file, `<file>.verified` (JSON: size, SHA-256, SHA-1, the
 * file's mtime, where it came from). A later start re-reads the whole file only when its size or
 * mtime no longer match that record (re-hashing 1.1 GB costs ~4 s here, at ~300 MB/s): a file
 * rewritten or cut short is caught at once; `npm run models -- list --verify` re-hashes everything.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readFile, stat, writeFile, rename } from 'node:fs/promises';
import type { ModelFormat } from './registry';

export interface Expected {
  bytes?: number;
  sha256?: string;
  sha1?: string;
}

export type Verification = { ok: true; bytes: number; sha256: string; sha1: string; mtimeMs: number } | { ok: false; problem: string };

/** What `<file>.verified` holds. */
export interface VerifiedRecord {
  bytes: number;
  sha256: string;
  sha1: string;
  mtimeMs: number;
  verifiedAt: string;
  /** The URL it was downloaded from; absent for a file copied in by hand. */
  source?: string;
}

/** GGUF: "GGUF" then a little-endian version (1-3 exist). whisper.cpp: the uint32 0x67676d6c, then n_vocab. */
export const headerProblem = (head: Buffer, format: ModelFormat): string | null => {
  if (head.length < 8) return `it is ${head.length} bytes long, too short for a model`;
  if (format === 'gguf') {
    if (head.toString('latin1', 0, 4) !== 'GGUF') return 'it is not a GGUF file (its first bytes are not "GGUF")';
    const version = head.readUInt32LE(4);
    return version >= 1 && version <= 3 ? null : `it is GGUF version ${version}, which llama.cpp does not read`;
  }
  if (head.readUInt32LE(0) !== 0x67676d6c) return 'it is not a whisper.cpp ggml model (wrong magic number)';
  const vocabulary = head.readInt32LE(4);
  return vocabulary > 0 && vocabulary < 1_000_000 ? null : `its header is damaged (a vocabulary of ${vocabulary})`;
};

const readHead = async (path: string): Promise<Buffer> => {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(8);
    const { bytesRead } = await handle.read(buffer, 0, 8, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
};

/** SHA-256 and SHA-1 in one pass over the file; `onBytes` hears how far it got. */
const digests = (path: string, onBytes?: (bytes: number) => void): Promise<{ sha256: string; sha1: string }> =>
  new Promise((resolve, reject) => {
    const sha256 = createHash('sha256');
    const sha1 = createHash('sha1');
    let read = 0;
    createReadStream(path, { highWaterMark: 4 << 20 })
      .on('data', (chunk) => {
        sha256.update(chunk);
        sha1.update(chunk);
        read += chunk.length;
        onBytes?.(read);
      })
      .on('error', reject)
      .on('end', () => resolve({ sha256: sha256.digest('hex'), sha1: sha1.digest('hex') }));
  });

export const verifyFile = async (path: string, format: ModelFormat, expected: Expected, onBytes?: (bytes: number) => void): Promise<Verification> => {
  const { size, mtimeMs } = await stat(path);
  if (expected.bytes !== undefined && size !== expected.bytes) {
    return { ok: false, problem: `it is ${size.toLocaleString('en')} bytes, not the expected ${expected.bytes.toLocaleString('en')}${size < expected.bytes ? ' (cut short)' : ''}` };
  }
  const header = headerProblem(await readHead(path), format);
  if (header) return { ok: false, problem: header };
  const sums = await digests(path, onBytes);
  if (expected.sha256 && sums.sha256 !== expected.sha256.toLowerCase()) return { ok: false, problem: `its SHA-256 is ${sums.sha256.slice(0, 12)}…, not the expected ${expected.sha256.slice(0, 12)}…` };
  if (expected.sha1 && sums.sha1 !== expected.sha1.toLowerCase()) return { ok: false, problem: `its SHA-1 is ${sums.sha1.slice(0, 12)}…, not the published ${expected.sha1.slice(0, 12)}…` };
  return { ok: true, bytes: size, mtimeMs, ...sums };
};

export const recordFile = (path: string): string => `${path}.verified`;

export const readVerified = async (path: string): Promise<VerifiedRecord | null> => {
  try {
    const record = JSON.parse(await readFile(recordFile(path), 'utf8')) as VerifiedRecord;
    return typeof record.sha256 === 'string' && typeof record.bytes === 'number' ? record : null;
  } catch {
    return null;
  }
};

/** Written to a temporary name and renamed, so a reader never sees half a record. */
export const recordVerified = async (path: string, check: Extract<Verification, { ok: true }>, source?: string): Promise<void> => {
  const record: VerifiedRecord = { bytes: check.bytes, sha256: check.sha256, sha1: check.sha1, mtimeMs: check.mtimeMs, verifiedAt: new Date().toISOString(), ...(source ? { source } : {}) };
  const temporary = `${recordFile(path)}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(record, null, 2)}\n`);
  await rename(temporary, recordFile(path));
};

/**
 * The file still is what its record says, judged by size, mtime and header (no re-hash); null
 * when it is, else why not. A file with no record has not been verified here.
 */
export const quickCheck = async (path: string, format: ModelFormat, record: VerifiedRecord | null): Promise<string | null> => {
  if (!record) return 'it has not been verified on this machine';
  const { size, mtimeMs } = await stat(path);
  if (size !== record.bytes) return `it is ${size.toLocaleString('en')} bytes, not the ${record.bytes.toLocaleString('en')} verified`;
  if (mtimeMs !== record.mtimeMs) return 'it was changed since it was verified';
  return headerProblem(await readHead(path), format);
};
