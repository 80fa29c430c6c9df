/**
 * Helpers for the live server's integration tests: a server on an ephemeral port (in-process, or
 * server/main.ts as a child process, bundled once per run: bundle.ts), real HTTP with fetch, and real WebSocket
 * clients (`ws`) that record every server message, validated against the protocol schema.
 *
 * Nothing here sleeps for a fixed time to wait for the server: `until` polls a condition and fails
 * with a message naming what it waited for, and the generators below let a test decide how far a
 * room gets (`createValve`, `stallingReply`) instead of racing it.
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
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createApp, type AppOptions } from '../../server/api/app';
import { staticFiles } from '../../server/api/static';
import { createTokens, type Tokens } from '../../server/auth/tokens';
import { loadConfig, type Config } from '../../server/config';
import type { SessionEvent } from '../../shared/events';
import { complete, type Generator } from '../../server/providers/generator/port';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { ServerMessage } from '../../shared/protocol/messages';
import { clausesOf, enoughToScreen } from '../../server/conversation/clauses';
import { createRooms, type Rooms, type RoomsOptions } from '../../server/rooms/rooms';
import { loadScenes } from '../../server/scene/load';
import { openSceneLibrary, type SceneLibrary } from '../../server/scene/library';
import { openUploads } from '../../server/scene/uploads';
import type { LoadedScene } from '../../shared/scene/schema';
import { createJournal, type JournalOptions } from '../../server/store/journal';
import { openStore, type Store } from '../../server/store/store';
import { openRecordingsAt, type RecordingStore } from '../../server/recordings/store';
import { nodeArgs } from './bundle';

export const ADMIN = 'test-admin-token-0123456789';
const repoRoot = new URL('../../', import.meta.url).pathname;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

import { until, WAIT_MS } from '../until';

export { until, WAIT_MS };

/** Serves `app` on a free local port, its sockets too: the real server users meet, not `app.request()`. */
export const listen = async (app: { fetch: (request: Request, env?: unknown) => Response | Promise<Response> }, injectWebSocket: (server: ServerType) => void): Promise<{ server: ServerType; base: string; wsBase: string }> => {
  let server!: ServerType;
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => resolve(info.port));
  });
  injectWebSocket(server);
  return { server, base: `http://127.0.0.1:${port}`, wsBase: `ws://127.0.0.1:${port}` };
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
  recordings: RecordingStore;
  scenes: Map<string, LoadedScene>;
  /** Shipped and authored scenes (the editor's); `scenes` is its live map. */
  library: SceneLibrary;
}

export interface InProcessOptions {
  generator?: RoomsOptions['generator'];
  /** The shipped scenes' folder (default the repository's scenes/); a copy when a test lets the editor write them (SCENES_WRITABLE=1). */
  scenesDir?: string;
  /** Changes the loaded scenes in memory (the files are never touched). */
  scenes?: (scenes: LoadedScene[]) => LoadedScene[];
  env?: Record<string, string>;
  /** Voice: the rooms' synthesizer, the shared transcriber, and the VAD maker (default: none, none, Silero). */
  synthesizer?: RoomsOptions['synthesizer'];
  transcriber?: RoomsOptions['transcriber'];
  vad?: RoomsOptions['vad'];
  /** Realtime pace as a multiple of real time (below 1: slower, so a test can act while a persona speaks). */
  speed?: number;
  /** The API's clock (token times, message and microphone rate limits); default `Date.now`. */
  now?: () => number;
  /** The sockets' heartbeat, send-buffer bound and sockets per token (default 15 s, 4 MB, 256). */
  sockets?: Pick<AppOptions, 'heartbeatMs' | 'maxBufferedBytes' | 'maxSocketsPerToken'>;
  /** Opens the store in the server's data directory (default `openStore`): a test's faults go here. */
  openStore?: (dir: string) => Store;
  /** How the rooms' journal retries failed writes (default: the server's). */
  journal?: JournalOptions;
  /** What the review's feedback, answers and judge ask (AppOptions.generator; default the scripted one: rules). */
  reviewGenerator?: Generator;
  /** A root with avatars/ and dist/client/ served after the API, as main.ts serves the repository's. */
  siteRoot?: string;
}

