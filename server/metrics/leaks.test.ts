import { describe, expect, it } from 'vitest';
import { lineMaker } from '../../tests/fakes/utterances';
import { Scene, type LoadedScene } from '../../shared/scene/schema';
import { leaksOf } from './leaks';

const scene: LoadedScene = {
  id: 'manor',
  ...Scene.parse({
    title: 'Dinner at the manor',
    topic: 'who poisoned the host',
    context: 'The host died after dinner. Everyone was in the house.',
    formation: 'table',
    participants: [
      {
        id: 'vivian',
        kind: 'ai',
        name: 'Vivian Ashdown',
        persona: { backstory: 'The widow.', privateKnowledge: ['She saw a lamp in the barrel room window.'] }, // reveal: never
      },
      {
        id: 'rupert',
        kind: 'ai',
        name: 'Rupert Ashdown',
        persona: {
          backstory: 'The brother.',
          privateKnowledge: [{ text: 'He sold relabelled vintage bottles to premium customers last winter.', reveal: 'when-asked' }],
        },
      },
      {
        id: 'theo',
        kind: 'ai',
        name: 'Theo Ashdown',
        persona: {
          backstory: 'The son.',
          goals: ['find out who carried a lamp to the barrel room'],
          privateKnowledge: [{ text: 'He borrowed the cellar key and left the door unlocked overnight.', reveal: 'freely' }],
        },
      },
      { id: 'det', kind: 'human', name: 'Inspector Hale' },
    ],
    snippets: [{ id: 'main', initiator: 'det', turns: 20 }],
  }),
};

const line = lineMaker();

describe('leaksOf', () => {
  it('counts a line quoting more than eight consecutive words of private knowledge, even one’s own freely told', () => {
    const quoted = line('theo', 'Well, I borrowed the cellar key and left the door unlocked, sorry.'); // 9 words of theo's item
    expect(leaksOf([quoted], scene)).toEqual([{ utterance: quoted.id, speaker: 'theo', owner: 'theo', kind: 'quote' }]);
    expect(leaksOf([line('theo', 'Yes, the cellar key and left the door unlocked, sorry.')], scene)).toEqual([]); // 8 words
  });

  it('lets the words someone said, quoted in an item, be said again as they were said, but not the rest of it', () => {
    const quoting: LoadedScene = {
      ...scene,
      participants: scene.participants.map((p) =>
        p.id === 'theo' ? { ...p, persona: { ...p.persona!, privateKnowledge: [{ text: 'At dinner his father told him quietly, "Rupert and I need to talk about the relabelled bottles tonight."', reveal: 'when-asked' as const }] } } : p,
      ),
    };
    const told = line('theo', 'He said: "Rupert and I need to talk about the relabelled bottles tonight."', { act: 'answer' });
    expect(leaksOf([told], quoting)).toEqual([]);
    const recited = line('theo', 'At dinner his father told him quietly, and that was all.', { act: 'answer' });
    expect(leaksOf([recited], quoting)).toEqual([]);
  });

  it('counts a line stating most of another participant’s distinctive words', () => {
    // Vivian's item has five distinctive words (saw, lamp, barrel, room, window); three are enough.
    const stated = line('rupert', 'A lamp was lit in the barrel room.');
    expect(leaksOf([stated], scene)).toEqual([{ utterance: stated.id, speaker: 'rupert', owner: 'vivian', kind: 'another' }]);
    expect(leaksOf([line('rupert', 'Was there a lamp in the hall?')], scene)).toEqual([]);
  });

  it('does not count words the speaker knows from its own persona', () => {
    // Theo's goal names the lamp and the barrel room, leaving him only "saw" and "window" to give away.
    expect(leaksOf([line('theo', 'A lamp was lit in the barrel room.')], scene)).toEqual([]);
  });

  it('counts one’s own never-to-reveal knowledge, and when-asked knowledge outside an answer', () => {
    const never = line('vivian', 'I saw a lamp in the window of the barrel room.');
    const unasked = line('rupert', 'I sold relabelled vintage bottles to premium customers.');
    expect(leaksOf([never], scene)).toEqual([{ utterance: never.id, speaker: 'vivian', owner: 'vivian', kind: 'never' }]);
    expect(leaksOf([unasked], scene)).toEqual([{ utterance: unasked.id, speaker: 'rupert', owner: 'rupert', kind: 'unasked' }]);
    expect(leaksOf([line('rupert', 'I sold relabelled vintage bottles to premium customers.', { act: 'answer' })], scene)).toEqual([]);
  });

  it('lets anyone repeat knowledge once it is out in the room', () => {
    const answer = line('rupert', 'I sold relabelled vintage bottles to premium customers.', { act: 'answer' });
    const repeat = line('vivian', 'So you sold relabelled vintage bottles to premium customers!');
    expect(leaksOf([answer, repeat], scene)).toEqual([]);
    expect(leaksOf([repeat], scene)).toHaveLength(1);
  });

  it('judges only generated lines, though a person’s or an author’s line lets the knowledge out', () => {
    const human = line('det', 'Someone saw a lamp in the barrel room window.', { source: 'human' });
    const scripted = line('rupert', 'A lamp was lit in the barrel room.', { source: 'scripted' });
    expect(leaksOf([human, scripted], scene)).toEqual([]);
    expect(leaksOf([human, line('rupert', 'A lamp was lit in the barrel room.')], scene)).toEqual([]);
    expect(leaksOf([line('rupert', 'A lamp was lit in the barrel room.', { source: 'simulated-human' })], scene)).toHaveLength(1);
  });
});
