/**
 * The model store against a fake hub (tests/fakes/model-hub.ts) through node-llama-cpp's own
 * downloader: a clean fetch, resuming, the hub's failures, damaged files, two processes at once,
 * a full disk and a model too large for memory. Each ends with a clear reason and nothing
 * half-written in MODELS_DIR.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModelStatus } from '../../shared/models';
import { createModelStore, ModelError, type ModelStoreOptions } from '../../server/models/store';
import { startModelHub, type ModelHub } from '../fakes/model-hub';
import { until } from '../until';
import { modelBytes } from './files';

const repo = new URL('../../', import.meta.url).pathname;
const hubPath = 'acme/tiny-chat/resolve/main/tiny-chat.gguf';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let hub: ModelHub;
let dir: string;
let bytes: Buffer;

beforeEach(async () => {
  hub = await startModelHub();
  dir = mkdtempSync(join(tmpdir(), 'models-'));
  bytes = modelBytes('gguf', 12 << 20);
  hub.serve(hubPath, bytes);
});

afterEach(async () => {
  await hub.close();
  rmSync(dir, { recursive: true, force: true });
});

const storeWith = (options: Partial<ModelStoreOptions> = {}) => {
  const seen: ModelStatus[] = [];
  const store = createModelStore({ dir, env: { MODEL_HUB_URL: hub.url, LOCAL_LLM_MODEL: 'acme/tiny-chat/tiny-chat.gguf' }, memory: () => ({ totalBytes: 16e9, freeBytes: 8e9 }), ...options });
  store.onStatus((_, status) => seen.push(status));
  return { store, seen };
};

/** What is in MODELS_DIR besides the lock and the bookkeeping. */
const modelFiles = () => readdirSync(dir).filter((name) => !name.startsWith('.') && !name.endsWith('.verified'));

