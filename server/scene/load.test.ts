import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderSceneSchema, schemaFile } from '../cli/scene-schema';
import { formatProblem, loadScene, loadScenes, parseScene, SceneError } from './load';

const root = fileURLToPath(new URL('../../', import.meta.url));
const scenesDir = join(root, 'scenes');
const sceneFiles = readdirSync(scenesDir).filter((name) => name.endsWith('.yaml'));

/** A small valid scene; each broken scene below is this text with one or more string edits. */
const valid = `title: Test scene
topic: A small scene for the loader specs
formation: table
participants:
  - id: maya
    kind: human
    name: Maya
    simulated: { mode: reactive }
  - id: omar
    kind: ai
    name: Omar
    persona: { backstory: A seasoned chair. }
parties:
  - id: panel
    members: [maya, omar]
contents:
  - id: slides
    kind: slides
    title: Slides
    owner: panel
turnTaking:
  policy: party
  partyMode: moderated
  moderator: omar
snippets:
  - id: opening
    initiator: omar
    turns: 4
    next: questions
  - id: questions
    initiator: maya
    turns: 6
    lines:
      - speaker: omar
        text: Any questions?
`;

const edit = (...replacements: [from: string, to: string][]): string =>
  replacements.reduce((text, [from, to]) => {
    if (!text.includes(from)) throw new Error(`fixture edit: "${from}" not found`);
    return text.replace(from, to);
  }, valid);

/** A structure to insert before `turnTaking:` (lines 21-24 of the edited fixture). */
const structure = 'structure:\n  form: qa\n  askers: [maya]\n  answerers: [panel]\n';

/** Omar's persona with two private-knowledge items, the second given as `item` (line 16 of the edited fixture). */
const knowledge = (item: string): string =>
  `    persona:\n      backstory: A seasoned chair.\n      privateKnowledge:\n        - The panel meets twice.\n        - ${item}\n`;

const problemsIn = (text: string): string[] => parseScene(text, 'scenes/fixture.yaml').problems.map(formatProblem);

describe('the shipped scenes', () => {
  it.each(sceneFiles)('%s parses with no problems', (name) => {
    const { scene, problems } = parseScene(readFileSync(join(scenesDir, name), 'utf8'), `scenes/${name}`);
    expect(problems.map(formatProblem)).toEqual([]);
    expect(scene?.id).toBe(name.replace(/\.yaml$/, ''));
  });

  it.each(sceneFiles)('%s points editors at the generated JSON Schema', (name) => {
    expect(readFileSync(join(scenesDir, name), 'utf8').split('\n')[0]).toBe('# yaml-language-server: $schema=./scene.schema.json');
  });

  it('are rehearsable: a simulated human, 3-8 snippets and 20-50 turns each', async () => {
    for (const scene of await loadScenes(scenesDir)) {
      const turns = scene.snippets.reduce((sum, s) => sum + s.turns, 0);
      expect(scene.participants.some((p) => p.kind === 'human' && p.simulated), scene.id).toBe(true);
      expect(scene.snippets.length, scene.id).toBeGreaterThanOrEqual(3);
      expect(scene.snippets.length, scene.id).toBeLessThanOrEqual(8);
      expect(turns, scene.id).toBeGreaterThanOrEqual(20);
      expect(turns, scene.id).toBeLessThanOrEqual(50);
    }
  });
});

