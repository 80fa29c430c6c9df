/**
 * Where each utterance's audio is kept: `<session>/<utterance>.wav` (RIFF, PCM16 mono) and
 * `<utterance>.json`, its sidecar `{ sampleRate, durationMs, cues, words }` (times in ms from the
 * start of the utterance's speech), in a directory (directory.ts: `<DATA_DIR>/recordings` by
 * default, or a directory every node mounts) or an S3-compatible bucket (bucket.ts), chosen by
 * `RECORDINGS_URL`. The sidecar is written first: a sidecar whose WAV is gone is a recording
 * that should be there (`missing` in GET .../recordings).
 *
 * ```ts
 * const recordings = openRecordingsAt(config.recordings, { log }); // or openRecordings(dataDir)
 * await recordings.write(session, recording); // never throws: a failure is one line in the log
 * await recordings.list(session); // Map utterance -> { sidecar, audio: whether the WAV is there }
 * await recordings.remove(session); // with the session (DELETE /api/sessions/:id?purge=true)
 * ```
 *
 * Whatever holds them, the same rules: writes of one session go one after another (a recording
 * truncated after it was written is written again), and `remove` waits for them, after which
 * nothing more is written for that session. Ids are checked (letters, digits, `_` and `-`) before
 * they become paths or keys. A write that fails (a full disk, a bucket down) is held in memory and
 * tried again with backoff until it is written, so an outage loses nothing; past `maxHeldBytes`
 * the oldest held recording is dropped, and the log says so.
 */
import { join } from 'node:path';
import { encodeWav } from '../../shared/wav';
import { bucketFiles } from './bucket';
import { directoryFiles } from './directory';
import type { RecordingFiles, RecordingsLocation, Sidecar } from './files';
import type { Recording } from './recorder';

export type { RecordingFiles, RecordingsLocation, Sidecar } from './files';

export interface RecordingStore {
  /** Writes `recording` of `session`; resolves when it is stored, or held to be tried again and the failure logged. */
  write(session: string, recording: Recording): Promise<void>;
  /** The session's recordings by utterance: the sidecar, and whether its WAV is there. Throws when the bucket cannot be reached. */
  list(session: string): Promise<Map<string, { sidecar: Sidecar; audio: boolean }>>;
  /** An utterance's WAV bytes; null when it is not there. Throws when the bucket cannot be reached. */
  wav(session: string, utterance: string): Promise<Buffer | null>;
  /** Deletes the session's recordings, after the writes under way; none are written after. */
  remove(session: string): Promise<void>;
}

export interface RecordingsOptions {
  log?: (line: string) => void;
  /** Bytes of failed writes held in memory to be tried again. Default 64 MB (~15 min of speech). */
  maxHeldBytes?: number;
  /** The first wait before a failed write is tried again; it doubles up to a minute. Default 1 s. */
  retryMs?: number;
}

/** What a session or utterance id may be to become part of a path: no dots, no slashes. */
export const isRecordingId = (id: string): boolean => /^[\w-]{1,128}$/.test(id);

const MAX_RETRY_MS = 60_000;

/** The recordings under `<dataDir>/recordings`: the default, one server's own. */
export const openRecordings = (dataDir: string, options: RecordingsOptions = {}): RecordingStore =>
  recordingStore(directoryFiles(join(dataDir, 'recordings')), options);

/** The recordings where RECORDINGS_URL says. */
export const openRecordingsAt = (location: RecordingsLocation, options: RecordingsOptions = {}): RecordingStore =>
  recordingStore(location.kind === 'directory' ? directoryFiles(location.root) : bucketFiles(location), options);

