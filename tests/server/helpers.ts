/**
 * Helpers for the live server's integration tests: a server on an ephemeral port (in-process, or
 * `node --import tsx server/main.ts` as a child process), real HTTP with fetch, and real WebSocket
 * clients (`ws`) that record every server message, validated against the protocol schema.
 *
 * Nothing here sleeps for a fixed time to wait for the server: `until` polls a condition and fails
 * with a message naming what it waited for.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import WebSocket from 'ws';
import { createApp } from '../../server/api/app';
import { createTokens, type Tokens } from '../../server/auth/tokens';
import { loadConfig, type Config } from '../../server/config';
import type { SessionEvent } from '../../server/engine/events';
import { complete, type Generator } from '../../server/providers/generator/port';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { ServerMessage } from '../../server/protocol/messages';
import { createRooms, type Rooms, type RoomsOptions } from '../../server/rooms/rooms';
import { loadScenes } from '../../server/scene/load';
import type { LoadedScene } from '../../server/scene/schema';
import { openStore, type Store } from '../../server/store/store';

export const ADMIN = 'test-admin-token-0123456789';
const repoRoot = new URL('../../', import.meta.url).pathname;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds; fails with `what` (and `detail()`, if given) after `timeoutMs`. */
export const until = async (check: () => boolean, what: string, timeoutMs = 5000, detail?: () => string): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail ? `\n${detail()}` : ''}`);
    await sleep(5);
  }
};

export const tempDir = (): string => mkdtempSync(join(tmpdir(), 'rehearsal-server-test-'));

// ---------------------------------------------------------------------------------------------
// Servers

export interface TestServer {
  base: string;
  /** ws://host:port */
  wsBase: string;
  admin: string;
  dataDir: string;
  close(): Promise<void>;
}

export interface InProcessServer extends TestServer {
  config: Config;
  tokens: Tokens;
  store: Store;
  rooms: Rooms;
  scenes: Map<string, LoadedScene>;
}

export interface InProcessOptions {
  generator?: RoomsOptions['generator'];
  /** Changes the loaded scenes in memory (the files are never touched). */
  scenes?: (scenes: LoadedScene[]) => LoadedScene[];
  env?: Record<string, string>;
  /** Voice: the rooms' synthesizer, the shared transcriber, and the VAD maker (default: none, none, Silero). */
  synthesizer?: RoomsOptions['synthesizer'];
  transcriber?: RoomsOptions['transcriber'];
  vad?: RoomsOptions['vad'];
}

/** The server as `server/main.ts` builds it, in this process, on an ephemeral port. */
export const startServer = async (options: InProcessOptions = {}): Promise<InProcessServer> => {
  const dataDir = tempDir();
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'silent', GENERATOR: 'scripted', SYNTHESIZER: 'none', ...options.env });
  let loaded = await loadScenes(join(repoRoot, 'scenes'));
  if (options.scenes) loaded = options.scenes(loaded);
  const scenes = new Map(loaded.map((s) => [s.id, s]));
  const store = openStore(dataDir);
  const rooms = createRooms({
    store,
    scenes,
    generator: options.generator ?? (() => createScriptedGenerator()),
    ...(options.synthesizer ? { synthesizer: options.synthesizer } : {}),
    ...(options.transcriber ? { transcriber: options.transcriber } : {}),
    ...(options.vad ? { vad: options.vad } : {}),
  });
  const tokens = createTokens(randomBytes(32).toString('base64url'));
  const { app, injectWebSocket } = createApp({ config, rooms, store, tokens, version: 'test', scenes: [...scenes.values()] });
  let server!: ServerType;
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => resolve(info.port));
  });
  injectWebSocket(server);
  return {
    base: `http://127.0.0.1:${port}`,
    wsBase: `ws://127.0.0.1:${port}`,
    admin: ADMIN,
    dataDir,
    config,
    tokens,
    store,
    rooms,
    scenes,
    async close() {
      // End every room first, so no generator in flight writes to a closed store.
      for (const room of rooms.list()) if (!room.ended()) room.live.send({ type: 'end' });
      // Upgraded sockets are not the HTTP server's to close: close the clients, then the server.
      await closeClients();
      await Promise.race([
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        }),
        sleep(1000),
      ]);
      await sleep(20);
      store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};

