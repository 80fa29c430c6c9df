/**
 * A session's report as a caller may see it: built once per state of its log (review/cache.ts) by
 * review/build.ts, which keeps a long log's build off the requests' way; the cache holds the
 * pending build, so readers who come while it runs wait for the same one. A build that fails is
 * not kept: the next reader builds again. The report reads the scene the session ran (`sceneOf`:
 * the version stored with it), not the scene as the editor has left it since.
 *
 * ```ts
 * const reports = sessionReports({ store, sceneOf });
 * const report = await reports.of(row, c.get('access')); // a participant's: their timeline only
 * reports.forget(id); // the session was purged
 * ```
 */
import type { SceneOf } from '../scene/versions';
import type { AnyStore, SessionRow } from '../store/store';
import { buildStoredReport } from '../review/build';
import { createReportCache } from '../review/cache';
import { reportFor, type Reader } from '../review/report';
import { type Report } from '../../shared/review/report';

export interface SessionReportsOptions {
  store: AnyStore;
  /** The scene a session ran (its live room's, else the version stored with it). */
  sceneOf: SceneOf;
}

export interface SessionReports {
  /** The report of `row`'s session, as `reader` may see it. */
  of(row: SessionRow, reader: Reader): Promise<Report>;
  /** Drops what is kept of `id` (its log was deleted). */
  forget(id: string): void;
}

export const sessionReports = ({ store, sceneOf }: SessionReportsOptions): SessionReports => {
  const cache = createReportCache<Promise<Report>>();
  return {
    async of(row, reader) {
      const { id } = row;
      // The cache shares a build in flight and forgets one that failed (review/cache.ts).
      const upTo = await store.lastSeq(id);
      const report = cache.get(id, upTo, async () => buildStoredReport(store, id, upTo, await sceneOf(row)));
      return reportFor(await report, reader);
    },
    forget: (id) => cache.forget(id),
  };
};
