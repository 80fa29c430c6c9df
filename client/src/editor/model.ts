/**
 * The scene being edited and its history. The draft is the scene in the schema's input shape
 * (what the YAML holds and `GET /api/scenes/:id` answers), never the parsed one: defaults the
 * author did not write stay unwritten, so an opened scene saved without edits is the same scene.
 * Every change is an `Edit`, a named function of the draft (Excalidraw's actions: a name and a
 * perform), applied through `commit`, so undo and redo cover all of them. Typing into one field
 * makes one step, not one per key: edits with the same `merge` key in a row coalesce.
 *
 * ```ts
 * let history = open(scene);
 * history = commit(history, setAt(['title'], 'Salary talk'), 'title');
 * history = undo(history);                   // the title as it was
 * isDirty(redo(history));                    // true until `saved(history)`
 * ```
 */
import type { SceneInput } from '../../../shared/scene/schema';

export type Draft = SceneInput;
export type Path = readonly (string | number)[];

/** One change of the draft: its name (for the undo button's title) and what it does. */
export interface Edit {
  name: string;
  perform: (draft: Draft) => Draft;
}

export interface History {
  past: Draft[];
  present: Draft;
  future: Draft[];
  /** The draft as last saved (or opened): what "unsaved changes" compares with. */
  saved: Draft;
  /** The names of the edits in `past`, for "Undo <name>". */
  names: string[];
  undone: string[];
  /** The merge key of the last edit, while it may still coalesce. */
  merging: string | null;
}

/** How many steps back undo reaches; a long session of typing stays small. */
const depth = 200;

export const open = (draft: Draft): History => ({ past: [], present: draft, future: [], saved: draft, names: [], undone: [], merging: null });

/** Applies `edit`; with the same `merge` key as the last edit, the two are one step of history. */
export const commit = (history: History, edit: Edit, merge: string | null = null): History => {
  const next = edit.perform(history.present);
  if (next === history.present) return history;
  if (merge !== null && merge === history.merging && history.past.length > 0) return { ...history, present: next, future: [], undone: [] };
  return {
    ...history,
    past: [...history.past, history.present].slice(-depth),
    names: [...history.names, edit.name].slice(-depth),
    present: next,
    future: [],
    undone: [],
    merging: merge,
  };
};

export const undo = (history: History): History => {
  const previous = history.past.at(-1);
  if (previous === undefined) return history;
  return {
    ...history,
    past: history.past.slice(0, -1),
    names: history.names.slice(0, -1),
    present: previous,
    future: [history.present, ...history.future],
    undone: [history.names.at(-1)!, ...history.undone],
    merging: null,
  };
};

export const redo = (history: History): History => {
  const next = history.future[0];
  if (next === undefined) return history;
  return {
    ...history,
    past: [...history.past, history.present],
    names: [...history.names, history.undone[0]!],
    present: next,
    future: history.future.slice(1),
    undone: history.undone.slice(1),
    merging: null,
  };
};

/** The present draft is what the server now holds. */
export const saved = (history: History, draft: Draft = history.present): History => ({ ...history, saved: draft, merging: null });

/** Whether the draft differs from the saved one (an edit undone is no change). */
export const isDirty = (history: History): boolean => history.present !== history.saved && !sameScene(history.present, history.saved);

/** Equal as data: the same keys with the same values, in any key order. */
export const sameScene = (a: unknown, b: unknown): boolean => JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));

const sorted = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, sorted(v)]),
  );
};

/** The value at `path` in `data`, or undefined where the path leaves it. */
export const getAt = (data: unknown, path: Path): unknown =>
  path.reduce<unknown>((value, key) => (typeof value === 'object' && value !== null ? (value as Record<string | number, unknown>)[key] : undefined), data);

/**
 * `data` with `value` at `path`, copying only the objects on the way; `undefined` removes the key
 * (an emptied optional field is left unwritten, not written empty). Missing objects on the way
 * are made, lists where the next key is a number.
 */
export const withAt = <T>(data: T, path: Path, value: unknown): T => {
  if (path.length === 0) return value as T;
  const [key, ...rest] = path as [string | number, ...(string | number)[]];
  const container: unknown = data ?? (typeof key === 'number' ? [] : {});
  const child = withAt((container as Record<string | number, unknown>)[key], rest, value);
  if (Array.isArray(container)) {
    const copy = [...container];
    copy[key as number] = child;
    return copy as T;
  }
  const copy = { ...(container as Record<string, unknown>) };
  if (child === undefined) delete copy[key];
  else copy[key] = child;
  return copy as T;
};

/** Sets one field: the edit behind every form control. */
export const setAt = (path: Path, value: unknown, name = `Edit ${path.join('.')}`): Edit => ({
  name,
  perform: (draft) => (Object.is(getAt(draft, path), value) ? draft : withAt(draft, path, value)),
});
