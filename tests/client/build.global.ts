/**
 * The browser tests' global setup: builds the client (dist/client) once, before any browser test
 * file starts, so that files running side by side never build it at the same time and each finds
 * it current (buildClient then only checks the sources' times).
 *
 * ```ts
 * // vitest.config.ts, the browser project
 * globalSetup: ['tests/client/build.global.ts'],
 * ```
 */
import { buildClient } from './browser';

export default async function setup(): Promise<void> {
  await buildClient();
}
