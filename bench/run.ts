/**
 * Runs every `bench/*.bench.ts` module and prints one JSON line per measurement:
 * {"name":"designation.p50_us","value":3.1,"unit":"us"}
 *
 *   npm run bench               # every benchmark
 *   npm run bench -- designation  # only files whose name contains "designation"
 */
import { readdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type { Bench } from './timing';
import { provideWordVectors } from '../server/engine/embeddings';
import { installedWordVectors } from '../server/providers/word-vectors';

// Similarity compares by meaning with the installation's word vectors (read on the first comparison).
provideWordVectors(installedWordVectors);

const folder = fileURLToPath(new URL('.', import.meta.url));
const filters = process.argv.slice(2);
const files = (await readdir(folder))
  .filter((f) => f.endsWith('.bench.ts') && (filters.length === 0 || filters.some((x) => f.includes(x))))
  .sort();

if (files.length === 0) {
  process.stderr.write(`bench: no bench/*.bench.ts matches ${filters.join(' ')}\n`);
  process.exitCode = 1;
}
// One failing benchmark is reported and does not hide the others' numbers.
for (const file of files) {
  try {
    const bench = (await import(pathToFileURL(join(folder, file)).href)) as { default: Bench };
    for (const { name, value, unit } of await bench.default()) process.stdout.write(`${JSON.stringify({ name, value, unit })}\n`);
  } catch (error) {
    process.stderr.write(`bench: ${file} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  }
}

// Done once every figure is printed: a benchmark that left a handle open (a worker, a socket, a
// browser) is named on stderr and does not keep the process alive.
const lingering = process.getActiveResourcesInfo().filter((kind) => !['TTYWrap', 'PipeWrap', 'FSReqCallback'].includes(kind));
if (lingering.length > 0) process.stderr.write(`bench: still open after the last figure: ${lingering.join(', ')}\n`);
process.exit();
