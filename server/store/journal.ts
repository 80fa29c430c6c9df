/**
 * The live sessions' logs as their rooms write them: stored, then told. A room appends each event
 * here, and the event reaches `committed` (where the room broadcasts it) only once the store holds
 * it, in order; so a client never sees an event a crash could lose.
 *
 * A write that fails is held, with every event after it, and retried with backoff. After
 * `attemptsBeforePause` failed attempts the session is told (`failing`: the room pauses it and
 * says why); the retries go on, at most `maxRetryMs` apart, until the store takes the writes again
 * (`recovered`: the room resumes). Nothing is dropped on the way: a held event is written before
 * any later one, or the process dies without anyone having seen it.
 *
 * A store that answers later (Postgres) is written the same way, one batch in flight per session:
 * events appended meanwhile wait behind it and go in the next batch. The SQLite store answers at
 * once, and its events are told within `append` itself, as before.
 *
 * A checkpoint (the engine's state after an event: conversation/checkpoint.ts) goes with the events
 * it follows, in the same write, so the stored one never runs ahead of the log nor falls behind
 * it: `append` takes a step's events and its checkpoint together, and the JSON is only made for
 * the latest one when its batch is written (a batch that ends anywhere else keeps the one stored).
 *
 * A log opened with a fence (the session's lease: server/cluster/) is written fenced by it. A write
 * the database refuses because another node took the lease over (`LeaseLostError`) is never
 * retried: what is held is dropped (no client saw it, and the new owner's log goes on without it),
 * later appends are dropped too, and the session is told once (`lost`: the room stops here).
 *
 * One session's failures never hold up another's: each log has its own queue and retry timer.
 * Another process's lock on the database is the exception: every write would then wait out the
 * store's busy timeout on the event loop, so the logs it holds up wait together and one probe at a
 * time tries for all of them.
 *
 * ```ts
 * const journal = createJournal(store, { log: console.error });
 * const log = journal.open(session, { committed: broadcast, failing: pause, recovered: resume });
 * log.append(event); // broadcast as soon as it is stored: now, or after the store recovers
 * ```
 */
import { LeaseLostError, type AnyStore, type Checkpoint, type Fence, type StoredEvent } from './store';

export interface JournalOptions {
  /** The first retry's delay; each further one doubles it, up to `maxRetryMs`. Default 50 ms. */
  firstRetryMs?: number;
  /** The longest wait between retries, so how late at most a session resumes once the store recovers. Default 1 s. */
  maxRetryMs?: number;
  /** Failed attempts (the write and its retries) before the session is paused. Default 3 (about 150 ms). */
  attemptsBeforePause?: number;
  /** A line for the server's log when a session starts failing and when it recovers. */
  log?: (line: string) => void;
}

export interface SessionLogHandlers {
  /** Events now stored, in seq order, each exactly once. */
  committed(events: readonly StoredEvent[]): void;
  /** Writing has failed `attemptsBeforePause` times in a row; retries go on. */
  failing(error: Error): void;
  /** Everything held is stored again, after `failing`. */
  recovered(): void;
  /** A fenced write was refused: another node holds the session's lease now. Nothing more is written. */
  lost?(error: LeaseLostError): void;
}

/** A checkpoint to write with the event `seq`; its JSON is made only if it is written. */
export interface PendingCheckpoint {
  seq: number;
  json(): string;
}

export interface SessionLog {
  /**
   * Stores `events` (one, or a step's) after every event appended before them, in one write when
   * nothing is held before them; `endedAt`: then marks the session ended; `checkpoint`: the state
   * after the last of them, written with it.
   */
  append(events: StoredEvent | readonly StoredEvent[], endedAt?: number, checkpoint?: PendingCheckpoint): void;
  /** From `failing` until `recovered`. */
  readonly failing: boolean;
}

export interface Journal {
  /** `fence`: every write of this log is fenced by the session's lease (store.ts `appendEvents`). */
  open(session: string, handlers: SessionLogHandlers, fence?: Fence): SessionLog;
  /**
   * Stops retrying (before the store closes): one last attempt for each log; returns the events still
   * held. A store that answers later: once the writes in flight are answered.
   */
  close(): number | Promise<number>;
}

interface Writer {
  /** One attempt to store what is held; a failure schedules the next. */
  retry(): void;
  /** An attempt not made because the database is locked: it counts as failed. */
  missed(error: Error): void;
  /** No more retries: one last attempt; how many events are still held once it is answered. */
  stop(): number | Promise<number>;
}

/** Another connection holds SQLite's lock (better-sqlite3's codes: SQLITE_BUSY, SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED…). */
const isLock = (error: Error): boolean => /^SQLITE_(BUSY|LOCKED)/.test(String((error as { code?: unknown }).code ?? ''));

const lockedError = () => Object.assign(new Error('the database is locked by another connection'), { code: 'SQLITE_BUSY' });

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

