/**
 * The local models on disk, under MODELS_DIR: `ensure(kind)` resolves to the path of a verified model
 * file, fetching it first if it is missing or damaged, and `status(kind)` says where that stands
 * (for the log, /api/health and the sessions page).
 *
 * ```ts
 * const models = createModelStore({ dir: config.modelsDir, env: process.env, log });
 * const path = await models.ensure('llm'); // downloads once, verifies, checks memory; throws ModelError
 * models.status('asr'); // { state: 'downloading', file: 'ggml-base.en-q5_1.bin', bytes, totalBytes, percent: 41 }
 * ```
 *
 * The download is node-llama-cpp's (createModelDownloader, on ipull): resumable, since it keeps
 * `<file>.ipull` with what it has so far, and retrying a connection cut midway from where it was.
 * It writes into `MODELS_DIR/.partial/`; the file is moved into MODELS_DIR only once its size,
 * header and checksum are right, so nothing half-written is ever loaded. One lock per file keeps two
 * processes from fetching the same model at once; the second waits and finds it ready. Before a
 * byte is fetched, one HEAD request asks the hub for the file's size and SHA-256 (Hugging Face's
 * `x-linked-size` and `x-linked-etag`) and fails fast on a 404 or a 500 (the downloader alone would
 * retry a 500 for minutes), and the disk's free space is checked.
 */
import { mkdir, rm, rename, stat, statfs as fsStatfs } from 'node:fs/promises';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createModelDownloader } from 'node-llama-cpp';
import { formatBytes, modelKinds, modelLine, type ModelKind, type ModelStatus } from '../../shared/models';
import { machineMemory, memoryProblem, type Memory } from './memory';
import { lockModel } from './lock';
import { modelSource, type ModelSource } from './registry';
import { quickCheck, readVerified, recordVerified, verifyFile, type Expected } from './verify';

/** Why a model cannot be had; `message` is one line fit for the log and for /api/health. */
export class ModelError extends Error {
  override name = 'ModelError';
  constructor(
    readonly kind: ModelKind,
    message: string,
  ) {
    super(message);
  }
}

export interface ModelStoreOptions {
  /** MODELS_DIR. */
  dir: string;
  /** LOCAL_LLM_MODEL, LOCAL_ASR_MODEL, MODEL_HUB_URL. */
  env?: Record<string, string | undefined>;
  /** One line per step of a fetch (start, every 10%, verified, failed). */
  log?: (line: string) => void;
  /** Free space of the disk holding `dir`; default node:fs statfs. */
  statfs?: (path: string) => Promise<{ bavail: number; bsize: number }>;
  /** This machine's memory; default node:os. */
  memory?: () => Memory;
  /** A download that receives nothing for this long is stopped (kept for resuming); default 60 s. */
  stallMs?: number;
  /** How long the HEAD request to the hub may take; default 20 s. */
  probeMs?: number;
  /** How often a process waiting for another's download looks again; default 500 ms. */
  lockPollMs?: number;
}

export interface EnsureOptions {
  /** Refuse a model this machine's free memory cannot hold (default true; `npm run models -- fetch` only fetches). */
  checkMemory?: boolean;
}

/** A model file in MODELS_DIR, as `list` reports it. */
export interface StoredModel {
  file: string;
  /** The kind whose configured model this file is, if it is one. */
  kind: ModelKind | null;
  bytes: number;
  /** 'verified', or why not ('not verified yet', 'changed since verified: …', or, after a full check, the problem). */
  verified: string;
}

export interface ModelStore {
  readonly dir: string;
  source(kind: ModelKind): ModelSource;
  ensure(kind: ModelKind, options?: EnsureOptions): Promise<string>;
  status(kind: ModelKind): ModelStatus;
  /** Every kind asked for so far (what /api/health shows). */
  statuses(): Partial<Record<ModelKind, ModelStatus>>;
  onStatus(listener: (kind: ModelKind, status: ModelStatus) => void): () => void;
  /** The model files in MODELS_DIR; `verify` re-reads each one against its checksums. */
  list(options?: { verify?: boolean }): Promise<StoredModel[]>;
}

interface Probe {
  bytes?: number;
  sha256?: string;
}

const hostOf = (url: string): string => new URL(url).host;

/** What the hub's answer to `url` means for the user, in one line. */
const httpProblem = (status: number, url: string, variable: string): string => {
  if (status === 404) return `the hub has no such file (HTTP 404 for ${url}); check ${variable}`;
  if (status === 401 || status === 403) return `the hub refuses the file (HTTP ${status} for ${url}); it may need a login: download it in a browser and copy it into MODELS_DIR`;
  if (status === 429 || status >= 500) return `the hub answered HTTP ${status} for ${url}; try again later (what was fetched is kept and resumed)`;
  return `the hub answered HTTP ${status} for ${url}`;
};

