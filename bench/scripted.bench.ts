/**
 * The scripted generator's own time per line: every utterance request of a seeded run of each
 * shipped scene is recorded, then written again alone, timed one by one (after one untimed pass).
 * The target: a scripted line in ≤ 2 ms at the 95th percentile.
 */
import { fileURLToPath } from 'node:url';
import { driveSession } from '../server/conversation/drive';
import type { GenerateRequest } from '../server/engine/requests';
import type { Generator } from '../server/providers/generator/port';
import { createScriptedGenerator } from '../server/providers/generator/scripted';
import { loadScenes } from '../server/scene/load';
import { percentile, round, type BenchResult } from './timing';

const scenesFolder = fileURLToPath(new URL('../scenes/', import.meta.url));

const text = async (generator: Generator, request: GenerateRequest): Promise<string> => {
  let out = '';
  for await (const delta of generator.stream(request)) out += delta;
  return out;
};

export default async function scriptedBench(): Promise<BenchResult[]> {
  const scripted = createScriptedGenerator();
  const requests: GenerateRequest[] = [];
  const recording: Generator = {
    name: 'recording',
    stream(request, signal) {
      if (request.purpose === 'utterance') requests.push(request);
      return scripted.stream(request, signal);
    },
  };
  for (const scene of await loadScenes(scenesFolder)) {
    for (const seed of [1, 2]) await driveSession(scene, { seed, generator: recording });
  }
  for (const request of requests) await text(scripted, request);
  const times: number[] = [];
  for (const request of requests) {
    const start = performance.now();
    await text(scripted, request);
    times.push(performance.now() - start);
  }
  return [
    { name: 'scripted.line_p50_ms', value: round(percentile(times, 50), 3), unit: 'ms' },
    { name: 'scripted.line_p95_ms', value: round(percentile(times, 95), 3), unit: 'ms' },
    { name: 'scripted.lines', value: times.length, unit: 'lines' },
  ];
}
