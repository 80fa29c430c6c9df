/**
 * Capacity per node (issue 30): how many simulated voice sessions one server process carries
 * while the personas' speech stays on time (speech lag p95 < 1 s) and the event loop responsive
 * (p99 < 50 ms), and what each extra session costs in CPU and memory. Each figure is the median
 * of {@link TRIALS} trials, with its spread (max − min) beside it.
 *
 * A voice session here is a `team-standup` room at realtime pace, speed 1: the engine, the
 * personas' replies from the scripted generator behind a hosted LLM's latency (the first delta
 * after {@link LLM_FIRST_DELTA_MS}), their speech from the node's shared eSpeak pool, and the
 * human seat's microphone streaming 32 ms frames of room noise through Silero VAD (a fake
 * transcriber, {@link ASR_MS}, answers any speech it finds), relayed as `voice` to the room's one
 * observer client, which serialises every message it is sent as a socket would.
 *
 * A trial climbs {@link LADDER} until a level fails either limit, then halves the gap between the
 * last level that held and the first that failed ({@link BISECTIONS} times). The capacity is the
 * largest level that held. The cost per session is the slope of a straight line through every
 * level the trial measured (server process and eSpeak processes together): CPU in ms per second
 * (1000 = one core), resident memory in MB.
 *
 * - `capacity.host_load_per_core`: the machine's 1-minute load per core when the bench began; well
 *   above 0 (other work on the machine) means the figures below measure a share of a node, not a node.
 * - `capacity.sessions_per_node` (+ `_spread`): sessions.
 * - `capacity.cpu_ms_per_s_per_session`, `capacity.rss_mb_per_session` (+ `_spread`).
 * - `capacity.at_capacity.speech_lag_p95_ms`, `capacity.at_capacity.loop_p99_ms`: the level that held.
 *
 * Quick by default (8 s windows, one bisection: ~3 min); `CAPACITY_FULL=1` measures 30 s windows,
 * a finer ladder and two bisections. `CAPACITY_LEVELS` (comma-separated) replaces the ladder,
 * `CAPACITY_TRIALS` the number of trials (3);
 * `CAPACITY_MICROPHONES=0` leaves the microphones off (what separates a voice session from
 * load.bench's text-and-speech one: 31 frames a second per session through the speech detector and
 * Silero, which cost 0.28 ms of CPU a frame on the main thread before issue 30; now 0.08 batched on
 * the VAD's thread, 0.01 behind the energy gate on this room noise: vad.bench.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { MIC_SAMPLE_RATE } from '../shared/protocol/messages';
import type { Generator } from '../server/providers/generator/port';
import { createScriptedGenerator } from '../server/providers/generator/scripted';
import { createEspeakSynthesizer } from '../server/providers/synthesis/espeak';
import type { Transcriber } from '../server/providers/transcription/port';
import { createRooms } from '../server/rooms/rooms';
import { loadScene } from '../server/scene/load';
import { openStore } from '../server/store/store';
import { cpuMsOf, rssOf, timedSynthesizer } from './live-sessions';
import { percentile, round, type BenchResult } from './timing';

const SCENE = 'team-standup';
/** The scene's human seat, whose microphone streams. */
const HUMAN = 'jordan';
const FULL = process.env.CAPACITY_FULL === '1';
const TRIALS = Number(process.env.CAPACITY_TRIALS ?? 3);
const LADDER = (process.env.CAPACITY_LEVELS ?? (FULL ? '10,25,50,100,150,200,250,300,400,500' : '10,25,50,100,200,300,400')).split(',').map(Number).filter((n) => n > 0);
const BISECTIONS = FULL ? 2 : 1;
const WINDOW_MS = (FULL ? 30 : 8) * 1000;
const WARMUP_MS = (FULL ? 8 : 4) * 1000;
const LAG_LIMIT_MS = 1000;
const LOOP_LIMIT_MS = 50;
const RESOLUTION_MS = 10;
/** A hosted LLM's time to its first token (a flash-class model, streaming). */
const LLM_FIRST_DELTA_MS = 400;
/** A hosted speech-to-text call for a short utterance. */
const ASR_MS = 300;
const FRAME_MS = 32;
const MICROPHONES = process.env.CAPACITY_MICROPHONES !== '0';

