/**
 * What a client is shown of a room when it joins (the welcome's snapshot), before its backlog:
 * the scene as its role may read it (a participant, their own parties' contents and their seat's
 * brief), who is here, the session's status and why it is paused, the floor, hands and slides;
 * to instructors also the open proposal and the seats they hold.
 *
 * ```ts
 * const snapshot = snapshotOf({ session: id, scene, state: conversation.state, status: 'live', present, emptySeats: [], recording: false }, 'participant', 'jordan');
 * ```
 */
import type { Role } from '../../shared/claims';
import type { SessionState } from '../engine/session';
import type { SessionStatus, Snapshot } from '../../shared/protocol/messages';
import type { LoadedScene } from '../../shared/scene/schema';
import { briefOf, sceneViewOf, seatsOf } from '../../shared/scene/view';

export interface RoomNow {
  session: string;
  scene: LoadedScene;
  state: SessionState;
  status: SessionStatus;
  present(participant: string): boolean;
  /** The seats the session is paused for. */
  emptySeats: string[];
  recording: boolean;
}

export const snapshotOf = (room: RoomNow, role: Role, participant?: string | null): Snapshot => {
  const { scene, state, emptySeats } = room;
  const mine = new Set(scene.parties.filter((p) => participant && p.members.includes(participant)).map((p) => p.id));
  const seat = scene.participants.find((p) => p.id === participant);
  const pending = state.pending?.kind === 'utterance' ? state.pending.plan.speaker : null;
  return {
    session: room.session,
    scene: sceneViewOf(scene, (owner) => role !== 'participant' || mine.has(owner)),
    brief: role === 'participant' && seat ? briefOf(seat) : null,
    participants: seatsOf(scene, room.present),
    phase: state.phase,
    status: room.status,
    pausedFor: !state.paused ? null : emptySeats.length ? { reason: 'seat-empty', participants: emptySeats } : { reason: 'instructor', participants: [] },
    paused: state.paused,
    turns: state.turns,
    snippet: scene.snippets[state.snippet]!.id,
    expected: state.awaiting?.speaker ?? pending,
    waitingFor: state.awaiting?.speaker ?? null,
    hands: state.hands,
    slides: state.slides,
    proposal: role === 'participant' ? null : state.proposal,
    ...(role === 'participant' ? {} : { controlled: state.controlled }),
    lastSeq: state.seq,
    recording: room.recording,
  };
};
