/**
 * The scene library: every scene this server runs, by id. Shipped scenes are the files of
 * `scenes/` (their id is the file name); scenes made through the API (the editor) are authored
 * ones, kept as YAML under `DATA_DIR/scenes/<id>.yaml`. Both are listed, opened and run alike.
 *
 * A scene's version is its ETag, a hash of its file's bytes as they are on disk now, so a save
 * made from an older version is refused whether the newer one came from another save or from
 * someone editing the file: `save` with `ifMatch` compares against the disk, never against a
 * cached copy. Saves run one at a time and replace a file whole (written beside it, then
 * renamed), so a crash mid-save leaves the old file.
 *
 * Shipped scenes are the repository's: a save of one writes `scenes/<id>.yaml` only when the
 * server was started with SCENES_WRITABLE=1 (developers editing the shipped scenes); otherwise
 * it becomes a new authored scene, `<id>-copy` (or `-copy-2`…), and the shipped file is untouched.
 *
 * Only authored scenes can be deleted (`remove`, with the version the author saw): the file goes,
 * and the scene is no longer listed or run.
 *
 * `scenes` and `list` are live: the rooms look scenes up in the one, the sessions and review
 * routes in the other, so a scene saved here can be run, listed and reviewed at once.
 *
 * @example
 * const library = await openSceneLibrary({ dir: 'scenes', dataDir: './data', writable: false });
 * const opened = await library.read('team-standup'); // { text, etag, source: 'shipped', ... }
 * const saved = await library.save('team-standup', { json: edited }, opened!.etag);
 * // { ok: true, id: 'team-standup-copy', etag: '"…"', source: 'authored', created: true, copiedFrom: 'team-standup' }
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { structureForms, type LoadedScene, type StructureForm } from '../../shared/scene/schema';
import { loadScenes, parseScene, type Problem } from './load';
import { renderScene, updateSceneText } from './save';

export type SceneSource = 'shipped' | 'authored';

/** A scene as its file holds it now. */
export interface StoredScene {
  id: string;
  source: SceneSource;
  file: string;
  text: string;
  etag: string;
}

export interface SceneEntry {
  id: string;
  source: SceneSource;
  etag: string;
  scene: LoadedScene;
}

/** What a save or a check is given: YAML text (kept as written), or the scene as data (merged into the file). */
export type SceneBody = { yaml: string } | { json: unknown };

export type SaveOutcome =
  | { ok: true; id: string; etag: string; source: SceneSource; created: boolean; copiedFrom?: string }
  | { ok: false; reason: 'invalid'; problems: Problem[] }
  | { ok: false; reason: 'conflict' | 'exists'; message: string; current: { etag: string; yaml: string } }
  | { ok: false; reason: 'not-found' | 'bad-id' | 'bad-template'; message: string };

export interface SceneLibraryOptions {
  /** The shipped scenes' folder (`scenes`); its `templates/` holds one template per structure. */
  dir: string;
  dataDir: string;
  /** SCENES_WRITABLE: saves of shipped scenes write their files. Default false: they become authored copies. */
  writable?: boolean;
  /** The shipped scenes, when already loaded (tests change them in memory); default: loaded from `dir`. */
  shipped?: readonly LoadedScene[];
  /** Where a skipped authored file is reported (one that no longer validates, or shadows a shipped id). */
  warn?: (line: string) => void;
}

export interface SceneLibrary {
  readonly scenes: Map<string, LoadedScene>;
  readonly list: LoadedScene[];
  readonly writable: boolean;
  /** Every scene with its current version, re-read from disk (a file changed there is picked up when valid). */
  entries(): Promise<SceneEntry[]>;
  read(id: string): Promise<StoredScene | undefined>;
  /** Problems of a scene body, as `npm run scene:check` words them; none when it is valid. */
  check(body: SceneBody, id?: string): Problem[];
  /** `ifMatch` absent: create `id` (refused if it exists). Present: update it, if it is still that version. */
  save(id: string, body: SceneBody, ifMatch: string | undefined): Promise<SaveOutcome>;
  duplicate(id: string, options?: { id?: string; title?: string }): Promise<SaveOutcome>;
  fromTemplate(form: string, options?: { id?: string; title?: string }): Promise<SaveOutcome>;
  /** Deletes an authored scene, if it is still version `ifMatch`; shipped scenes are the repository's and stay. */
  remove(id: string, ifMatch: string): Promise<RemoveOutcome>;
  /** Whether `id` is a scene of this library (for uploads). */
  has(id: string): boolean;
}

export type RemoveOutcome =
  | { ok: true }
  | { ok: false; reason: 'not-found' | 'shipped'; message: string }
  | { ok: false; reason: 'conflict'; message: string; current: { etag: string; yaml: string } };

/** An authored scene's id: the schema's id shape, short enough for a file name; no dots, slashes or backslashes. */
export const SCENE_ID = /^[a-z][a-z0-9-]{0,63}$/;

