/**
 * A session's review, for any role of the session, as that role may see it (review/report.ts's
 * `reportFor`: a participant gets only what is theirs):
 *
 *   GET  /api/sessions/:id/transcript?format=text|json|markdown|vtt|csv   text by default; a download otherwise
 *   GET  /api/sessions/:id/report?format=json|csv   figures and timeline (a download with ?format=)
 *   GET  /api/sessions/:id/replay           its room and its log, for the 3D replay (review/replay.ts)
 *   GET  /api/sessions/:id/recordings       { recordings: [{ utterance, seq, participant, startMs, durationMs,
 *                                           sampleRate, url, cues, words }], missing: [utterance] } (recordings/list.ts)
 *   GET  /api/sessions/:id/recordings/:utterance.wav   audio/wav (?token= works); 404 { error, message } when
 *                                           there is none or it is gone
 *   GET  /api/sessions/:id/debrief?seat=    review/debrief.ts's debrief of a seat: figures, what became of each
 *                                           question, observations -> { seat, ...Debrief }
 *   GET  /api/sessions/:id/feedback?seat=   review/feedback.ts's written feedback for a seat, kept per state of
 *                                           the log (6 a minute per token, as /ask)
 *        -> { seat, paragraph, moments: [{ startMs, text }], by: 'model'|'rules', vendor?, note? }
 *   POST /api/sessions/:id/ask              { seat?, question }: an answer from the transcript and the seat's
 *                                           debrief (6 questions a minute per token); a question longer than
 *                                           300 characters is cut, and the answer says so
 *        -> { seat, question, answer, moments: [{ startMs, endMs, text, speaker, name }], by, vendor?, note? }
 *
 * The seat asked about (debrief, feedback, ask) is a participant's own (no other), else the one
 * named, else the first human seat. Feedback and answers ask the rooms' generator (server/main.ts),
 * so every vendor call goes through the same resilience and circuit; without a vendor (the
 * scripted generator) they come from rules.
 *
 * ```ts
 * app.route('/api/sessions', review({ authorize, reports, store, recordings, sceneOf, generator }));
 * ```
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { roles } from '../../shared/claims';
import type { Generator } from '../providers/generator/port';
import { createScriptedGenerator } from '../providers/generator/scripted';
import { cleanText } from '../../shared/protocol/text';
import { RecordingsUnavailable } from '../recordings/bucket';
import { recordingListOf } from '../recordings/list';
import { isRecordingId, type RecordingStore } from '../recordings/store';
import { MAX_QUESTION_CHARS, type Feedback } from '../../shared/review/answers';
import { createReportCache } from '../review/cache';
import { reportCsvOf } from '../review/csv';
import { debriefOf } from '../review/debrief';
import { answer, cleanQuestion, feedback } from '../review/feedback';
import { linesOf } from '../review/model';
import { replayOf } from '../review/replay';
import { readLog } from '../review/report';
import { type Report } from '../../shared/review/report';
import type { SceneOf } from '../scene/versions';
import type { AnyStore, SessionRow } from '../store/store';
import type { Access, Authorize } from './access';
import { jsonBody } from './input';
import { problem } from './problem';
import { rateLimit } from './rate-limit';
import type { SessionReports } from './reports';
import { transcriptCsvOf, transcriptFormats, transcriptJsonOf, transcriptMarkdownOf, transcriptOf, transcriptVttOf, type TranscriptFormat } from './transcript';

export interface ReviewOptions {
  authorize: Authorize;
  reports: SessionReports;
  store: AnyStore;
  /** The scene a session ran (its live room's, else the version stored with it), whatever the editor did to it since. */
  sceneOf: SceneOf;
  /** Utterances' audio; absent: no recordings are listed. */
  recordings?: RecordingStore;
  /** What written feedback and answers ask: the rooms' generator; default the scripted one (rules only). */
  generator?: Generator;
  now?: () => number;
}

/** Questions (and written feedback) per token: a person asks a handful; each may be a vendor call. */
export const ASKS_PER_MINUTE = 6;

const Ask = z.object({ seat: z.string().min(1).max(100).optional(), question: z.string().max(MAX_QUESTION_CHARS * 8) }).strict();

/** Where the recordings are held cannot be reached (a bucket down): 503, the cause in the server's log only. */
const unavailableAs503 = async <T>(c: Context, read: Promise<T>): Promise<T | Response> =>
  read.catch((error: unknown) => {
    if (!(error instanceof RecordingsUnavailable)) throw error;
    process.stderr.write(`${c.req.method} ${c.req.path}: ${error.message}\n`);
    return problem(c, 503, 'recordings-unavailable', 'The recordings cannot be reached just now; the transcript is complete. Try again in a minute.', { 'retry-after': '30' });
  });