describe('parseScene', () => {
  it('returns the validated scene with defaults filled in and its id from the file name', () => {
    const { scene, problems } = parseScene(valid, 'scenes/fixture.yaml');
    expect(problems).toEqual([]);
    expect(scene?.id).toBe('fixture');
    expect(scene?.snippets[0]?.pattern).toBe('neutral');
    expect(scene?.parties[0]?.speakingMode).toBe('all');
  });

  it('accepts who asks whom by participant, party or "*", with follow-ups on by default', () => {
    const text = edit(['turnTaking:\n', `${structure}turnTaking:\n`], ['    turns: 6\n', '    turns: 6\n    roles: { askers: ["*"], answerers: [omar] }\n']);
    const { scene, problems } = parseScene(text, 'scenes/fixture.yaml');
    expect(problems).toEqual([]);
    expect(scene?.structure).toEqual({ form: 'qa', askers: ['maya'], answerers: ['panel'], followUps: true });
    expect(scene?.snippets[1]?.roles).toEqual({ askers: ['*'], answerers: ['omar'] });
  });

  it('accepts private knowledge as text, which follows the persona\'s reveal, or as a map with its own', () => {
    const { scene, problems } = parseScene(edit(['    persona: { backstory: A seasoned chair. }\n', knowledge('{ text: The budget is spent., reveal: when-asked }')]), 'scenes/fixture.yaml');
    expect(problems).toEqual([]);
    expect(scene?.participants[1]?.persona).toMatchObject({
      reveal: 'never',
      privateKnowledge: ['The panel meets twice.', { text: 'The budget is spent.', reveal: 'when-asked' }],
    });
  });

  it('reports a YAML syntax error at its line and column, under (yaml)', () => {
    expect(problemsIn(edit(['    turns: 6', '\tturns: 6']))).toEqual([
      'scenes/fixture.yaml:32:1 (yaml): Tabs are not allowed as indentation',
      'scenes/fixture.yaml:32:9 (yaml): Nested mappings are not allowed in compact mappings',
    ]);
  });

  it('reports a value of the wrong type at the value', () => {
    expect(problemsIn(edit(['turns: 6', 'turns: "six"']))).toEqual([
      'scenes/fixture.yaml:32:12 snippets[1].turns: expected a positive integer, got "six"',
    ]);
  });

  it('reports a value that breaks a rule with the message written in the schema', () => {
    expect(problemsIn(edit(['turns: 6', 'turns: 0']))).toEqual(['scenes/fixture.yaml:32:12 snippets[1].turns: expected a positive integer']);
  });

  it('reports an empty value at its key', () => {
    expect(problemsIn(edit(['turns: 6', 'turns:']))).toEqual([
      'scenes/fixture.yaml:32:5 snippets[1].turns: expected a positive integer, got an empty value',
    ]);
  });

  it('reports a missing key at the map that lacks it', () => {
    expect(problemsIn(edit(['    initiator: maya\n', '']))).toEqual(['scenes/fixture.yaml:30:5 snippets[1].initiator: required']);
  });

  it('reports an unknown key at the key, suggesting the closest allowed one', () => {
    expect(problemsIn(edit(['    turns: 4\n', '    turns: 4\n    patern: agree\n']))).toEqual([
      'scenes/fixture.yaml:29:5 snippets[0].patern: unknown key "patern" (did you mean "pattern"?)',
    ]);
  });

  it('lists the allowed keys when no allowed key is close', () => {
    expect(problemsIn(edit(['title: Test scene', 'title: Test scene\ncolor: blue']))).toEqual([
      'scenes/fixture.yaml:2:1 color: unknown key "color" (allowed: title, topic, context, formation, contents, participants, parties, structure, turnTaking, snippets, closing, duration, recording)',
    ]);
  });

  it('reports an unknown enum value with the allowed ones', () => {
    expect(problemsIn(edit(['formation: table', 'formation: sphere']))).toEqual([
      'scenes/fixture.yaml:3:12 formation: expected one of circle, table, panel, audience, poster, u-shape; got "sphere"',
    ]);
  });

  it('reports an unknown structure form with the allowed ones', () => {
    expect(problemsIn(edit(['turnTaking:\n', `${structure}turnTaking:\n`], ['form: qa', 'form: panel']))).toEqual([
      'scenes/fixture.yaml:22:9 structure.form: expected one of interview, qa, standup, critique, review, retro, poster, investigation, social, discussion; got "panel"',
    ]);
  });

  it('reports a knowledge item whose reveal is not never, when-asked or freely, at the value', () => {
    expect(problemsIn(edit(['    persona: { backstory: A seasoned chair. }\n', knowledge('{ text: The budget is spent., reveal: sometimes }')]))).toEqual([
      'scenes/fixture.yaml:16:49 participants[1].persona.privateKnowledge[1].reveal: expected one of never, when-asked, freely; got "sometimes"',
    ]);
  });

  it('reports a knowledge item without a reveal at the map that lacks it', () => {
    expect(problemsIn(edit(['    persona: { backstory: A seasoned chair. }\n', knowledge('{ text: The budget is spent. }')]))).toEqual([
      'scenes/fixture.yaml:16:11 participants[1].persona.privateKnowledge[1].reveal: required (one of never, when-asked, freely)',
    ]);
  });

  it('names what a knowledge item may be when it is neither text nor a map', () => {
    expect(problemsIn(edit(['    persona: { backstory: A seasoned chair. }\n', knowledge('42')]))).toEqual([
      'scenes/fixture.yaml:16:11 participants[1].persona.privateKnowledge[1]: expected text or a map, got 42',
    ]);
  });

  it('reports an unknown key in a knowledge item at the key', () => {
    expect(problemsIn(edit(['    persona: { backstory: A seasoned chair. }\n', knowledge('{ text: The budget is spent., reveel: never }')]))).toEqual([
      'scenes/fixture.yaml:16:11 participants[1].persona.privateKnowledge[1].reveal: required (one of never, when-asked, freely)',
      'scenes/fixture.yaml:16:41 participants[1].persona.privateKnowledge[1].reveel: unknown key "reveel" (did you mean "reveal"?)',
    ]);
  });

  it('reports a document that is not a map', () => {
    expect(problemsIn('')).toEqual([
      'scenes/fixture.yaml:1:1 (scene): expected a scene (a map with title, topic, formation, participants and snippets), got an empty document',
    ]);
  });

  it('reports every problem at once, in file order', () => {
    const text = edit(['formation: table', 'formation: sphere'], ['[maya, omar]', '[maya, zoe]'], ['turns: 6', 'turns: "six"'], ['next: questions', 'next: qa']);
    expect(problemsIn(text)).toEqual([
      'scenes/fixture.yaml:3:12 formation: expected one of circle, table, panel, audience, poster, u-shape; got "sphere"',
      'scenes/fixture.yaml:15:21 parties[0].members[1]: unknown participant "zoe" (known: maya, omar)',
      'scenes/fixture.yaml:29:11 snippets[0].next: unknown snippet "qa" (known: opening, questions)',
      'scenes/fixture.yaml:32:12 snippets[1].turns: expected a positive integer, got "six"',
    ]);
  });
});