export const etagOf = (text: string): string => `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;

/** `"abc"`, `W/"abc"` and `abc` name the same version: clients echo the header or the listing's field. */
const sameVersion = (ifMatch: string, etag: string): boolean => ifMatch.trim().replace(/^W\//, '').replace(/^"|"$/g, '') === etag.replace(/^"|"$/g, '');

const badId = (id: string): SaveOutcome => ({
  ok: false,
  reason: 'bad-id',
  message: `"${id.slice(0, 80)}" is not a scene id: use 1 to 64 lower-case letters, digits and dashes, starting with a letter (no dots, slashes or backslashes).`,
});

export const openSceneLibrary = async (options: SceneLibraryOptions): Promise<SceneLibrary> => {
  const writable = options.writable ?? false;
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const authoredDir = join(options.dataDir, 'scenes');
  const shipped = options.shipped ?? (await loadScenes(options.dir));
  const sources = new Map<string, SceneSource>();
  const scenes = new Map<string, LoadedScene>();
  const list: LoadedScene[] = [];
  /** The etag each scene in `scenes` was read at, to tell when its file changed. */
  const loadedAt = new Map<string, string>();

  const fileOf = (id: string): string => (sources.get(id) === 'shipped' ? join(options.dir, `${id}.yaml`) : join(authoredDir, `${id}.yaml`));
  const relist = (): void => {
    list.splice(0, list.length, ...scenes.values());
  };
  const put = (scene: LoadedScene, source: SceneSource, etag: string): void => {
    sources.set(scene.id, source);
    scenes.set(scene.id, scene);
    loadedAt.set(scene.id, etag);
    relist();
  };
  const readText = async (file: string): Promise<string | undefined> => {
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };

  for (const scene of shipped) {
    const text = await readText(join(options.dir, `${scene.id}.yaml`));
    put(scene, 'shipped', text === undefined ? '' : etagOf(text));
  }
  await mkdir(authoredDir, { recursive: true, mode: 0o700 });
  for (const name of (await readdir(authoredDir)).filter((n) => n.endsWith('.yaml')).sort()) {
    const id = name.slice(0, -'.yaml'.length);
    const file = join(authoredDir, name);
    if (scenes.has(id)) {
      warn(`authored scene ${file} is skipped: "${id}" is a shipped scene's id`);
      continue;
    }
    const text = (await readText(file)) ?? '';
    const { scene, problems } = parseScene(text, file);
    if (scene) put(scene, 'authored', etagOf(text));
    else warn(`authored scene ${file} is skipped: ${problems.length} problem(s), the first: ${problems[0]?.path}: ${problems[0]?.message}`);
  }

  const read = async (id: string): Promise<StoredScene | undefined> => {
    if (!scenes.has(id)) return undefined;
    const file = fileOf(id);
    const text = await readText(file);
    if (text === undefined) return undefined;
    const etag = etagOf(text);
    // Changed on disk since it was loaded: run the new version from now on, if it is valid.
    if (loadedAt.get(id) !== etag) {
      const { scene } = parseScene(text, file);
      if (scene) put(scene, sources.get(id)!, etag);
    }
    return { id, source: sources.get(id)!, file, text, etag };
  };

  const check = (body: SceneBody, id = 'scene'): Problem[] => {
    const file = `${id}.yaml`;
    if ('yaml' in body) return parseScene(body.yaml, file).problems;
    // JSON is YAML: the same checks, the same words; its line numbers are the pretty-printed JSON's, of no use to its sender.
    return parseScene(JSON.stringify(body.json ?? null, null, 2), file).problems.map((p) => ({ ...p, line: 0, col: 0 }));
  };

  const uniqueId = (base: string): string => {
    const stem = base.slice(0, 58);
    if (!scenes.has(stem)) return stem;
    for (let n = 2; ; n++) if (!scenes.has(`${stem}-${n}`)) return `${stem}-${n}`;
  };

  /** Validates and writes `text` as scene `id` (authored unless it is a shipped scene written in place). */
  const write = async (id: string, source: SceneSource, text: string, jsonBody: boolean): Promise<SaveOutcome | { ok: 'written'; etag: string }> => {
    const file = source === 'shipped' ? join(options.dir, `${id}.yaml`) : join(authoredDir, `${id}.yaml`);
    const { scene, problems } = parseScene(text, file);
    if (!scene) return { ok: false, reason: 'invalid', problems: jsonBody ? problems.map((p) => ({ ...p, line: 0, col: 0 })) : problems };
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, text, { mode: source === 'authored' ? 0o600 : 0o644, flag: 'wx' });
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    const etag = etagOf(text);
    put(scene, source, etag);
    return { ok: 'written', etag };
  };

  // One save at a time: the check of the version on disk and the write that replaces it must not interleave.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  };

  /** A new authored scene from `text`, with `title` set if given (comments kept). */
  const createAuthored = async (id: string, text: string, title: string | undefined, extra: { copiedFrom?: string } = {}, jsonBody = false): Promise<SaveOutcome> => {
    let body = text;
    if (title !== undefined) {
      const data = parseDocument(text).toJS() as Record<string, unknown>;
      body = updateSceneText(text, { ...data, title }).text;
    }
    const written = await write(id, 'authored', body, jsonBody);
    if (written.ok !== 'written') return written;
    return { ok: true, id, etag: written.etag, source: 'authored', created: true, ...extra };
  };

  const save = (id: string, body: SceneBody, ifMatch: string | undefined): Promise<SaveOutcome> =>
    serially(async () => {
      if (!SCENE_ID.test(id)) return badId(id);
      const current = scenes.has(id) ? await read(id) : undefined;
      if (current === undefined) {
        if (ifMatch !== undefined) return { ok: false, reason: 'not-found', message: `No scene "${id}" to update; send it without If-Match to create it.` };
        const text = 'yaml' in body ? body.yaml : renderScene(body.json);
        const written = await write(id, 'authored', text, 'json' in body);
        return written.ok === 'written' ? { ok: true, id, etag: written.etag, source: 'authored', created: true } : written;
      }
      const yaml = { etag: current.etag, yaml: current.text };
      if (ifMatch === undefined) {
        return { ok: false, reason: 'exists', message: `Scene "${id}" exists; send If-Match: <its ETag> to update it, or choose another id.`, current: yaml };
      }
      if (!sameVersion(ifMatch, current.etag)) {
        return { ok: false, reason: 'conflict', message: `Scene "${id}" has changed since you opened it (saved by someone else, or edited on disk); nothing was saved. Its current version is attached.`, current: yaml };
      }
      // A YAML body is the author's own text, comments and all; data is merged into the file as it is.
      const text = 'yaml' in body ? body.yaml : updateSceneText(current.text, body.json).text;
      if (current.source === 'shipped' && !writable) return createAuthored(uniqueId(`${id}-copy`), text, undefined, { copiedFrom: id }, 'json' in body);
      const written = await write(id, current.source, text, 'json' in body);
      return written.ok === 'written' ? { ok: true, id, etag: written.etag, source: current.source, created: false } : written;
    });

  const newId = (wanted: string | undefined, fallback: string): SaveOutcome | string => {
    if (wanted === undefined) return uniqueId(fallback);
    if (!SCENE_ID.test(wanted)) return badId(wanted);
    return wanted;
  };

  const taken = async (id: string): Promise<SaveOutcome> => {
    const stored = await read(id);
    return { ok: false, reason: 'exists', message: `Scene "${id}" exists; choose another id.`, current: { etag: stored?.etag ?? '', yaml: stored?.text ?? '' } };
  };

  const duplicate: SceneLibrary['duplicate'] = (id, wanted = {}) =>
    serially(async () => {
      const source = await read(id);
      if (!source) return { ok: false, reason: 'not-found', message: `No scene "${id}".` };
      const target = newId(wanted.id, `${id}-copy`);
      if (typeof target !== 'string') return target;
      if (scenes.has(target)) return taken(target);
      const title = wanted.title ?? `${scenes.get(id)?.title ?? id} (copy)`;
      return createAuthored(target, source.text, title, { copiedFrom: id });
    });

  const fromTemplate: SceneLibrary['fromTemplate'] = (form, wanted = {}) =>
    serially(async () => {
      if (!(structureForms as readonly string[]).includes(form)) {
        return { ok: false, reason: 'bad-template', message: `No template "${String(form).slice(0, 40)}": choose one of ${structureForms.join(', ')}.` };
      }
      const text = await readFile(join(options.dir, 'templates', `${form as StructureForm}.yaml`), 'utf8');
      const target = newId(wanted.id, `new-${form}`);
      if (typeof target !== 'string') return target;
      if (scenes.has(target)) return taken(target);
      return createAuthored(target, text, wanted.title);
    });

  const entries = async (): Promise<SceneEntry[]> => {
    const out: SceneEntry[] = [];
    for (const id of [...scenes.keys()]) {
      const stored = await read(id);
      out.push({ id, source: sources.get(id)!, etag: stored?.etag ?? loadedAt.get(id) ?? '', scene: scenes.get(id)! });
    }
    return out;
  };

  const remove: SceneLibrary['remove'] = (id, ifMatch) =>
    serially(async () => {
      const current = await read(id);
      if (!current) return { ok: false, reason: 'not-found', message: `No scene "${id.slice(0, 80)}".` };
      if (current.source === 'shipped') {
        return { ok: false, reason: 'shipped', message: `"${id}" ships with the server (scenes/${id}.yaml) and cannot be deleted here; only scenes made in the editor can.` };
      }
      if (!sameVersion(ifMatch, current.etag)) {
        return { ok: false, reason: 'conflict', message: `Scene "${id}" has changed since you opened it; nothing was deleted.`, current: { etag: current.etag, yaml: current.text } };
      }
      await rm(current.file);
      scenes.delete(id);
      sources.delete(id);
      loadedAt.delete(id);
      relist();
      return { ok: true };
    });

  return { scenes, list, writable, entries, read, check, save, duplicate, fromTemplate, remove, has: (id) => scenes.has(id) };
};
