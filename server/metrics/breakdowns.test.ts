import { describe, expect, it } from 'vitest';
import { lineMaker } from '../../tests/fakes/utterances';
import type { UtteranceEvent } from '../engine/events';
import { Scene, type LoadedScene } from '../scene/schema';
import { breakdownsOf, type BreakdownKind } from './breakdowns';
import { repetitionOf } from './repetition';

const scene: LoadedScene = {
  id: 'planning',
  ...Scene.parse({
    title: 'Quarterly planning',
    topic: 'the quarterly budget',
    context: 'The team decides which projects to fund next quarter.',
    formation: 'table',
    participants: [
      { id: 'ana', kind: 'ai', name: 'Ana Ruiz', persona: { backstory: 'Finance lead.', points: ['Hiring should wait until spring.'] } },
      { id: 'ben', kind: 'ai', name: 'Ben Okoro', persona: { backstory: 'Engineer.' } },
      { id: 'cy', kind: 'human', name: 'Cy Lee' },
    ],
    snippets: [{ id: 'main', initiator: 'ana', turns: 20, goal: 'Agree on the migration estimate.' }],
  }),
};

const line = lineMaker();
const question = (speaker: string, addressee: string, text = 'What is the budget for the migration?'): UtteranceEvent =>
  line(speaker, text, { addressee, pair: 'question', act: 'question' });
const answer = (speaker: string, addressee: string | null, replyTo?: string, text = 'The budget covers the migration.'): UtteranceEvent =>
  line(speaker, text, { addressee, act: 'answer', ...(replyTo ? { replyTo } : {}) });

/** The findings of one kind, as [utterance id] lists. */
const found = (kind: BreakdownKind, utterances: UtteranceEvent[], withScene = true): string[] =>
  breakdownsOf(utterances, repetitionOf(utterances), withScene ? scene : undefined)
    .filter((b) => b.kind === kind)
    .map((b) => b.utterance);

describe('breakdownsOf', () => {
  it('finds an ignored question: the next line is someone else’s, or the addressee’s but not an answer', () => {
    const q1 = question('ana', 'ben');
    const other = line('cy', 'The migration budget is tight.', { source: 'simulated-human' });
    const q2 = question('ana', 'ben', 'How long will the migration take?');
    const statement = line('ben', 'I want to talk about the migration budget.');
    const q3 = question('ana', 'ben', 'Which migration step is riskiest?');
    const answered = answer('ben', 'ana', q3.id, 'The database migration step is riskiest.');
    expect(found('ignored-question', [q1, other, q2, statement, q3, answered])).toEqual([other.id, statement.id]);
  });

  it('does not judge a question left at the end of the log, or a real person who lets one pass', () => {
    expect(found('ignored-question', [question('ana', 'ben')])).toEqual([]);
    expect(found('ignored-question', [question('ana', 'ben'), line('cy', 'About the migration budget...', { source: 'human' })])).toEqual([]);
  });

  it('finds an answer addressed to someone who did not ask', () => {
    const q = question('ana', 'ben');
    const wrong = answer('ben', 'cy', q.id);
    expect(found('wrong-addressee', [q, wrong])).toEqual([wrong.id]);
    expect(found('wrong-addressee', [q, answer('ben', 'ana', q.id)])).toEqual([]);
    // Without replyTo, the answer goes to the last first pair part's speaker.
    expect(found('wrong-addressee', [q, answer('ben', 'ana')])).toEqual([]);
    const unasked = answer('ben', 'ana');
    expect(found('wrong-addressee', [line('ana', 'The migration budget is tight.'), unasked])).toEqual([unasked.id]);
    // An answer to the room is not judged.
    expect(found('wrong-addressee', [q, answer('ben', null, q.id)])).toEqual([]);
  });

  it('finds verbatim repeats and near-duplicates', () => {
    const first = line('ana', 'The migration budget needs another review');
    const verbatim = line('ben', 'The migration budget needs another review.');
    const near = line('ana', 'Honestly the migration budget needs another review');
    const fresh = line('ben', 'We could fund the hiring plan first.');
    expect(found('repetition', [first, verbatim, near, fresh])).toEqual([verbatim.id, near.id]);
  });

  it('finds a speaker stating the negation of an earlier statement of theirs', () => {
    const claim = line('ana', 'The migration estimate is realistic.');
    const negated = line('ana', 'Well, the migration estimate is not realistic.');
    const restated = line('ana', "No, the migration estimate isn't realistic at all.");
    expect(found('self-contradiction', [claim, negated])).toEqual([negated.id]);
    expect(found('self-contradiction', [claim, negated, restated])).toEqual([negated.id]); // same polarity as the last
    expect(found('self-contradiction', [claim, line('ben', 'The migration estimate is not realistic.')])).toEqual([]);
    expect(found('self-contradiction', [claim, line('ana', 'Is the migration estimate not realistic?')])).toEqual([]);
    expect(found('self-contradiction', [claim, line('ana', 'No, the migration estimate is realistic.')])).toEqual([]);
  });

  it('finds an AI line that shares no content word with the topic, its own points or the last two lines', () => {
    const stray = line('ben', 'Penguins enjoy swimming in freezing water.');
    expect(found('off-topic', [line('ana', 'Let us look at the numbers.'), stray])).toEqual([stray.id]);
    expect(found('off-topic', [line('ben', 'Penguins enjoy swimming in freezing water, like our budget.')])).toEqual([]); // the topic
    expect(found('off-topic', [line('ana', 'Spring hiring should wait for penguins.')])).toEqual([]); // Ana's talking point
    expect(found('off-topic', [line('ana', 'Penguins are lovely.'), stray])).toEqual([]); // the line before
    expect(found('off-topic', [line('ben', 'Penguins enjoy swimming in it, freezing water.')])).toEqual([]); // points back
  });

  it('leaves deviations, floor management, short lines and other sources out of off-topic, and needs the scene', () => {
    const stray = 'Penguins enjoy swimming in freezing water.';
    expect(found('off-topic', [line('ben', stray, { impromptu: true })])).toEqual([]);
    expect(found('off-topic', [line('ben', stray, { interrupted: true })])).toEqual([]);
    expect(found('off-topic', [line('ben', 'Penguins, please go ahead and swim in freezing water.', { act: 'moderate', addressee: 'ana' })])).toEqual([]);
    expect(found('off-topic', [line('ben', 'Sorry, quick point before we move on.', { act: 'interrupt' })])).toEqual([]);
    expect(found('off-topic', [line('ben', 'Sorry, quick point before we move on.')])).toHaveLength(1);
    expect(found('off-topic', [line('ben', 'Penguins swim underwater.')])).toEqual([]); // three words
    expect(found('off-topic', [line('ben', 'Sorry, one small thing.')])).toEqual([]); // two content words
    expect(found('off-topic', [line('ben', stray, { source: 'simulated-human' })])).toEqual([]);
    expect(found('off-topic', [line('ben', stray)], false)).toEqual([]);
  });
});
