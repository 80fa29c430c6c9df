/**
 * Batch simulation throughput with the scripted generator: every scene in `scenes/`, several
 * seeded runs each, after one untimed warm-up run per scene.
 */
import { fileURLToPath } from 'node:url';
import { driveSession } from '../server/conversation/drive';
import { createGenerator } from '../server/providers/generator/index';
import { loadScenes } from '../server/scene/load';
import { round, timeAsync, type BenchResult } from './timing';

const runsPerScene = 5;
const scenesFolder = fileURLToPath(new URL('../scenes/', import.meta.url));

export default async function simulateBench(): Promise<BenchResult[]> {
  const scenes = await loadScenes(scenesFolder);
  if (scenes.length === 0) throw new Error(`no scenes/*.yaml in ${scenesFolder}`);
  const generator = createGenerator('scripted', {});

  for (const scene of scenes) await driveSession(scene, { seed: 0, generator });

  let turns = 0;
  let runs = 0;
  let ms = 0;
  // Sampled after every run: the peak of those samples, not a true high-water mark.
  let heapBytes = process.memoryUsage().heapUsed;
  for (const scene of scenes) {
    for (let seed = 1; seed <= runsPerScene; seed++) {
      const timed = await timeAsync(() => driveSession(scene, { seed, generator }));
      turns += timed.result.filter((e) => e.type === 'utterance').length;
      runs += 1;
      ms += timed.ms;
      heapBytes = Math.max(heapBytes, process.memoryUsage().heapUsed);
    }
  }

  return [
    { name: 'simulate.turns_per_s', value: round(turns / (ms / 1000), 1), unit: 'turns/s' },
    { name: 'simulate.ms_per_run', value: round(ms / runs), unit: 'ms' },
    { name: 'simulate.heap_mb', value: round(heapBytes / 2 ** 20, 1), unit: 'MB' },
  ];
}
