/**
 * The live server under load, in-process: the real app (rooms, SQLite store, HTTP API, WebSocket)
 * on an ephemeral port, driven by real HTTP and WebSocket clients in the same process.
 *
 * - `server.sessions_concurrent`: the largest N of instant-pace `team-standup` sessions that can be
 *   started together (N parallel POST /api/sessions, each with an observer socket consuming every
 *   event and approving proposals) and run to `end` while the event-loop delay p99 stays under
 *   20 ms. The delay is `monitorEventLoopDelay` at 10 ms resolution, from the first POST to the
 *   last `end`, minus the resolution: the histogram records whole tick intervals, so an idle loop
 *   reads ~10.1 ms and a delay of d reads ~10 + d. N doubles from 1 until a trial fails, then
 *   bisects; capped at 512 sessions and a time budget (a value of 512 means "at least").
 *   Instant sessions are CPU-bound bursts (the scripted generator never yields to the event loop:
 *   a session runs from its POST to its first wait in one go), so "at once" means started together
 *   and run to the end together, not overlapping turn by turn; the bursts queue, which is what
 *   `server.instant_sessions_per_s` shows. The clients share the process, so their work counts too.
 * - `server.event_latency_p50_ms` / `_p95_ms`: from the moment a room hands an event to the store
 *   (right before commit and broadcast) to its arrival at an observer socket, same clock, for 8
 *   concurrent sessions. Live (realtime-pace, sped up) sessions: the path a real room's clients
 *   see. Events an observer got as backlog on joining are left out (that is join time, not latency).
 *   `server.event_latency_instant_p95_ms` is the same for instant sessions, whose events queue
 *   behind whole-session CPU bursts.
 * - `server.create_session_ms`: POST /api/sessions latency, p50 over sequential requests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import WebSocket from 'ws';
import { createApp } from '../server/api/app';
import { createTokens } from '../server/auth/tokens';
import { createScriptedGenerator } from '../server/providers/generator/scripted';
import type { ServerMessage } from '../shared/protocol/messages';
import { createRooms, type Pace } from '../server/rooms/rooms';
import { loadScene } from '../server/scene/load';
import type { LoadedScene } from '../shared/scene/schema';
import { openStore, type Store } from '../server/store/store';
import { percentile, round, type BenchResult } from './timing';

const SCENE = 'team-standup';
const DELAY_LIMIT_MS = 20;
const MAX_SESSIONS = 512;
/** Wall-clock budget for the concurrency search; one more trial is not started past it. */
const SEARCH_BUDGET_MS = 45_000;
const LATENCY_SESSIONS = 8;
/** Realtime sessions at this many times spoken speed, so a stand-up lasts seconds, not minutes. */
const REALTIME_SPEED = 40;
const BATCH_TIMEOUT_MS = 30_000;
const RESOLUTION_MS = 10;
/** A trial repeats its batch until it has this many batches or this much measured time. */
const TRIAL_BATCHES = 3;
const TRIAL_MS = 2000;
const CREATES = 40;

const verbose = (line: string) => process.env.BENCH_VERBOSE && process.stderr.write(`server.bench: ${line}\n`);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const sceneFile = fileURLToPath(new URL(`../scenes/${SCENE}.yaml`, import.meta.url));

interface BenchServer {
  base: string;
  adminToken: string;
  /** `${session}#${seq}` → performance.now() when the room handed the event to the store. */
  stamps: Map<string, number>;
  close(): Promise<void>;
}