const linkedSha256 = (etag: string | null): string | undefined => {
  const value = etag?.replace(/^W\//, '').replace(/"/g, '').trim().toLowerCase();
  return value && /^[0-9a-f]{64}$/.test(value) ? value : undefined;
};

const variableOf = (kind: ModelKind) => (kind === 'llm' ? 'LOCAL_LLM_MODEL' : 'LOCAL_ASR_MODEL');

export const createModelStore = (options: ModelStoreOptions): ModelStore => {
  const dir = options.dir;
  const partialDir = join(dir, '.partial');
  const env = options.env ?? {};
  const log = options.log ?? (() => {});
  const statfs = options.statfs ?? ((path: string) => fsStatfs(path));
  const memory = options.memory ?? machineMemory;
  const stallMs = options.stallMs ?? 60_000;
  const probeMs = options.probeMs ?? 20_000;
  const current = new Map<ModelKind, ModelStatus>();
  const listeners = new Set<(kind: ModelKind, status: ModelStatus) => void>();
  const inFlight = new Map<ModelKind, Promise<string>>();

  const set = (kind: ModelKind, status: ModelStatus) => {
    current.set(kind, status);
    for (const listener of listeners) listener(kind, status);
  };
  const fail = (kind: ModelKind, file: string | null, reason: string): never => {
    set(kind, { state: 'failed', file, reason });
    log(`models: ${modelLine(kind, { state: 'failed', file, reason })}`);
    throw new ModelError(kind, reason);
  };

  /** Null when the file in MODELS_DIR is the right one (verifying it fully if needed), else why not. */
  const checkPresent = async (source: ModelSource, path: string): Promise<string | null> => {
    const record = await readVerified(path);
    if (record && ((source.sha256 && record.sha256 !== source.sha256) || (source.sha1 && record.sha1 !== source.sha1))) return 'it is not the published file';
    if ((await quickCheck(path, source.format, record)) === null) return null;
    set(source.kind, { state: 'verifying', file: source.file });
    const expected: Expected = {
      ...(source.bytes ?? record?.bytes) !== undefined ? { bytes: (source.bytes ?? record?.bytes)! } : {},
      ...(source.sha256 ?? record?.sha256) ? { sha256: (source.sha256 ?? record?.sha256)! } : {},
      ...(source.sha1 ?? record?.sha1) ? { sha1: (source.sha1 ?? record?.sha1)! } : {},
    };
    const check = await verifyFile(path, source.format, expected);
    if (!check.ok) return check.problem;
    // Copied in by hand (no record) or touched but intact: what it is now is what is trusted from here on.
    await recordVerified(path, check, record?.source);
    return null;
  };

  const probe = async (source: ModelSource & { url: string }): Promise<Probe> => {
    const variable = variableOf(source.kind);
    const head = (redirect: RequestRedirect) => fetch(source.url, { method: 'HEAD', redirect, signal: AbortSignal.timeout(probeMs) });
    try {
      let response = await head('manual');
      const linkedSize = Number(response.headers.get('x-linked-size')) || undefined;
      const sha256 = linkedSha256(response.headers.get('x-linked-etag'));
      // Hugging Face answers a file kept in LFS with a redirect to its CDN that carries the file's figures.
      if (response.status >= 300 && response.status < 400 && linkedSize) return { bytes: linkedSize, ...(sha256 ? { sha256 } : {}) };
      if (response.status >= 300 && response.status < 400) response = await head('follow');
      if (!response.ok) return fail(source.kind, source.file, httpProblem(response.status, source.url, variable));
      const bytes = linkedSize ?? (Number(response.headers.get('content-length')) || undefined);
      return { ...(bytes ? { bytes } : {}), ...(sha256 ? { sha256 } : {}) };
    } catch (error) {
      if (error instanceof ModelError) throw error;
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      return fail(source.kind, source.file, `cannot reach ${hostOf(source.url)} (${cause}); on a machine without internet, copy the file into MODELS_DIR`);
    }
  };

  /** Fetches `source` into MODELS_DIR/.partial, verifies it and moves it into MODELS_DIR; returns the bytes fetched. */
  const download = async (source: ModelSource & { url: string }, final: string): Promise<void> => {
    const { kind, file } = source;
    const staged = join(partialDir, file);
    const resumable = `${staged}.ipull`;
    const facts = await probe(source);
    if (source.bytes !== undefined && facts.bytes !== undefined && facts.bytes !== source.bytes) {
      fail(kind, file, `the hub's ${file} is ${facts.bytes.toLocaleString('en')} bytes, not the published ${source.bytes.toLocaleString('en')}; it changed upstream, so it is not fetched`);
    }
    if (source.sha256 && facts.sha256 && facts.sha256 !== source.sha256) fail(kind, file, `the hub's ${file} has another SHA-256 than the published one; it changed upstream, so it is not fetched`);
    const totalBytes = source.bytes ?? facts.bytes;
    const expected: Expected = { ...(totalBytes ? { bytes: totalBytes } : {}), ...((source.sha256 ?? facts.sha256) ? { sha256: (source.sha256 ?? facts.sha256)! } : {}), ...(source.sha1 ? { sha1: source.sha1 } : {}) };

    if (totalBytes) {
      const already = existsSync(resumable) ? Math.min(statSync(resumable).size, totalBytes) : 0;
      const { bavail, bsize } = await statfs(partialDir);
      const free = bavail * bsize;
      if (free < totalBytes - already) fail(kind, file, `not enough disk space in MODELS_DIR: ${file} needs ${formatBytes(totalBytes - already)} more, ${formatBytes(free)} is free`);
    }

    for (let attempt = 1; ; attempt++) {
      // A finished download that was never verified is not trusted; a resumable one is kept.
      await rm(staged, { force: true });
      log(`models: fetching the ${kind === 'llm' ? 'language model' : 'speech recogniser'} ${file}${totalBytes ? ` (${formatBytes(totalBytes)})` : ''} from ${hostOf(source.url)} into ${dir}`);
      await fetchFile(source, totalBytes);
      set(kind, { state: 'verifying', file });
      const check = await verifyFile(staged, source.format, expected);
      if (check.ok) {
        // The record first: a crash between the two leaves a record without a file, which is fetched again.
        await recordVerified(final, check, source.url);
        await rename(staged, final);
        return;
      }
      await rm(staged, { force: true });
      await rm(resumable, { force: true });
      if (attempt === 2) fail(kind, file, `the downloaded ${file} is damaged: ${check.problem}; it was deleted, nothing was loaded`);
      log(`models: the downloaded ${file} is damaged (${check.problem}); fetching it once more`);
    }
  };

  /** One run of the library's downloader, stopped when nothing arrives for `stallMs` (what it got is kept). */
  const fetchFile = async (source: ModelSource & { url: string }, totalBytes: number | undefined): Promise<void> => {
    const { kind, file } = source;
    const stop = new AbortController();
    let stall!: (error: ModelError) => void;
    const stalled = new Promise<never>((_, reject) => (stall = reject));
    let timer: NodeJS.Timeout | undefined;
    const rearm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const reason = new ModelError(kind, `the download stalled: nothing arrived from ${hostOf(source.url)} for ${Math.round(stallMs / 1000)} s; run again to resume from where it stopped`);
        stop.abort(reason);
        stall(reason);
      }, stallMs);
    };
    let lastBytes = -1;
    let lastTenth = -1;
    const onProgress = ({ totalSize, downloadedSize }: { totalSize: number; downloadedSize: number }) => {
      if (downloadedSize === lastBytes) return;
      rearm();
      lastBytes = downloadedSize;
      const total = totalBytes ?? totalSize;
      const percent = total > 0 ? Math.min(100, Math.floor((downloadedSize / total) * 100)) : 0;
      set(kind, { state: 'downloading', file, bytes: downloadedSize, totalBytes: total, percent });
      if (Math.floor(percent / 10) > lastTenth) {
        lastTenth = Math.floor(percent / 10);
        log(`models: ${modelLine(kind, current.get(kind)!)}`);
      }
    };
    set(kind, { state: 'downloading', file, bytes: 0, totalBytes: totalBytes ?? 0, percent: 0 });
    rearm();
    try {
      const downloader = await Promise.race([
        createModelDownloader({ modelUri: source.url, dirPath: partialDir, fileName: file, skipExisting: false, deleteTempFileOnCancel: false, parallelDownloads: 1, onProgress }),
        stalled,
      ]);
      await Promise.race([downloader.download({ signal: stop.signal }), stalled]);
    } catch (error) {
      if (error instanceof ModelError) fail(kind, file, error.message);
      if ((error as NodeJS.ErrnoException).code === 'ENOSPC') fail(kind, file, `the disk holding MODELS_DIR filled up while ${file} was downloading; free some space and run again to resume`);
      const status = (error as { statusCode?: number }).statusCode;
      if (status) fail(kind, file, httpProblem(status, source.url, variableOf(kind)));
      fail(kind, file, `the download of ${file} failed (${(error as Error).message.split('\n')[0]}); run again to resume`);
    } finally {
      clearTimeout(timer);
      stalled.catch(() => {});
      if (!stop.signal.aborted) stop.abort();
    }
  };

  const obtain = async (kind: ModelKind): Promise<string> => {
    let source: ModelSource;
    try {
      source = modelSource(kind, env, dir);
    } catch (error) {
      return fail(kind, null, (error as Error).message);
    }
    const { file } = source;
    if (source.path) {
      // A file of the user's, used where it is: its header is all that can be checked (nothing is published for it).
      set(kind, { state: 'verifying', file });
      const problem = await verifyFile(source.path, source.format, {}).then((check) => (check.ok ? null : check.problem));
      if (problem) fail(kind, file, `${variableOf(kind)} names a file that cannot be loaded: ${problem}`);
      set(kind, { state: 'ready', file, bytes: (await stat(source.path)).size });
      return source.path;
    }
    const url = source.url!;
    const final = join(dir, file);
    try {
      await mkdir(partialDir, { recursive: true });
    } catch (error) {
      fail(kind, file, `MODELS_DIR cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); set MODELS_DIR to a directory this server can write`);
    }
    const ready = async (): Promise<boolean> => {
      if (!existsSync(final)) return false;
      const problem = await checkPresent(source, final);
      if (problem === null) {
        set(kind, { state: 'ready', file, bytes: (await stat(final)).size });
        return true;
      }
      log(`models: ${file} in MODELS_DIR is not usable (${problem}); fetching it again`);
      await rm(final, { force: true });
      return false;
    };
    // Most starts end here: the file is present and was verified before.
    if (await ready()) return final;
    const release = await lockModel(join(partialDir, `${file}.lock`), {
      pollMs: options.lockPollMs ?? 500,
      onWaiting: () => {
        set(kind, { state: 'waiting', file });
        log(`models: ${modelLine(kind, { state: 'waiting', file })}`);
      },
    });
    try {
      // Another process may have fetched it while this one waited.
      if (await ready()) return final;
      await download({ ...source, url }, final);
      const bytes = (await stat(final)).size;
      set(kind, { state: 'ready', file, bytes });
      log(`models: ${modelLine(kind, { state: 'ready', file, bytes })}`);
      return final;
    } finally {
      release();
    }
  };

  const fileOf = (kind: ModelKind): string | null => {
    try {
      return modelSource(kind, env, dir).file;
    } catch {
      return null;
    }
  };

  return {
    dir,
    source: (kind) => modelSource(kind, env, dir),
    async ensure(kind, ensureOptions = {}) {
      let pending = inFlight.get(kind);
      if (!pending) {
        pending = obtain(kind).finally(() => inFlight.delete(kind));
        inFlight.set(kind, pending);
      }
      const path = await pending;
      if (ensureOptions.checkMemory ?? true) {
        const problem = memoryProblem(kind, (await stat(path)).size, memory());
        if (problem) fail(kind, fileOf(kind), problem);
      }
      return path;
    },
    status: (kind) => current.get(kind) ?? { state: 'idle' },
    statuses: () => Object.fromEntries(modelKinds.filter((kind) => current.has(kind)).map((kind) => [kind, current.get(kind)!])),
    onStatus(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async list({ verify = false } = {}) {
      if (!existsSync(dir)) return [];
      const configured = new Map(modelKinds.map((kind) => [fileOf(kind), kind] as const));
      const files = readdirSync(dir).filter((name) => /\.(gguf|bin)$/.test(name) && statSync(join(dir, name)).isFile());
      return Promise.all(
        files.map(async (file): Promise<StoredModel> => {
          const path = join(dir, file);
          const kind = configured.get(file) ?? null;
          const format = kind === 'asr' || (!kind && file.endsWith('.bin')) ? 'whisper-ggml' : 'gguf';
          const record = await readVerified(path);
          let verified: string;
          if (verify) {
            const source = kind ? modelSource(kind, env, dir) : null;
            const check = await verifyFile(path, format, { ...(record ? { bytes: record.bytes, sha256: record.sha256 } : {}), ...(source?.sha256 ? { sha256: source.sha256 } : {}), ...(source?.sha1 ? { sha1: source.sha1 } : {}) });
            verified = check.ok ? 'verified' : check.problem;
            if (check.ok) await recordVerified(path, check, record?.source);
          } else {
            const problem = await quickCheck(path, format, record);
            verified = problem === null ? 'verified' : record ? `changed since verified: ${problem}` : 'not verified yet';
          }
          return { file, kind, bytes: statSync(path).size, verified };
        }),
      );
    },
  };
};
