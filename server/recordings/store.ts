/**
 * Recordings on disk, beside the session store: `<dataDir>/recordings/<session>/<utterance>.wav`
 * (RIFF, PCM16 mono) and `<utterance>.json`, its sidecar `{ sampleRate, durationMs, cues, words }`
 * (times in ms from the start of the utterance's speech). The sidecar is written first: a sidecar
 * whose WAV is gone is a recording that should be there (`missing` in GET .../recordings).
 *
 * ```ts
 * const recordings = openRecordings(config.dataDir, { log });
 * await recordings.write(session, recording); // never throws: a failure is one line in the log
 * recordings.list(session); // Map utterance -> { sidecar, audio: whether the WAV is there }
 * await recordings.remove(session); // with the session (DELETE /api/sessions/:id?purge=true)
 * ```
 *
 * Like the database, the files are the server's alone: directories 0700, files 0600. Writes of one
 * session go one after another (a recording truncated after it was written is written again), and
 * `remove` waits for them, after which nothing more is written for that session. Ids are checked
 * (letters, digits, `_` and `-`) before they become paths.
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeWav } from '../../shared/wav';
import type { VisemeCue } from '../../shared/visemes';
import type { WordTiming } from '../providers/synthesis/port';
import type { Recording } from './recorder';

export interface Sidecar {
  sampleRate: number;
  durationMs: number;
  cues: VisemeCue[];
  words: WordTiming[];
}

export interface RecordingStore {
  /** Writes `recording` of `session`; resolves when it is on disk or the failure is logged. */
  write(session: string, recording: Recording): Promise<void>;
  /** The session's recordings by utterance: the sidecar, and whether its WAV is there. */
  list(session: string): Map<string, { sidecar: Sidecar; audio: boolean }>;
  /** An utterance's WAV bytes; null when it is not there. */
  wav(session: string, utterance: string): Buffer | null;
  /** Deletes the session's recordings, after the writes under way; none are written after. */
  remove(session: string): Promise<void>;
}

/** What a session or utterance id may be to become part of a path: no dots, no slashes. */
export const isRecordingId = (id: string): boolean => /^[\w-]{1,128}$/.test(id);

export const openRecordings = (dataDir: string, options: { log?: (line: string) => void } = {}): RecordingStore => {
  const root = join(dataDir, 'recordings');
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const dirOf = (session: string) => join(root, session);
  /** Each session's writes, one after another. */
  const queues = new Map<string, Promise<void>>();
  const removed = new Set<string>();

  const put = async (session: string, recording: Recording) => {
    if (removed.has(session)) return;
    const dir = dirOf(session);
    await mkdir(root, { recursive: true, mode: 0o700 });
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const base = join(dir, recording.utterance);
    const sidecar: Sidecar = {
      sampleRate: recording.sampleRate,
      durationMs: Math.round((recording.pcm.length / recording.sampleRate) * 1000),
      cues: recording.cues,
      words: recording.words,
    };
    // Written whole and renamed into place: a reader never sees half a file.
    await writeFile(`${base}.json.tmp`, JSON.stringify(sidecar), { mode: 0o600 });
    await rename(`${base}.json.tmp`, `${base}.json`);
    await writeFile(`${base}.wav.tmp`, encodeWav(recording.pcm, recording.sampleRate), { mode: 0o600 });
    await rename(`${base}.wav.tmp`, `${base}.wav`);
  };

  return {
    write(session, recording) {
      if (!isRecordingId(session) || !isRecordingId(recording.utterance)) {
        log(`session ${session}: recording of utterance ${recording.utterance} not written: not an id`);
        return Promise.resolve();
      }
      const done = (queues.get(session) ?? Promise.resolve()).then(() =>
        put(session, recording).catch((error: unknown) => {
          // The session goes on without this recording; GET .../recordings lists it as missing if its sidecar was written.
          log(`session ${session}: recording of utterance ${recording.utterance} not written (${(error as Error).message})`);
        }),
      );
      queues.set(session, done);
      void done.then(() => {
        if (queues.get(session) === done) queues.delete(session);
      });
      return done;
    },

    list(session) {
      const found = new Map<string, { sidecar: Sidecar; audio: boolean }>();
      if (!isRecordingId(session)) return found;
      const dir = dirOf(session);
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        return found;
      }
      const files = new Set(names);
      for (const name of names) {
        const utterance = name.endsWith('.json') ? name.slice(0, -5) : null;
        if (!utterance || !isRecordingId(utterance)) continue;
        try {
          const sidecar = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Sidecar;
          found.set(utterance, { sidecar, audio: files.has(`${utterance}.wav`) });
        } catch {
          // A sidecar that cannot be read says nothing about the audio; its WAV alone is not listed.
        }
      }
      return found;
    },

    wav(session, utterance) {
      if (!isRecordingId(session) || !isRecordingId(utterance)) return null;
      const file = join(dirOf(session), `${utterance}.wav`);
      if (!existsSync(file)) return null;
      try {
        return readFileSync(file);
      } catch {
        return null;
      }
    },

    async remove(session) {
      if (!isRecordingId(session)) return;
      removed.add(session);
      await queues.get(session);
      await rm(dirOf(session), { recursive: true, force: true });
    },
  };
};
