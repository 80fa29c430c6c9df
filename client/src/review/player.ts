/**
 * Playback of a session's recorded speech (issue 17: "from any point", at 1× and 2×): one clock for
 * the review's playhead and the 3D replay, independent of React. It runs on the AudioContext's
 * clock while sound plays (else on the page's), schedules every recording that overlaps the
 * playhead as an AudioBufferSourceNode (started part-way in when the playhead is inside it;
 * `playbackRate` 2 at 2×), fetches and decodes each WAV only when it is about to play and keeps
 * the latest ones, and passes over recordings whose file is missing: their time goes by in silence.
 * The speaker's mouth follows the recording's viseme cues (audio/lipsync.ts, as in the live room).
 *
 * ```ts
 * const player = createPlayer({ recordings, durationMs: report.durationMs, token });
 * playButton.onclick = () => player.play(); // from the playhead; the first play opens the audio
 * player.seek(42_000);
 * player.setRate(2);
 * useFrame(() => rig.update(dt, { ...input, visemes: player.visemes('nora') }));
 * ```
 *
 * Session time runs `rate` times as fast as the clock: from an anchor (clock `at` seconds, session
 * `ms`), session time is `ms + (clock - at) * 1000 * rate`. A clip starting at `startMs` after the
 * anchor starts at `at + (startMs - ms) / (1000 * rate)`; one already under way starts now,
 * `(position - startMs) / 1000` seconds into its buffer (buffer time: the rate does not change it).
 */
import type { VisemeCue } from '../../../shared/visemes';
import { createLipSync, type VisemeWeights } from '../audio/lipsync';

/** One utterance's recording, as `GET /api/sessions/:id/recordings` lists it. */
export interface Recording {
  /** The utterance event's id. */
  utterance: string;
  seq: number;
  participant: string;
  /** From the session's start, on the report timeline's clock. */
  startMs: number;
  durationMs: number;
  sampleRate: number;
  /** `/api/sessions/<id>/recordings/<utterance>.wav`; the token is added as `?token=`. */
  url: string;
  cues: VisemeCue[];
  words: { word: string; start: number; end: number }[];
}

export interface Recordings {
  recordings: Recording[];
  /** Utterances whose audio the server knows is missing. */
  missing: string[];
}

export type Rate = 1 | 2;

/** What the player needs of Web Audio (an AudioContext; tests give a fake). */
export interface AudioLike {
  readonly currentTime: number;
  readonly state: string;
  readonly destination: AudioNode;
  resume(): Promise<void>;
  close(): Promise<void>;
  decodeAudioData(data: ArrayBuffer): Promise<AudioBuffer>;
  createBufferSource(): AudioBufferSourceNode;
}

/** The playhead's anchor: at clock time `at` (s) the session was at `ms`. */
export interface Anchor {
  at: number;
  ms: number;
}

/** How far ahead of the playhead (session ms) recordings are fetched and scheduled. */
const AHEAD_MS = 4000;
/** How often the schedule is looked at while playing (ms of page time). */
const PUMP_MS = 250;
/**
 * Decoded clips kept at most: decoded audio is large (48 kHz float, about 11 MB a minute), so a
 * long session played through keeps only its latest clips; one sought back to is fetched again.
 */
const KEPT_BUFFERS = 24;

/** The session's time at clock time `now` (s). */
export const positionAt = (anchor: Anchor, rate: Rate, now: number): number => anchor.ms + (now - anchor.at) * 1000 * rate;

/** The recordings that sound at some point in [fromMs, untilMs), by start. */
export const overlapping = <R extends Pick<Recording, 'startMs' | 'durationMs'>>(recordings: readonly R[], fromMs: number, untilMs: number): R[] =>
  recordings.filter((r) => r.startMs < untilMs && r.startMs + r.durationMs > fromMs).sort((a, b) => a.startMs - b.startMs);

/**
 * When a clip starts on the clock (s) and how far into its buffer (s), for playback anchored at
 * `anchor` at `rate`, looked at clock time `now`: later clips at their place, a clip under way now
 * and part-way in.
 */