type ReviewEnv = {
  Variables: { access: Access; row: SessionRow; report: Report; seat: string; ask: { question: string; asked: string; seat: string | undefined } };
};

export const review = (options: ReviewOptions): Hono<ReviewEnv> => {
  const { authorize, reports, store } = options;
  const generator = options.generator ?? createScriptedGenerator();
  const app = new Hono<ReviewEnv>();
  const anyRole = authorize(roles);
  const reportOf = (c: Context<ReviewEnv>) => reports.of(c.get('row'), c.get('access'));

  /** The session's row, else 404. */
  const session: MiddlewareHandler<ReviewEnv> = async (c, next) => {
    const id = c.req.param('id') ?? '';
    const row = await store.session(id);
    if (!row) return problem(c, 404, 'not-found', `No session "${id}".`);
    c.set('row', row);
    await next();
  };

  /** The seat asked about (and the report it was chosen from): a participant's own (no other), else the one named, else the first human seat. */
  const seat =
    (asked: (c: Context<ReviewEnv>) => string | undefined): MiddlewareHandler<ReviewEnv> =>
    async (c, next) => {
      const report = await reportOf(c);
      const { role, participant } = c.get('access');
      const named = asked(c);
      let chosen: string;
      if (role === 'participant') {
        if (named !== undefined && named !== participant) return problem(c, 403, 'forbidden', 'A participant sees their own seat only.');
        if (!participant) return problem(c, 403, 'forbidden', 'This token names no seat.');
        chosen = participant;
      } else {
        const first = named ?? report.participants.find((p) => p.kind === 'human')?.id;
        if (first === undefined) return problem(c, 400, 'bad-request', 'seat: this session has no human seat; name one with ?seat=<participant id>.');
        if (!report.participants.some((p) => p.id === first)) return problem(c, 404, 'not-found', `No seat "${first}" in this session.`);
        chosen = first;
      }
      c.set('report', report);
      c.set('seat', chosen);
      await next();
    };
  const seatInQuery = seat((c) => c.req.query('seat') || undefined);

  /** A file to save: its type, and a name made of the session's id. */
  const download = (c: Context<ReviewEnv>, body: string, type: string, name: string) =>
    c.body(body, 200, { 'content-type': type, 'content-disposition': `attachment; filename="${c.get('row').id.replace(/[^\w-]/g, '_')}-${name}"` });

  app.get('/:id/transcript', anyRole, session, async (c) => {
    const id = c.get('row').id;
    const format = c.req.query('format') ?? 'text';
    if (!(transcriptFormats as readonly string[]).includes(format)) return problem(c, 400, 'bad-request', `format: expected one of ${transcriptFormats.join(', ')}; got "${format}"`);
    switch (format as TranscriptFormat) {
      case 'text':
        return c.text(transcriptOf(readLog(await store.events(id)), await options.sceneOf(c.get('row')), c.get('access')));
      case 'json':
        return download(c, JSON.stringify(transcriptJsonOf(await reportOf(c))), 'application/json; charset=utf-8', 'transcript.json');
      case 'markdown':
        return download(c, transcriptMarkdownOf(await reportOf(c)), 'text/markdown; charset=utf-8', 'transcript.md');
      case 'vtt':
        return download(c, transcriptVttOf(await reportOf(c)), 'text/vtt; charset=utf-8', 'transcript.vtt');
      case 'csv':
        return download(c, transcriptCsvOf(await reportOf(c)), 'text/csv; charset=utf-8; header=present', 'transcript.csv');
    }
  });

  app.get('/:id/report', anyRole, session, async (c) => {
    const format = c.req.query('format') ?? 'json';
    if (format !== 'json' && format !== 'csv') return problem(c, 400, 'bad-request', `format: expected json or csv; got "${format}"`);
    const report = await reportOf(c);
    if (format === 'csv') return download(c, reportCsvOf(report), 'text/csv; charset=utf-8; header=present', 'report.csv');
    // Asked for by name, JSON is an export to save too; without ?format= it is the dashboard's data.
    return c.req.query('format') ? download(c, JSON.stringify(report), 'application/json; charset=utf-8', 'report.json') : c.json(report);
  });

  /** What a 3D replay of the session needs: its room and its log, as the caller may see them (review/replay.ts). */
  app.get('/:id/replay', anyRole, session, async (c) => {
    const { id, scene: sceneId } = c.get('row');
    const scene = await options.sceneOf(c.get('row'));
    if (!scene) return problem(c, 404, 'unknown-scene', `The scene "${sceneId}" of this session is no longer on this server.`);
    return c.json(replayOf(id, scene, readLog(await store.events(id)), c.get('access')));
  });

  /** The session's recordings, as the caller may see them: the utterances of their report's timeline. */
  app.get('/:id/recordings', anyRole, session, async (c) => {
    const row = c.get('row');
    if (!options.recordings) return c.json({ recordings: [], missing: [] });
    const files = await unavailableAs503(c, options.recordings.list(row.id));
    if (files instanceof Response) return files;
    return c.json(recordingListOf(row.id, await reportOf(c), await store.events(row.id), files, row.recording));
  });

  app.get('/:id/recordings/:file', anyRole, async (c) => {
    const id = c.req.param('id') ?? '';
    const file = c.req.param('file') ?? '';
    const utterance = file.endsWith('.wav') ? file.slice(0, -4) : '';
    if (!isRecordingId(utterance)) return problem(c, 404, 'not-found', `No recording "${file}": ask for <utterance id>.wav, as GET /api/sessions/${id}/recordings lists them.`);
    const row = await store.session(id);
    if (!row) return problem(c, 404, 'not-found', `No session "${id}".`);
    // Only what the caller may see: an utterance off their timeline is no recording of theirs.
    const visible = (await reports.of(row, c.get('access'))).timeline.some((item) => item.kind === 'utterance' && item.utterance === utterance);
    const wav = visible && options.recordings ? await unavailableAs503(c, options.recordings.wav(id, utterance)) : null;
    if (wav instanceof Response) return wav;
    if (!wav) {
      const listed = visible && options.recordings ? await unavailableAs503(c, options.recordings.list(id)) : null;
      if (listed instanceof Response) return listed;
      const gone = listed?.has(utterance) ?? false;
      return problem(c, 404, gone ? 'recording-missing' : 'not-found', gone ? `The audio of utterance "${utterance}" is no longer stored; its words are in the transcript.` : `No recording of utterance "${utterance}" in session "${id}".`);
    }
    // Not kept by the browser: a recording is deleted with its session, and rewritten when a stop cuts it.
    return c.body(new Uint8Array(wav), 200, { 'content-type': 'audio/wav', 'content-length': String(wav.length), 'cache-control': 'private, no-store' });
  });

  app.get('/:id/debrief', anyRole, session, seatInQuery, (c) => c.json({ seat: c.get('seat'), ...debriefOf(c.get('report'), c.get('seat'))! }));

  // Feedback and answers may each be a vendor call: a token gets a handful a minute of each.
  const now = options.now ?? (() => Date.now());
  const perToken = { burst: ASKS_PER_MINUTE, ratePerS: ASKS_PER_MINUTE / 60, now };
  const feedbackLimit = rateLimit<ReviewEnv>({ ...perToken, message: (wait) => `At most ${ASKS_PER_MINUTE} feedback requests a minute; ask again in ${wait} s.` });
  const askLimit = rateLimit<ReviewEnv>({ ...perToken, message: (wait) => `At most ${ASKS_PER_MINUTE} questions a minute; ask again in ${wait} s.` });

  /** Feedback per session, seat and view, kept per state of the log; a vendor's failure is not kept. */
  const written = createReportCache<Promise<Feedback>>(64);
  app.get('/:id/feedback', anyRole, session, seatInQuery, feedbackLimit, async (c) => {
    const { id } = c.get('row');
    const chosen = c.get('seat');
    const report = c.get('report');
    const key = `${id}\n${chosen}\n${c.get('access').role === 'participant' ? 'seat' : 'all'}`;
    // Not the request's signal: one reader leaving must not cancel what another waits for.
    const pending = written.get(key, await store.lastSeq(id), () => feedback(report, linesOf(report), chosen, generator));
    const result = await pending;
    if (result.by === 'rules' && result.note) written.forget(key);
    return c.json({ seat: chosen, ...result });
  });

  /** The question, read and cleaned: 400 for a bad body or nothing asked. */
  const question: MiddlewareHandler<ReviewEnv> = async (c, next) => {
    const read = await jsonBody(c, Ask, 'The body must be JSON: {"question": "<your question>", "seat"?: "<participant id>"}.');
    if (!read.ok) return read.problem;
    const cleaned = cleanQuestion(read.data.question);
    if (!cleaned) return problem(c, 400, 'bad-request', 'question: ask something, e.g. "When did I dodge the salary question?"');
    c.set('ask', { question: cleaned, asked: read.data.question, seat: read.data.seat });
    await next();
  };
  app.post('/:id/ask', anyRole, session, question, seat((c) => c.get('ask').seat), askLimit, async (c) => {
    const { question, asked } = c.get('ask');
    const report = c.get('report');
    const answered = await answer(question, linesOf(report), c.get('seat'), generator, c.req.raw.signal, report);
    const cut = cleanText(asked).trim().length > MAX_QUESTION_CHARS ? `your question was cut to its first ${MAX_QUESTION_CHARS} characters` : null;
    return c.json({ seat: c.get('seat'), question, ...answered, ...(cut ? { note: answered.note ? `${cut}; ${answered.note}` : cut } : {}) });
  });

  return app;
};