export interface ChildServer extends TestServer {
  child: ChildProcess;
  port: number;
  stdout: string[];
  stderr: string[];
  /** SIGKILL, and wait for the process to be gone. */
  kill9(): Promise<void>;
}

/** `node --import tsx server/main.ts` with PORT=0; resolves once it prints `LISTENING <port>`. */
export const startChild = async (dataDir: string, admin = ADMIN, timeoutMs = 15_000): Promise<ChildServer> => {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN: admin, LOG_LEVEL: 'info', GENERATOR: 'scripted' };
  delete env.TOKEN_SECRET;
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not print LISTENING within ${timeoutMs} ms\nstdout: ${stdout.join('\n')}\nstderr: ${stderr.join('\n')}`)), timeoutMs);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      stdout.push(line);
      const match = /^LISTENING (\d+)$/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening\nstderr: ${stderr.join('\n')}`));
    });
  });
  const kill = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    base: `http://127.0.0.1:${port}`,
    wsBase: `ws://127.0.0.1:${port}`,
    admin,
    dataDir,
    child,
    port,
    stdout,
    stderr,
    kill9: () => kill('SIGKILL'),
    close: () => kill('SIGTERM'),
  };
};

// ---------------------------------------------------------------------------------------------
// HTTP

export const api = (server: TestServer, path: string, init: { method?: string; token?: string | null; body?: unknown } = {}): Promise<Response> => {
  const headers: Record<string, string> = {};
  const token = init.token === undefined ? server.admin : init.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${server.base}${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) } : {}),
  });
};

export interface Created {
  id: string;
  scene: string;
  pace: string;
  seed: number;
  tokens: Record<string, string>;
}

