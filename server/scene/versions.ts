/**
 * The scene a session ran, as it was when the session was made. The editor may change or delete a
 * scene at any time; a session's review, transcript, report, debrief, replay and its resume after a
 * crash must still read the names, seats and contents it ran with. So a new session stores the
 * version of its scene it runs (`versionOf`: the YAML text the scene was read from, and its ETag, the
 * library's version of the file), and every reader of a past session's scene goes through
 * `sessionScenes`, which reads that text back from the store and parses it once per version.
 *
 * A session made before versions were kept (its row names none), or whose stored text no longer
 * validates (a newer server's schema), is read with the scene as it is now, as it always was.
 *
 * ```ts
 * store.createSession({ ...row, sceneVersion: versionOf(scene) }); // { etag: '"…"', text: 'title: …' }
 * const scenes = sessionScenes({ store, current: (id) => library.scenes.get(id) });
 * const scene = await scenes.of(await store.session(id)); // the version it ran, whatever the file holds now
 * ```
 */
import type { LoadedScene } from '../../shared/scene/schema';
import { after, type AnyStore, type SceneVersion, type SessionRow } from '../store/store';
import { etagOf } from './library';
import { formatProblem, parseScene, sourceTextOf } from './load';
import { renderScene } from './save';

/** What a session is stored with: the text its scene was read from (a scene made in memory: rendered), and its ETag. */
export const versionOf = (scene: LoadedScene): SceneVersion => {
  const { id: _id, ...data } = scene;
  // JSON's view of it: a scene made in memory may hold undefined fields, which YAML would write as null.
  const text = sourceTextOf(scene) ?? renderScene(JSON.parse(JSON.stringify(data)));
  return { etag: etagOf(text), text };
};

/** A session's scene: the one it ran (its live room's, else its stored version), or undefined if none can be read. */
export type SceneOf = (row: SessionRow) => Promise<LoadedScene | undefined>;

export interface SessionScenes {
  /** The scene `row`'s session ran: at once with SQLite's store, later with Postgres's. */
  of(row: Pick<SessionRow, 'scene' | 'sceneEtag'>): LoadedScene | undefined | Promise<LoadedScene | undefined>;
}

export interface SessionScenesOptions {
  store: AnyStore;
  /** The scene of this id as it is now (the library's): for sessions stored without a version. */
  current: (id: string) => LoadedScene | undefined;
  /** Where a stored version that no longer validates is reported, once. Default: standard error. */
  warn?: (line: string) => void;
}

/** Versions kept parsed: a server runs a handful of scenes, each edited now and then. */
const PARSED_VERSIONS = 64;

export const sessionScenes = (options: SessionScenesOptions): SessionScenes => {
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  /** Parsed versions by scene and ETag (null: its text does not validate), least recently read first. */
  const parsed = new Map<string, LoadedScene | null>();
  const keep = (key: string, scene: LoadedScene | null) => {
    parsed.delete(key);
    parsed.set(key, scene);
    if (parsed.size > PARSED_VERSIONS) parsed.delete(parsed.keys().next().value!);
  };
  return {
    of({ scene: id, sceneEtag }) {
      if (sceneEtag === null) return options.current(id);
      const key = `${id}\n${sceneEtag}`;
      const known = parsed.get(key);
      if (known !== undefined) {
        keep(key, known);
        return known ?? options.current(id);
      }
      return after(options.store.sceneText(id, sceneEtag), (text) => {
        // Its last session purged meanwhile: the version a new one of it would store is the library's.
        if (text === undefined) return options.current(id);
        const { scene, problems } = parseScene(text, `${id}.yaml`);
        if (!scene) warn(`scene "${id}" at version ${sceneEtag}, as a session stored it, no longer validates (${problems.length} problem(s), the first: ${problems[0] ? formatProblem(problems[0]) : 'none'}); that session is read with the scene as it is now`);
        keep(key, scene ?? null);
        return scene ?? options.current(id);
      });
    },
  };
};
