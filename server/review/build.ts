/**
 * A session's report without holding up the server (issue 26). `reportOf` reads the whole log, a
 * tenth of a millisecond per event: seconds for a long session, and the server has one thread
 * for every room, socket and request. A short log's report is built at once; a longer one's on
 * the report builder's own thread (builder.ts), the log sent and the report received in parts of
 * a thousand items, each about a millisecond of copying, the loop free in between.
 * The report is `reportOf`'s, deep-equal (tests/review/build.test.ts).
 *
 * One builder thread, started at the first long log and kept while the server runs (without
 * holding the process open when idle); builds wait their turn on it. If it fails, the builds it
 * held are rejected and the next starts a new one.
 *
 * ```ts
 * const report = await buildReport(readLog(store.events(id)), scene);
 * ```
 */
import { Worker } from 'node:worker_threads';
import type { SessionEvent } from '../../shared/events';
import type { LoadedScene } from '../../shared/scene/schema';
import { PART, type BuildPart, type BuiltPart } from './builder';
import { after } from '../store/answer';
import { readLog, reportOf } from './report';
import { type Report } from '../../shared/review/report';

/**
 * Logs up to this long are built at once: 10-25 ms of CPU once the process has built a report
 * (400 events took 20-50 ms), less than starting the thread would cost. The very first report a
 * process builds, however short, takes some 90 ms more: the word tables it reads are made then.
 */
export const INLINE_EVENTS = 200;

interface Build {
  resolve(report: Report): void;
  reject(error: Error): void;
  timeline: Report['timeline'];
  breakdowns: Report['breakdowns']['list'];
}

interface Builder {
  worker: Worker;
  builds: Map<number, Build>;
}

let builder: Builder | undefined;
let lastBuild = 0;

const startBuilder = (): Builder => {
  // The thread loads TypeScript itself (builder-thread.mjs), so it is given none of this process's loader flags.
  const worker = new Worker(new URL('./builder-thread.mjs', import.meta.url), { execArgv: [] });
  const started: Builder = { worker, builds: new Map() };
  const done = (build: number) => {
    started.builds.delete(build);
    if (started.builds.size === 0) worker.unref();
  };
  worker.on('message', (part: BuiltPart) => {
    const build = started.builds.get(part.build);
    if (!build) return;
    if ('timeline' in part || 'breakdowns' in part) {
      if ('timeline' in part) for (const item of part.timeline) build.timeline.push(item);
      else for (const item of part.breakdowns) build.breakdowns.push(item);
      // The next part once the loop has gone round: timers and sockets between every two.
      setImmediate(() => worker.postMessage({ build: part.build, next: true } satisfies BuildPart));
    } else if ('error' in part) {
      done(part.build);
      build.reject(new Error(`building a report failed: ${part.error}`));
    } else {
      done(part.build);
      // Overriding the emptied lists keeps the keys in reportOf's order, so the JSON is the same too.
      build.resolve({ ...part.report, timeline: build.timeline, breakdowns: { ...part.report.breakdowns, list: build.breakdowns } });
    }
  });
  const fail = (error: Error) => {
    if (builder === started) builder = undefined;
    for (const build of started.builds.values()) build.reject(error);
    started.builds.clear();
    void worker.terminate();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the report builder stopped (exit code ${code})`)));
  worker.unref();
  return started;
};

/** One part of a log on its way to the builder: its events, or as stored (JSON text). */
type LogPart = { events: SessionEvent[] } | { stored: string[] };

/** What one read of the log gives: its part, whether it is the last, and the cursor after it. */
interface Reading {
  part: LogPart;
  last: boolean;
  next: number;
}

/** The log's part after `cursor` (an index, a seq: the reader's): at once, or later (a store that answers later). */
type ReadPart = (cursor: number) => Reading | Promise<Reading>;

/** The report of the log `read` gives, part by part, built on the builder's thread. */
const buildApart = (read: ReadPart, scene: LoadedScene | undefined): Promise<Report> =>
  new Promise<Report>((resolve, reject) => {
    builder ??= startBuilder();
    const { worker, builds } = builder;
    const build = ++lastBuild;
    builds.set(build, { resolve, reject, timeline: [], breakdowns: [] });
    // Held open while it builds, however idle the rest of the process.
    worker.ref();
    // A log or scene that cannot be read or copied (not plain data): this build fails, the builder goes on.
    const abandon = (error: unknown, first: boolean) => {
      builds.delete(build);
      if (builds.size === 0) worker.unref();
      if (!first) worker.postMessage({ build, abandoned: true } satisfies BuildPart);
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    const post = (reading: Reading, first: boolean) => {
      if (!builds.has(build)) return;
      try {
        worker.postMessage({ build, ...(first ? { scene } : {}), ...reading.part, last: reading.last } satisfies BuildPart);
      } catch (error) {
        abandon(error, first);
        return;
      }
      if (!reading.last) setImmediate(send, reading.next, false);
    };
    const send = (cursor: number, first: boolean) => {
      if (!builds.has(build)) return;
      let reading: Reading | Promise<Reading>;
      try {
        reading = read(cursor);
      } catch (error) {
        abandon(error, first);
        return;
      }
      if (reading instanceof Promise) reading.then((answer) => post(answer, first), (error: unknown) => builds.has(build) && abandon(error, first));
      else post(reading, first);
    };
    send(0, true);
  });

/** `reportOf(events, scene)` on the builder's thread, whatever the log's length. */
export const buildReportApart = (events: readonly SessionEvent[], scene: LoadedScene | undefined): Promise<Report> =>
  buildApart((from) => ({ part: { events: events.slice(from, from + PART) }, last: from + PART >= events.length, next: from + PART }), scene);

/** `reportOf(events, scene)`, built at once for a short log, else on the builder's thread. */
export const buildReport = (events: readonly SessionEvent[], scene: LoadedScene | undefined): Promise<Report> =>
  events.length <= INLINE_EVENTS ? new Promise((resolve) => resolve(reportOf(events, scene))) : buildReportApart(events, scene);

/** What the stored-log build reads: a store's pages of a session's log (store/store.ts), now or later. */
export interface StoredLog {
  storedEvents(session: string, afterSeq: number, limit: number): { seq: number; json: string }[] | Promise<{ seq: number; json: string }[]>;
  events(session: string, afterSeq?: number): unknown[] | Promise<unknown[]>;
}

/**
 * Session `session`'s report from the store, up to event `upTo`: a short log read and built at
 * once; a longer one read a page at a time (the loop free between pages) and parsed, read
 * (`readLog`) and built on the builder's thread, so no request holds the server for its length.
 */
export const buildStoredReport = (store: StoredLog, session: string, upTo: number, scene: LoadedScene | undefined): Promise<Report> => {
  if (upTo <= INLINE_EVENTS) return new Promise((resolve) => resolve(after(store.events(session), (events) => reportOf(readLog(events.slice(0, upTo)), scene))));
  return buildApart(
    (cursor) =>
      after(store.storedEvents(session, cursor, PART), (page) => {
        const rows = page.filter((row) => row.seq <= upTo);
        const next = rows.at(-1)?.seq ?? upTo;
        return { part: { stored: rows.map((row) => row.json) }, last: rows.length < PART || next >= upTo, next };
      }),
    scene,
  );
};
