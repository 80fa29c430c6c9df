/**
 * A session's recorder (issue 17): the audio of each utterance, gathered while the session runs
 * and handed to `write` once the utterance is in the log and its audio is complete. No files, no
 * clock: a room feeds it what it broadcasts and what its journal commits (rooms/rooms.ts), and
 * recordings/store.ts writes what comes out.
 *
 * ```ts
 * const recorder = createRecorder({ write: (recording) => files.write(session, recording) });
 * onAudio: (piece) => recorder.audio(piece), onAudioStop: (stop) => recorder.audioStop(stop),
 * onAudioEnd: (end) => recorder.audioEnd(end), committed: (events) => events.forEach(recorder.committed)
 * ```
 *
 * Personas: a reply's speech comes in pieces named by its `draft` (times in ms from the start of
 * its speech), and its utterance event names the same draft; a line the engine wrote itself (a
 * scripted line, an instructor's edit) is voiced after it is logged, under the utterance's own id.
 * So either may come first: the audio is written when both the event and the end of the audio
 * (`audioEnd`, or an `audioStop` cutting it) have come. A stop truncates the recording at its
 * `atMs`, even after it was written (a barge-in while an accepted reply is still heard), so a
 * recording holds what the room heard.
 *
 * Humans: with recording on, the room hands over each transcribed utterance's microphone audio
 * (`heard`); it is written for the next human utterance of theirs in the log whose length is the
 * one heard. Typed lines have no audio.
 *
 * Memory is bounded: drafts never committed (a resample the screen rejected, a reply cut before
 * its words were logged) are dropped, the oldest first past `maxDrafts`; a recording keeps at most
 * `maxMs` of audio.
 */
import type { SessionEvent } from '../../shared/events';
import type { VisemeCue } from '../../shared/visemes';
import type { WordTiming } from '../providers/synthesis/port';

/** One utterance's audio, as written: PCM16 mono, cue and word times in ms from its start. */
export interface Recording {
  utterance: string;
  participant: string;
  sampleRate: number;
  pcm: Int16Array;
  cues: VisemeCue[];
  words: WordTiming[];
}

/** A piece of a reply's speech, as the conversation's `onAudio` gives it. */
export interface SpeechPiece {
  speaker: string;
  draft: string;
  offsetMs: number;
  sampleRate: number;
  pcm: Int16Array;
  cues: VisemeCue[];
  words: WordTiming[];
}

export interface RecorderOptions {
  write(recording: Recording): void;
  /** Replies held at once; past it the oldest not yet logged is dropped. Default 8. */
  maxDrafts?: number;
  /** The longest recording, in ms of audio; the rest of a longer one is dropped. Default 2 min. */
  maxMs?: number;
}

export interface Recorder {
  audio(piece: SpeechPiece): void;
  /** Reply `draft`'s audio stops at `atMs` (a barge-in, a cut, a rejected resample, the end). */
  audioStop(stop: { draft: string; atMs: number; reason: string }): void;
  /** Reply `draft`'s speech is complete: no more audio comes for it. */
  audioEnd(end: { draft: string }): void;
  /** A human's transcribed utterance: its microphone audio (16 kHz mono) and the length the log will give it. */
  heard(participant: string, audio: { pcm: Int16Array; sampleRate: number; durationMs: number }): void;
  /** An event now stored: an utterance is written once its audio is complete; `end` closes the recorder. */
  committed(event: SessionEvent): void;
}

interface Take {
  speaker: string;
  sampleRate: number;
  /** Pieces placed at their offsets, in samples. */
  pieces: { at: number; pcm: Int16Array }[];
  cues: VisemeCue[];
  words: WordTiming[];
  /** Where the audio was stopped, in ms; Infinity: it was not. */
  stopAtMs: number;
  finished: boolean;
  /** Its utterance's id, once the event is stored. */
  utterance: string | null;
  /** The length last written, in samples; null: not written yet. */
  written: number | null;
}

/** Human utterances whose audio waits for their event, per participant. */
const MAX_HEARD = 4;
/** Written replies kept for a later stop (the one being heard, and the one before). */
const KEEP_WRITTEN = 2;

/** Linear interpolation to `to` Hz: a fallback voice may speak one clause at another rate. */
const resample = (pcm: Int16Array, from: number, to: number): Int16Array => {
  if (from === to) return pcm;
  const out = new Int16Array(Math.round((pcm.length * to) / from));
  for (let i = 0; i < out.length; i++) {
    const x = (i * from) / to;
    const j = Math.floor(x);
    const a = pcm[j] ?? 0;
    const b = pcm[j + 1] ?? a;
    out[i] = Math.round(a + (b - a) * (x - j));
  }
  return out;
};

