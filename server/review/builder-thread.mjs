/**
 * The report builder's thread starts here (build.ts): it loads TypeScript as the server does,
 * through tsx, whatever the process that started it runs on (`npm start`'s tsx, vitest, plain
 * node), then serves builds (builder.ts). Plain JavaScript: nothing loads TypeScript before it.
 *
 * ```ts
 * new Worker(new URL('./builder-thread.mjs', import.meta.url), { execArgv: [] });
 * ```
 */
import { existsSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

// When both want the CPU, the server's own thread goes first: on Linux a thread has its own
// niceness, and /proc/thread-self names this one. Elsewhere the builder keeps the process's.
if (existsSync('/proc/thread-self')) setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 10);

register();
// The report's similarity figures (repetition, breakdowns, answers) compare by meaning with the
// installation's word vectors, as the server's own thread does (server/main.ts): a thread starts
// without them.
const { provideWordVectors } = await import('../engine/embeddings.ts');
const { installedWordVectors } = await import('../providers/word-vectors.ts');
provideWordVectors(installedWordVectors);
const { serveBuilds } = await import('./builder.ts');
serveBuilds(parentPort);