describe('cross-reference checks', () => {
  it.each<[rule: string, replacements: [string, string][], expected: string[]]>([
    ['party members must be participants', [['[maya, omar]', '[maya, zoe]']], ['15:21 parties[0].members[1]: unknown participant "zoe" (known: maya, omar)']],
    ['next must name a snippet', [['next: questions', 'next: questoins']], ['29:11 snippets[0].next: unknown snippet "questoins" (known: opening, questions)']],
    ['moderated mode needs a moderator', [['  moderator: omar\n', '']], ['22:3 turnTaking.moderator: moderated mode needs a moderator']],
    ['the moderator must be a participant', [['moderator: omar', 'moderator: zoe']], ['24:14 turnTaking.moderator: unknown participant "zoe" (known: maya, omar)']],
    [
      'the party policy needs a partyMode',
      [['  partyMode: moderated\n  moderator: omar\n', '']],
      ['22:3 turnTaking.partyMode: the party policy needs a partyMode (free, round-robin or moderated)'],
    ],
    [
      'the party policy needs parties',
      [['parties:\n  - id: panel\n    members: [maya, omar]\n', ''], ['owner: panel', 'owner: public']],
      ['1:1 parties: the party policy needs at least one party'],
    ],
    ['a content owner is a party or public', [['owner: panel', 'owner: audience']], ['20:12 contents[0].owner: unknown party "audience" (known: panel, public)']],
    [
      'representative mode needs a representative',
      [['    members: [maya, omar]\n', '    members: [maya, omar]\n    speakingMode: representative\n']],
      ['14:5 parties[0].representative: representative mode needs a representative'],
    ],
    [
      'the representative must be a member',
      [['    members: [maya, omar]\n', '    members: [maya]\n    speakingMode: representative\n    representative: omar\n']],
      ['17:21 parties[0].representative: "omar" is not a member of party "panel" (members: maya)'],
    ],
    [
      'subset mode needs a subset of the members',
      [['    members: [maya, omar]\n', '    members: [maya]\n    speakingMode: subset\n    subset: [omar]\n']],
      ['17:14 parties[0].subset[0]: "omar" is not a member of party "panel" (members: maya)'],
    ],
    [
      'subset mode needs a subset',
      [['    members: [maya, omar]\n', '    members: [maya, omar]\n    speakingMode: subset\n']],
      ['14:5 parties[0].subset: subset mode needs a subset of the members'],
    ],
    [
      'the initiator must be among the snippet participants',
      [['    initiator: maya\n', '    participants: [omar]\n    initiator: maya\n']],
      ['32:16 snippets[1].initiator: initiator "maya" is not among this snippet\'s participants (omar)'],
    ],
    ['scripted lines name participants', [['speaker: omar', 'speaker: olga']], ['34:18 snippets[1].lines[0].speaker: unknown participant "olga" (known: maya, omar)']],
    [
      'interruptions and backchannels name participants',
      [['    turns: 4\n', '    turns: 4\n    interruptions: [{ from: omar, to: zoe, probability: 0.2 }]\n    backchannels: [{ from: "*", probability: 0.3 }, { from: ann, probability: 0.1 }]\n']],
      [
        '29:39 snippets[0].interruptions[0].to: unknown participant "zoe" (known: maya, omar)',
        '30:61 snippets[0].backchannels[1].from: unknown participant "ann" (known: maya, omar, *)',
      ],
    ],
    [
      'the facilitator must be an AI participant',
      [['  moderator: omar\n', '  moderator: omar\n  facilitator: { participant: maya }\n']],
      ['25:31 turnTaking.facilitator.participant: the facilitator must be an AI participant; "maya" is human'],
    ],
    [
      'ids are unique',
      [['  - id: questions', '  - id: opening'], ['next: questions', 'next: null']],
      ['30:9 snippets[1].id: duplicate snippet id "opening" (also snippets[0])'],
    ],
    [
      'only humans are simulated, every AI has a persona, and someone is human',
      [['kind: human', 'kind: ai']],
      [
        '5:3 participants: a scene needs at least one human participant',
        '5:5 participants[0].persona: an AI participant needs a persona',
        '8:5 participants[0].simulated: only human participants can be simulated',
      ],
    ],
    [
      'structure askers name participants, parties or "*"',
      [['turnTaking:\n', `${structure}turnTaking:\n`], ['askers: [maya]', 'askers: [maya, zoe]']],
      ['23:18 structure.askers[1]: unknown participant or party "zoe" (known: maya, omar, panel, *)'],
    ],
    [
      'structure answerers name participants, parties or "*"',
      [['turnTaking:\n', `${structure}turnTaking:\n`], ['answerers: [panel]', 'answerers: [panels]']],
      ['24:15 structure.answerers[0]: unknown participant or party "panels" (known: maya, omar, panel, *)'],
    ],
    [
      'the chair must be a participant',
      [['turnTaking:\n', `${structure}  chair: zoe\nturnTaking:\n`]],
      ['25:10 structure.chair: unknown participant "zoe" (known: maya, omar)'],
    ],
    [
      'the chair is one person, not a party',
      [['turnTaking:\n', `${structure}  chair: panel\nturnTaking:\n`]],
      ['25:10 structure.chair: the chair must be a participant; "panel" is a party'],
    ],
    [
      "a snippet's roles name participants, parties or \"*\"",
      [['    turns: 6\n', '    turns: 6\n    roles: { askers: [maya], answerers: [omar, olga] }\n']],
      ['33:48 snippets[1].roles.answerers[1]: unknown participant or party "olga" (known: maya, omar, panel, *)'],
    ],
    [
      'a role names a participant or a party, never an id that is both',
      [['  - id: panel\n', '  - id: omar\n'], ['owner: panel', 'owner: omar'], ['    turns: 6\n', '    turns: 6\n    roles: { askers: [omar], answerers: ["*"] }\n']],
      ['33:23 snippets[1].roles.askers[0]: "omar" is both a participant and a party; rename one of them'],
    ],
    ['an avatar id is not empty', [['    name: Omar\n', '    name: Omar\n    avatar: ""\n']], ['12:13 participants[1].avatar: expected an avatar id, e.g. "avatar-01"']],
  ])('%s', (_rule, replacements, expected) => {
    expect(problemsIn(edit(...replacements))).toEqual(expected.map((line) => `scenes/fixture.yaml:${line}`));
  });
});