const verbose = (line: string) => process.env.BENCH_VERBOSE && process.stderr.write(`capacity.bench: ${line}\n`);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const slowGenerator = (inner: Generator): Generator => ({
  name: inner.name,
  async *stream(request, signal, onNotice) {
    await sleep(LLM_FIRST_DELTA_MS);
    yield* inner.stream(request, signal, onNotice);
  },
});

const fakeAsr: Transcriber = {
  name: 'fake',
  transcribe: async () => {
    await sleep(ASR_MS);
    return { text: 'Sounds good to me.' };
  },
};

/** 32 ms of quiet room noise, PCM16 at the microphone's rate: the VAD runs, nobody speaks. */
const noise = Int16Array.from({ length: (MIC_SAMPLE_RATE * FRAME_MS) / 1000 }, (_, i) => Math.round(40 * Math.sin(i * 1.7) + 25 * Math.sin(i * 0.31)));

interface Level {
  sessions: number;
  lagP95: number;
  loopP99: number;
  /** Server process and eSpeak processes: CPU ms per second of the window. */
  cpuMsPerS: number;
  rssMb: number;
}

const holds = (level: Level) => level.lagP95 < LAG_LIMIT_MS && level.loopP99 < LOOP_LIMIT_MS;

const measure = async (sessions: number, espeak: ReturnType<typeof createEspeakSynthesizer>): Promise<Level> => {
  const dir = mkdtempSync(join(tmpdir(), 'rehearsal-capacity-'));
  const store = openStore(dir);
  const lags: number[] = [];
  let measuring = false;
  const scene = await loadScene(fileURLToPath(new URL(`../scenes/${SCENE}.yaml`, import.meta.url)));
  const generator = slowGenerator(createScriptedGenerator());
  const synthesizer = timedSynthesizer(espeak, lags, () => measuring);
  const rooms = createRooms({ store, scenes: new Map([[scene.id, scene]]), generator: () => generator, synthesizer: () => synthesizer, transcriber: fakeAsr, keepEndedMs: 0 });
  let bytes = 0;
  const microphones = setInterval(() => {
    if (MICROPHONES) for (const room of rooms.list()) if (!room.ended()) room.hear(HUMAN, noise);
  }, FRAME_MS);
  try {
    for (let i = 0; i < sessions; i++) {
      const room = rooms.create(SCENE, { pace: 'realtime', standIns: true });
      room.join({ participant: null, role: 'observer', send: (message) => void (bytes += JSON.stringify(message).length) }, 0);
      // Sessions start spread over a second, as people arrive, not in one tick.
      await sleep(1000 / sessions);
    }
    await sleep(WARMUP_MS);
    const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    const cpuOfAll = () => process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000 + espeak.workerPids.reduce<number>((sum, pid) => sum + cpuMsOf(pid), 0);
    const cpuBefore = cpuOfAll();
    const begin = performance.now();
    delay.enable();
    measuring = true;
    await sleep(WINDOW_MS);
    measuring = false;
    delay.disable();
    const elapsed = performance.now() - begin;
    const level: Level = {
      sessions,
      // No clause at all in the window: the node did not keep up.
      lagP95: lags.length > 0 ? percentile(lags, 95) : Number.POSITIVE_INFINITY,
      loopP99: Math.max(0, delay.percentile(99) / 1e6 - RESOLUTION_MS),
      cpuMsPerS: ((cpuOfAll() - cpuBefore) / elapsed) * 1000,
      rssMb: rssOf(process.pid) + espeak.workerPids.reduce<number>((sum, pid) => sum + rssOf(pid), 0),
    };
    verbose(`${sessions} sessions: lag p95 ${round(level.lagP95)} ms, loop p99 ${round(level.loopP99, 1)} ms, ${round(level.cpuMsPerS)} CPU ms/s, ${round(level.rssMb, 1)} MB, ${lags.length} clauses, ${round(bytes / 2 ** 20, 1)} MB sent: ${holds(level) ? 'holds' : 'fails'}`);
    return level;
  } finally {
    clearInterval(microphones);
    for (const room of rooms.list()) if (!room.ended()) room.conversation.send({ type: 'end' });
    await Promise.all(rooms.list().map((room) => room.conversation.ended));
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

/** The least-squares slope of y over x; NaN under three points (two levels are too few to tell a cost from noise). */
const slope = (points: readonly { x: number; y: number }[]): number => {
  const n = points.length;
  if (n < 3) return Number.NaN;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return sxx === 0 ? Number.NaN : points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / sxx;
};

const trial = async (): Promise<{ capacity: number; atCapacity: Level | null; cpuPerSession: number; rssPerSession: number }> => {
  const espeak = createEspeakSynthesizer();
  const levels: Level[] = [];
  try {
    await sleep(1000); // the eSpeak processes load
    let held: Level | null = null;
    let failed: number | null = null;
    for (const sessions of LADDER) {
      const level = await measure(sessions, espeak);
      levels.push(level);
      if (!holds(level)) {
        failed = sessions;
        break;
      }
      held = level;
    }
    for (let i = 0; i < BISECTIONS && failed !== null; i++) {
      const from = held?.sessions ?? 0;
      const sessions = Math.round((from + failed) / 2 / 5) * 5;
      if (sessions <= from || sessions >= failed) break;
      const level = await measure(sessions, espeak);
      levels.push(level);
      if (holds(level)) held = level;
      else failed = sessions;
    }
    if (failed === null) process.stderr.write(`capacity.bench: every level up to ${LADDER.at(-1)} held; the capacity is at least that (CAPACITY_LEVELS climbs higher)\n`);
    return {
      capacity: held?.sessions ?? 0,
      atCapacity: held,
      cpuPerSession: slope(levels.map((l) => ({ x: l.sessions, y: l.cpuMsPerS }))),
      rssPerSession: slope(levels.map((l) => ({ x: l.sessions, y: l.rssMb }))),
    };
  } finally {
    await espeak.close();
  }
};

const median = (values: readonly number[]) => percentile(values, 50);
const spread = (values: readonly number[]) => Math.max(...values) - Math.min(...values);

export default async function capacityBench(): Promise<BenchResult[]> {
  // A node shared with other work measures that work too: the load per core at the start says how much.
  const loadPerCore = round(loadavg()[0]! / availableParallelism(), 2);
  const trials = [];
  for (let i = 0; i < TRIALS; i++) {
    trials.push(await trial());
    verbose(`trial ${i + 1}: ${trials.at(-1)!.capacity} sessions`);
  }
  const capacities = trials.map((t) => t.capacity);
  const cpu = trials.map((t) => t.cpuPerSession).filter(Number.isFinite);
  const rss = trials.map((t) => t.rssPerSession).filter(Number.isFinite);
  const held = trials.flatMap((t) => (t.atCapacity ? [t.atCapacity] : []));
  return [
    { name: 'capacity.host_load_per_core', value: loadPerCore, unit: 'ratio' },
    { name: 'capacity.sessions_per_node', value: median(capacities), unit: 'sessions' },
    { name: 'capacity.sessions_per_node_spread', value: spread(capacities), unit: 'sessions' },
    ...(cpu.length > 0
      ? [
          { name: 'capacity.cpu_ms_per_s_per_session', value: round(median(cpu), 2), unit: 'ms/s' },
          { name: 'capacity.cpu_ms_per_s_per_session_spread', value: round(spread(cpu), 2), unit: 'ms/s' },
        ]
      : []),
    ...(rss.length > 0
      ? [
          { name: 'capacity.rss_mb_per_session', value: round(median(rss), 2), unit: 'MB' },
          { name: 'capacity.rss_mb_per_session_spread', value: round(spread(rss), 2), unit: 'MB' },
        ]
      : []),
    ...(held.length > 0
      ? [
          { name: 'capacity.at_capacity.speech_lag_p95_ms', value: round(median(held.map((l) => l.lagP95))), unit: 'ms' },
          { name: 'capacity.at_capacity.loop_p99_ms', value: round(median(held.map((l) => l.loopP99)), 1), unit: 'ms' },
        ]
      : []),
  ];
}