describe('fetching a model', () => {
  it('downloads it once through the resolve URL, verifies it and hands back its path', async () => {
    const { store, seen } = storeWith();
    const path = await store.ensure('llm');

    expect(path).toBe(join(dir, 'tiny-chat.gguf'));
    expect(sha256(readFileSync(path))).toBe(sha256(bytes));
    expect(seen.map((s) => s.state)).toEqual(expect.arrayContaining(['downloading', 'verifying', 'ready']));
    expect(seen.at(-1)).toEqual({ state: 'ready', file: 'tiny-chat.gguf', bytes: bytes.length });
    expect(store.statuses()).toEqual({ llm: { state: 'ready', file: 'tiny-chat.gguf', bytes: bytes.length } });
    // The checksum the hub published (x-linked-etag) is recorded, for catching a damaged copy later.
    expect(JSON.parse(readFileSync(`${path}.verified`, 'utf8'))).toMatchObject({ bytes: bytes.length, sha256: sha256(bytes) });

    const requests = hub.requests.length;
    const again = storeWith().store;
    expect(await again.ensure('llm')).toBe(path);
    expect(hub.requests.length).toBe(requests);
  });

  it('resumes a download cut midway instead of starting over', async () => {
    hub.fault(hubPath, { cutAfterBytes: 3 << 20, times: 2 });
    const { store } = storeWith();
    const path = await store.ensure('llm');

    expect(sha256(readFileSync(path))).toBe(sha256(bytes));
    expect(hub.requests.filter((r) => r.range && !r.range.startsWith('bytes=0-')).length).toBeGreaterThan(0);
  });

  it('picks up, in a later run, what a stalled download had fetched', async () => {
    // 16 MB over at most 3 streams: one of them finished a 5 MB chunk, which the downloader keeps.
    bytes = modelBytes('gguf', 24 << 20);
    hub.serve(hubPath, bytes);
    hub.fault(hubPath, { stallAfterBytes: 16 << 20 });
    // Long enough that a busy machine's pauses between chunks are not taken for the stall.
    const first = storeWith({ stallMs: 5000 });
    const failure = await first.store.ensure('llm').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelError);
    expect((failure as Error).message).toMatch(/stalled: nothing arrived from 127\.0\.0\.1:\d+ for 5 s; run again to resume/);
    expect(first.store.status('llm')).toMatchObject({ state: 'failed', file: 'tiny-chat.gguf' });
    expect(modelFiles()).toEqual([]);

    // New requests are answered whole again; the stalled answers stay stalled, so the first run's
    // requests, which the downloader's abort does not end, cannot come back as retries and be counted.
    hub.fault(hubPath, { stallAfterBytes: Number.POSITIVE_INFINITY });
    const fetchedBefore = hub.rangedBytes('tiny-chat.gguf');
    const path = await storeWith().store.ensure('llm');
    expect(sha256(readFileSync(path))).toBe(sha256(bytes));
    // At least one whole 5 MB chunk was not fetched again.
    expect(hub.rangedBytes('tiny-chat.gguf') - fetchedBefore).toBeLessThanOrEqual(bytes.length - (5 << 20));
  });

  it('says the hub has no such file on a 404, naming the variable to check', async () => {
    hub.fault(hubPath, { status: 404 });
    const { store } = storeWith();
    await expect(store.ensure('llm')).rejects.toThrow(/the hub has no such file \(HTTP 404 for http:\/\/127\.0\.0\.1:\d+\/acme\/tiny-chat\/resolve\/main\/tiny-chat\.gguf\); check LOCAL_LLM_MODEL/);
    expect(store.status('llm')).toMatchObject({ state: 'failed', reason: expect.stringContaining('HTTP 404') });
    expect(modelFiles()).toEqual([]);
  });

  it('says to try again later on a 500, without retrying for minutes', async () => {
    hub.fault(hubPath, { status: 500 });
    const { store } = storeWith();
    await expect(store.ensure('llm')).rejects.toThrow(/the hub answered HTTP 500 .*; try again later/);
    expect(hub.requests.length).toBe(1);
  });

  it('says when the hub cannot be reached, and how an offline machine gets the file', async () => {
    await hub.close();
    const { store } = storeWith();
    await expect(store.ensure('llm')).rejects.toThrow(/cannot reach 127\.0\.0\.1:\d+ \(ECONNREFUSED\); on a machine without internet, copy the file into MODELS_DIR/);
    hub = await startModelHub();
  });

  it('never hands back a download whose checksum is wrong, and deletes it', async () => {
    hub.fault(hubPath, { corrupt: true });
    const { store, seen } = storeWith();
    await expect(store.ensure('llm')).rejects.toThrow(/the downloaded tiny-chat\.gguf is damaged: its SHA-256 is [0-9a-f]{12}…, not the expected [0-9a-f]{12}…; it was deleted, nothing was loaded/);
    expect(seen.filter((s) => s.state === 'verifying').length).toBe(2);
    expect(modelFiles()).toEqual([]);
    expect(readdirSync(join(dir, '.partial')).filter((name) => !name.endsWith('.lock'))).toEqual([]);
  });

  it('refuses a hub file whose size is not the published one, before fetching it', async () => {
    const { store } = storeWith({ env: { MODEL_HUB_URL: hub.url } });
    hub.serve('Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/91cad51170dc346986eccefdc2dd33a9da36ead9/qwen2.5-1.5b-instruct-q4_k_m.gguf', bytes);
    await expect(store.ensure('llm')).rejects.toThrow(/is 12,582,912 bytes, not the published 1,117,320,736; it changed upstream, so it is not fetched/);
    expect(hub.rangedBytes('qwen2.5-1.5b-instruct-q4_k_m.gguf')).toBe(0);
  });
});