describe('loadScene', () => {
  it('throws a SceneError whose message lists every formatted problem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scene-'));
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, edit(['turns: 6', 'turns: "six"']));
    const error = await loadScene(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SceneError);
    expect((error as SceneError).message).toContain(`${file}:32:12 snippets[1].turns: expected a positive integer, got "six"`);
  });
});

describe('scene:check', () => {
  const check = (...files: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'server/cli/scene-check.ts', ...files], { cwd: root, encoding: 'utf8' });

  it('exits 0 and says ok for a valid scene', () => {
    const run = check('scenes/team-standup.yaml');
    expect(run.stdout).toBe('scenes/team-standup.yaml: ok (5 participants, 4 snippets)\n');
    expect(run.status).toBe(0);
  });

  it('exits 1 and prints one formatted line per problem for an invalid scene', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'scene-')), 'broken.yaml');
    writeFileSync(file, edit(['[maya, omar]', '[maya, zoe]'], ['  moderator: omar\n', '']));
    const run = check(file);
    expect(run.stdout.split('\n')).toEqual([
      `${file}:15:21 parties[0].members[1]: unknown participant "zoe" (known: maya, omar)`,
      `${file}:22:3 turnTaking.moderator: moderated mode needs a moderator`,
      '',
    ]);
    expect(run.status).toBe(1);
  });

  it('exits 1 with a one-line error for a missing file', () => {
    const run = check('scenes/no-such-scene.yaml');
    expect(run.stderr).toBe('scenes/no-such-scene.yaml: cannot read: no such file\n');
    expect(run.status).toBe(1);
  });
});

describe('scene:schema', () => {
  it('has generated the committed scenes/scene.schema.json from the current zod schema', () => {
    expect(readFileSync(schemaFile, 'utf8')).toBe(renderSceneSchema());
  });
});
