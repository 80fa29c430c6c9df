/**
 * Writing an edited scene back into its YAML file so that a person who opens the file afterwards
 * finds it as they left it: their comments, key order, line breaks and quoting, with only what
 * the editor changed rewritten. The `yaml` package parses the file into a Document whose nodes
 * know their place in the text; the new value is compared with the old one node by node, and only
 * the text of the nodes that differ is replaced (a scalar in place, a key or a list item as lines
 * of its own). Re-stringifying the whole Document would refold every long line of a shipped scene.
 *
 * List items are matched by their `id` where every item has one (participants, parties,
 * contents, snippets), so deleting a snippet removes its lines and keeps the comments of the
 * others. Whatever this cannot place (a reordered list, a type that changed, a key removed from a
 * list item's first line) is rendered afresh in its place; the result is always parsed again and
 * must equal the value asked for, or the whole file is rendered from the value (its leading
 * comment kept), so a save never writes something other than what the editor sent.
 *
 * @example
 * const text = readFileSync('scenes/team-standup.yaml', 'utf8');
 * const data = parseDocument(text).toJS();
 * data.participants[0].persona.mood = 'tense';
 * writeFileSync('scenes/team-standup.yaml', updateSceneText(text, data).text); // one line changed
 */
import { isDeepStrictEqual } from 'node:util';
import { Document, isMap, isNode, isPair, isScalar, isSeq, parseDocument, stringify, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';

/** What new text is folded at: the shipped scenes' longest wrapped lines are about this long. */
const LINE_WIDTH = 100;

interface Edit {
  start: number;
  end: number;
  text: string;
}

export interface UpdatedText {
  text: string;
  /** `patched`: only the changed nodes were rewritten; `rendered`: the whole file was (comments but the leading one lost). */
  how: 'unchanged' | 'patched' | 'rendered';
}

/** `text` (a valid YAML scene file) changed to hold `value`, keeping everything of the file that did not change. */
export const updateSceneText = (text: string, value: unknown): UpdatedText => {
  const doc = parseDocument(text);
  if (doc.errors.length === 0 && isDeepStrictEqual(toPlain(doc.toJS()), toPlain(value))) return { text, how: 'unchanged' };
  if (doc.errors.length === 0 && isMap(doc.contents) && !doc.contents.flow) {
    try {
      const edits = patchNode(text, doc.contents, doc.toJS(), value, () => {
        throw new CannotPatch();
      });
      const patched = applyEdits(text, edits);
      const check = parseDocument(patched);
      if (check.errors.length === 0 && isDeepStrictEqual(toPlain(check.toJS()), toPlain(value))) return { text: patched, how: 'patched' };
    } catch (error) {
      if (!(error instanceof CannotPatch)) throw error;
    }
  }
  return { text: renderScene(value, doc.errors.length === 0 ? doc.commentBefore : null), how: 'rendered' };
};

/** A new scene file's text: the value as YAML, with an optional leading comment. */
export const renderScene = (value: unknown, comment?: string | null): string => {
  const doc = new Document(value);
  if (comment) doc.commentBefore = comment;
  return doc.toString({ lineWidth: LINE_WIDTH });
};

class CannotPatch extends Error {}

/** JSON's view of a value: what the editor sends and what the comparison should see (no undefined keys). */
const toPlain = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isScalarValue = (value: unknown): boolean => value === null || ['string', 'number', 'boolean'].includes(typeof value);

const applyEdits = (text: string, edits: readonly Edit[]): string =>
  [...edits].sort((a, b) => b.start - a.start || b.end - a.end).reduce((out, e) => out.slice(0, e.start) + e.text + out.slice(e.end), text);

const lineStart = (text: string, offset: number): number => text.lastIndexOf('\n', offset - 1) + 1;
const columnOf = (text: string, offset: number): number => offset - lineStart(text, offset);

/** Just past the newline of the line holding the last non-blank character before `end`. */
const lineEndAfter = (text: string, end: number): number => {
  let last = end - 1;
  while (last > 0 && /\s/.test(text[last]!)) last -= 1;
  const newline = text.indexOf('\n', last);
  return newline === -1 ? text.length : newline + 1;
};

const endOf = (node: unknown, fallback: number): number => (isNode(node) && node.range ? node.range[1] : fallback);
const startOf = (node: unknown): number => {
  if (!isNode(node) || !node.range) throw new CannotPatch();
  return node.range[0];
};

/** Lines of YAML indented by `indent` spaces, the first one without (it continues a line already indented). */
const indented = (yaml: string, indent: number): string =>
  yaml
    .trimEnd()
    .split('\n')
    .map((line, i) => (i === 0 || line === '' ? line : ' '.repeat(indent) + line))
    .join('\n') + '\n';

const renderPair = (key: string, value: unknown, indent: number, flow: boolean): string => {
  const doc = new Document({ [key]: value });
  const node = (doc.contents as YAMLMap).items[0]?.value;
  if (flow && (isMap(node) || isSeq(node))) node.flow = true;
  return indented(doc.toString({ lineWidth: LINE_WIDTH }), indent);
};

const renderItem = (value: unknown, indent: number): string => indented(stringify([value], { lineWidth: LINE_WIDTH }), indent);

/** A scalar written where the old one stood, on its line: plain where YAML allows, else double-quoted. */
const inlineScalar = (value: unknown): string => {
  if (typeof value === 'string' && /[\n\r]/.test(value)) return JSON.stringify(value);
  const text = stringify(value, { lineWidth: 0 }).trimEnd();
  return text.includes('\n') ? JSON.stringify(value) : text;
};

/**
 * The edits that turn `node` (holding `old`) into `value`. `replaceWhole` is the parent's way of
 * rewriting this node together with its key or list marker, for changes that cannot be made inside it.
 */
const patchNode = (text: string, node: unknown, old: unknown, value: unknown, replaceWhole: () => Edit[]): Edit[] => {
  if (isDeepStrictEqual(toPlain(old), toPlain(value))) return [];
  if (isMap(node) && !node.flow && isObject(value) && isObject(old) && Object.keys(value).length > 0) return patchMap(text, node, old, value, replaceWhole);
  if (isSeq(node) && !node.flow && Array.isArray(value) && Array.isArray(old) && value.length > 0) return patchSeq(text, node, old, value, replaceWhole);
  if (isScalar(node) && isScalarValue(value) && node.type !== 'BLOCK_LITERAL' && node.type !== 'BLOCK_FOLDED' && node.range) {
    return [{ start: node.range[0], end: node.range[1], text: inlineScalar(value) }];
  }
  return replaceWhole();
};

const keyOf = (pair: Pair): string => {
  if (!isScalar(pair.key)) throw new CannotPatch();
  return String(pair.key.value);
};

const patchMap = (text: string, map: YAMLMap, old: Record<string, unknown>, value: Record<string, unknown>, replaceWhole: () => Edit[]): Edit[] => {
  const pairs = map.items.filter(isPair);
  const first = pairs[0];
  if (!first) return replaceWhole();
  const indent = columnOf(text, startOf(first.key));
  // The first key of a list item shares its line with the "- ": that line cannot simply go.
  const firstOnMarkerLine = text.slice(lineStart(text, startOf(first.key)), startOf(first.key)).trim() !== '';
  const lastContent = (pair: Pair): number => lineEndAfter(text, endOf(pair.value, endOf(pair.key, startOf(pair.key))));
  const edits: Edit[] = [];
  for (const pair of pairs) {
    const key = keyOf(pair);
    const from = startOf(pair.key);
    const to = lastContent(pair);
    if (!(key in value) || value[key] === undefined) {
      if (pair === first && firstOnMarkerLine) return replaceWhole();
      edits.push({ start: lineStart(text, from), end: to, text: '' });
      continue;
    }
    const flow = (isMap(pair.value) || isSeq(pair.value)) && pair.value.flow === true;
    const rewrite = (): Edit[] => [{ start: from, end: to, text: renderPair(key, value[key], indent, flow) }];
    edits.push(...patchNode(text, pair.value, old[key], value[key], rewrite));
  }
  const known = new Set(pairs.map(keyOf));
  const added = Object.keys(value).filter((key) => !known.has(key) && value[key] !== undefined);
  if (added.length > 0) {
    const at = lastContent(pairs[pairs.length - 1]!);
    edits.push({ start: at, end: at, text: added.map((key) => ' '.repeat(indent) + renderPair(key, value[key], indent, false)).join('') });
  }
  return edits;
};

/** Where a block list's item begins: its "- " marker, which must open its line. */
const markerOf = (text: string, item: unknown): number => {
  const at = text.lastIndexOf('-', startOf(item));
  if (at < 0 || text.slice(lineStart(text, at), at).trim() !== '') throw new CannotPatch();
  return at;
};

const idsOf = (items: readonly unknown[]): string[] | null => {
  const ids = items.map((item) => (isObject(item) && typeof item.id === 'string' ? item.id : null));
  return ids.every((id): id is string => id !== null) && new Set(ids).size === ids.length ? ids : null;
};

const patchSeq = (text: string, seq: YAMLSeq, old: unknown[], value: unknown[], replaceWhole: () => Edit[]): Edit[] => {
  const nodes = seq.items;
  if (nodes.length === 0 || nodes.length !== old.length) return replaceWhole();
  const indent = columnOf(text, markerOf(text, nodes[0]));
  const regionOf = (i: number) => {
    const marker = markerOf(text, nodes[i]);
    return { marker, line: lineStart(text, marker), end: lineEndAfter(text, endOf(nodes[i], marker + 1)) };
  };
  // Which old item each new one continues: by id where all have ids, else by position.
  const oldIds = idsOf(old);
  const newIds = idsOf(value);
  const matchOf: (number | null)[] = oldIds && newIds ? newIds.map((id) => (oldIds.includes(id) ? oldIds.indexOf(id) : null)) : value.map((_, i) => (i < old.length ? i : null));
  const kept = matchOf.filter((m): m is number => m !== null);
  if (kept.some((m, i) => i > 0 && m < kept[i - 1]!)) return replaceWhole();

  const edits: Edit[] = [];
  old.forEach((_, i) => {
    if (!kept.includes(i)) {
      const region = regionOf(i);
      edits.push({ start: region.line, end: region.end, text: '' });
    }
  });
  // New items go after the item before them that was kept, or before the first item.
  let insertAt = regionOf(0).line;
  let pending = '';
  const flush = () => {
    if (pending) edits.push({ start: insertAt, end: insertAt, text: pending });
    pending = '';
  };
  value.forEach((item, j) => {
    const m = matchOf[j];
    if (m === null || m === undefined) {
      pending += ' '.repeat(indent) + renderItem(item, indent);
      return;
    }
    flush();
    const region = regionOf(m);
    const rewrite = (): Edit[] => [{ start: region.marker, end: region.end, text: renderItem(item, indent) }];
    edits.push(...patchNode(text, nodes[m], old[m], item, rewrite));
    insertAt = region.end;
  });
  flush();
  return edits;
};
