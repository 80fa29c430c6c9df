/**
 * Saving an edited scene into its file (server/scene/save.ts): every shipped scene, edited the ways
 * the editor edits, comes back as the value asked for, with the file's comments and the untouched
 * lines as they were.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { updateSceneText } from '../../server/scene/save';

type Loose = Record<string, any>;
const dir = new URL('../../scenes/', import.meta.url).pathname;
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
const comments = (text: string): string[] => text.split('\n').filter((line) => line.trimStart().startsWith('#'));

const edits: Record<string, (scene: Loose) => void> = {
  'a persona mood over two lines': (s) => {
    s.participants.find((p: Loose) => p.persona).persona.mood = 'tense\nand tired';
  },
  'the first snippet deleted': (s) => s.snippets.splice(0, 1),
  'a participant added': (s) => s.participants.push({ id: 'zed', kind: 'ai', name: 'Zed', persona: { backstory: 'A newcomer.', goals: ['listen'] } }),
  'a participant inserted first': (s) => s.participants.unshift({ id: 'zed', kind: 'human', name: 'Zed' }),
  'the context removed': (s) => delete s.context,
  'a key added to a snippet': (s) => {
    s.snippets[0].roles = { askers: ['*'], answerers: ['*'] };
  },
  "an item's first key removed": (s) => delete s.participants[0].id,
  'the snippets reordered': (s) => s.snippets.reverse(),
  'a list emptied': (s) => {
    s.snippets[0].lines = [];
  },
};

describe.each(files.map((f) => [f]))('%s', (file) => {
  const text = readFileSync(join(dir, file), 'utf8');

  it('is unchanged when nothing changed', () => {
    expect(updateSceneText(text, parse(text))).toEqual({ text, how: 'unchanged' });
  });

  it.each(Object.keys(edits).map((name) => [name]))('%s: gives the edited value, only its lines rewritten', (name) => {
    const scene = parse(text) as Loose;
    edits[name]!(scene);
    const updated = updateSceneText(text, scene);
    expect(updated.how).toBe('patched');
    expect(parse(updated.text)).toEqual(JSON.parse(JSON.stringify(scene)));
    // Comments go only with what was deleted or rewritten as a whole (a reordered list).
    const kept = comments(updated.text);
    if (name === 'a persona mood over two lines' || name === 'a participant added' || name === 'a key added to a snippet') expect(kept).toEqual(comments(text));
    else expect(kept.every((line) => comments(text).includes(line))).toBe(true);
  });
});
