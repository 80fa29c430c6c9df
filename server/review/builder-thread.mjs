/**
 * The report builder's thread starts here (build.ts): it loads TypeScript as the server does,
 * through tsx, whatever the process that started it runs on (`npm start`'s tsx, vitest, plain
 * node), then serves builds (builder.ts). Plain JavaScript: nothing loads TypeScript before it.
 *
 * ```ts
 * new Worker(new URL('./builder-thread.mjs', import.meta.url), { execArgv: [] });
 * ```
 */
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { serveBuilds } = await import('./builder.ts');
serveBuilds(parentPort);
