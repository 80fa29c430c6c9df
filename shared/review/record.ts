/**
 * The record's one clock (issue 25): where each event of a session log sits, in ms from the
 * session's start, and so the order, the times and the count of its lines. The report's timeline
 * (and through it the review, the debrief, the written feedback, the recordings and every export),
 * the readable transcript, the ended page's summary and the 3D replay all place events with it, so
 * they cannot disagree. Pure and browser-safe.
 *
 * A line's place is when the room heard it begin: speech at its `spoken.start` (a human's from the
 * VAD, a persona's from its first audio), a typed line at `sentAt` (when the room received it).
 * Without either (instant runs, scripted and text-only lines, older logs) the event's `t` is the
 * engine's estimate, never before the line logged before it. No line is placed before the line it
 * answers (`replyTo`): an older log dated a typed line at the end of the speech it cut, after the
 * reply to it had begun; the reply now sits with it. Scripted lines are logged ahead of being
 * heard, so a line typed meanwhile is logged after them but heard before: the record follows the
 * times, the log's order among equals. Anything else sits at its own time, no later than the next
 * line logged, except what happens within a line: an interruption where the speech stopped, a
 * backchannel as far into its line as it came. `ordered`: the log by place.
 *
 * ```ts
 * const record = recordOf(readLog(store.events(id)));
 * record.lines.map((l) => [l.startMs, l.event.text]); // in order, times never going back
 * record.place(event); // any event's ms from the start
 * record.turns; // the lines logged: the summary, the report and the transcript say the same
 * ```
 */
import type { EventOf, SessionEvent } from '../events';
import { countWords, speakingMs } from '../words';

export interface PlacedLine {
  event: EventOf<'utterance'>;
  startMs: number;
  endMs: number;
  /** How long it was heard: its `spoken` span, else its logged length, else its words at the speaker's rate. */
  lengthMs: number;
}

export interface SessionRecord {
  /** The session's start on the log's clock (its `session-start` event's `t`; 0 without one). */
  origin: number;
  /** Every utterance in the record's order, placed. */
  lines: PlacedLine[];
  /** An event's place in ms from the start (0 for one not in the log given). */
  place(event: SessionEvent): number;
  /** The placed line of an utterance event of the log. */
  line(event: EventOf<'utterance'>): PlacedLine | undefined;
  /** The log's events in the record's order: by place, the log's order among equals. */
  ordered: SessionEvent[];
  /** The lines logged (a skipped turn logs none). */
  turns: number;
  /** From the start to the last place or the end of the last speech, whichever is later. */
  durationMs: number;
}

/**
 * Places every event of `events` (a log in its order). `rateOf`: a speaker's words per minute, for
 * the length of a line logged without one (default: the session start's, else the default rate).
 */
export const recordOf = (events: readonly SessionEvent[], rateOf?: (speaker: string) => number | undefined): SessionRecord => {
  const start = events.find((e): e is EventOf<'session-start'> => e.type === 'session-start');
  const origin = start?.t ?? 0;
  const rates = new Map((start?.participants ?? []).map((p) => [p.id, p.speakingRate]));
  const rate = rateOf ?? ((speaker: string) => rates.get(speaker));
  const at = (ms: number) => Math.max(0, Math.round(ms - origin));

  // The lines first: each heard at its own start, never before the line it answers.
  const logged: PlacedLine[] = [];
  const byEvent = new Map<SessionEvent, PlacedLine>();
  const startOf = new Map<string, number>();
  /** For each event, the index in `logged` of the first line logged after it. */
  const nextLine: number[] = [];
  for (const event of events) {
    nextLine.push(logged.length);
    if (event.type !== 'utterance') continue;
    const heard = event.spoken?.start ?? event.sentAt;
    const estimated = heard === undefined ? Math.max(at(event.t), logged.at(-1)?.startMs ?? 0) : at(heard);
    const startMs = Math.max(estimated, (event.replyTo ? startOf.get(event.replyTo) : undefined) ?? 0);
    startOf.set(event.id, startMs);
    const lengthMs = Math.max(0, Math.round(event.spoken ? event.spoken.end - event.spoken.start : event.durationMs > 0 ? event.durationMs : speakingMs(countWords(event.text), rate(event.speaker))));
    const line = { event, startMs, endMs: startMs + lengthMs, lengthMs };
    logged.push(line);
    byEvent.set(event, line);
  }
  const lines = logged.map((line, i) => ({ line, i })).sort((a, b) => a.line.startMs - b.line.startMs || a.i - b.i).map(({ line }) => line);

  // Everything else at its own time, between the lines around it, never before what came before it.
  const places = new Map<SessionEvent, number>();
  const latestById = new Map<string, PlacedLine>();
  let durationMs = 0;
  events.forEach((event, i) => {
    const line = byEvent.get(event);
    if (line) {
      latestById.set(line.event.id, line);
      places.set(event, line.startMs);
      durationMs = Math.max(durationMs, line.endMs);
      return;
    }
    // Within a line: where its speech stopped, or as far into it as a listener reacted. A barge-in's
    // words may have begun before the speech they cut stopped: that is where the record keeps them.
    const concerned = event.type === 'interruption' || event.type === 'backchannel' ? latestById.get(event.utterance) : undefined;
    if (concerned && (event.type !== 'interruption' || event.atMs !== undefined)) {
      const into = event.type === 'interruption' ? event.atMs! : event.t - concerned.event.t;
      const within = concerned.startMs + Math.min(concerned.lengthMs, Math.max(0, Math.round(into)));
      places.set(event, within);
      durationMs = Math.max(durationMs, within);
      return;
    }
    const place = Math.min(at(event.t), logged[nextLine[i]!]?.startMs ?? Infinity);
    places.set(event, place);
    durationMs = Math.max(durationMs, place);
  });

  const place = (event: SessionEvent) => places.get(event) ?? 0;
  return {
    origin,
    lines,
    ordered: events.map((event, i) => ({ event, i, at: place(event) })).sort((a, b) => a.at - b.at || a.i - b.i).map(({ event }) => event),
    place,
    line: (event) => byEvent.get(event),
    turns: lines.length,
    durationMs,
  };
};
