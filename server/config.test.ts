import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, configVariables, loadConfig, resolveTokenSecret } from './config';

const problemsOf = (env: Record<string, string | undefined>): string[] => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message.split('\n').slice(1).map((line) => line.trim());
    throw error;
  }
  throw new Error('expected a ConfigError');
};

describe('loadConfig', () => {
  it('runs with no environment at all, on defaults reachable from the LAN', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8787,
      host: '0.0.0.0',
      dataDir: './data',
      adminTokenGenerated: true,
      tokenSecret: undefined,
      tokenTtlMs: 12 * 3_600_000,
      generator: 'scripted',
      maxMessageBytes: 16_384,
      messageRatePerS: 20,
      messageBurst: 40,
      logLevel: 'info',
    });
  });

  it('generates a fresh, unguessable admin token when ADMIN_TOKEN is unset', () => {
    const a = loadConfig({}).adminToken;
    const b = loadConfig({}).adminToken;
    expect(a).not.toBe(b);
    expect(a.length).toBeGreaterThanOrEqual(32);
  });

  it('keeps a given ADMIN_TOKEN and says it was not generated', () => {
    expect(loadConfig({ ADMIN_TOKEN: 'let-me-in' })).toMatchObject({ adminToken: 'let-me-in', adminTokenGenerated: false });
  });

  it('reads every variable it knows', () => {
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: '/var/lib/rehearsal',
      TOKEN_SECRET: 's'.repeat(32),
      TOKEN_TTL_HOURS: '0.5',
      MAX_MESSAGE_BYTES: '1024',
      MESSAGE_RATE_PER_S: '2.5',
      MESSAGE_BURST: '5',
      LOG_LEVEL: 'silent',
    });
    expect(config).toMatchObject({
      port: 0,
      host: '127.0.0.1',
      dataDir: '/var/lib/rehearsal',
      tokenSecret: 's'.repeat(32),
      tokenTtlMs: 1_800_000,
      maxMessageBytes: 1024,
      messageRatePerS: 2.5,
      messageBurst: 5,
      logLevel: 'silent',
    });
  });

  it('treats empty and blank values as unset, as a copied .env leaves them', () => {
    expect(loadConfig({ PORT: '', ADMIN_TOKEN: '  ', TOKEN_SECRET: '' })).toMatchObject({
      port: 8787,
      adminTokenGenerated: true,
      tokenSecret: undefined,
    });
  });

  it('lists every problem at once, each with its variable and value', () => {
    expect(
      problemsOf({
        PORT: 'eighty',
        TOKEN_TTL_HOURS: '0',
        GENERATOR: 'claude',
        MAX_MESSAGE_BYTES: '1.5',
        MESSAGE_RATE_PER_S: '-1',
        MESSAGE_BURST: '0',
        LOG_LEVEL: 'debug',
      }),
    ).toEqual([
      'PORT: must be a whole number (got "eighty")',
      'TOKEN_TTL_HOURS: must be greater than 0 (got "0")',
      'GENERATOR: must be one of scripted, gemini, openai, local (got "claude")',
      'MAX_MESSAGE_BYTES: must be a whole number (got "1.5")',
      'MESSAGE_RATE_PER_S: must be greater than 0 (got "-1")',
      'MESSAGE_BURST: must be at least 1 (got "0")',
      'LOG_LEVEL: must be one of info, warn, error, silent (got "debug")',
    ]);
  });

  it('rejects a port out of range', () => {
    expect(problemsOf({ PORT: '70000' })).toEqual(['PORT: must be at most 65535 (got "70000")']);
  });

  it('rejects a short TOKEN_SECRET without echoing it', () => {
    expect(problemsOf({ TOKEN_SECRET: 'hunter2' })).toEqual([
      'TOKEN_SECRET: must be at least 32 characters (got a 7-character value)',
    ]);
  });

  it("surfaces the chosen generator's missing variables as configuration problems", () => {
    const problems = problemsOf({ GENERATOR: 'gemini', PORT: '-1' });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toBe('PORT: must be at least 0 (got "-1")');
    expect(problems[1]).toMatch(/^GEMINI_API_KEY: is not set: the gemini generator needs it .* \(not set\)$/);
  });

  it('needs a model file for the local generator, and reads it only when a turn needs it', () => {
    expect(problemsOf({ GENERATOR: 'local' })[0]).toMatch(/^LOCAL_LLM_MODEL: is not set: the local generator needs it .* \(not set\)$/);
    expect(problemsOf({ GENERATOR: 'local', LOCAL_LLM_MODEL: 'model.gguf', LOCAL_LLM_THREADS: '0' })).toEqual([
      'LOCAL_LLM_THREADS: must be a whole number of threads from 1 (got "0")',
    ]);
    expect(loadConfig({ GENERATOR: 'local', LOCAL_LLM_MODEL: '/nowhere/model.gguf' }).generator).toBe('local');
  });

  it("reports a generator variable's bad value once, in the same shape", () => {
    expect(problemsOf({ GENERATOR: 'openai', OPENAI_BASE_URL: 'localhost:11434', OPENAI_MODEL: 'llama3.2' })).toEqual([
      'OPENAI_BASE_URL: must be an http(s) URL such as http://localhost:11434/v1 (got "localhost:11434")',
    ]);
    expect(problemsOf({ GENERATOR: 'openai', OPENAI_BASE_URL: 'http://x/v1', OPENAI_MODEL: 'm', GENERATOR_TIMEOUT_MS: 'soon' })).toEqual([
      'GENERATOR_TIMEOUT_MS: must be a positive number of milliseconds (got "soon")',
    ]);
  });

  it('accepts a fully configured vendor generator', () => {
    expect(loadConfig({ GENERATOR: 'gemini', GEMINI_API_KEY: 'key' }).generator).toBe('gemini');
    expect(loadConfig({ GENERATOR: 'openai', OPENAI_BASE_URL: 'http://localhost:11434/v1', OPENAI_MODEL: 'llama3.2' }).generator).toBe(
      'openai',
    );
  });

  it('ignores vendor variables while the scripted generator is chosen', () => {
    expect(loadConfig({ OPENAI_BASE_URL: 'not a url', GENERATOR_TIMEOUT_MS: 'never' }).generator).toBe('scripted');
  });
});

