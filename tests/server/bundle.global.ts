/**
 * The global setup of every test project: bundles the server and the CLIs the tests start as
 * children (tests/server/bundle.ts) once, before any test file runs, so that files running side by
 * side never build them at the same time and each child starts as plain `node`.
 *
 * ```ts
 * // vitest.config.ts, each project
 * globalSetup: ['tests/server/bundle.global.ts'],
 * ```
 */
import { bundleEntries } from './bundle';

export default async function setup(): Promise<void> {
  await bundleEntries();
}