const startServer = async (scene: LoadedScene, options: { stamp: boolean }): Promise<BenchServer> => {
  const dir = mkdtempSync(join(tmpdir(), 'rehearsal-bench-'));
  const stamps = new Map<string, number>();
  let store: Store | undefined;
  let server: Server | undefined;
  try {
    const inner = openStore(dir);
    store = inner;
    // Rooms commit each event and then broadcast it: stamping here is "the engine decided".
    const stamped: Store = {
      ...inner,
      appendEvents(session, events) {
        if (options.stamp) {
          const t = performance.now();
          for (const e of events) stamps.set(`${session}#${e.seq}`, t);
        }
        inner.appendEvents(session, events);
      },
    };
    const rooms = createRooms({ store: stamped, scenes: new Map([[scene.id, scene]]), generator: () => createScriptedGenerator(), speed: REALTIME_SPEED });
    const adminToken = randomBytes(24).toString('base64url');
    const { app, injectWebSocket } = createApp({
      config: { adminToken, tokenTtlMs: 3_600_000, maxMessageBytes: 16_384, messageRatePerS: 20, messageBurst: 40, generator: 'scripted', synthesizer: 'none', transcriber: 'none' },
      rooms,
      store: stamped,
      tokens: createTokens(randomBytes(32).toString('base64url')),
      version: 'bench',
      scenes: [scene],
    });
    const port = await new Promise<number>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port)) as Server;
    });
    injectWebSocket(server!);
    const http = server!;
    return {
      base: `127.0.0.1:${port}`,
      adminToken,
      stamps,
      close: async () => {
        await new Promise<void>((resolve) => {
          http.close(() => resolve());
          http.closeAllConnections();
        });
        inner.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    server?.close();
    store?.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
};

interface SessionRun {
  createMs: number;
  /** Live events only: commit-to-receipt milliseconds. */
  latencies: number[];
  events: number;
}

/**
 * Creates a session over HTTP and connects an observer that approves every proposal; resolves at
 * `end`. With `endAtOnce` the observer ends the session as soon as it has joined.
 */
const runSession = async (srv: BenchServer, pace: Pace, endAtOnce = false): Promise<SessionRun> => {
  const begin = performance.now();
  const response = await fetch(`http://${srv.base}/api/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${srv.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ scene: SCENE, pace, standIns: true }),
  });
  const createMs = performance.now() - begin;
  if (response.status !== 201) throw new Error(`POST /api/sessions: ${response.status} ${await response.text()}`);
  const { id, tokens } = (await response.json()) as { id: string; tokens: Record<string, string> };
  const ws = new WebSocket(`ws://${srv.base}/api/sessions/${id}/socket?token=${encodeURIComponent(tokens.observer!)}`);
  return new Promise<SessionRun>((resolve, reject) => {
    const latencies: number[] = [];
    let backlogUpTo = Number.POSITIVE_INFINITY;
    let events = 0;
    let ended = false;
    ws.on('message', (data) => {
      const received = performance.now();
      const message = JSON.parse(String(data)) as ServerMessage;
      if (message.type === 'welcome') {
        backlogUpTo = message.snapshot.lastSeq;
        if (endAtOnce) ws.send(JSON.stringify({ type: 'end' }));
      }
      if (message.type !== 'event') return;
      const { event } = message;
      events += 1;
      if (event.seq > backlogUpTo) {
        const stamp = srv.stamps.get(`${id}#${event.seq}`);
        if (stamp !== undefined) latencies.push(received - stamp);
      }
      // Nobody else is there to audit a simulated human's proposal; the session waits for it.
      if (event.type === 'approval-needed') ws.send(JSON.stringify({ type: 'approve', proposal: event.proposal }));
      if (event.type === 'end') {
        ended = true;
        ws.close(1000);
        resolve({ createMs, latencies, events });
      }
    });
    ws.on('error', reject);
    ws.on('close', (code) => {
      if (!ended) reject(new Error(`session ${id}: socket closed (${code}) before the end`));
    });
  });
};

const withTimeout = <T>(work: Promise<T>, ms: number, what: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no end after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
};

interface Batch {
  runs: SessionRun[];
  p99DelayMs: number;
  ms: number;
}

/** N sessions started together on a fresh server; the event-loop delay while they run to the end. */
const runBatch = async (scene: LoadedScene, n: number, pace: Pace, stamp = false): Promise<Batch> => {
  const srv = await startServer(scene, { stamp });
  try {
    const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    const begin = performance.now();
    histogram.enable();
    const runs = await withTimeout(Promise.all(Array.from({ length: n }, () => runSession(srv, pace))), BATCH_TIMEOUT_MS, `${n} ${pace} sessions`);
    const ms = performance.now() - begin;
    // A few more ticks, so a stall that lasted until the last `end` is recorded too.
    await sleep(3 * RESOLUTION_MS);
    histogram.disable();
    // The histogram holds the interval between ticks, which includes the resolution itself (an
    // idle loop reads ~10.1 ms); the delay is what exceeds it.
    const p99DelayMs = Math.max(0, histogram.percentile(99) / 1e6 - RESOLUTION_MS);
    return { runs, p99DelayMs, ms };
  } finally {
    await srv.close();
  }
};

interface Search {
  sessions: number;
  p99DelayMs: number;
  /** Sessions started and run to the end per second, in the trial at `sessions`. */
  perSecond: number;
  trials: number;
}

const searchConcurrency = async (scene: LoadedScene): Promise<Search> => {
  const deadline = performance.now() + SEARCH_BUDGET_MS;
  const delayAt = new Map<number, number>();
  const rateAt = new Map<number, number>();
  // A short batch gives a handful of ticks, so its p99 is its worst stall: a trial repeats short
  // batches and takes the median, so one GC pause does not decide it.
  const fits = async (n: number): Promise<boolean> => {
    const delays: number[] = [];
    let measured = 0;
    while (delays.length < TRIAL_BATCHES && measured < TRIAL_MS) {
      const batch = await runBatch(scene, n, 'instant');
      measured += batch.ms;
      delays.push(batch.p99DelayMs);
      verbose(`N=${n} delay p99=${batch.p99DelayMs.toFixed(2)} ms, ${batch.ms.toFixed(0)} ms to the last end`);
    }
    const delay = percentile(delays, 50);
    delayAt.set(n, delay);
    rateAt.set(n, (n * delays.length) / (measured / 1000));
    return delay < DELAY_LIMIT_MS;
  };
  let good = 0;
  let bad = MAX_SESSIONS + 1;
  for (let n = 1; n <= MAX_SESSIONS && performance.now() < deadline; n *= 2) {
    if (await fits(n)) good = n;
    else {
      bad = n;
      break;
    }
  }
  while (bad - good > Math.max(1, Math.floor(good / 16)) && bad <= MAX_SESSIONS && performance.now() < deadline) {
    const mid = Math.floor((good + bad) / 2);
    if (await fits(mid)) good = mid;
    else bad = mid;
  }
  return { sessions: good, p99DelayMs: delayAt.get(good) ?? 0, perSecond: rateAt.get(good) ?? 0, trials: delayAt.size };
};

export default async function serverBench(): Promise<BenchResult[]> {
  const scene = await loadScene(sceneFile);
  const begin = performance.now();

  // Warm-up: JIT, SQLite, sockets. Untimed.
  await runBatch(scene, 4, 'instant', true);

  // Sequential creates on an otherwise idle server. A realtime session's POST is the API's own
  // cost; an instant session's whole first burst runs before its response is written.
  const creates: number[] = [];
  const createsInstant: number[] = [];
  {
    const srv = await startServer(scene, { stamp: false });
    try {
      for (let i = 0; i < CREATES; i++) {
        creates.push((await runSession(srv, 'realtime', true)).createMs);
        createsInstant.push((await runSession(srv, 'instant')).createMs);
      }
    } finally {
      await srv.close();
    }
  }

  const live = await runBatch(scene, LATENCY_SESSIONS, 'realtime', true);
  const liveLatencies = live.runs.flatMap((r) => r.latencies);
  verbose(`${LATENCY_SESSIONS} realtime sessions: ${live.ms.toFixed(0)} ms, ${liveLatencies.length} live events of ${live.runs.reduce((a, r) => a + r.events, 0)}`);

  const concurrency = await searchConcurrency(scene);

  return [
    { name: 'server.sessions_concurrent', value: concurrency.sessions, unit: 'sessions' },
    { name: 'server.sessions_concurrent_p99_delay_ms', value: round(concurrency.p99DelayMs, 2), unit: 'ms' },
    { name: 'server.sessions_concurrent_trials', value: concurrency.trials, unit: 'count' },
    { name: 'server.instant_sessions_per_s', value: round(concurrency.perSecond, 1), unit: 'sessions/s' },
    { name: 'server.event_latency_p50_ms', value: round(percentile(liveLatencies, 50)), unit: 'ms' },
    { name: 'server.event_latency_p95_ms', value: round(percentile(liveLatencies, 95)), unit: 'ms' },
    { name: 'server.event_latency_events', value: liveLatencies.length, unit: 'count' },
    { name: 'server.create_session_ms', value: round(percentile(creates, 50)), unit: 'ms' },
    { name: 'server.create_session_instant_ms', value: round(percentile(createsInstant, 50)), unit: 'ms' },
    { name: 'server.bench_s', value: round((performance.now() - begin) / 1000, 1), unit: 's' },
  ];
}