describe('resolveTokenSecret', () => {
  const dataDir = () => join(mkdtempSync(join(tmpdir(), 'config-')), 'data');

  it('uses TOKEN_SECRET when it is set', () => {
    const dir = dataDir();
    expect(resolveTokenSecret({ dataDir: dir, tokenSecret: 'x'.repeat(32) })).toBe('x'.repeat(32));
  });

  it('creates a private secret file on first start and reads the same secret after a restart', () => {
    const dir = dataDir();
    const first = resolveTokenSecret({ dataDir: dir, tokenSecret: undefined });
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(statSync(join(dir, 'token-secret')).mode & 0o777).toBe(0o600);
    expect(resolveTokenSecret({ dataDir: dir, tokenSecret: undefined })).toBe(first);
  });

  it('refuses a secret file that is too short', () => {
    const dir = dataDir();
    resolveTokenSecret({ dataDir: dir, tokenSecret: undefined });
    writeFileSync(join(dir, 'token-secret'), 'short\n');
    expect(() => resolveTokenSecret({ dataDir: dir, tokenSecret: undefined })).toThrow(/5-character secret.*at least 32/);
  });
});

describe('.env.example', () => {
  const example = readFileSync(fileURLToPath(new URL('../.env.example', import.meta.url)), 'utf8');
  const documented = [...example.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]);

  it('documents every variable the server reads', () => {
    for (const name of configVariables) expect(documented, name).toContain(name);
  });

  it('documents nothing the server does not read', () => {
    const known = new Set<string>(configVariables);
    expect(documented.filter((name) => name !== undefined && !known.has(name))).toEqual([]);
  });
});

describe('LiveKit settings', () => {
  const secret = 'a-livekit-secret-that-stays-a-secret';
  const all = { LIVEKIT_URL: 'wss://livekit.example.com', LIVEKIT_API_KEY: 'APIabc', LIVEKIT_API_SECRET: secret };

  it('keeps media on the embedded transport when none is set', () => {
    expect(loadConfig({}).livekit).toBeNull();
    expect(loadConfig({ LIVEKIT_URL: '', LIVEKIT_API_KEY: ' ', LIVEKIT_API_SECRET: '' }).livekit).toBeNull();
  });

  it('switches to LiveKit when all three are set', () => {
    expect(loadConfig(all).livekit).toEqual({ url: 'wss://livekit.example.com', apiKey: 'APIabc', apiSecret: secret });
    expect(loadConfig({ ...all, LIVEKIT_URL: 'ws://localhost:7880' }).livekit?.url).toBe('ws://localhost:7880');
  });

  it('names every missing variable of a half setup, without echoing the ones set', () => {
    const problems = problemsOf({ LIVEKIT_API_SECRET: secret });
    expect(problems).toEqual([
      'LIVEKIT_URL: is needed with LIVEKIT_API_SECRET: set all of LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET for LiveKit, or none for the embedded transport (not set)',
      'LIVEKIT_API_KEY: is needed with LIVEKIT_API_SECRET: set all of LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET for LiveKit, or none for the embedded transport (not set)',
    ]);
    expect(problemsOf({ LIVEKIT_URL: all.LIVEKIT_URL, LIVEKIT_API_KEY: 'APIabc' })).toEqual([
      'LIVEKIT_API_SECRET: is needed with LIVEKIT_URL and LIVEKIT_API_KEY: set all of LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET for LiveKit, or none for the embedded transport (not set)',
    ]);
    expect(problems.join('\n')).not.toContain(secret);
  });

  it('wants a ws:// or wss:// address', () => {
    for (const url of ['https://livekit.example.com', 'livekit.example.com:7880', 'not a url']) {
      expect(problemsOf({ ...all, LIVEKIT_URL: url })).toEqual([`LIVEKIT_URL: must be a ws:// or wss:// URL such as wss://livekit.example.com (got "${url}")`]);
    }
  });
});

describe('transcriber settings', () => {
  it('defaults to none and accepts a configured vendor', () => {
    expect(loadConfig({}).transcriber).toBe('none');
    expect(loadConfig({ TRANSCRIBER: 'openai', WHISPER_BASE_URL: 'http://localhost:8000/v1' }).transcriber).toBe('openai');
  });

  it('names the missing vendor variable, without echoing secrets', () => {
    expect(() => loadConfig({ TRANSCRIBER: 'elevenlabs' })).toThrow(/ELEVENLABS_API_KEY/);
    expect(() => loadConfig({ TRANSCRIBER: 'whisper' })).toThrow(/TRANSCRIBER: must be one of none, gemini, elevenlabs, openai/);
  });
});
