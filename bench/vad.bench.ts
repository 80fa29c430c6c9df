/**
 * What a microphone's voice activity detection costs (issue 30): CPU per 32 ms frame, through the
 * speech detector as a room runs it, for a stream alone and for {@link STREAMS} streams whose
 * frames arrive together (batched into one Silero call), with and without the energy gate on
 * quiet room noise (a participant listening). CPU time, not wall time, so a busy machine changes
 * these figures less than capacity.bench's.
 *
 * - `vad.<case>.cpu_ms_per_frame`: the whole process (main thread and the VAD's thread).
 * - `vad.<case>.main_ms_per_frame`: the server's own thread, the one that saturates (Linux only).
 * - `vad.<case>.cpu_ms_per_s_per_session`: the same at 31.25 frames a second.
 *
 * Cases: `alone` (one stream), `batched` (Silero on every frame), `gated` (Silero behind the gate).
 */
import { readFileSync } from 'node:fs';
import { createGatedSileroVad } from '../server/media/energy-gate';
import { createSpeechDetector } from '../server/media/speech-detector';
import { createSileroVad, vadFrameSamples, type Vad } from '../server/media/vad';
import { round, type BenchResult } from './timing';

const STREAMS = 100;
const FRAMES = 6000;
const FRAMES_PER_S = 1000 / 32;

/** The main thread's CPU (user + system), from /proc (Linux); NaN elsewhere. */
const mainThreadMs = (): number => {
  try {
    const fields = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
};
const processMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Quiet room noise, as capacity.bench streams it. */
const noise = Int16Array.from({ length: vadFrameSamples }, (_, i) => Math.round(40 * Math.sin(i * 1.7) + 25 * Math.sin(i * 0.31)));

const measure = async (name: string, streams: number, create: () => Promise<Vad>): Promise<BenchResult[]> => {
  const vads = await Promise.all(Array.from({ length: streams }, create));
  const detectors = vads.map((vad) => createSpeechDetector({ vad }));
  const round_ = () => Promise.all(detectors.map((detector) => detector.push(noise)));
  // Past the gate's first half second, when it has learned the floor and closed.
  for (let i = 0; i < 40; i++) await round_();
  const rounds = Math.ceil(FRAMES / streams);
  const main = mainThreadMs();
  const all = processMs();
  for (let i = 0; i < rounds; i++) await round_();
  const frames = rounds * streams;
  const perFrame = (processMs() - all) / frames;
  const mainPerFrame = (mainThreadMs() - main) / frames;
  await Promise.all(vads.map((vad) => vad.close()));
  return [
    { name: `vad.${name}.cpu_ms_per_frame`, value: round(perFrame, 4), unit: 'ms' },
    ...(Number.isFinite(mainPerFrame) ? [{ name: `vad.${name}.main_ms_per_frame`, value: round(mainPerFrame, 4), unit: 'ms' }] : []),
    { name: `vad.${name}.cpu_ms_per_s_per_session`, value: round(perFrame * FRAMES_PER_S, 2), unit: 'ms/s' },
  ];
};

export default async function vadBench(): Promise<BenchResult[]> {
  return [
    ...(await measure('alone', 1, () => createSileroVad())),
    ...(await measure('batched', STREAMS, () => createSileroVad())),
    ...(await measure('gated', STREAMS, () => createGatedSileroVad())),
  ];
}