export const createRecorder = (options: RecorderOptions): Recorder => {
  const maxDrafts = options.maxDrafts ?? 8;
  const maxMs = options.maxMs ?? 120_000;
  /** Replies by draft, oldest first. */
  const takes = new Map<string, Take>();
  /** Utterances stored before any of their audio came: draft (or id) -> utterance id. */
  const awaited = new Map<string, string>();
  const written: string[] = [];
  const heard = new Map<string, { pcm: Int16Array; sampleRate: number; durationMs: number }[]>();
  let closed = false;

  /** The take's audio up to its stop (and `maxMs`), with the cues and words inside it. */
  const render = (take: Take): { pcm: Int16Array; endMs: number } => {
    const cap = Math.floor((Math.min(take.stopAtMs, maxMs) * take.sampleRate) / 1000);
    const end = Math.min(cap, take.pieces.reduce((last, p) => Math.max(last, p.at + p.pcm.length), 0));
    const pcm = new Int16Array(end);
    for (const piece of take.pieces) if (piece.at < end) pcm.set(piece.pcm.subarray(0, end - piece.at), piece.at);
    return { pcm, endMs: (end / take.sampleRate) * 1000 };
  };

  const write = (draft: string, take: Take) => {
    const { pcm, endMs } = render(take);
    if (take.written !== null && pcm.length >= take.written) return;
    take.written = pcm.length;
    if (!written.includes(draft)) {
      written.push(draft);
      while (written.length > KEEP_WRITTEN) takes.delete(written.shift()!);
    }
    if (pcm.length === 0) return;
    options.write({
      utterance: take.utterance!,
      participant: take.speaker,
      sampleRate: take.sampleRate,
      pcm,
      cues: take.cues.filter((cue) => cue.t < endMs),
      words: take.words.filter((w) => w.start < endMs).map((w) => ({ ...w, end: Math.min(w.end, endMs) })),
    });
  };

  const settle = (draft: string, take: Take) => {
    if (take.utterance !== null && take.finished) write(draft, take);
  };

  /** Drops the oldest replies nobody logged, past `maxDrafts`. */
  const evict = () => {
    for (const [draft, take] of takes) {
      if (takes.size <= maxDrafts) break;
      if (take.utterance === null) takes.delete(draft);
    }
  };

  const forget = <K, V>(map: Map<K, V>, max: number) => {
    for (const key of map.keys()) {
      if (map.size <= max) break;
      map.delete(key);
    }
  };

  const humanUtterance = (event: Extract<SessionEvent, { type: 'utterance' }>) => {
    const queue = heard.get(event.speaker);
    if (!queue) return;
    // The log's length is the one heard (rounded); an older entry is a turn the log never took.
    const at = queue.findIndex((h) => Math.abs(h.durationMs - event.durationMs) <= 1);
    if (at < 0) return;
    const [audio] = queue.splice(0, at + 1).slice(-1);
    options.write({ utterance: event.id, participant: event.speaker, sampleRate: audio!.sampleRate, pcm: audio!.pcm, cues: [], words: [] });
  };

  return {
    audio(piece) {
      if (closed) return;
      let take = takes.get(piece.draft);
      if (take && take.written !== null) return;
      if (!take) {
        take = { speaker: piece.speaker, sampleRate: piece.sampleRate, pieces: [], cues: [], words: [], stopAtMs: Infinity, finished: false, utterance: awaited.get(piece.draft) ?? null, written: null };
        awaited.delete(piece.draft);
        takes.set(piece.draft, take);
        evict();
      }
      if (piece.offsetMs >= maxMs) return;
      take.pieces.push({ at: Math.round((piece.offsetMs * take.sampleRate) / 1000), pcm: resample(piece.pcm, piece.sampleRate, take.sampleRate) });
      take.cues.push(...piece.cues);
      take.words.push(...piece.words);
    },

    audioStop({ draft, atMs, reason }) {
      const take = takes.get(draft);
      if (!take) return;
      if (reason === 'rejected' && take.utterance === null) {
        takes.delete(draft);
        return;
      }
      take.stopAtMs = Math.min(take.stopAtMs, Math.max(0, atMs));
      take.finished = true;
      if (take.written !== null) write(draft, take);
      else settle(draft, take);
    },

    audioEnd({ draft }) {
      const take = takes.get(draft);
      if (!take || take.written !== null) return;
      take.finished = true;
      settle(draft, take);
    },

    heard(participant, audio) {
      if (closed) return;
      const queue = heard.get(participant) ?? [];
      queue.push(audio);
      if (queue.length > MAX_HEARD) queue.shift();
      heard.set(participant, queue);
    },

    committed(event) {
      if (event.type === 'end') {
        // What is logged is written as far as it got; replies never logged are dropped.
        closed = true;
        for (const [draft, take] of takes) {
          if (take.utterance !== null && take.written === null) {
            take.finished = true;
            write(draft, take);
          }
        }
        for (const [draft, take] of takes) if (take.written === null) takes.delete(draft);
        awaited.clear();
        heard.clear();
        return;
      }
      if (event.type !== 'utterance' || closed) return;
      if (event.source === 'human') {
        if (event.spoken) humanUtterance(event);
        return;
      }
      const key = event.draft ?? event.id;
      const take = takes.get(key);
      if (!take) {
        // Voiced after it was logged (a line the engine wrote), or never voiced (text only).
        awaited.set(key, event.id);
        forget(awaited, maxDrafts);
        return;
      }
      take.utterance = event.id;
      settle(key, take);
    },
  };
};
