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
import { reportOf } from './report';
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

/** `reportOf(events, scene)` on the builder's thread, whatever the log's length. */
export const buildReportApart = (events: readonly SessionEvent[], scene: LoadedScene | undefined): Promise<Report> =>
  new Promise<Report>((resolve, reject) => {
    builder ??= startBuilder();
    const { worker, builds } = builder;
    const build = ++lastBuild;
    builds.set(build, { resolve, reject, timeline: [], breakdowns: [] });
    // Held open while it builds, however idle the rest of the process.
    worker.ref();
    const send = (from: number) => {
      if (!builds.has(build)) return;
      const last = from + PART >= events.length;
      try {
        worker.postMessage({ build, ...(from === 0 ? { scene } : {}), events: events.slice(from, from + PART), last } satisfies BuildPart);
      } catch (error) {
        // A log or scene that cannot be copied (not plain data): this build fails, the builder goes on.
        builds.delete(build);
        if (builds.size === 0) worker.unref();
        if (from > 0) worker.postMessage({ build, abandoned: true } satisfies BuildPart);
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (!last) setImmediate(send, from + PART);
    };
    send(0);
  });

/** `reportOf(events, scene)`, built at once for a short log, else on the builder's thread. */
export const buildReport = (events: readonly SessionEvent[], scene: LoadedScene | undefined): Promise<Report> =>
  events.length <= INLINE_EVENTS ? new Promise((resolve) => resolve(reportOf(events, scene))) : buildReportApart(events, scene);
