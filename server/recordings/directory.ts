/**
 * Recordings as files in a directory: `<root>/<session>/<utterance>.wav` and `<utterance>.json`.
 * The default root is `<DATA_DIR>/recordings`; a directory every node mounts (NFS, a shared
 * volume) serves several nodes the same way. Ids reach here already checked (store.ts).
 *
 * ```ts
 * const files = directoryFiles('/srv/rehearsal/recordings');
 * await files.put('s1', 'u1', sidecar, wav);
 * (await files.list('s1')).get('u1'); // { sidecar, audio: true }
 * ```
 *
 * Like the database, the files are the server's alone: directories 0700, files 0600.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordingFiles, Sidecar } from './files';

export const directoryFiles = (root: string): RecordingFiles => {
  const dirOf = (session: string) => join(root, session);
  return {
    where: root,

    async put(session, utterance, sidecar, wav) {
      const dir = dirOf(session);
      await mkdir(root, { recursive: true, mode: 0o700 });
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const base = join(dir, utterance);
      // Written whole and renamed into place: a reader never sees half a file.
      await writeFile(`${base}.json.tmp`, JSON.stringify(sidecar), { mode: 0o600 });
      await rename(`${base}.json.tmp`, `${base}.json`);
      await writeFile(`${base}.wav.tmp`, wav, { mode: 0o600 });
      await rename(`${base}.wav.tmp`, `${base}.wav`);
    },

    async list(session) {
      const found = new Map<string, { sidecar: Sidecar; audio: boolean }>();
      const dir = dirOf(session);
      let names: string[];
      try {
        names = await readdir(dir);
      } catch {
        return found;
      }
      const files = new Set(names);
      for (const name of names) {
        const utterance = name.endsWith('.json') ? name.slice(0, -5) : null;
        if (!utterance) continue;
        try {
          const sidecar = JSON.parse(await readFile(join(dir, name), 'utf8')) as Sidecar;
          found.set(utterance, { sidecar, audio: files.has(`${utterance}.wav`) });
        } catch {
          // A sidecar that cannot be read says nothing about the audio; its WAV alone is not listed.
        }
      }
      return found;
    },

    async wav(session, utterance) {
      try {
        return await readFile(join(dirOf(session), `${utterance}.wav`));
      } catch {
        return null;
      }
    },

    async remove(session) {
      await rm(dirOf(session), { recursive: true, force: true });
    },
  };
};
