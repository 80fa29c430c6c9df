import { describe, expect, it } from 'vitest';
import { createClauseChunker } from '../../server/conversation/clauses';

const chunk = (deltas: string[], minWords?: number) => {
  const chunker = createClauseChunker(minWords === undefined ? {} : { minWords });
  const out: string[][] = deltas.map((d) => chunker.push(d));
  return { steps: out, all: [...out.flat(), ...chunker.flush()] };
};

describe('clause chunker', () => {
  it('releases the first clause as soon as it is complete, before the reply ends', () => {
    const { steps, all } = chunk(['Thanks for asking', ', Nora, the backend', ' is on track. We', ' still need QA time.']);
    expect(steps[0]).toEqual([]);
    expect(steps[1]).toEqual(['Thanks for asking, Nora,']);
    expect(steps[2]).toEqual(['the backend is on track.']);
    expect(all).toEqual(['Thanks for asking, Nora,', 'the backend is on track.', 'We still need QA time.']);
  });

  it('does not split short openers at a comma', () => {
    expect(chunk(['Well, I think so. ']).all).toEqual(['Well, I think so.']);
  });

  it('lets the first clause be as short as firstMinWords, later ones still minWords', () => {
    const chunker = createClauseChunker({ firstMinWords: 1 });
    const all = [...chunker.push('Nadia, honestly, the data leave out two hospitals, which matters. Well, yes.'), ...chunker.flush()];
    expect(all).toEqual(['Nadia,', 'honestly, the data leave out two hospitals,', 'which matters.', 'Well, yes.']);
    // The next reply (after a flush) starts over with a short first clause.
    expect([...chunker.push('Sure, go ahead. '), ...chunker.flush()]).toEqual(['Sure,', 'go ahead.']);
  });

  it('never ends a clause at abbreviations, initials, decimals or times', () => {
    const text = 'Dr. Raman and J. Smith met at 9:30 to review the 3.5 percent figure, e.g. the churn. Done.';
    expect(chunk([text]).all).toEqual(['Dr. Raman and J. Smith met at 9:30 to review the 3.5 percent figure,', 'e.g. the churn.', 'Done.']);
  });

  it('loses no text whatever the delta boundaries', () => {
    const text = 'Honestly, I was surprised by the numbers; the pilot grew fast. Did you expect that, Omar? I did not!';
    for (const size of [1, 2, 3, 7, 50]) {
      const deltas = text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g'))!;
      expect(chunk(deltas).all.join(' ')).toBe(text);
    }
  });
});
