/**
 * The flow as a graph and back: every shipped scene maps to a graph whose transitions are the ones
 * the engine follows, and drawing or cutting an edge writes `next` only where the list order does
 * not already say it, so an untouched graph leaves the scene as it was.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { connect, disconnect, removeSnippet, transitionsOf } from './graph';
import type { Draft } from './model';

type Snippets = Draft['snippets'];
const s = (id: string, next?: string | null): Snippets[number] => ({ id, initiator: 'a', turns: 3, ...(next !== undefined ? { next } : {}) });
const pairs = (snippets: Snippets) => transitionsOf(snippets).map((t) => `${t.source}->${t.target}${t.implicit ? '' : '!'}`);

describe('the flow graph', () => {
  it('follows the list where next is not written, a written next, and ends at null or the last', () => {
    expect(pairs([s('a'), s('b', 'd'), s('c', null), s('d')])).toEqual(['a->b', 'b->d!']);
    expect(pairs([s('a'), s('b')])).toEqual(['a->b']);
  });

  it('writes next for an edge the list does not give, and leaves it unwritten for one it does', () => {
    const three = [s('a'), s('b'), s('c')];
    expect(connect(three, 'a', 'b')).toEqual(three);
    const skip = connect(three, 'a', 'c');
    expect(skip[0]).toEqual(s('a', 'c'));
    expect(pairs(skip)).toEqual(['a->c!', 'b->c']);
    // Drawn back to where the list goes: no longer written.
    expect(connect(skip, 'a', 'b')).toEqual(three);
    expect(pairs(connect(three, 'c', 'a'))).toEqual(['a->b', 'b->c', 'c->a!']);
  });

  it('ends the session where an edge is cut, unwritten after the last snippet', () => {
    const three = [s('a'), s('b'), s('c', 'a')];
    expect(pairs(disconnect(three, 'a'))).toEqual(['b->c', 'c->a!']);
    expect(disconnect(three, 'a')[0]).toEqual(s('a', null));
    expect(disconnect(three, 'c')[2]).toEqual(s('c'));
  });

  it('cuts transitions into a removed snippet, and lets the list order carry on', () => {
    const snippets = [s('a', 'c'), s('b'), s('c')];
        expect(removeSnippet(snippets, 'c')).toEqual([s('a', null), s('b')]);
    expect(pairs(removeSnippet([s('a'), s('b'), s('c')], 'b'))).toEqual(['a->c']);
  });

  it('maps every shipped scene to its transitions and back unchanged', () => {
    const files = readdirSync('scenes').filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const scene = parse(readFileSync(`scenes/${file}`, 'utf8')) as Draft;
      const transitions = transitionsOf(scene.snippets);
      // Every transition is where the engine goes: the written next, else the next in the list.
      scene.snippets.forEach((snippet, i) => {
        const expected = snippet.next === undefined ? scene.snippets[i + 1]?.id : snippet.next;
        expect(transitions.find((t) => t.source === snippet.id)?.target ?? null, `${file} ${snippet.id}`).toBe(expected ?? null);
      });
      // Redrawing every edge as it is changes nothing.
      const redrawn = transitions.reduce((snippets, t) => connect(snippets, t.source, t.target), scene.snippets);
      expect(redrawn, file).toEqual(scene.snippets);
    }
  });
});
