/**
 * Pacing: when the next persona may start talking in a running conversation. The engine decides
 * who speaks next; this decides when, from the room's clock.
 *
 * - `pace: 'instant'` never waits for speech to be heard (simulations, tests);
 * - `pace: 'realtime'` holds the next reply until the floor is free: the last utterance has been
 *   heard, by its estimated speaking time or its real audio, divided by `speed`.
 *
 * At either pace a present human who is typing holds the next reply (up to `typingHoldMs` unless
 * renewed), as does one whose voice has started (until their words come), so agents do not talk
 * over someone composing or speaking; and a paused session holds it until it resumes.
 *
 * ```ts
 * const pacing = createPacing({ pace: 'realtime', speed: 2, typingHoldMs: 8000, now, sleep });
 * pacing.spoke(3000); // an utterance of 3 s: the floor is free in 1.5 s
 * await pacing.untilTurn(() => stillWanted(id), () => state.paused);
 * ```
 */
import type { Pace } from '../../shared/events';

export type { Pace };

export interface PacingOptions {
  pace: Pace;
  /** Realtime only: how much faster than spoken time turns follow each other. */
  speed: number;
  /** How long a "typing" signal holds back AI replies unless renewed. */
  typingHoldMs: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

export interface Pacing {
  readonly realtime: boolean;
  /** When the floor is free (realtime). */
  readonly floorFreeAt: number;
  /** The floor is taken until `t` (realtime only). */
  holdFloorUntil(t: number): void;
  /** Speech of `durationMs` starts now: the floor is taken until it has been heard (realtime only). */
  spoke(durationMs: number): void;
  /** Speech was cut off now: the floor is free. */
  freeFloor(): void;
  /** When audio of `durationMs` that started playing at `startedAt` has been heard. */
  heardAt(startedAt: number, durationMs: number): number;
  /** How much of the audio that started playing at `startedAt` has been heard by now, in ms. */
  heardSince(startedAt: number): number;
  /** A present human started (or stopped) composing a message. */
  typing(participant: string, active: boolean): void;
  /** A present human's voice began: nobody starts talking over them until their words come. */
  voiceStarted(participant: string): void;
  /** The human's words came (or none will): they no longer hold the next reply. */
  release(participant: string): void;
  /**
   * Waits until the next reply may start: the floor is free (realtime), nobody is typing or
   * talking, the session is not `paused()`. Returns early once the reply is no longer `wanted()`.
   */
  untilTurn(wanted: () => boolean, paused: () => boolean): Promise<void>;
  /**
   * Realtime: waits until `freeAt()` (re-read after each sleep) has passed and nobody is typing or
   * talking, unless `wanted()` turns false: a line the engine wrote itself is voiced then.
   */
  untilFree(freeAt: () => number, wanted: () => boolean): Promise<void>;
}

/** How long a voice that started holds the floor if its end never comes (a dropped microphone). */
const VOICE_HOLD_MS = 30_000;

export const createPacing = (options: PacingOptions): Pacing => {
  const { pace, speed, typingHoldMs, now, sleep } = options;
  const realtime = pace === 'realtime';
  let floorFreeAt = now();
  /** Until when each present human holds the next reply, by typing or by talking. */
  const holds = new Map<string, number>();

  const holdFloorUntil = (t: number): void => {
    if (realtime) floorFreeAt = t;
  };

  const untilFree = async (freeAt: () => number, wanted: () => boolean): Promise<void> => {
    // Re-read after each sleep: a line being voiced moves the floor to its audio's real end.
    while (freeAt() > now() && wanted()) await sleep(Math.min(freeAt() - now(), 250));
    // Waits while a present human is composing or talking, as long as their signal is fresh.
    for (;;) {
      const t = now();
      const until = Math.max(0, ...[...holds.values()].filter((u) => u > t));
      if (until <= t || !wanted()) break;
      await sleep(Math.min(250, until - t));
    }
  };

  return {
    realtime,
    get floorFreeAt() {
      return floorFreeAt;
    },
    holdFloorUntil,
    spoke: (durationMs) => holdFloorUntil(now() + durationMs / speed),
    freeFloor: () => holdFloorUntil(now()),
    heardAt: (startedAt, durationMs) => startedAt + durationMs / speed,
    heardSince: (startedAt) => (now() - startedAt) * speed,
    typing(participant, active) {
      if (active) holds.set(participant, now() + typingHoldMs);
      else holds.delete(participant);
    },
    voiceStarted: (participant) => void holds.set(participant, now() + VOICE_HOLD_MS),
    release: (participant) => void holds.delete(participant),
    async untilTurn(wanted, paused) {
      await untilFree(() => (realtime ? floorFreeAt : -Infinity), wanted);
      // Paused: the next speaker does not start talking until the room resumes.
      while (paused() && wanted()) await sleep(100);
    },
    untilFree,
  };
};
