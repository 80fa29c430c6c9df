/**
 * Runs of one scene side by side, for the author: live or past sessions, and simulated runs from
 * the report files the simulator writes (review/compare.ts), and which of two runs is better
 * (review/judge.ts):
 *
 *   GET  /api/compare?sessions=<id>,<id>,…   2-8 sessions of one scene, in the order asked for
 *   POST /api/compare                        { sessions?: [id], reports?: [Report], names?: [file name] }:
 *                                            2-8 runs of one scene (sessions first, then the reports) -> a Comparison
 *   POST /api/compare/judge                  { a, b, criteria: [clarity|turn-taking|on-topic|evenness] },
 *                                            a and b each { session, label? } or { report, label? }
 *        -> review/judge.ts's PairJudgement: { by, vendor?, note?, criteria: [{ criterion, label, winner: 'a'|'b'|'tie',
 *           reason, orders: { first, second } | null, positionInconsistent }] }
 *
 * The judge asks the rooms' generator (server/main.ts), through the same resilience and circuit;
 * without a vendor it decides from the figures.
 *
 * ```ts
 * app.route('/api/compare', compare({ authorize, reports, store, rooms, generator }));
 * ```
 */
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { Generator } from '../providers/generator/port';
import { createScriptedGenerator } from '../providers/generator/scripted';
import { criterionIds, type Criterion } from '../../shared/review/answers';
import { compareOf, type CompareInput } from '../review/compare';
import { judgePair, type Run } from '../review/judge';
import { Report } from '../../shared/review/report';
import type { Rooms } from '../rooms/rooms';
import type { AnyStore } from '../store/store';
import type { ApiEnv, Authorize } from './access';
import { firstIssue, jsonBody } from './input';
import { problem } from './problem';
import type { SessionReports } from './reports';

export interface CompareOptions {
  authorize: Authorize;
  reports: SessionReports;
  store: AnyStore;
  rooms: Rooms;
  /** What the judge asks: the rooms' generator; default the scripted one (the figures decide). */
  generator?: Generator;
}

/** Runs compared at once. */
const MIN_RUNS = 2;
const MAX_RUNS = 8;

const ComparePost = z.object({ sessions: z.array(z.string().min(1).max(200)).max(MAX_RUNS).default([]), reports: z.array(z.unknown()).max(MAX_RUNS).default([]), names: z.array(z.string().max(200)).optional() }).strict();
const RunRef = z.union([z.object({ session: z.string().min(1).max(200), label: z.string().max(200).optional() }).strict(), z.object({ report: z.unknown(), label: z.string().max(200).optional() }).strict()]);
const Judge = z.object({ a: RunRef, b: RunRef, criteria: z.array(z.enum(criterionIds as [Criterion, ...Criterion[]])).min(1).max(criterionIds.length) }).strict();

/** The scene most of them share (the first's on a tie). */
const commonOf = <T,>(scenes: readonly T[]): T => scenes.reduce((best, s) => (scenes.filter((x) => x === s).length > scenes.filter((x) => x === best).length ? s : best), scenes[0]!);

/** The runs' scenes agree, or the odd ones out, named. */
const mixedScenes = (runs: readonly { name: string; scene: string | null }[]): string | null => {
  const common = commonOf(runs.map((r) => r.scene));
  const odd = runs.filter((r) => r.scene !== common);
  return odd.length ? `Only runs of one scene compare: ${odd.map((r) => `${r.name} is of ${r.scene ?? 'no scene'}`).join(', ')}; the others are of ${common ?? 'no scene'}.` : null;
};

const reportIn = (raw: unknown, what: string): { report: Report } | { message: string } => {
  const parsed = Report.safeParse(raw);
  return parsed.success ? { report: parsed.data } : { message: `${what} is not a report (the report-<k>.json the simulator writes, or a session's report.json): ${firstIssue(parsed.error)}` };
};

