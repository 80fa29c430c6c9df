/**
 * Builds the WebXR client (client/ -> dist/client) when it is missing or older than its sources,
 * so `npm start` always serves a current room page without a separate build step.
 *
 *   tsx server/cli/build-client.ts            # build if stale
 *   tsx server/cli/build-client.ts --force    # build anyway
 *
 * The build goes to a folder of its own and is then moved into place, so a server (or a second
 * test run building at the same time) never serves half a client.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('../../', import.meta.url).pathname;
const outDir = join(root, 'dist/client');
const built = join(outDir, 'index.html');

/**
 * What the client bundle is made of: its own sources, public/, and shared/ (the modules the browser
 * and the server both use). tests/architecture.test.ts checks that the client imports nothing else.
 */
export const clientSources = ['client', 'public', 'shared', 'vite.config.ts', 'package-lock.json'];

/** The newest modification time under `path` (a file or a folder), in ms. */
const newest = (path: string): number => {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
};

/** Whether dist/client is missing or older than its sources (the browser tests ask before they spawn a build). */
export const clientIsStale = (): boolean => !existsSync(built) || Math.max(...clientSources.map((p) => newest(join(root, p)))) > statSync(built).mtimeMs;

const runAsScript = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
const stale = runAsScript && (process.argv.includes('--force') || clientIsStale());

if (stale) {
  process.stdout.write('building the client (vite)…\n');
  const { build } = await import('vite');
  const partial = `${outDir}.partial-${process.pid}`;
  const previous = `${outDir}.previous-${process.pid}`;
  try {
    await build({ configFile: join(root, 'vite.config.ts'), logLevel: 'warn', build: { outDir: partial, emptyOutDir: true } });
    await rename(outDir, previous).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    await rename(partial, outDir);
  } finally {
    await rm(partial, { recursive: true, force: true });
    await rm(previous, { recursive: true, force: true });
  }
  process.stdout.write('client built: dist/client\n');
}