/** The server as `server/main.ts` builds it, in this process, on an ephemeral port. */
export const startServer = async (options: InProcessOptions = {}): Promise<InProcessServer> => {
  const dataDir = tempDir();
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'silent', GENERATOR: 'scripted', SYNTHESIZER: 'none', ...options.env });
  const scenesDir = options.scenesDir ?? join(repoRoot, 'scenes');
  let loaded = await loadScenes(scenesDir);
  if (options.scenes) loaded = options.scenes(loaded);
  const library = await openSceneLibrary({ dir: scenesDir, dataDir, writable: config.scenesWritable, shipped: loaded, warn: () => {} });
  const scenes = library.scenes;
  const store = (options.openStore ?? openStore)(dataDir);
  // Where RECORDINGS_URL says, as main.ts does: the data directory unless a test sets it.
  const recordings = openRecordingsAt(config.recordings, { log: () => {} });
  const rooms = createRooms({
    store,
    recordings,
    ...(options.journal ? { journal: createJournal(store, options.journal) } : {}),
    scenes,
    generator: options.generator ?? (() => createScriptedGenerator()),
    ...(options.synthesizer ? { synthesizer: options.synthesizer } : {}),
    ...(options.transcriber ? { transcriber: options.transcriber } : {}),
    ...(options.vad ? { vad: options.vad } : {}),
    ...(options.speed ? { speed: options.speed } : {}),
    seatGraceMs: config.seatGraceMs,
  });
  const tokens = createTokens(randomBytes(32).toString('base64url'));
  const { app, injectWebSocket } = createApp({ config, rooms, store, tokens, recordings, version: 'test', scenes: library.list, editor: { library, uploads: openUploads(dataDir), ...(options.synthesizer ? { synthesizer: options.synthesizer } : {}) }, ...(options.now ? { now: options.now } : {}), ...(options.reviewGenerator ? { generator: options.reviewGenerator } : {}), ...options.sockets });
  if (options.siteRoot) {
    const files = staticFiles({ root: options.siteRoot });
    if (!files.clientBuilt) throw new Error(`${options.siteRoot} has no built client (dist/client/index.html)`);
    app.route('/', files.app);
  }
  const { server, base, wsBase } = await listen(app, injectWebSocket);
  return {
    base,
    wsBase,
    admin: ADMIN,
    dataDir,
    config,
    tokens,
    store,
    rooms,
    recordings,
    scenes,
    library,
    async close() {
      // End every room first, so no generator in flight writes to a closed store.
      for (const room of rooms.list()) if (!room.ended()) room.conversation.send({ type: 'end' });
      // Upgraded sockets are not the HTTP server's to close: close the clients, then the server.
      await closeClients();
      await Promise.race([
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        }),
        sleep(1000),
      ]);
      await Promise.all(rooms.list().map((room) => room.conversation.ended));
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

export interface ChildOptions {
  admin?: string;
  /** More environment for the server, e.g. `{ SYNTHESIZER: 'none' }`. */
  env?: Record<string, string>;
  /** How long it may take to print LISTENING (or, with a PORT of its own, its start line). */
  timeoutMs?: number;
}

/**
 * One in-process server for a test file: started before its tests, closed after them, and the
 * clients a test opened closed after each test. The server is there from the first test on.
 *
 * ```ts
 * const server = serverPerFile({ speed: 50 });
 * it('…', async () => { const created = await createSession(server, 'team-standup'); });
 * ```
 */
export const serverPerFile = (options: InProcessOptions = {}): InProcessServer => {
  let started: InProcessServer | undefined;
  beforeAll(async () => {
    started = await startServer(options);
  });
  afterEach(closeClients);
  afterAll(async () => {
    await started?.close();
  });
  return new Proxy({} as InProcessServer, {
    get: (_, key) => {
      if (!started) throw new Error('the test server starts in beforeAll: use it inside a test or hook');
      return Reflect.get(started, key);
    },
  });
};

