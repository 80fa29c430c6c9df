/**
 * The installation's word vectors, read from disk for the engine (issue 14): a missing package is
 * one log line, not an error; the binary cache is built once from the package's JSON, by one of
 * several processes starting at once, and built anew after an interrupted run.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadWordVectors } from './word-vectors';

describe('without the package', () => {
  it('says why in one log line when the package is missing, and does not throw', () => {
    const lines: string[] = [];
    const folder = mkdtempSync(join(tmpdir(), 'no-vectors-'));
    try {
      expect(loadWordVectors({ source: join(folder, 'missing.json'), cacheDir: folder, log: (line) => lines.push(line) })).toBeNull();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^similarity: no word vectors .*comparing texts by their words/);
  });
});

describe('the word-vector cache', () => {
  /** A package-shaped JSON of a few 4-dimensional vectors, most frequent first: `[...vector, norm, rank]`. */
  const source = (folder: string): string => {
    const words = ['the', ',', 'door', 'locked', 'greenhouse', 'night', 'key', 'cellar'];
    const vectors = Object.fromEntries(words.map((w, rank) => [w, [rank % 3, (rank * 7) % 5, 1, rank % 2 ? -1 : 1, 2, rank]]));
    const file = join(folder, 'vectors.json');
    writeFileSync(file, JSON.stringify({ precision: 8, l2NormIndex: 4, wordIndex: 5, size: words.length, dimensions: 4, words, vectors, unkVector: [0, 0, 0, 0, 0, -1] }));
    return file;
  };

  it('is built once from the package JSON, words only, and loads as the same table', () => {
    const folder = mkdtempSync(join(tmpdir(), 'word-vectors-'));
    try {
      const first = loadWordVectors({ source: source(folder), cacheDir: folder, log: () => {} })!;
      expect(first.dims).toBe(4);
      expect(first.rows).toBe(7); // "," is punctuation
      expect(first.rowOf('greenhouse')).toBe(3);
      expect(first.rankOf(first.rowOf('greenhouse'))).toBe(4);
      expect(first.rowOf('garden')).toBe(-1);
      const cached = readdirSync(folder).filter((f) => f.endsWith('.bin'));
      expect(cached).toHaveLength(1);
      const again = loadWordVectors({ source: join(folder, 'gone.json'), cacheDir: folder, log: () => {} });
      expect(again).toBeNull(); // a different source is a different cache
      const same = loadWordVectors({ source: join(folder, 'vectors.json'), cacheDir: folder, log: () => {} })!;
      const a = new Float32Array(4);
      const b = new Float32Array(4);
      first.addTo(a, 3, 1);
      same.addTo(b, 3, 1);
      expect([...b]).toEqual([...a]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('is built anew when the process that was building it died (an interrupted run)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'word-vectors-'));
    try {
      const file = source(folder);
      const probe = mkdtempSync(join(folder, 'probe-'));
      loadWordVectors({ source: file, cacheDir: probe, log: () => {} });
      const name = readdirSync(probe).find((f) => f.endsWith('.bin'))!;
      const dead = spawn(process.execPath, ['-e', '']);
      await new Promise((resolve) => dead.once('exit', resolve));
      writeFileSync(join(folder, `${name}.lock`), String(dead.pid));
      expect(loadWordVectors({ source: file, cacheDir: folder, log: () => {} })?.rows).toBe(7);
      expect(readdirSync(folder)).not.toContain(`${name}.lock`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('is built by one of several processes starting at once, and none reads a half-written file', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'word-vectors-'));
    try {
      const file = source(folder);
      const loader = fileURLToPath(new URL('./word-vectors.ts', import.meta.url));
      const script = `const { loadWordVectors } = await import(${JSON.stringify(loader)});
        const t = loadWordVectors({ source: ${JSON.stringify(file)}, cacheDir: ${JSON.stringify(folder)} });
        const v = new Float32Array(t.dims); t.addTo(v, t.rowOf('cellar'), 1);
        process.stdout.write(JSON.stringify([t.rows, ...v]));`;
      const runs = await Promise.all(
        Array.from({ length: 4 }, () =>
          new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
            const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
            let out = '';
            let err = '';
            child.stdout.on('data', (d) => (out += d));
            child.stderr.on('data', (d) => (err += d));
            child.once('error', reject);
            child.once('exit', (code) => resolve({ code, out, err }));
          }),
        ),
      );
      for (const r of runs) expect(r.code, r.err).toBe(0);
      expect(new Set(runs.map((r) => r.out)).size).toBe(1);
      const left = readdirSync(folder);
      expect(left.filter((f) => f !== 'vectors.json')).toEqual([expect.stringMatching(/\.bin$/)]); // no lock, no temporary file
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);
});
