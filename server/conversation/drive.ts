/**
 * One whole simulated session: a conversation at instant pace with nobody really present. Every
 * human is simulated, a human-control proposal is approved or dismissed by a fixed rule (standing
 * in for the instructor's audit panel), and the event log is returned when the session ends.
 */
import type { LoadedScene } from '../../shared/scene/schema';
import type { SessionEvent } from '../../shared/events';
import type { Generator } from '../providers/generator/port';
import { openConversation } from './conversation';

export interface DriveOptions {
  seed: number;
  generator: Generator;
  /** How the stand-in instructor answers a human-control proposal. */
  approvals?: 'approve' | 'dismiss';
  maxTurns?: number;
  onEvent?: (event: SessionEvent) => void;
}

export const driveSession = (scene: LoadedScene, options: DriveOptions): Promise<SessionEvent[]> => {
  const conversation = openConversation(scene, {
    seed: options.seed,
    generator: options.generator,
    pace: 'instant',
    ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
    onEvent: (event) => {
      options.onEvent?.(event);
      if (event.type === 'approval-needed') conversation.send({ type: 'approval', proposal: event.proposal, decision: options.approvals ?? 'approve' });
    },
  });
  return conversation.ended;
};
