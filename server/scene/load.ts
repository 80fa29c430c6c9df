/**
 * Loading scene files: YAML text in, a validated `LoadedScene` out, or every problem found, each
 * placed at the line and column of the node it concerns:
 *
 *   scenes/x.yaml:14:7 snippets[1].turns: expected a positive integer, got "six"
 *
 * Three passes, all reported together: YAML syntax, then the zod schema and the cross-references the
 * schema cannot see (party members, initiators, next snippets, the moderator, who asks whom, ...),
 * which shared/scene/check.ts holds for this loader and the editor alike. `parseScene` reads no file
 * (the avatar ids are read once, at import); only `loadScene` and `loadScenes` touch the file system.
 *
 * @example
 * const { scene, problems } = parseScene(text, 'scenes/team-standup.yaml');
 * problems.forEach((p) => console.log(formatProblem(p)));
 */
import { readFileSync } from 'node:fs';
import { isAlias, isMap, isNode, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { checkSceneData, formatPath, type Path } from '../../shared/scene/check';
import type { LoadedScene } from '../../shared/scene/schema';

export type { LoadedScene };

export interface Problem {
  file: string;
  line: number;
  col: number;
  /** `snippets[1].turns`, `(yaml)` for syntax errors, `(scene)` for the document as a whole. */
  path: string;
  message: string;
}

export const formatProblem = (p: Problem): string => `${p.file}:${p.line}:${p.col} ${p.path}: ${p.message}`;

/** Thrown by `loadScene` and `loadScenes`; the message lists every problem, one formatted line each. */
export class SceneError extends Error {
  readonly problems: Problem[];

  constructor(problems: Problem[]) {
    super(`invalid scene:\n${problems.map(formatProblem).join('\n')}`);
    this.name = 'SceneError';
    this.problems = problems;
  }
}

/** The avatar ids of avatars/manifest.json (null where the manifest is not there, e.g. a packaged CLI). */
const shippedAvatars: readonly string[] | null = (() => {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../../avatars/manifest.json', import.meta.url), 'utf8')) as { avatars: { id: string }[] };
    return manifest.avatars.map((a) => a.id);
  } catch {
    return null;
  }
})();

/**
 * The text each scene `parseScene` returned was read from, for as long as the scene is in use: what a
 * session stores as the version of its scene (versions.ts). A scene made or changed in memory (tests)
 * has none, and is stored rendered.
 */
const sourceTexts = new WeakMap<LoadedScene, string>();
export const sourceTextOf = (scene: LoadedScene): string | undefined => sourceTexts.get(scene);

export const parseScene = (text: string, file: string): { scene?: LoadedScene; problems: Problem[] } => {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const problemAt = (offset: number, path: string, message: string): Problem => ({ file, ...lines.linePos(offset), path, message });

  // A document with syntax errors has no trustworthy structure, so the later passes would only add noise.
  // One syntax slip often yields several errors at the same spot; the first one names it best.
  if (doc.errors.length > 0) {
    const problems = doc.errors.map((e) => problemAt(e.pos[0], '(yaml)', e.message));
    return { problems: problems.filter((p, i) => problems.findIndex((q) => q.line === p.line && q.col === p.col) === i) };
  }

  let data: unknown;
  try {
    data = doc.toJS();
  } catch (error) {
    // toJS throws on alias bombs ("Excessive alias count"), which parse without errors.
    return { problems: [problemAt(0, '(yaml)', error instanceof Error ? error.message : String(error))] };
  }

  const validated = checkSceneData(data, shippedAvatars);
  const problems = validated.findings
    .map((f) => problemAt(offsetOf(doc, f.path, f.at ?? 'value'), formatPath(f.path), f.message))
    .sort((a, b) => a.line - b.line || a.col - b.col);
  if (validated.scene === undefined || problems.length > 0) return { problems };
  const scene = { ...validated.scene, id: sceneId(file) };
  sourceTexts.set(scene, text);
  return { scene, problems };
};

export const loadScene = async (file: string): Promise<LoadedScene> => {
  // Imported here rather than at the top so that bundling `parseScene` for the browser pulls in no Node module.
  const { readFile } = await import('node:fs/promises');
  const { scene, problems } = parseScene(await readFile(file, 'utf8'), file);
  if (scene === undefined) throw new SceneError(problems);
  return scene;
};

/** Every `*.yaml` / `*.yml` scene in `dir`, sorted by file name; throws with the problems of all files at once. */
export const loadScenes = async (dir: string): Promise<LoadedScene[]> => {
  const { readdir, readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const files = (await readdir(dir))
    .filter((name) => /\.ya?ml$/.test(name))
    .sort()
    .map((name) => join(dir, name));
  const results = await Promise.all(files.map(async (file) => parseScene(await readFile(file, 'utf8'), file)));
  const problems = results.flatMap((r) => r.problems);
  if (problems.length > 0) throw new SceneError(problems);
  return results.flatMap((r) => (r.scene ? [r.scene] : []));
};

const sceneId = (file: string): string => (file.split(/[\\/]/).pop() ?? file).replace(/\.[^.]*$/, '');

/**
 * The offset of the node at `path`. For a key that is missing, the map that lacks it; for an empty
 * value (`turns:`), its key, because the empty value sits at the end of the line.
 */
const offsetOf = (doc: Document, path: Path, at: 'key' | 'value'): number => {
  const startOf = (node: unknown): number | undefined => (isNode(node) ? node.range?.[0] : undefined);
  let node: unknown = doc.contents;
  let offset = startOf(node) ?? 0;
  for (const [i, segment] of path.entries()) {
    const collection = isAlias(node) ? node.resolve(doc) : node;
    if (isMap(collection)) {
      const pair = collection.items.find((p) => isScalar(p.key) && String(p.key.value) === segment);
      if (pair === undefined) return offset;
      const keyStart = startOf(pair.key) ?? offset;
      const empty = isScalar(pair.value) && pair.value.value === null && pair.value.range?.[0] === pair.value.range?.[1];
      node = pair.value;
      offset = (at === 'key' && i === path.length - 1) || empty ? keyStart : (startOf(node) ?? keyStart);
    } else if (isSeq(collection) && typeof segment === 'number') {
      node = collection.items[segment];
      if (node === undefined) return offset;
      offset = startOf(node) ?? offset;
    } else {
      return offset;
    }
  }
  return offset;
};
