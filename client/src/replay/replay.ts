/**
 * The room at any moment of a recorded session, for the 3D replay: the log (as the viewer may see
 * it, `GET /api/sessions/:id/replay`) folded by the live room's own reducer (state/room.ts) up to the
 * playhead, so presence, the floor and the addressee, hands, nods, cuts and slides are what the
 * room showed then; and who speaks at the playhead, from the report's timeline. Pure.
 *
 * Each event is placed on the record's clock (ms from the session's start, shared/review/record.ts):
 * an utterance at its start on the report's timeline (when the room heard it begin), anything else
 * where the record places it, so the replay's order is the review's and the transcript's.
 *
 * ```ts
 * const replay = createReplay(data, report, { participant: null, role: 'observer' });
 * const view = replay.at(42_000); // the room 42 s in; the same object until an event is passed
 * replay.speakingAt(42_000); // 'nora'
 * ```
 */
import type { Role } from '../../../shared/claims';
import type { SessionEvent } from '../../../shared/events';
import { recordOf } from '../../../shared/review/record';
import type { ReplayData } from '../../../shared/review/replay';
import type { Report } from '../../../shared/review/report';
import { emptyRoom, reduceRoom, type RoomView } from '../state/room';
import { utteranceAt, utterancesOf } from '../review/series';

export interface Replay {
  /**
   * The room view at `ms`; moving forward folds only the events passed, moving back folds again from
   * the start. At the report's end (or past it) every event is folded: the session has ended there.
   */
  at(ms: number): RoomView;
  /** Whose utterance runs at `ms` (the latest to start), or null; null at the report's end and past it. */
  speakingAt(ms: number): string | null;
}

/** The log on the report's clock: events by their time there, numbered again in that order (the reducer takes each seq once, in order). */
export const placeEvents = (events: readonly SessionEvent[], report: Report): { at: number; event: SessionEvent }[] => {
  const record = recordOf(events);
  const starts = new Map(utterancesOf(report).map((u) => [u.utterance, u.startMs]));
  const placed = events.map((event) => ({ at: event.type === 'utterance' ? (starts.get(event.id) ?? record.place(event)) : record.place(event), event }));
  // Array.prototype.sort is stable: events at one time keep the log's order.
  placed.sort((a, b) => a.at - b.at);
  return placed.map(({ at, event }, i) => ({ at, event: { ...event, seq: i + 1 } }));
};

export const createReplay = (data: ReplayData, report: Report, you: { participant: string | null; role: Role }): Replay => {
  const placed = placeEvents(data.events, report);
  const utterances = utterancesOf(report);
  // The room before anything happened: the scene's seats, nobody here yet (`joined` events say who came).
  const start = reduceRoom(emptyRoom(), {
    type: 'welcome',
    protocol: 1,
    you,
    resumedFrom: 0,
    voice: { input: false, output: null },
    snapshot: {
      session: data.session,
      scene: data.scene,
      brief: null,
      participants: data.participants.map((p) => ({ ...p, present: false })),
      phase: 'running',
      status: 'lobby',
      pausedFor: null,
      paused: false,
      turns: 0,
      snippet: '',
      expected: null,
      waitingFor: null,
      hands: [],
      slides: {},
      proposal: null,
      lastSeq: 0,
    },
  });
  let view = start;
  let next = 0;
  let lastMs = -Infinity;
  return {
    at(ms) {
      if (ms < lastMs) {
        view = start;
        next = 0;
      }
      lastMs = ms;
      // The report's clock ends where its last event or speech does; an event placed a rounding past it still counts.
      const end = ms >= report.durationMs;
      while (next < placed.length && (end || placed[next]!.at <= ms)) view = reduceRoom(view, { type: 'event', event: placed[next++]!.event });
      return view;
    },
    // At the end nobody speaks any more (the page says the session has ended).
    speakingAt: (ms) => (ms >= report.durationMs ? null : (utteranceAt(utterances, ms)?.participant ?? null)),
  };
};