export const startOf = (startMs: number, anchor: Anchor, rate: Rate, now: number): { when: number; offset: number } => {
  const position = positionAt(anchor, rate, now);
  if (startMs >= position) return { when: anchor.at + (startMs - anchor.ms) / (1000 * rate), offset: 0 };
  return { when: now, offset: (position - startMs) / 1000 };
};

/** The recording sounding at `ms` (the latest to start, if several), of one participant or anyone's. */
export const activeAt = <R extends Pick<Recording, 'startMs' | 'durationMs' | 'participant'>>(recordings: readonly R[], ms: number, participant?: string): R | null => {
  let found: R | null = null;
  for (const r of recordings) {
    if (r.startMs > ms) continue;
    if (ms < r.startMs + r.durationMs && (participant === undefined || r.participant === participant) && (!found || r.startMs >= found.startMs)) found = r;
  }
  return found;
};

export interface Player {
  readonly durationMs: number;
  /** The playhead now (ms from the session's start). */
  position(): number;
  playing(): boolean;
  rate(): Rate;
  /** Plays from the playhead (from the start once it reached the end). */
  play(): void;
  pause(): void;
  seek(ms: number): void;
  setRate(rate: Rate): void;
  /** The participant's mouth at the playhead, from their recording's cues; null when none sounds (and while paused: mouths rest). */
  visemes(participant: string): VisemeWeights | null;
  /** The utterance has no recording to play: none listed, listed missing, or its file would not load. */
  unrecorded(utterance: string): boolean;
  /** How many clips have been started on the audio clock so far. */
  scheduled(): number;
  /** Called on play, pause, seek, rate and when a recording turns out to be missing. */
  subscribe(listener: () => void): () => void;
  close(): void;
}

export interface PlayerOptions {
  recordings: Recordings;
  durationMs: number;
  /** Added to each recording's url as `?token=`. */
  token: string;
  /** Opens the audio on the first play (a user gesture); null: no sound, the page's clock. */
  audio?: () => AudioLike | null;
  fetch?: (url: string) => Promise<Response>;
  /** The page's clock, ms (performance.now). */
  now?: () => number;
}

