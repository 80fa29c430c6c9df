import { describe, expect, it } from 'vitest';
import { Scene } from '../../shared/scene/schema';
import { canonicalTimes, contentWords, isNegation, publicVocabulary, stemOf } from './vocabulary';

describe('contentWords', () => {
  it('keeps stemmed content words, dropping function words, fillers, negations and contraction endings', () => {
    expect(contentWords("No, she hasn't washed Henry's decanter, honestly.")).toEqual(['wash', 'henry', 'decanter']);
    expect(contentWords('Okay, I think that is right.')).toEqual([]);
  });

  it('brings inflections of one word together', () => {
    expect(new Set(['move', 'moved', 'moving', 'moves'].map(stemOf))).toEqual(new Set(['mov']));
    expect(new Set(['plan', 'planned', 'planning', 'plans'].map(stemOf))).toEqual(new Set(['plan']));
    expect(new Set(['carry', 'carried', 'carries'].map(stemOf))).toEqual(new Set(['carry']));
    expect(stemOf('staffed')).toBe(stemOf('staff'));
    expect(stemOf('glasses')).toBe(stemOf('glass'));
  });

  it('drops a stopword in any inflection', () => {
    // Names and words that share a stem with a stop-word stay: "Sam" is not "same", "mad" not "made".
    expect(contentWords('Sam was mad about the same thing')).toEqual(['sam', 'mad']);
    expect(contentWords('times points thanks')).toEqual([]);
  });
});

describe('canonicalTimes', () => {
  it('writes a time of day one way however it is said, and leaves other numbers alone', () => {
    for (const said of ['9:30', '9.30pm', 'half past nine', 'nine thirty', 'half nine', 'at 9.30']) expect(contentWords(`I was there ${said}`), said).toContain('t0930');
    expect(contentWords('quarter to ten')).toEqual(['t0945']);
    expect(contentWords('ten past nine')).toEqual(['t0910']);
    expect(contentWords("nine o'clock")).toEqual(['t0900']);
    expect(contentWords('10:05pm')).toEqual(['t1005']);
    expect(canonicalTimes('It cost $2.50, 1.5 percent, 5:1, nine years')).toBe('It cost $2.50, 1.5 percent, 5:1, nine years');
  });
});

describe('isNegation', () => {
  it('knows negative words and n’t contractions', () => {
    expect(['not', 'never', 'nobody', "isn't", "don't"].every(isNegation)).toBe(true);
    expect(['note', 'know', 'nothingness'].some(isNegation)).toBe(false);
  });
});

describe('publicVocabulary', () => {
  it('holds what everyone in the scene is told or hears, and no private knowledge', () => {
    const scene = {
      id: 'test',
      ...Scene.parse({
        title: 'Sprint review',
        topic: 'the checkout redesign',
        formation: 'table',
        participants: [
          { id: 'a', kind: 'ai', name: 'Ana', role: 'designer', persona: { backstory: 'Joined from an agency.', privateKnowledge: ['The launch slipped twice.'] } },
          { id: 'b', kind: 'human', name: 'Ben' },
        ],
        snippets: [{ id: 'main', initiator: 'a', turns: 4, goal: 'Demo the prototype.', lines: [{ speaker: 'a', text: 'Here is the mock-up.' }] }],
      }),
    };
    const vocabulary = publicVocabulary(scene);
    for (const word of ['sprint', 'checkout', 'redesign', 'ana', 'designer', 'agency', 'ben', 'demo', 'prototyp', 'mock']) expect(vocabulary).toContain(word);
    expect(vocabulary).not.toContain('launch');
    expect(vocabulary).not.toContain('slip');
  });
});