export const createJournal = (store: AnyStore, options: JournalOptions = {}): Journal => {
  const { firstRetryMs = 50, maxRetryMs = 1000, attemptsBeforePause = 3, log = () => {} } = options;
  const backoff = (failures: number) => Math.min(maxRetryMs, firstRetryMs * 2 ** Math.max(0, failures - 1));
  const writers = new Set<Writer>();
  /** Writers held up by a lock on the database, in the order they met it; the first probes for all. */
  const locked = new Set<Writer>();
  let probe: ReturnType<typeof setTimeout> | null = null;
  let probes = 0;
  let closed = false;

  const waitForLock = (writer: Writer) => {
    locked.add(writer);
    if (probe) return;
    probe = setTimeout(() => {
      probe = null;
      const [first, ...others] = locked;
      locked.clear();
      if (!first) return;
      first.retry();
      if (locked.has(first)) {
        // Still locked: the others' turns count as failed too, so every session held up pauses.
        for (const other of others) {
          locked.add(other);
          other.missed(lockedError());
        }
        return;
      }
      probes = 0;
      for (const other of others) other.retry();
    }, backoff(++probes));
    probe.unref?.();
  };

  const open = (session: string, handlers: SessionLogHandlers, fence?: Fence): SessionLog => {
    const held: StoredEvent[] = [];
    /** The latest checkpoint not yet written; written with the batch that ends at its seq. */
    let checkpoint: PendingCheckpoint | null = null;
    /** Another node holds the lease: nothing is written any more. */
    let lost = false;
    let endedAt: number | null = null;
    let failures = 0;
    let failing = false;
    let writing = false;
    let timer: ReturnType<typeof setTimeout> | null = null;

    const failed = (error: Error) => {
      failures += 1;
      if (!failing && failures >= attemptsBeforePause) {
        failing = true;
        log(`session ${session}: saving failed ${failures} times (${error.message}); the session is paused, ${held.length} event(s) held until the store takes writes again`);
        handlers.failing(error);
      }
    };

    const stored = (batch: StoredEvent[]) => {
      if (batch.length === 0) {
        endedAt = null;
        writers.delete(writer);
      } else {
        held.splice(0, batch.length);
        if (checkpoint && checkpoint.seq <= batch.at(-1)!.seq) checkpoint = null;
        // May append more (a listener reacting): the write loop writes it next.
        handlers.committed(batch);
      }
    };

    const refused = (error: unknown) => {
      if (closed || lost) return;
      if (error instanceof LeaseLostError) {
        lost = true;
        held.length = 0;
        checkpoint = null;
        endedAt = null;
        writers.delete(writer);
        return handlers.lost?.(error);
      }
      const reason = asError(error);
      failed(reason);
      if (isLock(reason)) waitForLock(writer);
      else {
        timer = setTimeout(writer.retry, backoff(failures));
        timer.unref?.();
      }
    };

    /** The write loop has ended: all held stored (`done`), or a write failed and its retry is set. */
    let settle: (() => void) | null = null;
    const finish = (done: boolean) => {
      writing = false;
      if (done) {
        failures = 0;
        if (failing) {
          failing = false;
          log(`session ${session}: saving works again; every held event is stored`);
          handlers.recovered();
        }
      }
      settle?.();
    };

    /**
     * Stores what is held, telling `committed` batch by batch, then `finish`es. A store that
     * answers at once is written in this call; one that answers later, batch after batch as each
     * is answered.
     */
    const write = (): void => {
      while (held.length > 0 || endedAt !== null) {
        const batch = held.slice();
        let answer: void | Promise<void>;
        try {
          const last = batch.at(-1)?.seq;
          const written: Checkpoint | undefined = checkpoint && checkpoint.seq === last ? { seq: last, json: checkpoint.json() } : undefined;
          answer = batch.length > 0 ? store.appendEvents(session, batch, fence, written) : store.markEnded(session, endedAt!, fence);
        } catch (error) {
          refused(error);
          return finish(false);
        }
        if (answer instanceof Promise) {
          answer.then(
            () => {
              try {
                stored(batch);
              } catch (error) {
                writing = false;
                throw error;
              }
              write();
            },
            (error: unknown) => {
              refused(error);
              finish(false);
            },
          );
          return;
        }
        stored(batch);
      }
      finish(true);
    };

    const attempt = () => {
      if (writing) return;
      writing = true;
      try {
        write();
      } catch (error) {
        // A listener's throw (committed, recovered): the loop stops as it did before; the next append goes on.
        writing = false;
        throw error;
      }
    };

    const writer: Writer = {
      retry() {
        timer = null;
        attempt();
      },
      missed: failed,
      stop() {
        if (timer) clearTimeout(timer);
        timer = null;
        attempt();
        if (!writing) return held.length;
        return new Promise<number>((resolve) => {
          settle = () => resolve(held.length);
        });
      },
    };
    writers.add(writer);

    return {
      append(events, at, next) {
        if (lost) return;
        if (Array.isArray(events)) held.push(...(events as readonly StoredEvent[]));
        else held.push(events as StoredEvent);
        if (at !== undefined) endedAt = at;
        if (next) checkpoint = next;
        // Behind a failed write the event waits for its retry, so the order holds.
        if (writing || timer || locked.has(writer)) return;
        // Another connection holds the database: wait with the others instead of blocking the event loop again.
        if (locked.size > 0) {
          waitForLock(writer);
          failed(lockedError());
          return;
        }
        attempt();
      },
      get failing() {
        return failing;
      },
    };
  };

  return {
    open,
    close() {
      closed = true;
      if (probe) clearTimeout(probe);
      locked.clear();
      const left = [...writers].map((writer) => writer.stop());
      writers.clear();
      const count = (counts: number[]) => counts.reduce((sum, n) => sum + n, 0);
      return left.some((n) => n instanceof Promise) ? Promise.all(left).then(count) : count(left as number[]);
    },
  };
};