export const recordingStore = (files: RecordingFiles, options: RecordingsOptions = {}): RecordingStore => {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const maxHeldBytes = options.maxHeldBytes ?? 64 * 2 ** 20;
  const firstRetryMs = options.retryMs ?? 1000;
  /** Each session's writes, one after another. */
  const queues = new Map<string, Promise<void>>();
  const removed = new Set<string>();
  /** Writes that failed, oldest first, by `<session>/<utterance>`: only the latest of an utterance counts. */
  const held = new Map<string, { session: string; recording: Recording; bytes: number; tries: number }>();
  let heldBytes = 0;
  let retryMs = firstRetryMs;
  let retryTimer: NodeJS.Timeout | null = null;

  const put = async (session: string, recording: Recording) => {
    if (removed.has(session)) return;
    const sidecar: Sidecar = {
      sampleRate: recording.sampleRate,
      durationMs: Math.round((recording.pcm.length / recording.sampleRate) * 1000),
      cues: recording.cues,
      words: recording.words,
    };
    await files.put(session, recording.utterance, sidecar, encodeWav(recording.pcm, recording.sampleRate));
  };

  /** Runs `work` after the session's writes under way. */
  const queued = (session: string, work: () => Promise<void>): Promise<void> => {
    const done = (queues.get(session) ?? Promise.resolve()).then(work);
    queues.set(session, done);
    void done.then(() => {
      if (queues.get(session) === done) queues.delete(session);
    });
    return done;
  };

  const unhold = (key: string) => {
    const entry = held.get(key);
    if (!entry) return;
    heldBytes -= entry.bytes;
    held.delete(key);
  };

  const hold = (session: string, recording: Recording, tries: number) => {
    const key = `${session}/${recording.utterance}`;
    unhold(key);
    const bytes = recording.pcm.byteLength;
    held.set(key, { session, recording, bytes, tries });
    heldBytes += bytes;
    for (const [oldest, entry] of held) {
      if (heldBytes <= maxHeldBytes || oldest === key) break;
      unhold(oldest);
      log(`session ${entry.session}: recording of utterance ${entry.recording.utterance} dropped: ${Math.round(maxHeldBytes / 2 ** 20)} MB of recordings wait to be written to ${files.where}`);
    }
    if (!retryTimer) {
      retryTimer = setTimeout(retry, retryMs);
      // Held recordings never keep a stopping process alive.
      retryTimer.unref();
    }
  };

  const retry = () => {
    retryTimer = null;
    const attempts = [...held].map(([key, entry]) =>
      queued(entry.session, async () => {
        // Written anew or removed meanwhile: this attempt has nothing left to do.
        if (held.get(key) !== entry) return;
        try {
          await put(entry.session, entry.recording);
          unhold(key);
          log(`session ${entry.session}: recording of utterance ${entry.recording.utterance} written to ${files.where} after ${entry.tries + 1} tries`);
        } catch {
          entry.tries++;
        }
      }),
    );
    void Promise.all(attempts).then(() => {
      retryMs = held.size > 0 ? Math.min(MAX_RETRY_MS, retryMs * 2) : firstRetryMs;
      if (held.size > 0 && !retryTimer) {
        retryTimer = setTimeout(retry, retryMs);
        retryTimer.unref();
      }
    });
  };

  return {
    write(session, recording) {
      if (!isRecordingId(session) || !isRecordingId(recording.utterance)) {
        log(`session ${session}: recording of utterance ${recording.utterance} not written: not an id`);
        return Promise.resolve();
      }
      return queued(session, async () => {
        // This write supersedes a held one of the same utterance (a truncation after a failed write).
        unhold(`${session}/${recording.utterance}`);
        try {
          await put(session, recording);
        } catch (error) {
          // The session goes on; the recording is held and written once the directory or bucket takes it.
          log(`session ${session}: recording of utterance ${recording.utterance} not written (${(error as Error).message}); held, tried again in ${Math.round(retryMs / 1000)} s`);
          hold(session, recording, 1);
        }
      });
    },

    async list(session) {
      if (!isRecordingId(session)) return new Map();
      const found = await files.list(session);
      for (const utterance of found.keys()) if (!isRecordingId(utterance)) found.delete(utterance);
      return found;
    },

    async wav(session, utterance) {
      if (!isRecordingId(session) || !isRecordingId(utterance)) return null;
      return files.wav(session, utterance);
    },

    async remove(session) {
      if (!isRecordingId(session)) return;
      removed.add(session);
      for (const [key, entry] of held) if (entry.session === session) unhold(key);
      await queues.get(session);
      await files.remove(session);
    },
  };
};
