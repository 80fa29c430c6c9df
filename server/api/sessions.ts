/**
 * Sessions: made, listed, read, ended and deleted.
 *
 *   POST   /api/sessions                  author: create a live session of a scene (tokens and join links)
 *   GET    /api/sessions                  author: every session, live or past, newest first (scene, status,
 *                                         seats and who is present, duration, turns)
 *   GET    /api/sessions/:id/links        author: fresh tokens and join links for every seat and the observer
 *   GET    /api/sessions/:id              any role of the session: a snapshot
 *   GET    /api/sessions/:id/events       observer or author: the log as JSON lines
 *   DELETE /api/sessions/:id              observer or author: end the session
 *   DELETE /api/sessions/:id?purge=true   observer or author: end it, then delete its log, its row and its recordings
 *
 * ```ts
 * app.route('/api/sessions', sessions({ authorize, rooms, store, reports, sceneOf, sign, linkOrigin }));
 * ```
 */
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { roles, type Claims } from '../../shared/claims';
import { endedBecause, visibleTo, type SessionEvent } from '../../shared/events';
import type { RecordingStore } from '../recordings/store';
import { recordOf } from '../../shared/review/record';
import { readLog } from '../review/report';
import { UnknownSceneError, type Rooms } from '../rooms/rooms';
import type { SceneOf } from '../scene/versions';
import type { AnyStore } from '../store/store';
import type { ApiEnv, Authorize } from './access';
import { jsonBody, seqParam } from './input';
import { joinLinks, listSessions } from './listing';
import { problem } from './problem';
import type { SessionReports } from './reports';

/** The close code of a deleted session's sockets (4xxx: the application's own). */
const CLOSE_DELETED = 4410;

export interface SessionsOptions {
  authorize: Authorize;
  rooms: Rooms;
  store: AnyStore;
  reports: SessionReports;
  /** The scene a session ran (its live room's, else the version stored with it): its seats, title and links. */
  sceneOf: SceneOf;
  /** A session token for these claims, valid from now for the configured time. */
  sign: (claims: Omit<Claims, 'exp'>) => string;
  /** Where join links point (security.ts's publicOrigin). */
  linkOrigin: (c: Context) => string;
  /** Deleted with a purged session. */
  recordings?: RecordingStore;
  /** The server's log: a line when a session is deleted. */
  log?: (line: string) => void;
}

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

export const sessions = (options: SessionsOptions): Hono<ApiEnv> => {
  const { authorize, rooms, store, reports, sceneOf, sign, linkOrigin } = options;
  const app = new Hono<ApiEnv>();
  const author = authorize(['author']);
  const instructor = authorize(['observer', 'author']);

  app.post('/', author, async (c) => {
    const read = await jsonBody(c, CreateSession, 'The body must be JSON: {"scene": "<scene id>", "pace"?: "realtime" | "instant"}.');
    if (!read.ok) return read.problem;
    let room;
    try {
      const { scene, pace, standIns, recording } = read.data;
      room = await rooms.create(scene, { pace, standIns, ...(recording !== undefined ? { recording } : {}) });
    } catch (error) {
      // Anything else (the store failing) is the server's problem, not the request's.
      if (!(error instanceof UnknownSceneError)) throw error;
      return problem(c, 404, 'unknown-scene', error.message);
    }
    // Join links, keyed like the tokens: the room page of this server (PUBLIC_URL) for each seat and the observer.
    const { tokens: issued, links } = joinLinks(room.scene, room.id, sign, linkOrigin(c));
    return c.json({ id: room.id, scene: room.scene.id, pace: room.pace, seed: room.seed, recording: room.recording, tokens: issued, links }, 201);
  });

  app.get('/', author, async (c) => c.json({ sessions: await listSessions({ store, rooms, sceneOf }) }));

  app.get('/:id/links', author, async (c) => {
    const id = c.req.param('id');
    const row = await store.session(id);
    const scene = row && (await sceneOf(row));
    if (!row || !scene) return problem(c, 404, 'not-found', `No session "${id}".`);
    return c.json({ id, ...joinLinks(scene, id, sign, linkOrigin(c)) });
  });

  app.get('/:id', authorize(roles), async (c) => {
    const id = c.req.param('id');
    const room = rooms.get(id);
    if (room && !room.ended()) return c.json(room.snapshot(c.get('access').role, c.get('access').participant));
    const row = await store.session(id);
    if (!row) return problem(c, 404, 'not-found', `No session "${id}".`);
    // An ended session (or one this process no longer holds): what it was, from its log.
    // Its length and its lines on the record's clock, as the review and the transcript count them.
    const log = readLog(await store.events(id));
    const record = recordOf(log);
    const scene = await sceneOf(row);
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
      lastSeq: await store.lastSeq(id),
    });
  });

  app.get('/:id/events', instructor, async (c) => {
    const id = c.req.param('id');
    if (!(await store.session(id))) return problem(c, 404, 'not-found', `No session "${id}".`);
    const after = seqParam(c.req.query('after'));
    const { role, participant } = c.get('access');
    const viewer = { instructor: role !== 'participant', seat: participant };
    const lines = ((await store.events(id, after)) as SessionEvent[]).filter((e) => visibleTo(viewer, e)).map((e) => `${JSON.stringify(e)}\n`);
    return c.body(lines.join(''), 200, { 'content-type': 'application/x-ndjson; charset=utf-8' });
  });

  app.delete('/:id', instructor, async (c) => {
    const id = c.req.param('id');
    const room = rooms.get(id);
    const by = c.get('access').role === 'author' ? 'the admin' : 'an instructor';
    if (c.req.query('purge') !== 'true') {
      if (!room) return problem(c, 404, 'not-found', `No live session "${id}".`);
      if (!room.ended()) room.end(by);
      return c.json({ id, ended: true });
    }
    if (!room && !(await store.session(id))) return problem(c, 404, 'not-found', `No session "${id}".`);
    if (room && !room.ended()) room.end(by);
    // The end is stored before anything is deleted; a log still being saved is not deleted under its writer.
    if (room && (await store.session(id))?.endedAt === null) return problem(c, 409, 'still-saving', 'The session ended but its log is still being saved; delete it again in a moment.');
    await options.recordings?.remove(id);
    await store.deleteSession(id);
    // Its open sockets are told, and closed with a code of their own (4410) so a page can say why.
    rooms.close(id, { code: CLOSE_DELETED, reason: 'session deleted' });
    reports.forget(id);
    options.log?.(`session ${id}: deleted by ${by}, with its log and recordings`);
    return c.json({ id, ended: true, deleted: true });
  });

  return app;
};