export const compare = (options: CompareOptions): Hono<ApiEnv> => {
  const { authorize, reports, store, rooms } = options;
  const generator = options.generator ?? createScriptedGenerator();
  const app = new Hono<ApiEnv>();
  const author = authorize(['author']);

  /** A session's run: its report as the author sees it, or a problem naming it. */
  const sessionRun = async (c: Context<ApiEnv>, id: string): Promise<{ input: CompareInput } | { status: 404; message: string }> => {
    const row = await store.session(id);
    if (!row) return { status: 404, message: `No session "${id}".` };
    const room = rooms.get(id);
    return { input: { id, createdAt: row.createdAt, status: room && !room.ended() ? room.status() : 'ended', report: await reports.of(row, c.get('access')) } };
  };

  app.get('/', author, async (c) => {
    const ids = [...new Set((c.req.query('sessions') ?? '').split(',').map((s) => s.trim()).filter(Boolean))];
    if (ids.length < MIN_RUNS || ids.length > MAX_RUNS) return problem(c, 400, 'bad-request', `Compare 2 to 8 sessions (?sessions=<id>,<id>,…); got ${ids.length}.`);
    const rows = await Promise.all(ids.map(async (id) => ({ id, row: await store.session(id) })));
    const unknown = rows.find((r) => !r.row);
    if (unknown) return problem(c, 404, 'not-found', `No session "${unknown.id}".`);
    const common = commonOf(rows.map((r) => r.row!.scene));
    const odd = rows.filter((r) => r.row!.scene !== common);
    if (odd.length > 0) {
      return problem(c, 400, 'mixed-scenes', `Only sessions of one scene compare: ${odd.map((r) => `"${r.id}" is of ${r.row!.scene}`).join(', ')}; the others are of ${common}.`);
    }
    const runs = await Promise.all(ids.map(async (id) => ((await sessionRun(c, id)) as { input: CompareInput }).input));
    return c.json(compareOf(runs));
  });

  app.post('/', author, async (c) => {
    const read = await jsonBody(c, ComparePost, 'The body must be JSON: {"sessions"?: ["<id>", …], "reports"?: [<report>, …], "names"?: ["<file name>", …]}.');
    if (!read.ok) return read.problem;
    const { reports: files, names = [] } = read.data;
    const sessions = [...new Set(read.data.sessions)];
    const count = sessions.length + files.length;
    if (count < MIN_RUNS || count > MAX_RUNS) return problem(c, 400, 'bad-request', `Compare ${MIN_RUNS} to ${MAX_RUNS} runs (sessions and reports together); got ${count}.`);
    const inputs: CompareInput[] = [];
    for (const id of sessions) {
      const run = await sessionRun(c, id);
      if (!('input' in run)) return problem(c, 404, 'not-found', run.message);
      inputs.push(run.input);
    }
    for (const [i, raw] of files.entries()) {
      const file = names[i] ?? `report ${i + 1}`;
      const found = reportIn(raw, `reports[${i}] ("${file}")`);
      if (!('report' in found)) return problem(c, 400, 'bad-report', found.message);
      inputs.push({ id: file, file, createdAt: 0, status: 'simulated', report: found.report });
    }
    const mixed = mixedScenes(inputs.map((r) => ({ name: r.file ? `"${r.file}"` : `"${r.id}"`, scene: r.report.scene })));
    if (mixed) return problem(c, 400, 'mixed-scenes', mixed);
    return c.json(compareOf(inputs));
  });

  app.post('/judge', author, async (c) => {
    const read = await jsonBody(c, Judge, 'The body must be JSON: {"a": {"session": "<id>"} | {"report": <report>}, "b": …, "criteria": ["clarity", …]}.');
    if (!read.ok) return read.problem;
    const pair: Run[] = [];
    for (const side of ['a', 'b'] as const) {
      const ref = read.data[side];
      const fallback = side === 'a' ? 'the first run' : 'the second run';
      if ('session' in ref) {
        const run = await sessionRun(c, ref.session);
        if (!('input' in run)) return problem(c, 404, 'not-found', run.message);
        pair.push({ label: ref.label ?? `session ${ref.session}`, report: run.input.report });
      } else {
        const found = reportIn(ref.report, `${side}.report${ref.label ? ` ("${ref.label}")` : ''}`);
        if (!('report' in found)) return problem(c, 400, 'bad-report', found.message);
        pair.push({ label: ref.label ?? fallback, report: found.report });
      }
    }
    const [a, b] = pair as [Run, Run];
    const mixed = mixedScenes([
      { name: `"${a.label}"`, scene: a.report.scene },
      { name: `"${b.label}"`, scene: b.report.scene },
    ]);
    if (mixed) return problem(c, 400, 'mixed-scenes', mixed);
    return c.json(await judgePair(a, b, read.data.criteria, generator, c.req.raw.signal));
  });

  return app;
};