/**
 * server/main.ts as a child process with PORT=0 (its bundle, tests/server/bundle.ts, when current;
 * else `node --import tsx server/main.ts`); resolves once it prints `LISTENING <port>`.
 */
export const startChild = async (dataDir: string, options: ChildOptions = {}): Promise<ChildServer> => {
  // Generous: a server child starts in 2-4 s, but beside two copies of the suite it took over 60 s.
  const { admin, timeoutMs } = { admin: ADMIN, timeoutMs: 120_000, ...options };
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN: admin, LOG_LEVEL: 'info', GENERATOR: 'scripted', ...options.env };
  delete env.TOKEN_SECRET;
  const child = spawn(process.execPath, nodeArgs('server/main.ts'), { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A test run that ends without closing it (a failed beforeAll, an interrupted run) takes its server along.
  const reap = () => child.kill('SIGKILL');
  process.once('exit', reap);
  void exited.then(() => process.off('exit', reap));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not print LISTENING within ${timeoutMs} ms\nstdout: ${stdout.join('\n')}\nstderr: ${stderr.join('\n')}`)), timeoutMs);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      stdout.push(line);
      // PORT=0 prints the port it got; a given PORT (a cluster's nodes, known to each other) is in the start line.
      const match = /^LISTENING (\d+)$/.exec(line) ?? (env.PORT !== '0' ? /^rehearsal room server \S+ on https?:\/\/\S+:(\d+) /.exec(line) : null);
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

/** A session that starts at once with stand-ins for its humans (`lobby`: waits in its lobby for them). */
export const createSession = async (server: TestServer, scene: string, pace: 'instant' | 'realtime' = 'instant', start: 'stand-ins' | 'lobby' = 'stand-ins'): Promise<Created> => {
  const res = await api(server, '/api/sessions', { method: 'POST', body: { scene, pace, standIns: start === 'stand-ins' } });
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

  /** `after`: the last seq the client has (see `?after=`); `query`: more parameters, e.g. `{ stream: 'livekit' }`. */
  static async connect(server: TestServer, session: string, token: string, after?: number, query: Record<string, string> = {}): Promise<Client> {
    const search = new URLSearchParams({ token, ...(after !== undefined ? { after: String(after) } : {}), ...query });
    const ws = new WebSocket(`${server.wsBase}/api/sessions/${session}/socket?${search}`);
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

  async waitFor(check: (messages: ServerMessage[]) => boolean, what: string, timeoutMs = WAIT_MS): Promise<void> {
    await until(() => check(this.messages), what, timeoutMs, () => this.describe());
  }

  /** Waits for an event (after index `from` in `events()`) that satisfies `match`; returns it. */
  async waitForEvent(match: (event: SessionEvent) => boolean, what: string, from = 0, timeoutMs = WAIT_MS): Promise<SessionEvent> {
    let found: SessionEvent | undefined;
    await until(() => (found = this.events().slice(from).find(match)) !== undefined, what, timeoutMs, () => this.describe());
    return found!;
  }

  /**
   * Sends a ping and waits for the pong that answers it. The server answers in order, so once the
   * pong is here, everything the server sent this client before reading the ping is here too.
   */
  async ping(timeoutMs = WAIT_MS): Promise<void> {
    const before = this.count('pong');
    this.send({ type: 'ping' });
    await this.waitFor(() => this.count('pong') > before, 'a pong', timeoutMs);
  }

  /** Sends `message` and waits for the next typed error; returns it. */
  async expectError(message: unknown, timeoutMs = WAIT_MS) {
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

/**
 * The scripted generator behind a valve: each utterance reply waits for a permit (other purposes
 * pass), so a test decides how far a room gets and knows when it stands still, instead of racing
 * a generator that sleeps.
 *
 * ```ts
 * const valve = createValve();
 * valve.allow(3);           // three replies, then the room waits
 * await valve.held();       // it is waiting now, and nothing it was allowed is still in flight
 * valve.allow();            // every reply from now on
 * ```
 */
export interface Valve {
  /** A generator for one room (the scripted one, per room), behind this valve. */
  generator(): Generator;
  /** Lets `n` more utterance replies through; without `n`, every one from now on. */
  allow(n?: number): void;
  /** Resolves once a reply waits at the valve and none that went through is still being generated. */
  held(): Promise<void>;
  /** Resolves once no reply that went through is still being generated. */
  idle(): Promise<void>;
  /** Utterance replies asked for so far, and those finished (given, or given up when aborted). */
  readonly asked: number;
  readonly finished: number;
}

export const createValve = (): Valve => {
  let permits = 0;
  let asked = 0;
  let finished = 0;
  const waiting: (() => void)[] = [];
  let watchers: { holding: boolean; resolve: () => void }[] = [];
  const settle = () => {
    const inFlight = asked - finished - waiting.length;
    watchers = watchers.filter((w) => {
      const done = inFlight === 0 && (!w.holding || waiting.length > 0);
      if (done) w.resolve();
      return !done;
    });
  };
  const permit = (signal?: AbortSignal) =>
    new Promise<void>((resolve) => {
      if (permits > 0) {
        permits--;
        return resolve();
      }
      const wake = () => {
        signal?.removeEventListener('abort', drop);
        resolve();
      };
      const drop = () => {
        waiting.splice(waiting.indexOf(wake), 1);
        resolve();
      };
      waiting.push(wake);
      signal?.addEventListener('abort', drop, { once: true });
      settle();
    });
  const watch = (holding: boolean) =>
    new Promise<void>((resolve) => {
      watchers.push({ holding, resolve });
      settle();
    });
  return {
    generator() {
      const inner = createScriptedGenerator();
      return {
        name: 'scripted',
        async *stream(request, signal) {
          if (request.purpose !== 'utterance') {
            yield await complete(inner, request);
            return;
          }
          asked++;
          try {
            await permit(signal);
            if (signal?.aborted) return;
            yield await complete(inner, request);
          } finally {
            finished++;
            settle();
          }
        },
      };
    },
    allow(n = Infinity) {
      permits += n;
      while (permits > 0 && waiting.length > 0) {
        permits--;
        waiting.shift()!();
      }
    },
    held: () => watch(true),
    idle: () => watch(false),
    get asked() {
      return asked;
    },
    get finished() {
      return finished;
    },
  };
};

/** What of `text` the screen judges before anything is shown: its first clauses until a sentence or four words (clauses.ts). */
const screenedStart = (text: string): string => {
  const clauses = clausesOf(text);
  const start: string[] = [];
  for (const clause of clauses) {
    start.push(clause);
    if (enoughToScreen(start)) break;
  }
  return start.join(' ');
};

/**
 * The scripted generator's replies streamed word by word. The room's first utterance reply waits
 * for `start` (so the test's clients are in before its first word), streams its first clause (at
 * least `words` words: nothing is shown before the first clause passes the screen), and stays
 * there until the room aborts it (a human cutting in); later replies stream whole.
 */
export const stallingReply = (words: number, start: Promise<void>): Generator => {
  const inner = createScriptedGenerator();
  let stalled = false;
  return {
    name: 'scripted',
    async *stream(request, signal) {
      const text = await complete(inner, request);
      if (request.purpose !== 'utterance') {
        yield text;
        return;
      }
      const stall = !stalled;
      stalled = true;
      if (stall) await start;
      // Nothing is shown before the first clause passes the screen, so the stall comes after it,
      // and a one-clause line gets a second clause so there is something left to stall on.
      const first = screenedStart(text);
      const full = first.trim() === text.trim() ? `${text} Let me finish that thought properly.` : text;
      const pieces = full.split(/(?<=\s)/);
      const clause = first;
      const at = Math.max(words, clause.split(/\s+/).length);
      for (const [i, word] of pieces.entries()) {
        if (stall && i === at) await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
        if (signal?.aborted) return;
        yield word;
      }
    },
  };
};
