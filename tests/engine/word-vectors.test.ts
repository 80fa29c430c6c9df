/**
 * The engine is given its word vectors (engine/embeddings.ts); it never reads them. A program that
 * compares texts but forgot to give them would compare by words alone, quietly unlike the server:
 * so every program that reaches the similarity gives the installation's table at start.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { provideWordVectors, wordVectors } from '../../server/engine/embeddings';

const repo = new URL('../../', import.meta.url).pathname;
const options: ts.CompilerOptions = { moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext, resolveJsonModule: true };

/** Every project file `entry` imports, directly or not (type-only imports too). */
const reached = (entry: string): Set<string> => {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      const target = ts.resolveModuleName(fileName, file, options, ts.sys).resolvedModule?.resolvedFileName;
      if (target && !target.includes('/node_modules/')) visit(target);
    }
  };
  visit(join(repo, entry));
  return seen;
};

const similarity = join(repo, 'server/engine/similarity.ts');
const gives = (file: string): boolean => /^provideWordVectors\(installedWordVectors\);$/m.test(readFileSync(join(repo, file), 'utf8'));

describe('the word vectors the engine compares with', () => {
  it('are given by every program that compares texts: the server, the CLIs, the benches, the tests', () => {
    const programs = ['server/main.ts', ...readdirSync(join(repo, 'server/cli')).filter((f) => !f.endsWith('.test.ts')).map((f) => `server/cli/${f}`)];
    const comparing = programs.filter((program) => reached(program).has(similarity));
    expect(comparing).toEqual(expect.arrayContaining(['server/main.ts', 'server/cli/simulate.ts', 'server/cli/rehearse.ts', 'server/cli/breakdowns.ts']));
    for (const program of comparing) expect(gives(program), program).toBe(true);
    // bench/run.ts imports each bench by name at run time: it gives them for all.
    const benches = readdirSync(join(repo, 'bench')).filter((f) => f.endsWith('.bench.ts'));
    expect(benches.some((bench) => reached(`bench/${bench}`).has(similarity))).toBe(true);
    expect(gives('bench/run.ts')).toBe(true);
    expect(gives('tests/word-vectors.setup.ts')).toBe(true);
    expect(readFileSync(join(repo, 'vitest.config.ts'), 'utf8')).toContain("setupFiles: ['tests/word-vectors.setup.ts']");
  });

  it('are the ones given, and none until a program gives them', () => {
    const installed = wordVectors();
    expect(installed).not.toBeNull(); // tests/word-vectors.setup.ts gave the installation's
    try {
      provideWordVectors(() => null);
      expect(wordVectors()).toBeNull();
    } finally {
      provideWordVectors(() => installed);
    }
    expect(wordVectors()).toBe(installed);
  });
});