export const createPlayer = (options: PlayerOptions): Player => {
  const { durationMs, token } = options;
  const openAudio = options.audio ?? (() => (typeof AudioContext === 'undefined' ? null : new AudioContext({ latencyHint: 'playback' })));
  const get = options.fetch ?? ((url: string) => fetch(url));
  const pageNow = options.now ?? (() => performance.now());
  const known = new Set(options.recordings.missing);
  const recordings = options.recordings.recordings.filter((r) => !known.has(r.utterance));
  const listed = new Set(recordings.map((r) => r.utterance));
  const failed = new Set<string>();
  const lipSync = createLipSync();
  for (const r of recordings) lipSync.add(r.utterance, r.cues, r.durationMs);

  let audio: AudioLike | null | undefined;
  let anchor: Anchor = { at: 0, ms: 0 };
  /** The anchor is on the audio's clock (else on the page's). */
  let onAudio = false;
  let rate: Rate = 1;
  let playing = false;
  let pump: ReturnType<typeof setInterval> | null = null;
  let started = 0;
  /** This run's clips (a run: from a play, seek or rate change to the next), by utterance. */
  const sources = new Map<string, AudioBufferSourceNode>();
  const buffers = new Map<string, Promise<AudioBuffer | null>>();
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };

  /** The clock: the audio's once it runs (the sound's own time), else the page's. */
  const clock = (): number => (onAudio && audio ? audio.currentTime : pageNow() / 1000);
  const position = () => (playing ? Math.min(durationMs, positionAt(anchor, rate, clock())) : anchor.ms);
  /** A new anchor at `ms` (the position on the old clock by default), on the audio's clock if it runs. */
  const reanchor = (ms = position()) => {
    onAudio = !!audio && audio.state === 'running';
    anchor = { at: clock(), ms: Math.max(0, Math.min(durationMs, ms)) };
  };

  const load = (r: Recording): Promise<AudioBuffer | null> => {
    let buffer = buffers.get(r.utterance);
    if (!buffer) {
      const url = `${r.url}${r.url.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
      buffer = get(url)
        .then(async (response) => {
          if (!response.ok) throw new Error(`HTTP ${response.status}`);
          return await audio!.decodeAudioData(await response.arrayBuffer());
        })
        .catch(() => {
          // A missing or unreadable file: its line is marked, its time goes by in silence.
          failed.add(r.utterance);
          changed();
          return null;
        });
      buffers.set(r.utterance, buffer);
      // A Map keeps insertion order: the first keys are the oldest loads. Clips due now stay.
      const now = position();
      const due = new Set(overlapping(recordings, now, now + AHEAD_MS * rate).map((d) => d.utterance));
      for (const old of buffers.keys()) {
        if (buffers.size <= KEPT_BUFFERS) break;
        if (!due.has(old) && !sources.has(old)) buffers.delete(old);
      }
    }
    return buffer;
  };

  const stopAll = () => {
    for (const source of sources.values()) {
      source.onended = null;
      try {
        source.stop();
      } catch {
        // Not started yet: nothing to stop.
      }
      source.disconnect();
    }
    sources.clear();
  };

  const pause = () => {
    if (!playing) return;
    reanchor();
    playing = false;
    if (pump) clearInterval(pump);
    pump = null;
    stopAll();
    changed();
  };

  /** Starts the clips the playhead reaches soon, fetching them first; stops at the end. */
  const schedule = () => {
    if (!playing) return;
    const now = position();
    if (now >= durationMs) return pause();
    if (!audio || !onAudio) return;
    const run = anchor;
    for (const r of overlapping(recordings, now, now + AHEAD_MS * rate)) {
      if (sources.has(r.utterance) || failed.has(r.utterance)) continue;
      void load(r).then((buffer) => {
        // Still the same run (no pause, seek or rate change since), still to be heard, not started meanwhile.
        if (!buffer || !playing || anchor !== run || sources.has(r.utterance) || !audio) return;
        const { when, offset } = startOf(r.startMs, anchor, rate, audio.currentTime);
        if (offset >= buffer.duration) return;
        const source = audio.createBufferSource();
        source.buffer = buffer;
        source.playbackRate.value = rate;
        source.connect(audio.destination);
        source.start(when, offset);
        started++;
        sources.set(r.utterance, source);
      });
    }
  };


  /** A new run from the anchor just set: what was scheduled goes, what is due comes. */
  const restart = () => {
    stopAll();
    schedule();
  };

  return {
    durationMs,
    position,
    playing: () => playing,
    rate: () => rate,
    play() {
      if (playing) return;
      if (audio === undefined) {
        audio = openAudio();
        // Sound starts once the browser allows it; until then the page's clock keeps time.
        void audio?.resume().then(
          () => {
            if (!playing) return;
            reanchor();
            restart();
          },
          () => {},
        );
      }
      if (anchor.ms >= durationMs) anchor = { at: 0, ms: 0 };
      playing = true;
      reanchor(anchor.ms);
      schedule();
      pump = setInterval(schedule, PUMP_MS);
      changed();
    },
    pause,
    seek(ms) {
      if (playing) reanchor(ms);
      else anchor = { at: 0, ms: Math.max(0, Math.min(durationMs, ms)) };
      if (playing) restart();
      changed();
    },
    setRate(next) {
      if (next === rate) return;
      reanchor();
      rate = next;
      if (playing) restart();
      changed();
    },
    visemes(participant) {
      // Paused, nothing sounds: a mouth left in the shape of the paused moment reads as frozen mid-word.
      if (!playing) return null;
      const ms = position();
      const r = activeAt(recordings, ms, participant);
      return r && !failed.has(r.utterance) ? lipSync.weightsAt(r.utterance, ms - r.startMs) : null;
    },
    unrecorded: (utterance) => !listed.has(utterance) || failed.has(utterance),
    scheduled: () => started,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      pause();
      listeners.clear();
      void audio?.close().catch(() => {});
    },
  };
};
