/**
 * What a 3D replay is given (GET /api/sessions/:id/replay; server/review/replay.ts builds it): the room
 * as its scene sets it and the log as this viewer may see it; the client folds the events as the live
 * room does (client/src/state/room.ts).
 */
import type { SessionEvent } from '../events';
import type { Snapshot } from '../protocol/messages';

export interface ReplayData {
  session: string;
  scene: Snapshot['scene'];
  /** Everyone seated, as a snapshot lists them (`present` from the log's start: who was there then). */
  participants: Snapshot['participants'];
  events: SessionEvent[];
}
