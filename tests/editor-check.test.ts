/**
 * The editor's live check (shared/scene/check.ts's checkScene, on the scene as data) says what
 * `npm run scene:check` says (server/scene/load.ts, the same checks placed in a YAML file): the same
 * problems at the same paths in the same words, for every shipped scene (none) and for scenes
 * broken in the ways an author breaks them. It lives here because the client's own tests may not
 * import the server (tests/architecture.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { checkScene } from '../shared/scene/check';
import { parseScene } from '../server/scene/load';

const avatars = (JSON.parse(readFileSync('avatars/manifest.json', 'utf8')) as { avatars: { id: string }[] }).avatars.map((a) => a.id);
const bySchema = (data: unknown) =>
  parseScene(stringify(data), 'x.yaml')
    .problems.map((p) => `${p.path}: ${p.message}`)
    .sort();
const byEditor = (data: unknown) =>
  checkScene(data, avatars)
    .map((p) => `${p.path}: ${p.message}`)
    .sort();

const shipped = readdirSync('scenes')
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => parse(readFileSync(`scenes/${f}`, 'utf8')) as Record<string, any>);

describe("the editor's check", () => {
  it('finds nothing wrong with any shipped scene', () => {
    expect(shipped.length).toBeGreaterThan(5);
    for (const scene of shipped) expect(byEditor(scene)).toEqual([]);
  });

  const base = shipped.find((s) => s.title.includes('stand-up')) ?? shipped[0]!;
  const broken: [string, (s: Record<string, any>) => void][] = [
    ['a turn budget in words', (s) => (s.snippets[0].turns = 'six')],
    ['a misspelt key', (s) => (s.participants[1].persona.backstroy = 'x')],
    ['an empty backstory', (s) => (s.participants[1].persona.backstory = '')],
    ['an unknown initiator and next', (s) => Object.assign(s.snippets[0], { initiator: 'nobody', next: 'nowhere' })],
    ['a duplicate id', (s) => (s.participants[1].id = s.participants[0].id)],
    ['no human', (s) => (s.participants = s.participants.filter((p: any) => p.kind === 'ai'))],
    ['an unknown avatar and a bad reveal', (s) => Object.assign(s.participants[1], { avatar: 'avatar-99', persona: { ...s.participants[1].persona, privateKnowledge: [{ text: 'x', reveal: 'sometimes' }] } })],
    ['a probability above 1', (s) => (s.snippets[0].interruptions = [{ from: s.participants[0].id, to: s.participants[1].id, probability: 2 }])],
    ['an AI seat with a stand-in', (s) => (s.participants[1].simulated = { mode: 'reactive' })],
    ['a content owned by no party', (s) => (s.contents = [{ id: 'deck', kind: 'slides', title: 'Deck', owner: 'ghosts' }])],
    ['no title and a formation that is not one', (s) => Object.assign(s, { title: '', formation: 'ring' })],
  ];
  it.each(broken)('says what scene:check says of %s', (_, breakIt) => {
    const scene = structuredClone(base);
    breakIt(scene);
    const expected = bySchema(scene);
    expect(expected.length).toBeGreaterThan(0);
    expect(byEditor(scene)).toEqual(expected);
  });
});
