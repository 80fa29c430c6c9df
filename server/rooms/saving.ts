/**
 * A room's log as it is saved: each event appended through the journal (store/journal.ts) and
 * handed on (`committed`: broadcast, recorded) only once stored, so a crash can lose nothing a
 * client received. When writing keeps failing only this session pauses: its clients are told at
 * once (an `error` with code `storage`, outside the log), the log gets `saving-failed` and
 * `saving-recovered` notices once it can take them, and the session resumes by itself, unless it
 * was paused already or still waits for someone's seat.
 *
 * ```ts
 * const saving = createSaving({ session: id, journal, conversation, committed: broadcastIt, tell: broadcast.send, ended, waitsForSeats });
 * saving.append(event); // broadcast once stored
 * saving.resume(); // now, or once saving works again
 * ```
 */
import type { Conversation } from '../conversation/conversation';
import type { SessionEvent } from '../../shared/events';
import type { ServerMessage } from '../../shared/protocol/messages';
import type { Journal, PendingCheckpoint } from '../store/journal';

export interface SavingOptions {
  session: string;
  journal: Journal;
  conversation: Pick<Conversation, 'send' | 'state'>;
  /** An event now stored, in seq order, each once. */
  committed(event: SessionEvent): void;
  /** A message for every client of the session, at once. */
  tell(message: ServerMessage): void;
  /** The session has ended: nothing more is said or resumed. */
  ended(): boolean;
  /** The session waits for a seat (paused for it): saving working again does not resume it. */
  waitsForSeats(): boolean;
}

export interface Saving {
  /**
   * Stores `events` (a step's) after every event before them; `endedAt`: then marks the session
   * ended; `checkpoint`: where the session resumes after them, written with them.
   */
  append(events: SessionEvent | readonly SessionEvent[], endedAt?: number, checkpoint?: PendingCheckpoint): void;
  /** Writing is failing: the session stays paused until it works. */
  readonly failing: boolean;
  /** Nobody is waited for any more: the session resumes now, or (saving failing) once saving works. */
  resume(): void;
}

/** What every client of a session is told while its events cannot be stored. */
export const savingFailedMessage = 'Saving failed; the session is paused until storage recovers.';

/**
 * A store call tried again once when it fails (throws, or answers later with a rejection): a lock
 * released a moment ago, a fault that passed.
 */
export const tryTwice = <T>(call: () => T): T => {
  let answer: T;
  try {
    answer = call();
  } catch {
    return call();
  }
  return (answer instanceof Promise ? answer.catch(() => call()) : answer) as T;
};

export const createSaving = (options: SavingOptions): Saving => {
  const { conversation, ended } = options;
  /** Saving failed while the session ran (or a seat came back meanwhile): it resumes once saving works. */
  let resumeAfterSaving = false;
  const notice = (code: string, message: string, level: 'info' | 'warn') => conversation.send({ type: 'notice', level, code, message });

  const log = options.journal.open(options.session, {
    committed: (events) => {
      for (const event of events as SessionEvent[]) options.committed(event);
    },
    failing: () => {
      options.tell({ type: 'error', code: 'storage', message: savingFailedMessage });
      if (ended()) return;
      notice('saving-failed', 'Saving failed; the session was paused until storage recovered.', 'warn');
      resumeAfterSaving = !conversation.state.paused;
      if (resumeAfterSaving) conversation.send({ type: 'pause' });
    },
    recovered: () => {
      if (ended()) return;
      notice('saving-recovered', 'Saving works again; the session goes on.', 'info');
      if (resumeAfterSaving && !options.waitsForSeats()) conversation.send({ type: 'resume' });
      resumeAfterSaving = false;
    },
  });

  return {
    append: (events, endedAt, checkpoint) => log.append(events, endedAt, checkpoint),
    get failing() {
      return log.failing;
    },
    resume() {
      if (log.failing) resumeAfterSaving = true;
      else conversation.send({ type: 'resume' });
    },
  };
};
