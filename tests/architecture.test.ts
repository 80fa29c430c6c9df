/**
 * The tree keeps its shape (STYLE.md): the engine is the core and imports nothing from its shells
 * (providers, conversation, server, media); what the browser and the server both use lives in
 * shared/, which imports neither, and the client imports nothing else of the server's; no module
 * imports itself through others, so any file can be read, tested and moved with only what it names.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { clientSources } from '../server/cli/build-client';
import { describe, expect, it } from 'vitest';

const repo = new URL('../', import.meta.url).pathname;
const roots = ['shared', 'server', 'client/src', 'avatars', 'bench', 'tests'];
const options: ts.CompilerOptions = { moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext, allowJs: false, resolveJsonModule: true, jsx: ts.JsxEmit.ReactJSX };

const sourcesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    if (statSync(path).isDirectory()) return sourcesUnder(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });

/** Every project file and the project files it imports (type-only imports count: they couple too). */
const graph = (): Map<string, string[]> => {
  const files = roots.flatMap((root) => sourcesUnder(join(repo, root)));
  const known = new Set(files);
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(ts.sys.readFile(file)!, true, true);
    const targets = importedFiles
      .map(({ fileName }) => ts.resolveModuleName(fileName, file, options, ts.sys).resolvedModule?.resolvedFileName)
      .filter((target): target is string => target !== undefined && known.has(target));
    edges.set(file, [...new Set(targets)]);
  }
  return edges;
};

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
const cycles = (edges: Map<string, string[]>): string[][] => {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(relative(repo, member));
    } while (member !== file);
    if (component.length > 1 || (edges.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return found;
};

describe('the shape of the tree', () => {
  const edges = graph();

  it('finds the imports it checks', () => {
    const engine = [...edges.keys()].find((f) => f.endsWith('server/engine/session.ts'))!;
    expect(edges.get(engine)!.map((f) => relative(repo, f))).toContain('server/engine/state.ts');
  });

  it('has no import cycles', () => {
    expect(cycles(edges)).toEqual([]);
  });

  /** `from -> to` for every import of a file under `from` (tests included unless `code` only) into anything `allowed` does not match. */
  const leaving = (from: RegExp, allowed: RegExp, code = false): string[] =>
    [...edges]
      .filter(([file]) => from.test(relative(repo, file)) && !(code && /\.test\.tsx?$/.test(file)))
      .flatMap(([file, targets]) => targets.map((t) => `${relative(repo, file)} -> ${relative(repo, t)}`))
      .filter((edge) => !allowed.test(edge.split(' -> ')[1]!));

  it('keeps the engine free of its shells: it imports only itself and shared/', () => {
    expect(leaving(/^server\/engine\//, /^(server\/engine|shared)\//, true)).toEqual([]);
  });

  it('keeps shared/ browser-safe and at the bottom: it imports only itself', () => {
    expect(leaving(/^shared\//, /^shared\//)).toEqual([]);
  });

  it('gives the client nothing of the server but shared/ (its tests included)', () => {
    expect(leaving(/^client\/src\//, /^(client\/src|shared)\//)).toEqual([]);
  });

  it('layers the client: the shared pieces (scene, ui, net, audio, state) import no feature; features may use the review\'s pieces, the review no other feature', () => {
    const features = /^(room|review|replay|debrief|compare|sessions)\//;
    const client = (f: string) => relative(repo, f).replace(/^client\/src\//, '');
    const crossing = [...edges]
      .filter(([file]) => relative(repo, file).startsWith('client/src/') && !/\.test\.tsx?$/.test(file))
      .flatMap(([file, targets]) => targets.map((t) => [client(file), client(t)] as const))
      .filter(([from, to]) => (/^(scene|ui|net|audio|state)\//.test(from) && features.test(to)) || (from.startsWith('review/') && features.test(to) && !to.startsWith('review/')))
      .map(([from, to]) => `${from} -> ${to}`);
    expect(crossing).toEqual([]);
  });

  it('rebuilds the client when any module it bundles changes', () => {
    const reached = new Set<string>();
    const visit = (file: string): void => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const next of edges.get(file) ?? []) visit(next);
    };
    for (const file of edges.keys()) if (relative(repo, file).startsWith('client/src/') && !/\.test\.tsx?$/.test(file)) visit(file);
    const uncovered = [...reached].map((f) => relative(repo, f)).filter((f) => !clientSources.some((source) => f === source || f.startsWith(`${source}/`)));
    expect(uncovered).toEqual([]);
  });
});
