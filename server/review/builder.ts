/**
 * The report builder's side (build.ts starts it through builder-thread.mjs): it receives a log in
 * parts, builds its report with `reportOf`, and sends it back in parts, so that neither thread
 * copies a long session's log or report in one go. One build at a time, in the order asked.
 *
 * In: `{ build, scene?, events, last }`, the log's events in order, `scene` with the first part, or
 * `{ build, scene?, stored, last }`, the log as the store keeps it (JSON text), parsed and read
 * here (`readLog`), so a long log costs the server's thread only its pages' reading;
 * `{ build, abandoned }` when the rest will not come; `{ build, next }` for the report's next part.
 * Out: `{ build, timeline }` and `{ build, breakdowns }` parts in order, then `{ build, report }`
 * with those lists empty, or `{ build, error }`. A part goes only when the last was taken: sent
 * all at once, they would arrive together, and the receiving loop would read them all in one go.
 *
 * ```ts
 * serveBuilds(parentPort);
 * worker.postMessage({ build: 1, scene, events: events.slice(0, PART), last: false });
 * worker.postMessage({ build: 1, events: events.slice(PART), last: true });
 * ```
 */
import type { MessagePort } from 'node:worker_threads';
import type { SessionEvent } from '../../shared/events';
import type { LoadedScene } from '../../shared/scene/schema';
import { readLog, reportOf } from './report';
import { type Report } from '../../shared/review/report';

export type BuildPart = { build: number } & ({ scene?: LoadedScene; last: boolean } & ({ events: SessionEvent[] } | { stored: string[] }) | { abandoned: true } | { next: true });

export type BuiltPart = { build: number } & (
  | { timeline: Report['timeline'] }
  | { breakdowns: Report['breakdowns']['list'] }
  | { report: Report }
  | { error: string }
);

/** Items per message, either way: a few milliseconds of copying each (a 10,000-utterance log is 26,000 events). */
export const PART = 1000;

export const serveBuilds = (port: MessagePort): void => {
  const logs = new Map<number, { scene: LoadedScene | undefined; events: SessionEvent[]; failed?: boolean }>();
  const failed = (build: number, error: unknown) => {
    logs.delete(build);
    port.postMessage({ build, error: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies BuiltPart);
  };
  const replies = new Map<number, BuiltPart[]>();
  const sendNext = (build: number) => {
    const parts = replies.get(build);
    const part = parts?.shift();
    if (!part) return;
    if (parts!.length === 0) replies.delete(build);
    port.postMessage(part);
  };
  port.on('message', (part: BuildPart) => {
    const { build } = part;
    if ('abandoned' in part) return void logs.delete(build);
    if ('next' in part) return sendNext(build);
    const log = logs.get(build) ?? { scene: part.scene, events: [] };
    logs.set(build, log);
    try {
      for (const event of 'events' in part ? part.events : readLog(part.stored.map((json) => JSON.parse(json) as unknown))) log.events.push(event);
    } catch (error) {
      // Stored text that is not JSON: this build fails; its other parts are dropped as they come.
      logs.set(build, { scene: log.scene, events: [], failed: true });
      if (part.last) failed(build, error);
      return;
    }
    if (log.failed) {
      if (part.last) failed(build, new Error('the stored log could not be read'));
      return;
    }
    if (!part.last) return;
    logs.delete(build);
    let report: Report;
    try {
      report = reportOf(log.events, log.scene);
    } catch (error) {
      failed(build, error);
      return;
    }
    const { timeline, breakdowns } = report;
    const parts: BuiltPart[] = [];
    for (let i = 0; i < timeline.length; i += PART) parts.push({ build, timeline: timeline.slice(i, i + PART) });
    for (let i = 0; i < breakdowns.list.length; i += PART) parts.push({ build, breakdowns: breakdowns.list.slice(i, i + PART) });
    parts.push({ build, report: { ...report, timeline: [], breakdowns: { ...breakdowns, list: [] } } });
    replies.set(build, parts);
    sendNext(build);
  });
};
