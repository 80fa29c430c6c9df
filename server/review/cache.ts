/**
 * Reports are computed once: each session's is kept with the last seq it was built for, and built
 * again only when the log has grown since. An ended session's log no longer grows, so its report
 * is built once and then served from here. Bounded: past `max` sessions (a 2-hour session's report,
 * half a megabyte as JSON, takes a few in memory), the least recently read goes first; built again if asked for.
 *
 * A build may be a promise (build.ts's `buildReport`, seconds for a long session): it is kept from
 * the moment it starts, so everyone asking for the same state of the log meanwhile waits for that
 * one build; one that fails is forgotten, and the next ask builds again.
 *
 * ```ts
 * const reports = createReportCache<Promise<Report>>();
 * await reports.get(id, store.lastSeq(id), () => buildReport(readLog(store.events(id)), scene));
 * ```
 */
import type { Report } from '../../shared/review/report';

/** Reports by default; anything else built from a session's log the same way (the debrief's written feedback, by session and seat). */
export interface ReportCache<T = Report> {
  /** The value built for `lastSeq`, else `build()`'s, kept for it. */
  get(session: string, lastSeq: number, build: () => T): T;
  /** Builds `session`'s again when next asked (a value that should not be kept: feedback a failing vendor could not write). */
  forget(session: string): void;
}

const isPromise = (value: unknown): value is PromiseLike<unknown> => typeof (value as { then?: unknown } | null)?.then === 'function';

export const createReportCache = <T = Report>(max = 16): ReportCache<T> => {
  // A Map iterates in insertion order: re-inserting on each read keeps the least recent first.
  const entries = new Map<string, { lastSeq: number; report: T }>();
  return {
    get(session, lastSeq, build) {
      const hit = entries.get(session);
      entries.delete(session);
      const entry = hit && hit.lastSeq === lastSeq ? hit : { lastSeq, report: build() };
      entries.set(session, entry);
      if (entry !== hit && isPromise(entry.report)) {
        // Only this entry: a newer build of the session that replaced it stays.
        entry.report.then(undefined, () => entries.get(session) === entry && entries.delete(session));
      }
      for (const oldest of entries.keys()) {
        if (entries.size <= max) break;
        entries.delete(oldest);
      }
      return entry.report;
    },
    forget: (session) => void entries.delete(session),
  };
};
