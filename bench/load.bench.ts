/**
 * Many live sessions at once on this machine, at the pace people hear them (issue 16): how late
 * the personas' speech gets, how long the event loop stalls, how much memory it takes.
 *
 * Each level runs N `team-standup` rooms at realtime pace, speed 1, every seat a stand-in (the
 * scripted generator, eSpeak voices from the server's pool: `ESPEAK_WORKERS`, one per core by
 * default), each with one client that serialises every message it is sent, as a socket would.
 * After a warm-up the level is measured for {@link WINDOW_MS}.
 *
 * - `load.<N>.speech_lag_p95_ms` / `_p50_ms`: how late each clause's audio is ready against the
 *   moment the listener needs it: for a reply's first clause, from the moment it is asked for (a
 *   persona has the floor and is silent until then); for a later clause, from the moment the audio
 *   before it has been heard (0 when it was ready in time).
 * - `load.<N>.loop_p99_ms`: event-loop delay p99 (`monitorEventLoopDelay`, 10 ms resolution, minus
 *   the resolution, as server.bench does).
 * - `load.<N>.rss_mb`: the server process's resident memory, and `load.<N>.espeak_rss_mb` its
 *   eSpeak processes' together, at the end of the window.
 * - `load.<N>.turns_per_session_min`: utterances per session per minute, to compare with the
 *   lightest level: a loaded server that slows conversations down shows here.
 *
 * `LOAD_LEVELS` (comma-separated session counts, default 10,50,100,200) and `LOAD_WINDOW_S`
 * (default 30) change the run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createScriptedGenerator } from '../server/providers/generator/scripted';
import { createEspeakSynthesizer } from '../server/providers/synthesis/espeak';
import { createRooms } from '../server/rooms/rooms';
import { loadScene } from '../server/scene/load';
import { openStore } from '../server/store/store';
import { rssOf, timedSynthesizer } from './live-sessions';
import { percentile, round, type BenchResult } from './timing';

const SCENE = 'team-standup';
const LEVELS = (process.env.LOAD_LEVELS ?? '10,50,100,200').split(',').map(Number).filter((n) => n > 0);
const WINDOW_MS = Number(process.env.LOAD_WINDOW_S ?? 30) * 1000;
const WARMUP_MS = 5000;
const RESOLUTION_MS = 10;

const verbose = (line: string) => process.env.BENCH_VERBOSE && process.stderr.write(`load.bench: ${line}\n`);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const level = async (sessions: number): Promise<BenchResult[]> => {
  const dir = mkdtempSync(join(tmpdir(), 'rehearsal-load-'));
  const store = openStore(dir);
  const espeak = createEspeakSynthesizer();
  const lags: number[] = [];
  let recording = false;
  const synthesizer = timedSynthesizer(espeak, lags, () => recording);
  const scene = await loadScene(fileURLToPath(new URL(`../scenes/${SCENE}.yaml`, import.meta.url)));
  const generator = createScriptedGenerator();
  // Ended rooms leave memory at once: nothing of a level lingers into the next.
  const rooms = createRooms({ store, scenes: new Map([[scene.id, scene]]), generator: () => generator, synthesizer: () => synthesizer, keepEndedMs: 0 });
  let utterances = 0;
  let bytes = 0;
  try {
    await sleep(1000); // the eSpeak processes load
    for (let i = 0; i < sessions; i++) {
      const room = rooms.create(SCENE, { pace: 'realtime', standIns: true });
      room.join(
        {
          participant: null,
          role: 'observer',
          send: (message) => {
            bytes += JSON.stringify(message).length;
            if (recording && message.type === 'event' && message.event.type === 'utterance') utterances++;
          },
        },
        0,
      );
      // Sessions start spread over a second, as people arrive, not in one tick.
      await sleep(1000 / sessions);
    }
    await sleep(WARMUP_MS);
    const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    delay.enable();
    recording = true;
    await sleep(WINDOW_MS);
    recording = false;
    delay.disable();
    const live = rooms.list().filter((room) => !room.ended()).length;
    const workersRss = espeak.workerPids.reduce<number>((sum, pid) => sum + rssOf(pid), 0);
    const results: BenchResult[] = [
      { name: `load.${sessions}.speech_lag_p50_ms`, value: round(percentile(lags, 50)), unit: 'ms' },
      { name: `load.${sessions}.speech_lag_p95_ms`, value: round(percentile(lags, 95)), unit: 'ms' },
      { name: `load.${sessions}.loop_p99_ms`, value: round(Math.max(0, delay.percentile(99) / 1e6 - RESOLUTION_MS), 1), unit: 'ms' },
      { name: `load.${sessions}.rss_mb`, value: round(process.memoryUsage().rss / 2 ** 20, 1), unit: 'MB' },
      { name: `load.${sessions}.espeak_rss_mb`, value: round(workersRss, 1), unit: 'MB' },
      { name: `load.${sessions}.turns_per_session_min`, value: round(utterances / sessions / (WINDOW_MS / 60_000), 2), unit: 'turns/min' },
    ];
    verbose(`${sessions} sessions (${live} still live), ${lags.length} clauses, ${espeak.workerPids.length} eSpeak workers, ${round(bytes / 2 ** 20, 1)} MB sent`);
    return results;
  } finally {
    for (const room of rooms.list()) if (!room.ended()) room.conversation.send({ type: 'end' });
    await Promise.all(rooms.list().map((room) => room.conversation.ended));
    store.close();
    await espeak.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

export default async function loadBench(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const sessions of LEVELS) results.push(...(await level(sessions)));
  return results;
}
