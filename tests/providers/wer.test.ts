import { describe, expect, it } from 'vitest';
import { wordErrorRate, wordErrors, wordsOf } from '../../bench/wer';
import { loadSpeechManifest } from '../fixtures/speech/manifest';

describe('word error rate (bench/wer.ts)', () => {
  it('compares words, not case or punctuation', () => {
    expect(wordsOf('Hello, Nora! It’s the Q3 budget — ready?')).toEqual(['hello', 'nora', "it's", 'the', 'q3', 'budget', 'ready']);
    expect(wordErrors('Hello, Nora!', 'hello nora')).toEqual({ errors: 0, words: 2 });
  });

  it('counts a substitution, a deletion and an insertion once each', () => {
    expect(wordErrors('the budget is ready', 'the budget was ready')).toEqual({ errors: 1, words: 4 });
    expect(wordErrors('the budget is ready', 'the budget ready')).toEqual({ errors: 1, words: 4 });
    expect(wordErrors('the budget is ready', 'so the budget is ready')).toEqual({ errors: 1, words: 4 });
    expect(wordErrors('the budget is ready', '')).toEqual({ errors: 4, words: 4 });
  });

  it('pools a corpus: all errors over all reference words', () => {
    expect(wordErrorRate([{ reference: 'a b c d', hypothesis: 'a b d' }, { reference: 'e f', hypothesis: 'e f' }])).toBeCloseTo(1 / 6);
    expect(() => wordErrorRate([{ reference: '...', hypothesis: 'x' }])).toThrow('the references have no words');
  });

  it("reads the fixture set's manifest (no recordings ship yet)", async () => {
    expect(await loadSpeechManifest()).toEqual([]);
  });
});