describe('a model already in MODELS_DIR', () => {
  it('is fetched again when it was damaged after it was verified', async () => {
    const path = await storeWith().store.ensure('llm');
    const damaged = readFileSync(path);
    damaged[5 << 20] = damaged[5 << 20]! ^ 0xff;
    writeFileSync(path, damaged);

    const lines: string[] = [];
    const again = storeWith({ log: (line) => lines.push(line) }).store;
    expect(await again.ensure('llm')).toBe(path);
    expect(sha256(readFileSync(path))).toBe(sha256(bytes));
    expect(lines[0]).toMatch(/tiny-chat\.gguf in MODELS_DIR is not usable \(its SHA-256 is .*\); fetching it again/);
  });

  it('is fetched again when it was cut short', async () => {
    const path = await storeWith().store.ensure('llm');
    writeFileSync(path, bytes.subarray(0, 1 << 20));
    expect(await storeWith().store.ensure('llm')).toBe(path);
    expect(readFileSync(path).length).toBe(bytes.length);
  });

  it('is used as it is when copied in by hand, once its header is right (offline machines)', async () => {
    writeFileSync(join(dir, 'tiny-chat.gguf'), bytes);
    await hub.close();
    const { store } = storeWith({ env: { LOCAL_LLM_MODEL: 'tiny-chat.gguf' } });
    expect(await store.ensure('llm')).toBe(join(dir, 'tiny-chat.gguf'));
    hub = await startModelHub();
  });

  it('is refused when a file given by path is not a model', async () => {
    const path = join(dir, 'notes.gguf');
    writeFileSync(path, 'not a model at all, just some text');
    const { store } = storeWith({ env: { LOCAL_LLM_MODEL: path } });
    await expect(store.ensure('llm')).rejects.toThrow('LOCAL_LLM_MODEL names a file that cannot be loaded: it is not a GGUF file (its first bytes are not "GGUF")');
  });
});

describe('two at once', () => {
  it('shares one download between two calls of one process', async () => {
    const { store } = storeWith();
    const [a, b] = await Promise.all([store.ensure('llm'), store.ensure('llm')]);
    expect(a).toBe(b);
    expect(hub.requests.filter((r) => r.method === 'HEAD').length).toBe(1);
  });

  it('lets a second server process wait for the first one\'s download and find the file whole', async () => {
    hub.fault(hubPath, { stallAfterBytes: 1 << 20 });
    const first = storeWith({ stallMs: 30_000 });
    const fetching = first.store.ensure('llm');
    await until(() => first.store.status('llm').state === 'downloading' && hub.rangedBytes('tiny-chat.gguf') > 0, 'the first download to start');

    const child = spawn(process.execPath, ['--import', 'tsx', join(repo, 'tests/models/ensure-child.ts'), dir], {
      cwd: repo,
      env: { ...process.env, MODEL_HUB_URL: hub.url, LOCAL_LLM_MODEL: 'acme/tiny-chat/tiny-chat.gguf' },
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await until(() => out.includes('"state":"waiting"'), 'the second process to wait', 30_000, () => out);

    hub.fault(hubPath, null);
    const path = await fetching;
    expect(await exited).toBe(0);
    const lines = out.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.at(-1)).toEqual({ path });
    expect(lines.some((line) => line.state === 'downloading')).toBe(false);
    expect(hub.requests.filter((r) => r.method === 'HEAD').length).toBe(1);
    expect(sha256(readFileSync(path))).toBe(sha256(bytes));
  }, 60_000);
});

describe('the machine', () => {
  it('refuses to start a download the disk has no room for, saying how much is needed and free', async () => {
    const { store } = storeWith({ statfs: async () => ({ bavail: 1000, bsize: 4096 }) });
    await expect(store.ensure('llm')).rejects.toThrow('not enough disk space in MODELS_DIR: tiny-chat.gguf needs 13 MB more, 4 MB is free');
    expect(hub.rangedBytes('tiny-chat.gguf')).toBe(0);
    expect(existsSync(join(dir, '.partial', 'tiny-chat.gguf.ipull'))).toBe(false);
  });

  it('refuses to load a model too large for the free memory, with the figures', async () => {
    const { store } = storeWith({ memory: () => ({ totalBytes: 2e9, freeBytes: 3e8 }) });
    await expect(store.ensure('llm')).rejects.toThrow(
      "the language model needs about 525 MB of memory; 300 MB of this machine's 2.0 GB is free: free some, or choose a smaller LOCAL_LLM_MODEL",
    );
    expect(store.status('llm')).toMatchObject({ state: 'failed', reason: expect.stringContaining('525 MB') });
    // Fetched and kept: only loading was refused.
    expect(modelFiles()).toEqual(['tiny-chat.gguf']);
  });

  it('refuses a model larger than all of the memory, saying so', async () => {
    const { store } = storeWith({ memory: () => ({ totalBytes: 4e8, freeBytes: 3e8 }) });
    await expect(store.ensure('llm')).rejects.toThrow('the language model needs about 525 MB of memory and this machine has 400 MB in all; choose a smaller LOCAL_LLM_MODEL');
  });
});
