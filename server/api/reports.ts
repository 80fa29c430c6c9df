/**
 * A session's report as a caller may see it: built once per state of its log (review/cache.ts) by
 * review/build.ts, which keeps a long log's build off the requests' way; the cache holds the
 * pending build, so readers who come while it runs wait for the same one. A build that fails is
 * not kept: the next reader builds again.
 *
 * ```ts
 * const reports = sessionReports({ store, rooms, scenes });
 * const report = await reports.of(id, row.scene, c.get('access')); // a participant's: their timeline only
 * reports.forget(id); // the session was purged
 * ```
 */
import type { Rooms } from '../rooms/rooms';
import type { LoadedScene } from '../../shared/scene/schema';
import type { AnyStore } from '../store/store';
import { buildStoredReport } from '../review/build';
import { createReportCache } from '../review/cache';
import { reportFor, type Reader } from '../review/report';
import { type Report } from '../../shared/review/report';

export interface SessionReportsOptions {
  store: AnyStore;
  rooms: Rooms;
  /** The scenes a session that is no longer live is read with. */
  scenes: readonly LoadedScene[];
}

export interface SessionReports {
  /** Session `id`'s report (of scene `scene`, its row's), as `reader` may see it. */
  of(id: string, scene: string, reader: Reader): Promise<Report>;
  /** Drops what is kept of `id` (its log was deleted). */
  forget(id: string): void;
}

export const sessionReports = ({ store, rooms, scenes }: SessionReportsOptions): SessionReports => {
  const cache = createReportCache<Promise<Report>>();
  return {
    async of(id, scene, reader) {
      // The cache shares a build in flight and forgets one that failed (review/cache.ts).
      const upTo = await store.lastSeq(id);
      const report = cache.get(id, upTo, () => buildStoredReport(store, id, upTo, rooms.get(id)?.scene ?? scenes.find((s) => s.id === scene)));
      return reportFor(await report, reader);
    },
    forget: (id) => cache.forget(id),
  };
};
