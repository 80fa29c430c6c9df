/**
 * The server and CLI bundles the tests start (tests/server/bundle.ts): built by the global setup,
 * used while current, each module still seeing its own source's URL; anything else runs on tsx.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli';
import { bundledEntries, bundleIsCurrent, nodeArgs } from './bundle';

const repo = new URL('../../', import.meta.url).pathname;

describe('the bundles the tests start', () => {
  it('are current after the global setup, and children start from them', () => {
    for (const entry of bundledEntries) {
      expect(bundleIsCurrent(entry), entry).toBe(true);
      expect(nodeArgs(entry), entry).toEqual([`${repo}dist/test-server/${entry.replace(/\.ts$/, '.mjs')}`]);
    }
  });

  it('leave every other script on tsx', () => {
    expect(nodeArgs('server/cli/scene-check.ts')).toEqual(['--import', 'tsx', 'server/cli/scene-check.ts']);
  });

  it("give each module its own source's URL, so files next to the sources are found", () => {
    const bundle = readFileSync(nodeArgs('server/main.ts')[0]!, 'utf8');
    expect(bundle).not.toContain('import.meta.url');
    expect(bundle).toContain(JSON.stringify(pathToFileURL(`${repo}server/scene/load.ts`).href));
    expect(bundle).toContain(JSON.stringify(pathToFileURL(`${repo}server/providers/synthesis/espeak.ts`).href));
  });

  it('run a CLI as its source does', async () => {
    const run = await runCli('server/cli/simulate.ts', ['--help']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Usage: npm run -s simulate/);
  });
});
