/**
 * The server and the CLIs the tests start as child processes, bundled once per run (esbuild) so
 * that each child starts as plain `node`: under `--import tsx` every start loads tsx and resolves
 * and transforms some 180 modules again (2.7 CPU-s against 1.2 for the bundle, measured on the
 * test machine), and the suite starts about sixty of them. Only the tests use the bundles:
 * `npm start` stays on tsx, and tests/server/startup.test.ts still starts that path twice.
 *
 * Each bundled module keeps its own `import.meta.url` (its source file's), and `process.argv[1]`
 * names the source entry, so the bundle finds scenes/, avatars/, its workers (the eSpeak worker
 * is still forked through tsx) and its "run as a script" check exactly as the source does.
 * Packages stay external: they load from node_modules as they do under tsx.
 *
 * ```ts
 * await bundleEntries();                                  // the global setup: tests/server/bundle.global.ts
 * spawn(process.execPath, nodeArgs('server/main.ts'));    // [dist/test-server/server/main.mjs] when current, else tsx
 * ```
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const repoRoot = new URL('../../', import.meta.url).pathname;
const outRoot = join(repoRoot, 'dist/test-server');

/** The entry points the tests start as children: the server and the CLIs they run as users would. */
export const bundledEntries = ['server/main.ts', 'server/cli/simulate.ts', 'server/cli/breakdowns.ts', 'server/cli/models.ts'] as const;

const bundleOf = (entry: string) => join(outRoot, entry.replace(/\.ts$/, '.mjs'));
/** The source files a bundle was made of, written beside it: its staleness is theirs. */
const inputsOf = (entry: string) => `${bundleOf(entry)}.inputs.json`;

/** Whether `entry`'s bundle exists and is newer than every source file it was made of. */
export const bundleIsCurrent = (entry: string): boolean => {
  const bundle = bundleOf(entry);
  if (!existsSync(bundle) || !existsSync(inputsOf(entry))) return false;
  const builtAt = statSync(bundle).mtimeMs;
  const inputs = JSON.parse(readFileSync(inputsOf(entry), 'utf8')) as string[];
  return inputs.every((input) => {
    const path = join(repoRoot, input);
    return existsSync(path) && statSync(path).mtimeMs < builtAt;
  });
};

/** Every source module sees its own URL, as it does under tsx (new URL('../../scenes/…', import.meta.url)). */
const ownUrl: Plugin = {
  name: 'own-import-meta-url',
  setup(on) {
    on.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const source = readFileSync(args.path, 'utf8');
      return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
    });
  },
};

/** Bundles `entry` to dist/test-server/<entry>.mjs, written whole and then moved into place (a second run may be reading it). */
const bundle = async (entry: string): Promise<void> => {
  const source = join(repoRoot, entry);
  const result = await build({
    entryPoints: [source],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    write: false,
    outfile: bundleOf(entry),
    metafile: true,
    logLevel: 'silent',
    plugins: [ownUrl],
    // The module's "am I the script?" check compares its own URL with argv[1]: the source's, as under tsx.
    banner: { js: `process.argv[1] = ${JSON.stringify(source)};` },
  });
  const code = result.outputFiles[0]!;
  const inputs = Object.keys(result.metafile.inputs).map((input) => relative(repoRoot, join(process.cwd(), input)));
  mkdirSync(dirname(bundleOf(entry)), { recursive: true });
  const partial = `.partial-${process.pid}`;
  writeFileSync(`${inputsOf(entry)}${partial}`, JSON.stringify(inputs));
  writeFileSync(`${bundleOf(entry)}${partial}`, code.contents);
  renameSync(`${inputsOf(entry)}${partial}`, inputsOf(entry));
  renameSync(`${bundleOf(entry)}${partial}`, bundleOf(entry));
};

/** Bundles every entry whose bundle is missing or older than its sources (half a second each). */
export const bundleEntries = async (): Promise<void> => {
  for (const entry of bundledEntries) if (!bundleIsCurrent(entry)) await bundle(entry);
};

/**
 * Node's arguments to run `entry` (a path under the repo): its bundle when it is current, else the
 * source through tsx (a test run without the global setup, or a source edited during a watch run).
 */
export const nodeArgs = (entry: string): string[] =>
  (bundledEntries as readonly string[]).includes(entry) && bundleIsCurrent(entry) ? [bundleOf(entry)] : ['--import', 'tsx', entry];