export const createSession = async (server: TestServer, scene: string, pace: 'instant' | 'realtime' = 'instant'): Promise<Created> => {
  const res = await api(server, '/api/sessions', { method: 'POST', body: { scene, pace } });
  if (res.status !== 201) throw new Error(`POST /api/sessions ${scene}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Created;
};

/** GET /api/sessions/:id/events as parsed JSON lines. */
export const logOf = async (server: TestServer, id: string, token = server.admin): Promise<SessionEvent[]> => {
  const res = await api(server, `/api/sessions/${id}/events`, { token });
  if (res.status !== 200) throw new Error(`GET events: ${res.status} ${await res.text()}`);
  const text = await res.text();
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as SessionEvent);
};

// ---------------------------------------------------------------------------------------------
// WebSocket clients

const open = new Set<Client>();

export class Client {
  readonly messages: ServerMessage[] = [];
  /** Raw frames that did not match the protocol schema (should stay empty). */
  readonly invalid: string[] = [];
  closed: { code: number; reason: string } | null = null;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const text = data.toString();
      const parsed = ServerMessage.safeParse(JSON.parse(text));
      if (parsed.success) this.messages.push(parsed.data);
      else this.invalid.push(text);
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      open.delete(this);
    });
  }

  static async connect(server: TestServer, session: string, token: string, after?: number): Promise<Client> {
    const query = new URLSearchParams({ token, ...(after !== undefined ? { after: String(after) } : {}) });
    const ws = new WebSocket(`${server.wsBase}/api/sessions/${session}/socket?${query}`);
    const client = new Client(ws);
    open.add(client);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`socket upgrade refused: HTTP ${res.statusCode}`)));
    });
    return client;
  }

  /** Sends a string or bytes (a binary frame) as they are, anything else as JSON. */
  send(message: unknown): void {
    this.ws.send(typeof message === 'string' || message instanceof Uint8Array ? message : JSON.stringify(message));
  }

  /** Session events received, in arrival order. */
  events(): SessionEvent[] {
    return this.messages.flatMap((m) => (m.type === 'event' ? [m.event] : []));
  }

  errors() {
    return this.messages.flatMap((m) => (m.type === 'error' ? [m] : []));
  }

  count(type: ServerMessage['type']): number {
    return this.messages.filter((m) => m.type === type).length;
  }

  private describe(): string {
    const tail = this.messages.slice(-8).map((m) => JSON.stringify(m).slice(0, 200));
    return `last messages (${this.messages.length} in all):\n  ${tail.join('\n  ')}`;
  }

  async waitFor(check: (messages: ServerMessage[]) => boolean, what: string, timeoutMs = 5000): Promise<void> {
    await until(() => check(this.messages), what, timeoutMs, () => this.describe());
  }

  /** Waits for an event (after index `from` in `events()`) that satisfies `match`; returns it. */
  async waitForEvent(match: (event: SessionEvent) => boolean, what: string, from = 0, timeoutMs = 5000): Promise<SessionEvent> {
    let found: SessionEvent | undefined;
    await until(() => (found = this.events().slice(from).find(match)) !== undefined, what, timeoutMs, () => this.describe());
    return found!;
  }

  /** Sends a ping and waits for the pong that answers it. */
  async ping(timeoutMs = 2000): Promise<void> {
    const before = this.count('pong');
    this.send({ type: 'ping' });
    await this.waitFor(() => this.count('pong') > before, 'a pong', timeoutMs);
  }

  /** Sends `message` and waits for the next typed error; returns it. */
  async expectError(message: unknown, timeoutMs = 2000) {
    const before = this.errors().length;
    this.send(message);
    const what = typeof message === 'string' ? message : message instanceof Uint8Array ? `${message.byteLength} bytes` : JSON.stringify(message);
    await this.waitFor(() => this.errors().length > before, `an error in reply to ${what.slice(0, 80)}`, timeoutMs);
    return this.errors()[before]!;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    const done = new Promise<void>((resolve) => this.ws.once('close', () => resolve()));
    if (this.ws.readyState === WebSocket.CONNECTING || this.ws.readyState === WebSocket.OPEN) this.ws.close();
    await Promise.race([done, sleep(500)]);
    if (!this.closed) this.ws.terminate();
  }
}

/** Closes every client still open (for afterEach). */
export const closeClients = async (): Promise<void> => {
  await Promise.all([...open].map((c) => c.close()));
};

/**
 * Tries to open a socket; returns the HTTP status of a refused upgrade, or 101 if it became a
 * WebSocket (which is then closed).
 */
export const upgradeStatus = (server: TestServer, path: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(`${server.wsBase}${path}`);
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.once('open', () => {
      resolve(101);
      ws.terminate();
    });
    ws.once('error', (error) => reject(error));
  });

// ---------------------------------------------------------------------------------------------
// Assertions and generators

/** Seqs 1..n, each once, in order. */
export const expectContiguous = (events: readonly SessionEvent[], first = 1): string | null => {
  for (let i = 0; i < events.length; i++) {
    if (events[i]!.seq !== first + i) return `event #${i} has seq ${events[i]!.seq}, expected ${first + i} (seqs: ${events.map((e) => e.seq).join(',')})`;
  }
  return null;
};

/** The scripted generator, each reply held back `delayMs`: an instant session that takes a little while. */
export const delayedScripted = (delayMs: number): Generator => {
  const inner = createScriptedGenerator();
  return {
    name: 'scripted',
    async *stream(request, signal) {
      const text = await complete(inner, request);
      await sleep(delayMs);
      if (signal?.aborted) return;
      yield text;
    },
  };
};

/** The scripted generator's replies streamed word by word, one word every `wordMs`, abortable. */
export const slowStreaming = (wordMs: number): Generator => {
  const inner = createScriptedGenerator();
  return {
    name: 'scripted',
    async *stream(request, signal) {
      const text = await complete(inner, request);
      if (request.purpose !== 'utterance') {
        yield text;
        return;
      }
      for (const word of text.split(/(?<=\s)/)) {
        await sleep(wordMs);
        if (signal?.aborted) return;
        yield word;
      }
    },
  };
};
