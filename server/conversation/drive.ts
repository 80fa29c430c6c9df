/**
 * One whole simulated session: a live room at instant pace with nobody really present. Every
 * human is simulated, a human-control proposal is approved or dismissed by a fixed rule (standing
 * in for the instructor's audit panel), and the event log is returned when the session ends.
 */
import type { LoadedScene } from '../scene/schema';
import type { SessionEvent } from '../engine/events';
import type { Generator } from '../providers/generator/port';
import { openLiveRoom, type Notice } from './live';

export type { Notice };

export interface DriveOptions {
  seed: number;
  generator: Generator;
  /** How the stand-in instructor answers a human-control proposal. */
  approvals?: 'approve' | 'dismiss';
  maxTurns?: number;
  onEvent?: (event: SessionEvent) => void;
  takeNotices?: () => Notice[];
}

export const driveSession = (scene: LoadedScene, options: DriveOptions): Promise<SessionEvent[]> => {
  const room = openLiveRoom(scene, {
    seed: options.seed,
    generator: options.generator,
    pace: 'instant',
    ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
    ...(options.takeNotices ? { takeNotices: options.takeNotices } : {}),
    onEvent: (event) => {
      options.onEvent?.(event);
      if (event.type === 'approval-needed') room.send({ type: 'approval', proposal: event.proposal, decision: options.approvals ?? 'approve' });
    },
  });
  return room.ended;
};
