/**
 * The HTTP and WebSocket API (Hono). Routes are grouped by resource; every route but
 * `/api/health` checks a credential: the author's ADMIN_TOKEN, or a signed session token whose
 * session and role fit the route. No token: 401. A token for another session or role: 403.
 * LiveKit's webhooks carry LiveKit's own signature instead, checked against the body.
 *
 *   GET    /api/health                       version, active providers and their vendors' circuits
 *   GET    /api/scenes                       the scenes (id, title, topic, formation, human seats, recording, duration)
 *   POST   /api/sessions                     author: create a live session of a scene (tokens and join links)
 *   GET    /api/sessions                     author: every session, live or past, newest first (scene, status,
 *                                            seats and who is present, duration, turns)
 *   GET    /api/sessions/:id/links           author: fresh tokens and join links for every seat and the observer
 *   GET    /api/sessions/:id                 any role of the session: a snapshot
 *   GET    /api/sessions/:id/events          observer or author: the log as JSON lines
 *   GET    /api/sessions/:id/transcript?format=text|json|markdown|vtt|csv   any role of the session
 *                                            (text by default; a download otherwise)
 *   GET    /api/sessions/:id/report?format=json|csv   any role of the session: review/report.ts's
 *                                            figures and timeline, as the role may see them (a download with ?format=)
 *   GET    /api/sessions/:id/recordings      any role of the session: { recordings: [{ utterance, seq, participant,
 *                                            startMs, durationMs, sampleRate, url, cues, words }], missing: [utterance] }
 *                                            for the utterances the role may see (recordings/list.ts)
 *   GET    /api/sessions/:id/recordings/:utterance.wav   any role of the session (?token= works): audio/wav;
 *                                            404 { error, message } when there is none or it is gone
 *   GET    /api/sessions/:id/replay          any role of the session: its room (formation, contents, seats, avatars)
 *                                            and its log as the role may see it, for the 3D replay (review/replay.ts)
 *   GET    /api/compare?sessions=<id>,<id>,…   author: 2-8 sessions of one scene side by side (review/compare.ts)
 *   GET    /api/sessions/:id/feedback?seat=  any role of the session: written feedback for a seat (review-routes.ts)
 *   POST   /api/sessions/:id/ask            any role of the session: { seat?, question } answered from the transcript
 *   POST   /api/compare                     author: { sessions?, reports?, names? }: sessions and simulated runs' reports
 *   POST   /api/compare/judge               author: { a, b, criteria }: which of two runs is better (review/judge.ts)
 *   DELETE /api/sessions/:id                 observer or author: end the session
 *   DELETE /api/sessions/:id?purge=true      observer or author: end it, then delete its log, its row and its recordings
 *   GET    /api/sessions/:id/socket?token=&after=&stream=   the realtime protocol (protocol/messages.ts);
 *                                                  stream=livekit: live messages come on LiveKit data topics
 *   POST   /api/sessions/:id/livekit-token   any role of the session: { url, token } for its LiveKit room
 *                                            (the author gets an observer's); 409 livekit-off without LiveKit
 *   POST   /api/livekit/webhook              LiveKit's signed webhooks (only with LiveKit): humans' media presence
 */
import { timingSafeEqual } from 'node:crypto';
import { createNodeWebSocket } from '@hono/node-ws';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { WebSocket } from 'ws';
import { z } from 'zod';
import { roles, type Claims, type Role } from '../auth/claims';
import type { Tokens } from '../auth/tokens';
import type { Config } from '../config';
import { endedBecause, visibleTo, type SessionEvent } from '../engine/events';
import { ClientMessage, clientTypes, MAX_MIC_FRAME_BYTES, MIC_SAMPLE_RATE, observerTypes, participantTypes, type ServerMessage } from '../protocol/messages';
import { createLiveKitProbe, type LiveKitProbe } from '../livekit/health';
import { mintLiveKitToken } from '../livekit/tokens';
import { createWebhookHandler } from '../livekit/webhooks';
import type { CircuitState } from '../providers/resilience';
import { UnknownSceneError, type Client, type Rooms } from '../rooms/rooms';
import type { LoadedScene } from '../scene/schema';
import type { Store } from '../store/store';
import { createReportCache } from '../review/cache';
import { compareOf } from '../review/compare';
import { reportCsvOf } from '../review/csv';
import { recordOf } from '../review/record';
import { readLog, reportFor, reportOf } from '../review/report';
import { recordingListOf } from '../recordings/list';
import { isRecordingId, type RecordingStore } from '../recordings/store';
import { mountReviewRoutes, type ReviewOptions } from './review-routes';
import { replayOf } from '../review/replay';
import { limitBodies, publicOrigin, securityHeaders } from './security';
import { joinLinks, listSessions } from './sessions';
import { transcriptCsvOf, transcriptFormats, transcriptJsonOf, transcriptMarkdownOf, transcriptOf, transcriptVttOf, type TranscriptFormat } from './transcript';

