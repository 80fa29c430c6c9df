import { describe, expect, it } from 'vitest';
import { lineMaker } from '../../tests/fakes/utterances';
import type { UtteranceEvent } from '../../shared/events';
import { NEAR_DUPLICATE, tokenOverlap, wordsOf } from '../engine/novelty';
import { rngFrom } from '../../shared/rng';
import { meaningRepeatsOf, repetitionOf, topOpeningOf } from './repetition';

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
  it('flags exactly the lines tokenOverlap puts at NEAR_DUPLICATE or above, the boundary included (12 of 15 words)', () => {
    const words = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `w${i + from}`).join(' ');
    const cases = [
      [words(15), `${words(12)} ${words(3, 100)}`], // 12/15 = 0.8 exactly: a near-duplicate
      [words(15), `${words(11)} ${words(4, 100)}`], // 11/15: not
      [words(5), `${words(4)} x y z q r`], // 4 of the smaller set's 5
      [words(20), words(4, 16)], // all of a short line
    ];
    for (const [a, b] of cases) {
      const { nearDuplicate } = repetitionOf([line('a', a!), line('a', b!)]);
      expect(nearDuplicate[1], `${a} / ${b}`).toBe(tokenOverlap(a!, b!) >= NEAR_DUPLICATE);
    }
    expect(repetitionOf([line('a', cases[0]![0]!), line('a', cases[0]![1]!)]).nearDuplicate[1]).toBe(true);
    expect(repetitionOf([line('a', cases[1]![0]!), line('a', cases[1]![1]!)]).nearDuplicate[1]).toBe(false);
  });

  it('answers as comparing each line with every earlier line of its speaker would, on a long conversation', () => {
    // Few words, so many lines nearly repeat one another; repeated words, so word sets are smaller than lines.
    const rng = rngFrom(7);
    const vocabulary = Array.from({ length: 12 }, (_, i) => `word${i}`);
    const lines = Array.from({ length: 600 }, () => line(rng.pick(['a', 'b', 'c']), Array.from({ length: rng.int(1, 9) }, () => rng.pick(vocabulary)).join(' ')));
    const long = (u: UtteranceEvent) => wordsOf(u.text).length >= 4;
    const expected = lines.map((u, i) => long(u) && lines.slice(0, i).some((v) => v.speaker === u.speaker && long(v) && tokenOverlap(u.text, v.text) >= NEAR_DUPLICATE));
    const { nearDuplicate } = repetitionOf(lines);
    expect(nearDuplicate).toEqual(expected);
    // Both answers occur often, so the comparison says something.
    expect(expected.filter(Boolean).length).toBeGreaterThan(50);
    expect(expected.filter((flag, i) => !flag && long(lines[i]!)).length).toBeGreaterThan(50);
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

describe('meaningRepeatsOf', () => {
  it('flags a persona saying its own earlier sentence again in other words, not an unrelated one', () => {
    expect(
      meaningRepeatsOf([
        line('a', 'The launch budget is far too small for what we promised.'),
        line('a', 'I walked the dog along the river before breakfast.'), // unrelated
        line('a', 'Right. What we promised costs much more than the launch budget allows.'), // the first, reworded
      ]),
    ).toEqual([false, false, true]);
  });

  it('leaves out verbatim repeats, sentences under five words, others\' sentences and lines no persona generated', () => {
    expect(
      meaningRepeatsOf([
        line('a', 'The launch budget is far too small for what we promised.'),
        line('a', 'The launch budget is far too small for what we promised!'), // verbatim: repeatRate's
        line('b', 'What we promised costs much more than the launch budget allows.'), // b's first
        line('a', 'Budget too small.'), // under five words
        line('c', 'The launch budget is far too small for what we promised.', 'scripted'),
        line('c', 'What we promised costs much more than the launch budget allows.', 'simulated-human'),
      ]),
    ).toEqual([false, false, false, false, false, false]);
  });

  it('compares a question with questions only: asking about something and later saying it is no repeat', () => {
    expect(
      meaningRepeatsOf([line('a', 'What does your data say about why patients miss appointments?'), line('a', 'In my study, patients without a car were three times as likely to miss appointments.')]),
    ).toEqual([false, false]);
  });
});
