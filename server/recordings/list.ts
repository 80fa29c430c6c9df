/**
 * What GET /api/sessions/:id/recordings answers: the recordings of the utterances a viewer may
 * see, on the report's clock, and the utterances whose audio should be there but is gone. Pure and
 * browser-safe (the client checks its answers against `RecordingList`).
 *
 * An utterance is on the list when the viewer's report (review/report.ts, already filtered by
 * `reportFor`) has it on its timeline: its `startMs` is that item's, so a recording plays where
 * the timeline draws the utterance. Its audio is there when its WAV is. It is `missing` when it
 * should be there and is not: a sidecar without its WAV (the sidecar is written first), or, in a
 * session that records microphones, a spoken human utterance with neither.
 *
 * ```ts
 * recordingListOf(id, reportFor(report, viewer), store.events(id), recordings.list(id), row.recording);
 * // { recordings: [{ utterance: 'u3', seq: 12, participant: 'ada', startMs: 5210, durationMs: 2380, ... }], missing: ['u7'] }
 * ```
 */
import { z } from 'zod';
import { VisemeCue } from '../../shared/visemes';
import type { Report } from '../../shared/review/report';
import type { Sidecar } from './store';

export const RecordingItem = z.object({
  /** The utterance event's id. */
  utterance: z.string(),
  /** The utterance event's seq. */
  seq: z.number().int().positive(),
  /** Who spoke. */
  participant: z.string(),
  /** Ms from the session's start: the report timeline's `startMs` of the utterance. */
  startMs: z.number().nonnegative(),
  durationMs: z.number().nonnegative(),
  sampleRate: z.number().int().positive(),
  /** The WAV, e.g. /api/sessions/<id>/recordings/<utterance>.wav (add ?token= to load it in an <audio>). */
  url: z.string(),
  /** Times in ms from the recording's start; a human's recording has none. */
  cues: z.array(VisemeCue),
  words: z.array(z.object({ word: z.string(), start: z.number(), end: z.number() })),
});
export type RecordingItem = z.infer<typeof RecordingItem>;

export const RecordingList = z.object({
  recordings: z.array(RecordingItem),
  /** Utterances that should have audio but whose file is gone. */
  missing: z.array(z.string()),
});
export type RecordingList = z.infer<typeof RecordingList>;

/** Where an utterance's WAV is served. */
export const recordingUrl = (session: string, utterance: string): string => `/api/sessions/${encodeURIComponent(session)}/recordings/${encodeURIComponent(utterance)}.wav`;

export const recordingListOf = (
  session: string,
  report: Pick<Report, 'timeline'>,
  log: readonly unknown[],
  files: ReadonlyMap<string, { sidecar: Sidecar; audio: boolean }>,
  /** The session records participants' microphones. */
  microphones: boolean,
): RecordingList => {
  const seqs = new Map<string, number>();
  /** Utterances whose audio is kept whether or not a file says so: humans' spoken ones, when recording. */
  const expected = new Set<string>();
  for (const event of log as { type?: unknown; id?: unknown; seq?: unknown; source?: unknown; spoken?: unknown }[]) {
    if (event?.type !== 'utterance' || typeof event.id !== 'string' || typeof event.seq !== 'number') continue;
    seqs.set(event.id, event.seq);
    if (microphones && event.source === 'human' && event.spoken) expected.add(event.id);
  }
  const recordings: RecordingItem[] = [];
  const missing: string[] = [];
  for (const item of report.timeline) {
    if (item.kind !== 'utterance' || !item.utterance || !item.participant) continue;
    const file = files.get(item.utterance);
    const seq = seqs.get(item.utterance);
    if (seq === undefined) continue;
    if (!file?.audio) {
      if (file || expected.has(item.utterance)) missing.push(item.utterance);
      continue;
    }
    const { sampleRate, durationMs, cues, words } = file.sidecar;
    recordings.push({ utterance: item.utterance, seq, participant: item.participant, startMs: item.startMs, durationMs, sampleRate, url: recordingUrl(session, item.utterance), cues, words });
  }
  return { recordings, missing };
};
