/**
 * What a 3D replay of a session needs (`GET /api/sessions/:id/replay`, issue 17 part 4): the room
 * as its scene sets it (formation, the contents this viewer may see, who sits where and with which
 * avatar) and the log as this viewer may see it (shared/events.ts `visibleTo`, as `/events` and the
 * report filter it). The client folds the events as the live room folds them (client/src/state/room.ts),
 * so the replay and the room cannot disagree. Pure: events and the scene in.
 *
 * ```ts
 * const data = replayOf(id, scene, readLog(store.events(id)), { role: 'participant', participant: 'jordan' });
 * data.events.some((e) => e.type === 'approval-needed'); // false: instructors' only
 * ```
 */
import type { Role } from '../../shared/claims';
import { asParticipantsSee, visibleTo, type SessionEvent } from '../../shared/events';
import type { LoadedScene } from '../../shared/scene/schema';
import { sceneViewOf, seatsOf } from '../../shared/scene/view';
import type { ReplayData } from '../../shared/review/replay';

export const replayOf = (session: string, scene: LoadedScene, events: readonly SessionEvent[], access: { role: Role; participant: string | null }): ReplayData => {
  const instructor = access.role !== 'participant';
  const humans = new Set(scene.participants.filter((p) => p.kind === 'human').map((p) => p.id));
  // A participant sees the public contents and their own parties' (as rooms.ts's snapshot gives them).
  const mine = new Set(scene.parties.filter((p) => access.participant && p.members.includes(access.participant)).map((p) => p.id));
  const start = events.find((e) => e.type === 'session-start');
  const presentAtStart = new Map(start?.type === 'session-start' ? start.participants.map((p) => [p.id, p.present]) : []);
  return {
    session,
    scene: sceneViewOf(scene, (owner) => instructor || mine.has(owner)),
    participants: seatsOf(scene, (id) => presentAtStart.get(id) ?? false),
    // A participant replays the room as they saw it: an instructor's say-as line is the seat's own.
    events: events.filter((e) => visibleTo({ instructor, seat: access.participant }, e)).map((e) => (instructor ? e : asParticipantsSee(e, humans))),
  };
};