export interface AppOptions extends ReviewOptions {
  /** Without `livekit` (or with null) media stays on the embedded WebSocket transport. */
  config: Pick<Config, 'adminToken' | 'tokenTtlMs' | 'maxMessageBytes' | 'messageRatePerS' | 'messageBurst' | 'generator' | 'synthesizer' | 'transcriber'> &
    Partial<Pick<Config, 'livekit' | 'publicUrl'>>;
  rooms: Rooms;
  store: Store;
  tokens: Tokens;
  /** The scenes rooms can be made of, for GET /api/scenes. */
  scenes: readonly LoadedScene[];
  version: string;
  /** Utterances' audio (GET .../recordings, deleted with ?purge=true); absent: no recordings are listed. */
  recordings?: RecordingStore;
  /** Whether LiveKit answers, for /api/health; default: a probe of `config.livekit` (none without LiveKit). */
  liveKitProbe?: LiveKitProbe;
  /** Each vendor's circuit, for /api/health: `open` while a vendor that kept failing is not called. */
  circuits?: () => Record<string, CircuitState>;
  /** A human joined (true) or left (false) a session's LiveKit room, as LiveKit's webhooks report it. */
  onLiveKitPresence?(session: string, participant: string, present: boolean): void;
  now?: () => number;
  /** How often sockets are pinged (a dead one is cut after two missed pings); default 15 s. */
  heartbeatMs?: number;
  /** The send buffer past which a socket is dropped as a slow reader; default 4 MB. */
  maxBufferedBytes?: number;
  /** Sockets an observer's or the author's token may hold in a session at once; default 256. */
  maxSocketsPerToken?: number;
  /** Where the server's warnings go (join links built behind a proxy without PUBLIC_URL); default: standard error. */
  warn?: (line: string) => void;
  /** The server's log: a line when a session is deleted. Default: none. */
  log?: (line: string) => void;
}

/** `expiresAt`: when the session token expires (ms since the epoch); null for the admin token. */
type Access = { role: Role; session: string | null; participant: string | null; expiresAt: number | null };
type Env = { Variables: { access: Access } };

const CreateSession = z
  .object({
    scene: z.string().min(1),
    pace: z.enum(['realtime', 'instant']).default('realtime'),
    /** Start at once, the simulation standing in for every human seat (else the session waits in its lobby). */
    standIns: z.boolean().default(false),
    /** Record participants' microphones (they are told before they join); default: the scene's `recording`. */
    recording: z.boolean().optional(),
  })
  .strict();

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * A LiveKit token is checked only when a client connects (LiveKit renews it on a live connection),
 * so it lives an hour at most, and never past the session token it was traded for.
 */
const LIVEKIT_TOKEN_TTL_MS = 3_600_000;
/** LiveKit's webhook events are a few hundred bytes. */
const MAX_WEBHOOK_BYTES = 64 * 1024;

/** Microphone budget: seconds of audio per second, and the burst. */
const MIC_RATE = 1.5;
// A browser whose main thread stalled (a slow machine drawing the room) sends its queued frames at
// once: a few seconds of burst keep those words instead of dropping them.
const MIC_BURST_S = 5;

/**
 * Lines (`say`, `say-as`, `inject`): each is a turn or a direction, so a burst of them would run a
 * scene's snippets out in a second. A person may say 3 at once, then one every 2 s, across all
 * their sockets (typing a line takes longer than that).
 */
const lineTypes = new Set<ClientMessage['type']>(['say', 'say-as', 'inject']);
const LINE_BURST = 3;
const LINE_RATE_PER_S = 0.5;
/**
 * Sockets one observer's or the author's token may hold in a session at once; a newer one
 * replaces the oldest. A seat holds one (rooms.ts: one seat, one tab). An observer link may be
 * shared by a class watching a rehearsal, so it holds many: what they send shares one budget, and
 * what each is sent is bounded by the backpressure below.
 */
const MAX_SOCKETS_PER_TOKEN = 256;
/**
 * The send buffer a socket may fill before it is dropped as a slow reader (it rejoins with
 * ?after=): 4 MB is about a minute of a persona's speech as base64 PCM.
 */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** How long a dropped slow reader has to read its close frame before its connection is cut. */
const SLOW_READER_CLOSE_MS = 1000;
/** Every socket is pinged this often; one that misses a ping is cut, so a dead one goes within 2x this (30 s). */
const HEARTBEAT_MS = 15_000;
/** How long an idle holder (no sockets) keeps its budgets, so reconnecting does not refill them. */
const HOLDER_IDLE_MS = 60_000;
/** setTimeout's longest delay. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Close codes: a newer socket took this one's place; the reader fell too far behind; the token ran out. */
const CLOSE_REPLACED = 4409;
const CLOSE_SLOW_READER = 4408;
const CLOSE_TOKEN_EXPIRED = 4401;

/** A token bucket: `burst` at most, refilled at `ratePerS`. */
const createBucket = (burst: number, ratePerS: number, t0: number) => {
  let allowance = burst;
  let last = t0;
  return {
    /** Spends `cost` if the bucket holds it at time `t`. */
    take(cost: number, t: number): boolean {
      allowance = Math.min(burst, allowance + (Math.max(0, t - last) / 1000) * ratePerS);
      last = t;
      if (allowance < cost) return false;
      allowance -= cost;
      return true;
    },
  };
};
type Bucket = ReturnType<typeof createBucket>;

