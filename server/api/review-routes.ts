/**
 * The review's routes that may ask a language model (issue 17, parts 3 and 5), and comparing
 * simulated runs from their report files. Mounted by app.ts, with its credential check and its
 * reports (built once per state of a log, as the caller may see them):
 *
 *   GET  /api/sessions/:id/feedback?seat=   any role of the session: review/feedback.ts's written feedback
 *                                           for a seat (a participant: their own; others: any, default the first
 *                                           human seat), kept per state of the log
 *        -> { seat, paragraph, moments: [{ startMs, text }], by: 'model'|'rules', vendor?, note? }
 *   GET  /api/sessions/:id/debrief?seat=    any role of the session: review/debrief.ts's debrief of a seat (as
 *                                           /feedback chooses it): figures, what became of each question, observations
 *        -> { seat, ...Debrief }
 *   POST /api/sessions/:id/ask              any role of the session, { seat?, question }: an answer from the
 *                                           transcript and the seat's debrief (6 questions a minute per token);
 *                                           a question longer than 300 characters is cut, and the answer says so
 *        -> { seat, question, answer, moments: [{ startMs, endMs, text, speaker, name }], by, vendor?, note? }
 *   POST /api/compare                       author, { sessions?: [id], reports?: [Report], names?: [file name] }:
 *                                           2-8 runs of one scene (sessions first, then the reports) -> a Comparison
 *   POST /api/compare/judge                 author, { a, b, criteria: [clarity|turn-taking|on-topic|evenness] },
 *                                           a and b each { session, label? } or { report, label? }
 *        -> review/judge.ts's PairJudgement: { by, vendor?, note?, criteria: [{ criterion, label, winner: 'a'|'b'|'tie',
 *           reason, orders: { first, second } | null, positionInconsistent }] }
 *
 * The generator is the rooms' (server/main.ts), so every vendor call goes through the same
 * resilience and circuit; without a vendor (the scripted generator) the answers come from rules.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import type { Role } from '../auth/claims';
import { createScriptedGenerator } from '../providers/generator/scripted';
import type { Generator } from '../providers/generator/port';
import type { Rooms } from '../rooms/rooms';
import { createReportCache } from '../review/cache';
import { compareOf, type CompareInput } from '../review/compare';
import { criterionIds, MAX_QUESTION_CHARS, type Criterion, type Feedback } from '../review/answers';
import { debriefOf } from '../review/debrief';
import { answer, cleanQuestion, feedback } from '../review/feedback';
import { cleanText } from '../protocol/text';
import { judgePair, type Run } from '../review/judge';
import { linesOf } from '../review/model';
import { Report } from '../review/report';
import type { Store } from '../store/store';

export interface ReviewOptions {
  /** What the review's written feedback, answers and judge ask: the rooms' generator; default the scripted one (rules only). */
  generator?: Generator;
}

/** app.ts's: who the credential is (`expiresAt`: when a session token expires; null for the admin token). */
export type ReviewEnv = { Variables: { access: { role: Role; session: string | null; participant: string | null; expiresAt: number | null } } };

export interface ReviewRoutes extends ReviewOptions {
  authorize: (allowed: readonly Role[]) => MiddlewareHandler<ReviewEnv>;
  /** A session's report as the caller may see it. */
  reportOf: (c: Context<ReviewEnv>, id: string, scene: string) => Report;
  store: Store;
  rooms: Rooms;
  now: () => number;
}

/** Questions per token: a person asks a handful; each may be a vendor call. */
export const ASKS_PER_MINUTE = 6;
/** Runs compared at once, as GET /api/compare. */
const MIN_RUNS = 2;
const MAX_RUNS = 8;

const Ask = z.object({ seat: z.string().min(1).max(100).optional(), question: z.string().max(MAX_QUESTION_CHARS * 8) }).strict();
const ComparePost = z.object({ sessions: z.array(z.string().min(1).max(200)).max(MAX_RUNS).default([]), reports: z.array(z.unknown()).max(MAX_RUNS).default([]), names: z.array(z.string().max(200)).optional() }).strict();
const RunRef = z.union([z.object({ session: z.string().min(1).max(200), label: z.string().max(200).optional() }).strict(), z.object({ report: z.unknown(), label: z.string().max(200).optional() }).strict()]);
const Judge = z.object({ a: RunRef, b: RunRef, criteria: z.array(z.enum(criterionIds as [Criterion, ...Criterion[]])).min(1).max(criterionIds.length) }).strict();

const firstIssue = (error: z.ZodError, prefix = ''): string => {
  const issue = error.issues[0]!;
  const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
  return `${path || 'body'}: ${issue.message}`;
};

