import { describe, expect, it } from 'vitest';
import { lineMaker } from '../../tests/fakes/utterances';
import type { UtteranceEvent } from '../../shared/events';
import { Scene, type LoadedScene, type SceneInput } from '../../shared/scene/schema';
import { roleAdherenceOf } from './roles';

const interview = (structure: SceneInput['structure']): LoadedScene => ({
  id: 'interview',
  ...Scene.parse({
    title: 'Interview',
    topic: 'hiring a product manager',
    formation: 'panel',
    participants: [
      { id: 'hannah', kind: 'ai', name: 'Hannah', persona: { backstory: 'Hiring manager.' } },
      { id: 'raj', kind: 'ai', name: 'Raj', persona: { backstory: 'Engineer.' } },
      { id: 'alex', kind: 'human', name: 'Alex' },
    ],
    parties: [{ id: 'panel', members: ['hannah', 'raj'] }],
    structure,
    snippets: [
      { id: 'questions', initiator: 'hannah', turns: 10 },
      { id: 'reverse', initiator: 'alex', turns: 4, roles: { askers: ['alex'], answerers: ['panel'] } },
    ],
  }),
});

const line = lineMaker();
const ask = (speaker: string, addressee: string | null, snippet = 'questions', pair: UtteranceEvent['pair'] = 'question'): UtteranceEvent =>
  line(speaker, 'What do you think?', { addressee, pair, act: pair === 'question' ? 'question' : 'request', snippet });

describe('roleAdherenceOf', () => {
  const scene = interview({ form: 'interview', askers: ['panel'], answerers: ['alex'] });

  it('gives the share of the askers’ questions put to an answerer, with the snippet’s own roles where it has them', () => {
    const m = roleAdherenceOf(
      [
        ask('hannah', 'alex'), // asker to answerer
        ask('raj', 'hannah'), // asker to asker: off the structure
        ask('alex', 'hannah'), // not an asker here: not counted
        ask('alex', 'raj', 'reverse'), // in the reverse snippet Alex asks the panel
        ask('raj', 'alex', 'questions', 'request'), // not a question
        ask('hannah', null), // not designated
      ],
      scene,
    );
    expect(m.adherence).toBeCloseTo(2 / 3, 10);
    expect(m.questionsByPart).toEqual({ 'asker->answerer': 2, 'asker->asker': 1, 'answerer->asker': 1 });
  });

  it('is null without a structure or without questions from askers', () => {
    expect(roleAdherenceOf([ask('hannah', 'alex')], interview(undefined)).adherence).toBeNull();
    expect(roleAdherenceOf([ask('alex', 'hannah')], scene).adherence).toBeNull();
  });
});
