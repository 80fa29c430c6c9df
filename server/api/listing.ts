/**
 * What the instructors' sessions page shows (GET /api/sessions) and the join links of a session
 * (POST /api/sessions, GET /api/sessions/:id/links): pure functions of the store, the live rooms
 * and the scenes, so the routes stay a few lines each.
 *
 * ```ts
 * await listSessions({ store, rooms, sceneOf });
 * // [{ id, scene: { id, title }, status: 'live', pace, createdAt, endedAt, durationMs, turns, participants: [...], recording }, ...]
 * joinLinks(scene, sessionId, (claims) => tokens.sign(claims, ttl, now), 'https://rehearse.example.com');
 * // { tokens: { nadia: '…', observer: '…' }, links: { nadia: 'https://…/room/<id>?token=…', observer: '…' } }
 * ```
 */
import type { Claims } from '../../shared/claims';
import type { SessionStatus, SessionSummary } from '../../shared/protocol/messages';
import { recordOf } from '../../shared/review/record';
import { readLog } from '../review/report';
import type { Rooms } from '../rooms/rooms';
import type { LoadedScene } from '../../shared/scene/schema';
import type { SceneOf } from '../scene/versions';
import type { AnyStore } from '../store/store';

/** Every session, newest first, as the sessions page lists them: each with the scene it ran (its title and seats then). */
export const listSessions = async (from: { store: AnyStore; rooms: Rooms; sceneOf: SceneOf }): Promise<SessionSummary[]> => {
  const summaries = (await from.store.sessions()).map(async (row): Promise<SessionSummary> => {
    const room = from.rooms.get(row.id);
    const scene = await from.sceneOf(row);
    const live = room !== undefined && !room.ended();
    // A session this process does not hold is over (a crashed one is ended at start-up).
    const status: SessionStatus = live ? room.status() : 'ended';
    // An ended one's lines and length on the record's clock, as its review counts them (the lobby before the start is not part of it).
    const record = live ? null : recordOf(readLog(await from.store.events(row.id)));
    const turns = live ? room.conversation.state.turns : record!.turns;
    const durationMs = live ? room.conversation.state.t : record!.durationMs;
    const present = new Set(live ? room.snapshot('author', null).participants.filter((p) => p.present).map((p) => p.id) : []);
    return {
      id: row.id,
      scene: { id: row.scene, title: scene?.title ?? row.scene },
      status,
      pace: row.pace,
      seed: row.seed,
      createdAt: row.createdAt,
      endedAt: row.endedAt,
      durationMs: Math.max(0, durationMs),
      turns,
      participants: (scene?.participants ?? []).map((p) => ({ id: p.id, name: p.name, kind: p.kind, present: p.kind === 'ai' ? true : present.has(p.id) })),
      events: row.events,
      recording: row.recording,
    };
  });
  return (await Promise.all(summaries)).sort((a, b) => b.createdAt - a.createdAt);
};

/** A token for each human seat and one for the instructor (`observer`), and the room page link of each. */
export const joinLinks = (
  scene: Pick<LoadedScene, 'participants'>,
  session: string,
  sign: (claims: Omit<Claims, 'exp'>) => string,
  origin: string,
): { tokens: Record<string, string>; links: Record<string, string> } => {
  const tokens: Record<string, string> = {};
  for (const p of scene.participants) if (p.kind === 'human') tokens[p.id] = sign({ session, participant: p.id, role: 'participant' });
  tokens.observer = sign({ session, participant: null, role: 'observer' });
  const base = origin.replace(/\/+$/, '');
  const links = Object.fromEntries(Object.entries(tokens).map(([who, token]) => [who, `${base}/room/${session}?token=${encodeURIComponent(token)}`]));
  return { tokens, links };
};
