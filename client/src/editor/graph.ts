/**
 * The flow as a graph: a node per snippet, an edge per transition, both ways. A snippet's `next`
 * names the snippet that follows; without it the next in the list follows (an implicit edge), and
 * `null` ends the session there (schema.ts `Snippet.next`). Connecting writes `next`; cutting an
 * edge writes `null`; an edge that the list order already gives is left implicit, so an opened
 * scene maps to the same graph and back to the same YAML. A node sits where it was dropped (the
 * snippet's `editor.position`, which sessions ignore), else in list order, left to right.
 *
 * ```ts
 * transitionsOf([{ id: 'a' }, { id: 'b', next: null }]); // [{ source: 'a', target: 'b', implicit: true }]
 * connect(snippets, 'b', 'a');                          // b.next = 'a': a loop back
 * ```
 */
import type { Draft } from './model';

type SnippetInput = Draft['snippets'][number];

export interface Transition {
  id: string;
  source: string;
  target: string;
  /** Given by the list order, not written in the scene. */
  implicit: boolean;
}

/** Where the flow goes after each snippet, in the snippets' order. */
export const transitionsOf = (snippets: readonly SnippetInput[]): Transition[] =>
  snippets.flatMap((snippet, i): Transition[] => {
    const implicit = snippet.next === undefined;
    const target = implicit ? snippets[i + 1]?.id : snippet.next;
    if (typeof target !== 'string') return [];
    return [{ id: `${snippet.id}->${target}`, source: snippet.id, target, implicit }];
  });

const update = (snippets: readonly SnippetInput[], id: string, change: (s: SnippetInput, i: number) => SnippetInput): SnippetInput[] =>
  snippets.map((s, i) => (s.id === id ? change(s, i) : s));

const without = (snippet: SnippetInput): SnippetInput => {
  const { next: _, ...rest } = snippet;
  return rest;
};

/** `source` goes on to `target`: implicit when the list already says so, else written. */
export const connect = (snippets: readonly SnippetInput[], source: string, target: string): SnippetInput[] =>
  update(snippets, source, (s, i) => (snippets[i + 1]?.id === target ? without(s) : { ...s, next: target }));

/** The session ends after `source`. The last snippet ends without saying so. */
export const disconnect = (snippets: readonly SnippetInput[], source: string): SnippetInput[] =>
  update(snippets, source, (s, i) => (i === snippets.length - 1 ? without(s) : { ...s, next: null }));

/**
 * The snippets without `id`. Transitions into it are cut (they would name nothing); one that came
 * to it from the list order now goes on to whatever follows it, as the list does.
 */
export const removeSnippet = (snippets: readonly SnippetInput[], id: string): SnippetInput[] =>
  snippets.filter((s) => s.id !== id).map((s) => (s.next === id ? { ...s, next: null } : s));

export interface NodePlace {
  x: number;
  y: number;
}

/** A node never moved: left to right in the list's order, a little staggered so edges that skip a node stay visible. */
export const placeOf = (index: number): NodePlace => ({ x: 40 + index * 250, y: 60 + (index % 2) * 90 });
