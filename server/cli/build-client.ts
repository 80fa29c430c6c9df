/**
 * Builds the WebXR client (client/ -> dist/client) when it is missing or older than its sources,
 * so `npm start` always serves a current room page without a separate build step.
 *
 *   tsx server/cli/build-client.ts            # build if stale
 *   tsx server/cli/build-client.ts --force    # build anyway
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;
const built = join(root, 'dist/client/index.html');

/** The newest modification time under `path` (a file or a folder), in ms. */
const newest = (path: string): number => {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
};

const sources = ['client', 'vite.config.ts', 'server/protocol', 'server/engine/events.ts', 'server/scene/schema.ts', 'package-lock.json'].map((p) => join(root, p));
const stale = process.argv.includes('--force') || !existsSync(built) || Math.max(...sources.map(newest)) > statSync(built).mtimeMs;

if (stale) {
  process.stdout.write('building the client (vite)…\n');
  const { build } = await import('vite');
  await build({ configFile: join(root, 'vite.config.ts'), logLevel: 'warn' });
  process.stdout.write('client built: dist/client\n');
}
