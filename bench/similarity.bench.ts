/**
 * Sentence similarity (issue 14): how well it separates same-meaning from different-meaning
 * pairs of the labelled set, what one comparison costs, and what the word vectors cost to build,
 * load and keep.
 *
 * - `similarity.auc_dev` / `_test`: ROC AUC on each half of tests/fixtures/sentence-pairs.json
 *   (dev chose the constants; test is held out).
 * - `similarity.same_meaning_above_test` / `different_meaning_above_test`: the share of the test
 *   half's pairs above REPETITION_THRESHOLD, by label.
 * - `similarity.compare_us_p50` / `_p99`: one comparison of two texts never seen before (sentence
 *   vectors built); `compare_memo_us_*`: of texts compared before (the engine's usual case).
 * - `similarity.load_ms` / `rss_mb`: reading and decoding the binary cache, and the resident
 *   memory that adds (measured in a fresh process).
 * - `similarity.cache_build_s`: converting the package's JSON into the cache (once per install),
 *   then decoding it.
 * - `similarity.package_mb` / `cache_mb` / `install_mb`: disk taken by the package, the cache, both.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { wordVectors } from '../server/engine/embeddings';
import { loadWordVectors, SOURCE_PACKAGE } from '../server/providers/word-vectors';
import { createTextSimilarity, REPETITION_THRESHOLD } from '../server/engine/similarity';
import { percentile, round, timeEach, type BenchResult } from './timing';

interface Pair {
  split: 'dev' | 'test';
  label: 0 | 1;
  a: string;
  b: string;
}

const { pairs } = JSON.parse(readFileSync(new URL('../tests/fixtures/sentence-pairs.json', import.meta.url), 'utf8')) as { pairs: Pair[] };

/** The probability that a same-meaning pair scores above a different-meaning one (ties count half). */
const rocAuc = (scored: readonly { label: number; score: number }[]): number => {
  const positives = scored.filter((x) => x.label === 1);
  const negatives = scored.filter((x) => x.label === 0);
  let wins = 0;
  for (const p of positives) for (const n of negatives) wins += p.score > n.score ? 1 : p.score === n.score ? 0.5 : 0;
  return wins / (positives.length * negatives.length);
};

const megabytes = (bytes: number): number => round(bytes / 2 ** 20, 1);

const folderBytes = (folder: string): number =>
  readdirSync(folder, { withFileTypes: true }).reduce((sum, entry) => {
    const path = join(folder, entry.name);
    return sum + (entry.isDirectory() ? folderBytes(path) : statSync(path).size);
  }, 0);

/** Resident memory a fresh process gains by loading the cache in `folder` (this one's is muddied by the build). */
const residentForLoading = (folder: string): number => {
  const loader = fileURLToPath(new URL('../server/providers/word-vectors.ts', import.meta.url));
  const script = `const { loadWordVectors } = await import(${JSON.stringify(pathToFileURL(loader).href)});
    const before = process.memoryUsage().rss;
    if (!loadWordVectors({ cacheDir: ${JSON.stringify(folder)} })) process.exit(1);
    process.stdout.write(String(process.memoryUsage().rss - before));`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`measuring the resident memory failed: ${child.stderr}`);
  return Number(child.stdout);
};

export default async function similarityBench(): Promise<BenchResult[]> {
  const table = wordVectors();
  if (!table) throw new Error(`no word vectors: is ${SOURCE_PACKAGE} installed?`);
  const { similarity } = createTextSimilarity(() => table);
  const scored = pairs.map((p) => ({ ...p, score: similarity(p.a, p.b) }));
  const half = (split: Pair['split']) => scored.filter((p) => p.split === split);
  const above = (label: number) => {
    const of = half('test').filter((p) => p.label === label);
    return round(of.filter((p) => p.score > REPETITION_THRESHOLD).length / of.length);
  };

  const texts = pairs.flatMap((p) => [p.a, p.b]);
  const fresh = timeEach((i) => createTextSimilarity(() => table).similarity(texts[i % texts.length]!, texts[(i + 1) % texts.length]!), { calls: 20_000 });
  const memoised = timeEach((i) => similarity(texts[i % texts.length]!, texts[(i + 7) % texts.length]!), { calls: 50_000 });

  const manifest = createRequire(import.meta.url).resolve(`${SOURCE_PACKAGE}/package.json`);
  const folder = mkdtempSync(join(tmpdir(), 'word-vectors-'));
  try {
    // The first load into an empty folder builds the cache; the second only reads it.
    let begin = process.hrtime.bigint();
    loadWordVectors({ cacheDir: folder });
    const buildSeconds = Number(process.hrtime.bigint() - begin) / 1e9;
    begin = process.hrtime.bigint();
    const loaded = loadWordVectors({ cacheDir: folder });
    const loadMs = Number(process.hrtime.bigint() - begin) / 1e6;
    if (!loaded) throw new Error(`no word-vector cache could be built in ${folder}`);

    const packageBytes = folderBytes(dirname(manifest));
    const cacheBytes = folderBytes(folder);
    return [
      { name: 'similarity.auc_dev', value: round(rocAuc(half('dev'))), unit: 'auc' },
      { name: 'similarity.auc_test', value: round(rocAuc(half('test'))), unit: 'auc' },
      { name: 'similarity.same_meaning_above_test', value: above(1), unit: 'share' },
      { name: 'similarity.different_meaning_above_test', value: above(0), unit: 'share' },
      { name: 'similarity.compare_us_p50', value: round(percentile(fresh, 50)), unit: 'us' },
      { name: 'similarity.compare_us_p99', value: round(percentile(fresh, 99)), unit: 'us' },
      { name: 'similarity.compare_memo_us_p50', value: round(percentile(memoised, 50)), unit: 'us' },
      { name: 'similarity.compare_memo_us_p99', value: round(percentile(memoised, 99)), unit: 'us' },
      { name: 'similarity.load_ms', value: round(loadMs, 1), unit: 'ms' },
      { name: 'similarity.rss_mb', value: megabytes(residentForLoading(folder)), unit: 'MB' },
      { name: 'similarity.cache_build_s', value: round(buildSeconds, 2), unit: 's' },
      { name: 'similarity.package_mb', value: megabytes(packageBytes), unit: 'MB' },
      { name: 'similarity.cache_mb', value: megabytes(cacheBytes), unit: 'MB' },
      { name: 'similarity.install_mb', value: megabytes(packageBytes + cacheBytes), unit: 'MB' },
    ];
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
