/**
 * A session's report, built without holding up the server: every report the API serves comes
 * through here. (Placeholder in this branch: it builds on the main thread, as before; the build off
 * the main thread for large logs replaces it.)
 *
 * ```ts
 * const report = await buildReport(readLog(store.events(id)), scene);
 * ```
 */
import type { SessionEvent } from '../engine/events';
import type { LoadedScene } from '../scene/schema';
import { reportOf, type Report } from './report';

export const buildReport = async (events: readonly SessionEvent[], scene: LoadedScene | undefined): Promise<Report> => reportOf(events, scene);