/** One person in one session (a seat, or an observer's or the author's credential), across their sockets. */
interface Holder {
  /** Oldest first. */
  sockets: Socket[];
  messages: Bucket;
  lines: Bucket;
  audio: Bucket;
  toldVoiceOff: boolean;
}

interface Socket {
  raw: WebSocket;
  client: Client;
  holder: string;
  /** Answered the last ping. */
  alive: boolean;
  /** Closed or being closed by the server: nothing more is read from or sent to it. */
  gone: boolean;
  leave: (() => void) | null;
  expiresAt: number | null;
  expiry: ReturnType<typeof setTimeout> | null;
}

/** A `?after=` seq: a whole number, else 0 (from the start). */
const seqParam = (raw: string | undefined): number => (raw !== undefined && /^\d{1,15}$/.test(raw) ? Number(raw) : 0);

export const createApp = (options: AppOptions) => {
  const { config, rooms, store, tokens } = options;
  const now = options.now ?? (() => Date.now());
  const app = new Hono<Env>();
  const { upgradeWebSocket, injectWebSocket, wss } = createNodeWebSocket({ app });
  // Messages are bounded below (a typed error keeps the connection); far larger frames are abuse.
  wss.options.maxPayload = Math.max(config.maxMessageBytes * 64, 1 << 20);

  const sign = (claims: Omit<Claims, 'exp'>) => tokens.sign(claims, config.tokenTtlMs, now());
  // Every response carries the security headers; no request body is read past the limit.
  app.use(securityHeaders({ publicUrl: config.publicUrl ?? null, livekitUrl: config.livekit?.url ?? null }));
  app.use(limitBodies());
  const linkOrigin = publicOrigin({ publicUrl: config.publicUrl ?? null, ...(options.warn ? { warn: options.warn } : {}) });

  const problem = (c: Context, status: 400 | 401 | 403 | 404 | 409 | 413, error: string, message: string) => c.json({ error, message }, status);
  const liveKitProbe = config.livekit ? (options.liveKitProbe ?? createLiveKitProbe(config.livekit)) : null;

  /**
   * Reads the credential (Authorization header, or a session token as ?token= for sockets and join
   * links) and checks it against the route. The admin token counts only in the header: a URL ends
   * up in logs, proxies and browser history.
   */
  const authorize = (allowed: readonly Role[]) => async (c: Context<Env>, next: () => Promise<void>) => {
    const header = c.req.header('authorization');
    const fromHeader = header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined;
    const token = fromHeader ?? c.req.query('token');
    if (!token) return problem(c, 401, 'unauthorized', 'Send a token: Authorization: Bearer <token>, or ?token= on sockets.');
    let access: Access;
    if (sameSecret(token, config.adminToken)) {
      if (fromHeader === undefined) {
        return problem(c, 401, 'token-in-url', 'The admin token is accepted only in the Authorization header (Authorization: Bearer <token>), never in a URL. Send it as a header, or use a session token (the observer link) in the URL.');
      }
      access = { role: 'author', session: null, participant: null, expiresAt: null };
    } else {
      const verified = tokens.verify(token, now());
      if (!verified.ok) return problem(c, 401, 'unauthorized', `The token is ${verified.reason === 'expired' ? 'expired' : 'not valid'}.`);
      const claims: Claims = verified.claims;
      access = { role: claims.role, session: claims.session, participant: claims.participant, expiresAt: claims.exp };
    }
    const id = c.req.param('id') ?? '';
    if (id && access.role !== 'author' && access.session !== id) return problem(c, 403, 'forbidden', 'This token is for another session.');
    if (!allowed.includes(access.role)) return problem(c, 403, 'forbidden', `This needs the ${allowed.join(' or ')} role.`);
    c.set('access', access);
    await next();
  };

  // An unexpected failure answers 500 without details; the room and the server keep running.
  app.onError((error, c) => {
    process.stderr.write(`${c.req.method} ${c.req.path}: ${error.stack ?? error.message}\n`);
    return c.json({ error: 'internal', message: 'Something went wrong on the server.' }, 500);
  });

  // With LiveKit configured the transport stays 'livekit' while it is down: clients fall back to
  // the embedded WebSocket, and `livekit.fallback` says so.
  app.get('/api/health', async (c) => {
    const livekit = liveKitProbe ? await liveKitProbe.status() : null;
    return c.json({
      status: 'ok',
      version: options.version,
      providers: { generator: config.generator, synthesis: config.synthesizer, transcription: config.transcriber, transport: livekit ? 'livekit' : 'websocket' },
      ...(livekit ? { livekit: { ...livekit, ...(livekit.reachable ? {} : { fallback: 'websocket' }) } } : {}),
      sessions: rooms.list().filter((r) => !r.ended()).length,
      ...(options.circuits ? { circuits: options.circuits() } : {}),
    });
  });

  // The scenes this server can run (titles and formations are not secret; the personas are).
  app.get('/api/scenes', (c) =>
    c.json({
      scenes: options.scenes.map((s) => ({
        id: s.id,
        title: s.title,
        topic: s.topic,
        formation: s.formation,
        humans: s.participants.filter((p) => p.kind === 'human').map((p) => p.name),
        participants: s.participants.length,
        recording: s.recording ?? false,
        duration: s.duration ?? null,
      })),
    }),
  );

  app.post('/api/sessions', authorize(['author']), async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return problem(c, 400, 'bad-json', 'The body must be JSON: {"scene": "<scene id>", "pace"?: "realtime" | "instant"}.');
    }
    const parsed = CreateSession.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return problem(c, 400, 'bad-request', `${issue.path.join('.') || 'body'}: ${issue.message}`);
    }
    let room;
    try {
      const { scene, pace, standIns, recording } = parsed.data;
      room = rooms.create(scene, { pace, standIns, ...(recording !== undefined ? { recording } : {}) });
    } catch (error) {
      // Anything else (the store failing) is the server's problem, not the request's.
      if (!(error instanceof UnknownSceneError)) throw error;
      return problem(c, 404, 'unknown-scene', error.message);
    }
    // Join links, keyed like the tokens: the room page of this server (PUBLIC_URL) for each seat and the observer.
    const { tokens: issued, links } = joinLinks(room.scene, room.id, sign, linkOrigin(c));
    return c.json({ id: room.id, scene: room.scene.id, pace: room.pace, seed: room.seed, recording: room.recording, tokens: issued, links }, 201);
  });

  app.get('/api/sessions', authorize(['author']), (c) => c.json({ sessions: listSessions({ store, rooms, scenes: options.scenes }) }));

  app.get('/api/sessions/:id/links', authorize(['author']), (c) => {
    const id = c.req.param('id') ?? '';
    const row = store.session(id);
    const scene = rooms.get(id)?.scene ?? options.scenes.find((s) => s.id === row?.scene);
    if (!row || !scene) return problem(c, 404, 'not-found', `No session "${id}".`);
    return c.json({ id, ...joinLinks(scene, id, sign, linkOrigin(c)) });
  });

  app.get('/api/sessions/:id', authorize(roles), (c) => {
    const id = c.req.param('id') ?? '';
    const room = rooms.get(id);
    if (room && !room.ended()) return c.json(room.snapshot(c.get('access').role, c.get('access').participant));
    const row = store.session(id);
    if (!row) return problem(c, 404, 'not-found', `No session "${id}".`);
    // An ended session (or one this process no longer holds): what it was, from its log.
    // Its length and its lines on the record's clock, as the review and the transcript count them.
    const log = readLog(store.events(id));
    const record = recordOf(log);
    const scene = options.scenes.find((s) => s.id === row.scene);
    const ended = !!row.endedAt || !!room?.ended();
    return c.json({
      session: id,
      status: ended ? 'ended' : 'live',
      phase: ended ? 'ended' : 'running',
      scene: { id: row.scene, title: scene?.title ?? row.scene },
      durationMs: record.durationMs,
      turns: record.turns,
      participants: (scene?.participants ?? []).map((p) => ({ id: p.id, name: p.name, kind: p.kind })),
      review: ended ? `/review/${encodeURIComponent(id)}` : null,
      // Who ended it and why, for everyone ("Ended by the instructor", "Time is up"…).
      endedBecause: ((end) => (end?.type === 'end' ? endedBecause(end) : null))(log.findLast((e) => e.type === 'end')),
      lastSeq: store.lastSeq(id),
    });
  });

  app.get('/api/sessions/:id/events', authorize(['observer', 'author']), (c) => {
    const id = c.req.param('id') ?? '';
    if (!store.session(id)) return problem(c, 404, 'not-found', `No session "${id}".`);
    const after = seqParam(c.req.query('after'));
    const { role, participant } = c.get('access');
    const viewer = { instructor: role !== 'participant', seat: participant };
    const lines = (store.events(id, after) as SessionEvent[]).filter((e) => visibleTo(viewer, e)).map((e) => `${JSON.stringify(e)}\n`);
    return c.body(lines.join(''), 200, { 'content-type': 'application/x-ndjson; charset=utf-8' });
  });

  /** A session's report, built once per state of its log (review/cache.ts), as the caller may see it. */
  const reports = createReportCache();
  const reportOfSession = (c: Context<Env>, id: string, scene: string) => {
    const report = reports.get(id, store.lastSeq(id), () =>
      reportOf(readLog(store.events(id)), rooms.get(id)?.scene ?? options.scenes.find((s) => s.id === scene)),
    );
    return reportFor(report, c.get('access'));
  };
  /** A file to save: its type, and a name made of the session's id. */
  const download = (c: Context<Env>, body: string, type: string, id: string, name: string) =>
    c.body(body, 200, { 'content-type': type, 'content-disposition': `attachment; filename="${id.replace(/[^\w-]/g, '_')}-${name}"` });

  app.get('/api/sessions/:id/transcript', authorize(roles), (c) => {
    const id = c.req.param('id') ?? '';
    const row = store.session(id);
    if (!row) return problem(c, 404, 'not-found', `No session "${id}".`);
    const format = c.req.query('format') ?? 'text';
    if (!(transcriptFormats as readonly string[]).includes(format)) return problem(c, 400, 'bad-request', `format: expected one of ${transcriptFormats.join(', ')}; got "${format}"`);
    const scene = rooms.get(id)?.scene;
    switch (format as TranscriptFormat) {
      case 'text':
        return c.text(transcriptOf(readLog(store.events(id)), scene, c.get('access')));
      case 'json':
        return download(c, JSON.stringify(transcriptJsonOf(reportOfSession(c, id, row.scene))), 'application/json; charset=utf-8', id, 'transcript.json');
      case 'markdown':
        return download(c, transcriptMarkdownOf(reportOfSession(c, id, row.scene)), 'text/markdown; charset=utf-8', id, 'transcript.md');
      case 'vtt':
        return download(c, transcriptVttOf(reportOfSession(c, id, row.scene)), 'text/vtt; charset=utf-8', id, 'transcript.vtt');
      case 'csv':
        return download(c, transcriptCsvOf(reportOfSession(c, id, row.scene)), 'text/csv; charset=utf-8; header=present', id, 'transcript.csv');
    }
  });

  app.get('/api/sessions/:id/report', authorize(roles), (c) => {
    const id = c.req.param('id') ?? '';
    const row = store.session(id);
    if (!row) return problem(c, 404, 'not-found', `No session "${id}".`);
    const format = c.req.query('format') ?? 'json';
    if (format !== 'json' && format !== 'csv') return problem(c, 400, 'bad-request', `format: expected json or csv; got "${format}"`);
    const report = reportOfSession(c, id, row.scene);
    if (format === 'csv') return download(c, reportCsvOf(report), 'text/csv; charset=utf-8; header=present', id, 'report.csv');
    // Asked for by name, JSON is an export to save too; without ?format= it is the dashboard's data.
    return c.req.query('format') ? download(c, JSON.stringify(report), 'application/json; charset=utf-8', id, 'report.json') : c.json(report);
  });

  /** What a 3D replay of the session needs: its room and its log, as the caller may see them (review/replay.ts). */
  app.get('/api/sessions/:id/replay', authorize(roles), (c) => {
    const id = c.req.param('id') ?? '';
    const row = store.session(id);
    const scene = rooms.get(id)?.scene ?? options.scenes.find((s) => s.id === row?.scene);
    if (!row) return problem(c, 404, 'not-found', `No session "${id}".`);
    if (!scene) return problem(c, 404, 'unknown-scene', `The scene "${row.scene}" of this session is no longer on this server.`);
    return c.json(replayOf(id, scene, readLog(store.events(id)), c.get('access')));
  });

  /** Sessions of one scene side by side (review/compare.ts): 2 to 8 ids, in the order asked for. */
  app.get('/api/compare', authorize(['author']), (c) => {
    const ids = [...new Set((c.req.query('sessions') ?? '').split(',').map((s) => s.trim()).filter(Boolean))];
    if (ids.length < 2 || ids.length > 8) return problem(c, 400, 'bad-request', `Compare 2 to 8 sessions (?sessions=<id>,<id>,…); got ${ids.length}.`);
    const rows = ids.map((id) => ({ id, row: store.session(id) }));
    const unknown = rows.find((r) => !r.row);
    if (unknown) return problem(c, 404, 'not-found', `No session "${unknown.id}".`);
    const scenes = rows.map((r) => r.row!.scene);
    // The odd ones out: those not of the scene most of them share (the first's on a tie).
    const common = scenes.reduce((best, s) => (scenes.filter((x) => x === s).length > scenes.filter((x) => x === best).length ? s : best), scenes[0]!);
    const odd = rows.filter((r) => r.row!.scene !== common);
    if (odd.length > 0) {
      return problem(c, 400, 'mixed-scenes', `Only sessions of one scene compare: ${odd.map((r) => `"${r.id}" is of ${r.row!.scene}`).join(', ')}; the others are of ${common}.`);
    }
    return c.json(
      compareOf(
        rows.map(({ id, row }) => {
          const room = rooms.get(id);
          return { id, createdAt: row!.createdAt, status: room && !room.ended() ? room.status() : 'ended', report: reportOfSession(c, id, row!.scene) };
        }),
      ),
    );
  });

  /** The session's recordings, as the caller may see them: the utterances of their report's timeline. */
  app.get('/api/sessions/:id/recordings', authorize(roles), (c) => {
    const id = c.req.param('id') ?? '';
    const row = store.session(id);
    if (!row) return problem(c, 404, 'not-found', `No session "${id}".`);
    if (!options.recordings) return c.json({ recordings: [], missing: [] });
    return c.json(recordingListOf(id, reportOfSession(c, id, row.scene), store.events(id), options.recordings.list(id), row.recording));
  });

  app.get('/api/sessions/:id/recordings/:file', authorize(roles), (c) => {
    const id = c.req.param('id') ?? '';
    const file = c.req.param('file') ?? '';
    const utterance = file.endsWith('.wav') ? file.slice(0, -4) : '';
    if (!isRecordingId(utterance)) return problem(c, 404, 'not-found', `No recording "${file}": ask for <utterance id>.wav, as GET /api/sessions/${id}/recordings lists them.`);
    const row = store.session(id);
    if (!row) return problem(c, 404, 'not-found', `No session "${id}".`);
    // Only what the caller may see: an utterance off their timeline is no recording of theirs.
    const visible = reportOfSession(c, id, row.scene).timeline.some((item) => item.kind === 'utterance' && item.utterance === utterance);
    const wav = visible ? options.recordings?.wav(id, utterance) : null;
    if (!wav) {
      const gone = visible && options.recordings?.list(id).has(utterance);
      return problem(c, 404, gone ? 'recording-missing' : 'not-found', gone ? `The audio of utterance "${utterance}" is no longer stored; its words are in the transcript.` : `No recording of utterance "${utterance}" in session "${id}".`);
    }
    // Not kept by the browser: a recording is deleted with its session, and rewritten when a stop cuts it.
    return c.body(new Uint8Array(wav), 200, { 'content-type': 'audio/wav', 'content-length': String(wav.length), 'cache-control': 'private, no-store' });
  });

  mountReviewRoutes(app, { authorize, reportOf: reportOfSession, store, rooms, now, ...(options.generator ? { generator: options.generator } : {}) });

  app.delete('/api/sessions/:id', authorize(['observer', 'author']), async (c) => {
    const id = c.req.param('id') ?? '';
    const room = rooms.get(id);
    if (c.req.query('purge') === 'true') {
      if (!room && !store.session(id)) return problem(c, 404, 'not-found', `No session "${id}".`);
      const by = c.get('access').role === 'author' ? 'the admin' : 'an instructor';
      if (room && !room.ended()) room.end(by);
      // The end is stored before anything is deleted; a log still being saved is not deleted under its writer.
      if (room && store.session(id)?.endedAt === null) return problem(c, 409, 'still-saving', 'The session ended but its log is still being saved; delete it again in a moment.');
      await options.recordings?.remove(id);
      store.deleteSession(id);
      rooms.remove(id);
      reports.forget(id);
      options.log?.(`session ${id}: deleted by ${by}, with its log and recordings`);
      return c.json({ id, ended: true, deleted: true });
    }
    if (!room) return problem(c, 404, 'not-found', `No live session "${id}".`);
    if (!room.ended()) room.end(c.get('access').role === 'author' ? 'the admin' : 'an instructor');
    return c.json({ id, ended: true });
  });

  app.post('/api/sessions/:id/livekit-token', authorize(roles), async (c) => {
    if (!config.livekit) {
      return problem(c, 409, 'livekit-off', 'LiveKit is not configured on this server (LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET); use the session socket.');
    }
    const id = c.req.param('id') ?? '';
    const room = rooms.get(id);
    if (!room || room.ended()) return problem(c, 404, 'not-found', `No live session "${id}".`);
    const access = c.get('access');
    const ttlMs = Math.min(LIVEKIT_TOKEN_TTL_MS, (access.expiresAt ?? Infinity) - now());
    const ttlSeconds = Math.max(1, Math.floor(ttlMs / 1000));
    let token: string;
    if (access.role === 'participant') {
      const seat = room.scene.participants.find((p) => p.id === access.participant);
      if (!seat) return problem(c, 403, 'forbidden', 'This token names no seat of the session.');
      token = await mintLiveKitToken(config.livekit, { session: id, role: 'participant', participant: seat.id, name: seat.name, avatar: seat.avatar ?? null, ttlSeconds });
    } else {
      // Observers and the author hold no seat: hidden, listening only (DESIGN.md §8).
      token = await mintLiveKitToken(config.livekit, { session: id, role: 'observer', participant: null, name: access.role === 'author' ? 'Author' : 'Observer', avatar: null, ttlSeconds });
    }
    return c.json({ url: config.livekit.url, token });
  });

  if (config.livekit) {
    const receive = createWebhookHandler({
      apiKey: config.livekit.apiKey,
      apiSecret: config.livekit.apiSecret,
      onPresence: (session, participant, present) => options.onLiveKitPresence?.(session, participant, present),
    });
    app.post(
      '/api/livekit/webhook',
      bodyLimit({ maxSize: MAX_WEBHOOK_BYTES, onError: (c) => problem(c, 413, 'too-large', `Webhook bodies are limited to ${MAX_WEBHOOK_BYTES} bytes.`) }),
      async (c) => {
        // The signature covers the exact bytes sent, so the body is read as text, never re-serialised.
        const outcome = await receive(await c.req.text(), c.req.header('authorization'));
        if (!outcome.ok) return problem(c, outcome.reason === 'malformed' ? 400 : 401, outcome.reason, outcome.message);
        return c.json({ received: outcome.event });
      },
    );
  }

  /** What each person shares across their sockets in a session: their place, their message budgets. */
  const holders = new Map<string, Holder>();
  /** Every open socket, for the heartbeat. */
  const live = new Set<Socket>();
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const maxBufferedBytes = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  const maxSocketsPerToken = options.maxSocketsPerToken ?? MAX_SOCKETS_PER_TOKEN;
  let heartbeat: ReturnType<typeof setInterval> | null = null;

  /** Closes a socket from the server's side: it leaves its room at once and is sent nothing more. */
  const drop = (socket: Socket, code: number, reason: string, error?: ServerMessage) => {
    if (socket.gone) return;
    if (error) socket.client.send(error);
    socket.gone = true;
    forget(socket);
    socket.raw.close(code, reason);
    // A reader too far behind may never read the close frame: its buffer is freed now, not in 30 s.
    if (code === CLOSE_SLOW_READER) setTimeout(() => socket.raw.terminate(), SLOW_READER_CLOSE_MS).unref();
  };

  const forget = (socket: Socket) => {
    socket.leave?.();
    socket.leave = null;
    if (socket.expiry) clearTimeout(socket.expiry);
    live.delete(socket);
    if (live.size === 0 && heartbeat) {
      clearInterval(heartbeat);
      heartbeat = null;
    }
    const holder = holders.get(socket.holder);
    if (!holder) return;
    holder.sockets = holder.sockets.filter((s) => s !== socket);
    // Kept a while when empty: reconnecting does not refill the budgets.
    if (holder.sockets.length === 0) {
      setTimeout(() => {
        if (holders.get(socket.holder) === holder && holder.sockets.length === 0) holders.delete(socket.holder);
      }, HOLDER_IDLE_MS).unref();
    }
  };

  const expired = (socket: Socket) => socket.expiresAt !== null && now() >= socket.expiresAt;
  const expire = (socket: Socket) =>
    drop(socket, CLOSE_TOKEN_EXPIRED, 'token expired', { type: 'error', code: 'token-expired', message: 'Your link has expired; ask the instructor for a new one.' });

  /** Pings every socket; one that did not answer the previous ping is dead and cut, one whose token ran out is closed. */
  const beat = () => {
    for (const socket of live) {
      if (expired(socket)) expire(socket);
      else if (!socket.alive) {
        socket.gone = true;
        forget(socket);
        socket.raw.terminate();
      } else {
        socket.alive = false;
        socket.raw.ping();
      }
    }
  };

  /** The socket's credential, to tell its holder: a seat is one person; an observer's or the author's token is one. */
  const credentialOf = (c: Context<Env>): string => {
    const header = c.req.header('authorization');
    return header?.startsWith('Bearer ') ? header.slice(7).trim() : (c.req.query('token') ?? '');
  };

  app.get(
    '/api/sessions/:id/socket',
    authorize(roles),
    upgradeWebSocket((c) => {
      const access = c.get('access');
      const session = c.req.param('id') ?? '';
      const room = rooms.get(session);
      const after = seqParam(c.req.query('after'));
      const key = access.participant ? `seat ${session} ${access.participant}` : `token ${session} ${credentialOf(c)}`;
      let socket: Socket | null = null;
      return {
        onOpen(_event, ws) {
          const raw = ws.raw!;
          if (!room) {
            ws.send(JSON.stringify({ type: 'error', code: 'ended', message: 'This session is not live on this server.' } satisfies ServerMessage));
            ws.close(4404, 'not live');
            return;
          }
          let holder = holders.get(key);
          if (!holder) {
            holder = {
              sockets: [],
              messages: createBucket(config.messageBurst, config.messageRatePerS, now()),
              lines: createBucket(LINE_BURST, LINE_RATE_PER_S, now()),
              // Microphone audio has its own budget, in seconds of audio: up to 1.5x real time, 5 s of burst.
              audio: createBucket(MIC_BURST_S, MIC_RATE, now()),
              toldVoiceOff: false,
            };
            holders.set(key, holder);
          }
          const write = (data: string) => {
            if (!socket || socket.gone || raw.readyState !== 1) return;
            // Backpressure: a socket that cannot keep up is dropped, and its client rejoins with ?after=.
            if (raw.bufferedAmount > maxBufferedBytes) return drop(socket, CLOSE_SLOW_READER, 'too slow: rejoin with ?after=');
            raw.send(data);
          };
          // ?stream=livekit: a participant hears the live stream on the LiveKit data topics instead.
          const streamVia = c.req.query('stream') === 'livekit' && access.role === 'participant' && config.livekit ? ('livekit' as const) : ('socket' as const);
          const client: Client = {
            participant: access.participant,
            role: access.role,
            send: (message) => write(JSON.stringify(message)),
            sendRaw: write,
            streamVia,
            close: () => socket && drop(socket, CLOSE_REPLACED, 'replaced'),
          };
          socket = { raw, client, holder: key, alive: true, gone: false, leave: null, expiresAt: access.expiresAt, expiry: null };
          const mine = socket;
          live.add(mine);
          holder.sockets.push(mine);
          const leave = room.join(client, after);
          // Dropped while its backlog was sent (too slow for it): it leaves at once, and rejoins after what it got.
          if (mine.gone) return leave();
          mine.leave = leave;
          raw.on('pong', () => (mine.alive = true));
          heartbeat ??= setInterval(beat, heartbeatMs);
          heartbeat.unref?.();
          // The token is checked again when it runs out, not only at the upgrade.
          if (mine.expiresAt !== null) {
            const check = () => {
              if (mine.gone) return;
              if (expired(mine)) return expire(mine);
              mine.expiry = setTimeout(check, Math.min(MAX_TIMER_MS, Math.max(0, mine.expiresAt! - now())));
              mine.expiry.unref?.();
            };
            check();
          }
          // A token holds so many sockets at most: the newest replaces the oldest (a seat holds one: rooms.ts).
          while (holder.sockets.length > maxSocketsPerToken) {
            const oldest = holder.sockets[0]!;
            drop(oldest, CLOSE_REPLACED, 'replaced', { type: 'error', code: 'replaced', message: 'This link was opened in another tab or on another device; this one is closed.' });
          }
        },
        onMessage(event) {
          if (!socket || socket.gone || !room) return;
          const { client } = socket;
          const holder = holders.get(socket.holder)!;
          if (expired(socket)) return expire(socket);
          if (typeof event.data !== 'string') {
            // Binary: a microphone frame.
            const bytes = new Uint8Array(event.data as ArrayBuffer);
            if (!client.participant) return client.send({ type: 'error', code: 'forbidden', message: 'Observers have no microphone in the room; only participants send audio.' });
            if (bytes.byteLength > MAX_MIC_FRAME_BYTES) {
              return client.send({ type: 'error', code: 'too-large', message: `Audio frames are at most ${MAX_MIC_FRAME_BYTES} bytes (1 s of 16 kHz PCM16); send 20-40 ms frames.` });
            }
            if (bytes.byteLength % 2 !== 0) {
              return client.send({ type: 'error', code: 'bad-message', message: 'Audio frames are PCM16 (2 bytes a sample), little-endian, 16 kHz, mono: an even number of bytes.', field: 'audio' });
            }
            if (room.ended()) return client.send({ type: 'error', code: 'ended', message: 'This session has ended.' });
            if (!holder.audio.take(bytes.byteLength / 2 / MIC_SAMPLE_RATE, now())) return client.send({ type: 'error', code: 'rate-limited', message: 'Audio arrives faster than real time; frames were dropped.' });
            if (!room.voice.input && !holder.toldVoiceOff) {
              holder.toldVoiceOff = true;
              client.send({ type: 'error', code: 'voice-off', message: room.voice.hint ?? 'Voice input is off on this server; type instead.' });
            }
            const pcm = new Int16Array(bytes.byteLength / 2);
            const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
            for (let i = 0; i < pcm.length; i++) pcm[i] = view.getInt16(i * 2, true);
            room.audio(client, pcm);
            return;
          }
          // One budget per person, whatever number of sockets they open: floods get typed errors, not a dropped socket.
          if (!holder.messages.take(1, now())) return client.send({ type: 'error', code: 'rate-limited', message: `At most ${config.messageRatePerS} messages a second.` });
          const raw = event.data;
          if (Buffer.byteLength(raw) > config.maxMessageBytes) {
            return client.send({ type: 'error', code: 'too-large', message: `Messages are limited to ${config.maxMessageBytes} bytes.` });
          }
          let json: unknown;
          try {
            json = JSON.parse(raw);
          } catch {
            return client.send({ type: 'error', code: 'bad-json', message: 'Messages are JSON objects with a "type".' });
          }
          const parsed = ClientMessage.safeParse(json);
          if (!parsed.success) {
            const issue = parsed.error.issues[0]!;
            const type = (json as { type?: unknown })?.type;
            const known = typeof type === 'string' && clientTypes.includes(type);
            return client.send({
              type: 'error',
              code: 'bad-message',
              message: known ? `${issue.path.join('.') || 'message'}: ${issue.message}` : `unknown message type ${JSON.stringify(type)}`,
              field: known ? issue.path.join('.') || 'type' : 'type',
            });
          }
          const message = parsed.data;
          if (message.type === 'leave') {
            forget(socket);
            socket.gone = true;
            socket.raw.close(1000, 'left');
            return;
          }
          const forParticipants = (participantTypes as readonly string[]).includes(message.type);
          const forObservers = (observerTypes as readonly string[]).includes(message.type);
          // Slides are changed by their presenters and by the instructor alike.
          if (forParticipants && !client.participant && message.type !== 'slide') {
            return client.send({ type: 'error', code: 'forbidden', message: `Observers cannot send "${message.type}"; they never appear in the room.` });
          }
          if (forObservers && client.role === 'participant') {
            return client.send({ type: 'error', code: 'forbidden', message: `Only observers can send "${message.type}".` });
          }
          // Each line is a turn: lines faster than anyone could hear them would fast-forward the scene.
          if (lineTypes.has(message.type) && !holder.lines.take(1, now())) {
            return client.send({ type: 'error', code: 'rate-limited', message: `One line every ${1 / LINE_RATE_PER_S} s at most (after ${LINE_BURST} at once): nobody could hear them faster.` });
          }
          const reply = room.handle(client, message);
          if (reply) client.send(reply);
        },
        onClose() {
          if (socket) forget(socket);
        },
      };
    }),
  );

  return { app, injectWebSocket };
};
