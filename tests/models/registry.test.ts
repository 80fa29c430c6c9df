/** Which file each model is: the defaults with their published figures, and what LOCAL_*_MODEL may name. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { modelSource } from '../../server/models/registry';

const dir = mkdtempSync(join(tmpdir(), 'models-registry-'));

describe('the default models', () => {
  it('are Qwen2.5-1.5B-Instruct Q4_K_M at a pinned revision, with its size and SHA-256', () => {
    expect(modelSource('llm', {}, dir)).toEqual({
      kind: 'llm',
      file: 'qwen2.5-1.5b-instruct-q4_k_m.gguf',
      format: 'gguf',
      url: 'https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/91cad51170dc346986eccefdc2dd33a9da36ead9/qwen2.5-1.5b-instruct-q4_k_m.gguf',
      bytes: 1_117_320_736,
      sha256: '6a1a2eb6d15622bf3c96857206351ba97e1af16c30d7a74ee38970e434e9407e',
    });
  });

  it("are whisper.cpp's base.en-q5_1 for the recogniser, with the SHA-1 whisper.cpp publishes", () => {
    expect(modelSource('asr', {}, dir)).toMatchObject({
      file: 'ggml-base.en-q5_1.bin',
      format: 'whisper-ggml',
      url: 'https://huggingface.co/ggerganov/whisper.cpp/resolve/main/ggml-base.en-q5_1.bin',
      sha1: 'd26d7ce5a1b6e57bea5d0431b9c20ae49423c94a',
    });
  });

  it('come from MODEL_HUB_URL when it is set (a mirror, a fake hub)', () => {
    expect(modelSource('asr', { MODEL_HUB_URL: 'http://127.0.0.1:9/' }, dir).url).toBe('http://127.0.0.1:9/ggerganov/whisper.cpp/resolve/main/ggml-base.en-q5_1.bin');
    expect(() => modelSource('asr', { MODEL_HUB_URL: 'hub.example' }, dir)).toThrow('MODEL_HUB_URL must be an http:// or https:// address, got "hub.example"');
  });
});

describe('LOCAL_LLM_MODEL and LOCAL_ASR_MODEL', () => {
  it('take a hub id, with an optional revision and hf: prefix', () => {
    expect(modelSource('llm', { LOCAL_LLM_MODEL: 'hf:bartowski/Llama-3.2-1B-Instruct-GGUF/Llama-3.2-1B-Instruct-Q4_K_M.gguf#abc123' }, dir)).toEqual({
      kind: 'llm',
      file: 'Llama-3.2-1B-Instruct-Q4_K_M.gguf',
      format: 'gguf',
      url: 'https://huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF/resolve/abc123/Llama-3.2-1B-Instruct-Q4_K_M.gguf',
    });
  });

  it("take whisper.cpp's model names, with their published SHA-1", () => {
    expect(modelSource('asr', { LOCAL_ASR_MODEL: 'small.en-q5_1' }, dir)).toMatchObject({ file: 'ggml-small.en-q5_1.bin', sha1: '20f54878d608f94e4a8ee3ae56016571d47cba34' });
  });

  it('take a URL', () => {
    expect(modelSource('llm', { LOCAL_LLM_MODEL: 'https://models.example.org/x/my%20model.gguf' }, dir)).toMatchObject({ file: 'my model.gguf', url: 'https://models.example.org/x/my%20model.gguf' });
  });

  it('take a path, used where it is, or a file name in MODELS_DIR', () => {
    const file = join(dir, 'copied.gguf');
    writeFileSync(file, 'GGUF');
    expect(modelSource('llm', { LOCAL_LLM_MODEL: file }, dir)).toMatchObject({ file: 'copied.gguf', path: file });
    expect(modelSource('llm', { LOCAL_LLM_MODEL: 'copied.gguf' }, dir)).toMatchObject({ file: 'copied.gguf', path: file });
  });

  it('say what is wrong with what they name', () => {
    expect(() => modelSource('llm', { LOCAL_LLM_MODEL: '/nowhere/model.gguf' }, dir)).toThrow('LOCAL_LLM_MODEL /nowhere/model.gguf: no such file');
    expect(() => modelSource('asr', { LOCAL_ASR_MODEL: 'huge.bin' }, dir)).toThrow('LOCAL_ASR_MODEL huge.bin: no such file in MODELS_DIR; copy it there, or give a URL, a path or a hub id (owner/repo/file)');
    expect(() => modelSource('llm', { LOCAL_LLM_MODEL: 'owner/repo' }, dir)).toThrow('LOCAL_LLM_MODEL owner/repo is not a hub id (owner/repo/file, optionally #revision), a URL or a path');
  });
});

describe('MODELS_DIR', () => {
  it('is under DATA_DIR unless set', () => {
    expect(loadConfig({ DATA_DIR: '/srv/rehearsal' }).modelsDir).toBe('/srv/rehearsal/models');
    expect(loadConfig({ MODELS_DIR: '/mnt/models' }).modelsDir).toBe('/mnt/models');
  });
});