export const mountReviewRoutes = (app: Hono<ReviewEnv>, routes: ReviewRoutes): void => {
  const { authorize, store, rooms } = routes;
  const generator = routes.generator ?? createScriptedGenerator();
  const problem = (c: Context<ReviewEnv>, status: 400 | 403 | 404 | 429, error: string, message: string) => c.json({ error, message }, status);
  const body = async (c: Context<ReviewEnv>): Promise<{ ok: true; json: unknown } | { ok: false }> => {
    try {
      return { ok: true, json: await c.req.json() };
    } catch {
      return { ok: false };
    }
  };

  /** The seat asked about: a participant's own (no other), else the one named, else the first human seat. */
  const seatOf = (c: Context<ReviewEnv>, report: Report, asked: string | undefined): { seat: string } | { status: 400 | 403 | 404; error: string; message: string } => {
    const { role, participant } = c.get('access');
    if (role === 'participant') {
      if (asked !== undefined && asked !== participant) return { status: 403, error: 'forbidden', message: 'A participant sees their own seat only.' };
      return participant ? { seat: participant } : { status: 403, error: 'forbidden', message: 'This token names no seat.' };
    }
    const seat = asked ?? report.participants.find((p) => p.kind === 'human')?.id;
    if (seat === undefined) return { status: 400, error: 'bad-request', message: 'seat: this session has no human seat; name one with ?seat=<participant id>.' };
    if (!report.participants.some((p) => p.id === seat)) return { status: 404, error: 'not-found', message: `No seat "${seat}" in this session.` };
    return { seat };
  };

  /** The session's report and the seat asked about (the caller's own, for a participant), or the problem to answer with. */
  const seatReport = (c: Context<ReviewEnv>): { problem: Response } | { id: string; report: Report; chosen: { seat: string } } => {
    const id = c.req.param('id') ?? '';
    const row = store.session(id);
    if (!row) return { problem: problem(c, 404, 'not-found', `No session "${id}".`) };
    const report = routes.reportOf(c, id, row.scene);
    const chosen = seatOf(c, report, c.req.query('seat') || undefined);
    if (!('seat' in chosen)) return { problem: problem(c, chosen.status, chosen.error, chosen.message) };
    return { id, report, chosen };
  };

  /** Feedback per session, seat and view, kept per state of the log; a vendor's failure is not kept. */
  const written = createReportCache<Promise<Feedback>>(64);
  app.get('/api/sessions/:id/feedback', authorize(['participant', 'observer', 'author']), async (c) => {
    const found = seatReport(c);
    if ('problem' in found) return found.problem;
    const { id, report, chosen } = found;
    const key = `${id}\n${chosen.seat}\n${c.get('access').role === 'participant' ? 'seat' : 'all'}`;
    // Not the request's signal: one reader leaving must not cancel what another waits for.
    const pending = written.get(key, store.lastSeq(id), () => feedback(report, linesOf(report), chosen.seat, generator));
    const result = await pending;
    if (result.by === 'rules' && result.note) written.forget(key);
    return c.json({ seat: chosen.seat, ...result });
  });

  app.get('/api/sessions/:id/debrief', authorize(['participant', 'observer', 'author']), (c) => {
    const found = seatReport(c);
    if ('problem' in found) return found.problem;
    return c.json({ seat: found.chosen.seat, ...debriefOf(found.report, found.chosen.seat)! });
  });

  /** Each token's recent questions (times): at most ASKS_PER_MINUTE in any minute. */
  const asked = new Map<string, number[]>();
  const credentialOf = (c: Context<ReviewEnv>): string => {
    const header = c.req.header('authorization');
    return header?.startsWith('Bearer ') ? header.slice(7).trim() : (c.req.query('token') ?? '');
  };
  app.post('/api/sessions/:id/ask', authorize(['participant', 'observer', 'author']), async (c) => {
    const id = c.req.param('id') ?? '';
    const row = store.session(id);
    if (!row) return problem(c, 404, 'not-found', `No session "${id}".`);
    const read = await body(c);
    if (!read.ok) return problem(c, 400, 'bad-json', 'The body must be JSON: {"question": "<your question>", "seat"?: "<participant id>"}.');
    const parsed = Ask.safeParse(read.json);
    if (!parsed.success) return problem(c, 400, 'bad-request', firstIssue(parsed.error));
    const question = cleanQuestion(parsed.data.question);
    if (!question) return problem(c, 400, 'bad-request', 'question: ask something, e.g. "When did I dodge the salary question?"');
    const report = routes.reportOf(c, id, row.scene);
    const chosen = seatOf(c, report, parsed.data.seat);
    if (!('seat' in chosen)) return problem(c, chosen.status, chosen.error, chosen.message);
    const t = routes.now();
    const key = credentialOf(c);
    const recent = (asked.get(key) ?? []).filter((at) => t - at < 60_000);
    if (recent.length >= ASKS_PER_MINUTE) {
      const wait = Math.max(1, Math.ceil((recent[0]! + 60_000 - t) / 1000));
      c.header('Retry-After', String(wait));
      return problem(c, 429, 'rate-limited', `At most ${ASKS_PER_MINUTE} questions a minute; ask again in ${wait} s.`);
    }
    asked.set(key, [...recent, t]);
    // Tokens that asked nothing for a minute are forgotten, so the map holds only the recent askers.
    if (asked.size > 256) for (const [k, times] of asked) if (t - times.at(-1)! >= 60_000) asked.delete(k);
    const answered = await answer(question, linesOf(report), chosen.seat, generator, c.req.raw.signal, report);
    const cut = cleanText(parsed.data.question).trim().length > MAX_QUESTION_CHARS ? `your question was cut to its first ${MAX_QUESTION_CHARS} characters` : null;
    return c.json({ seat: chosen.seat, question, ...answered, ...(cut ? { note: answered.note ? `${cut}; ${answered.note}` : cut } : {}) });
  });

  /** A session's run: its report as the author sees it, or a problem naming it. */
  const sessionRun = (c: Context<ReviewEnv>, id: string): { input: CompareInput } | { status: 404; message: string } => {
    const row = store.session(id);
    if (!row) return { status: 404, message: `No session "${id}".` };
    const room = rooms.get(id);
    return { input: { id, createdAt: row.createdAt, status: room && !room.ended() ? room.status() : 'ended', report: routes.reportOf(c, id, row.scene) } };
  };
  const reportIn = (raw: unknown, what: string): { report: Report } | { message: string } => {
    const parsed = Report.safeParse(raw);
    return parsed.success ? { report: parsed.data } : { message: `${what} is not a report (the report-<k>.json the simulator writes, or a session's report.json): ${firstIssue(parsed.error)}` };
  };
  /** The runs' scenes agree, or the odd ones out, named. */
  const mixedScenes = (runs: readonly { name: string; scene: string | null }[]): string | null => {
    const scenes = runs.map((r) => r.scene);
    const common = scenes.reduce((best, s) => (scenes.filter((x) => x === s).length > scenes.filter((x) => x === best).length ? s : best), scenes[0]!);
    const odd = runs.filter((r) => r.scene !== common);
    return odd.length ? `Only runs of one scene compare: ${odd.map((r) => `${r.name} is of ${r.scene ?? 'no scene'}`).join(', ')}; the others are of ${common ?? 'no scene'}.` : null;
  };

  app.post('/api/compare', authorize(['author']), async (c) => {
    const read = await body(c);
    if (!read.ok) return problem(c, 400, 'bad-json', 'The body must be JSON: {"sessions"?: ["<id>", …], "reports"?: [<report>, …], "names"?: ["<file name>", …]}.');
    const parsed = ComparePost.safeParse(read.json);
    if (!parsed.success) return problem(c, 400, 'bad-request', firstIssue(parsed.error));
    const { reports, names = [] } = parsed.data;
    const sessions = [...new Set(parsed.data.sessions)];
    const count = sessions.length + reports.length;
    if (count < MIN_RUNS || count > MAX_RUNS) return problem(c, 400, 'bad-request', `Compare ${MIN_RUNS} to ${MAX_RUNS} runs (sessions and reports together); got ${count}.`);
    const inputs: CompareInput[] = [];
    for (const id of sessions) {
      const run = sessionRun(c, id);
      if (!('input' in run)) return problem(c, 404, 'not-found', run.message);
      inputs.push(run.input);
    }
    for (const [i, raw] of reports.entries()) {
      const file = names[i] ?? `report ${i + 1}`;
      const found = reportIn(raw, `reports[${i}] ("${file}")`);
      if (!('report' in found)) return problem(c, 400, 'bad-report', found.message);
      inputs.push({ id: file, file, createdAt: 0, status: 'simulated', report: found.report });
    }
    const mixed = mixedScenes(inputs.map((r) => ({ name: r.file ? `"${r.file}"` : `"${r.id}"`, scene: r.report.scene })));
    if (mixed) return problem(c, 400, 'mixed-scenes', mixed);
    return c.json(compareOf(inputs));
  });

  app.post('/api/compare/judge', authorize(['author']), async (c) => {
    const read = await body(c);
    if (!read.ok) return problem(c, 400, 'bad-json', 'The body must be JSON: {"a": {"session": "<id>"} | {"report": <report>}, "b": …, "criteria": ["clarity", …]}.');
    const parsed = Judge.safeParse(read.json);
    if (!parsed.success) return problem(c, 400, 'bad-request', firstIssue(parsed.error));
    const pair: Run[] = [];
    for (const side of ['a', 'b'] as const) {
      const ref = parsed.data[side];
      const fallback = side === 'a' ? 'the first run' : 'the second run';
      if ('session' in ref) {
        const run = sessionRun(c, ref.session);
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
    return c.json(await judgePair(a, b, parsed.data.criteria, generator, c.req.raw.signal));
  });
};
