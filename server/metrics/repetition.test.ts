import { describe, expect, it } from 'vitest';
import { lineMaker } from '../../tests/fakes/utterances';
import type { UtteranceEvent } from '../engine/events';
import { repetitionOf, topOpeningOf } from './repetition';

const make = lineMaker();
const line = (speaker: string, text: string, source: UtteranceEvent['source'] = 'ai'): UtteranceEvent => make(speaker, text, { snippet: 's1', source });

describe('repetitionOf', () => {
  it('flags a line whose normalised text anyone said before', () => {
    const { verbatim } = repetitionOf([
      line('a', 'The budget is due on Friday.'),
      line('b', 'the budget is due on friday'), // another speaker, other case and punctuation
      line('a', 'The budget is due on Monday.'),
    ]);
    expect(verbatim).toEqual([false, true, false]);
  });

  it('flags a line of four words or more sharing 80% of its word set with the same speaker’s earlier line', () => {
    const { nearDuplicate } = repetitionOf([
      line('a', 'I think the budget report is late again'),
      line('b', 'I think the budget report is late again, sadly'), // b's first line: not a's duplicate
      line('a', 'Honestly I think the budget report is late'), // 7 of its 8 words were a's: 0.875
      line('a', 'We should ask finance about the hiring plan'), // new
    ]);
    expect(nearDuplicate).toEqual([false, false, true, false]);
  });

  it('leaves lines under four words out of near-duplicates on either side', () => {
    const { verbatim, nearDuplicate } = repetitionOf([line('a', 'Yes, exactly.'), line('a', 'Yes, exactly right.'), line('a', 'Yes, exactly.')]);
    expect(nearDuplicate).toEqual([false, false, false]);
    expect(verbatim).toEqual([false, false, true]);
  });
});

describe('topOpeningOf', () => {
  it('finds the most frequent four-word opening of AI lines and its share of them', () => {
    const top = topOpeningOf([
      line('a', 'That is a fair point about the budget.'),
      line('b', 'That is a fair question.'),
      line('c', 'That is a fair point, scripted.', 'scripted'), // not an AI line
      line('a', 'We need the numbers first.'),
      line('b', 'Right.'), // too short for an opening, still an AI line
    ]);
    expect(top).toEqual({ phrase: 'that is a fair', lines: 2, share: 2 / 4 });
  });

  it('keeps the opening that first reached the top count on a tie', () => {
    const top = topOpeningOf([line('b', 'That is a fair point.'), line('a', 'We need the numbers first.'), line('a', 'We need the numbers.'), line('b', 'That is a fair call.')]);
    expect(top?.phrase).toBe('we need the numbers');
  });

  it('gives no phrase when no AI line has four words, and null without AI lines', () => {
    expect(topOpeningOf([line('a', 'Right.'), line('b', 'Yes, sure.')])).toEqual({ phrase: null, lines: 0, share: 0 });
    expect(topOpeningOf([line('h', 'That is a fair point.', 'human')])).toBeNull();
  });
});
