import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { wordErrorRate, wordErrors, wordsOf } from '../../bench/wer';
import { loadSpeechManifest, speechFixtureDir } from '../fixtures/speech/manifest';
import { decodeWav } from '../../shared/wav';

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

  it("reads the fixture set's manifest: each clip a 16 kHz mono recording of someone speaking, with its words, licence and source", async () => {
    const clips = await loadSpeechManifest();
    expect(clips.length).toBeGreaterThan(0);
    for (const clip of clips) {
      const { pcm, sampleRate } = decodeWav(readFileSync(join(speechFixtureDir, clip.file)));
      expect(sampleRate, clip.file).toBe(16_000);
      const seconds = pcm.length / sampleRate;
      expect(seconds, clip.file).toBeGreaterThan(1);
      // Speech, not silence: its loudest half-second well above the quietest.
      const rms = Array.from({ length: Math.floor(seconds * 2) }, (_, i) => Math.sqrt(pcm.subarray(i * 8000, (i + 1) * 8000).reduce((sum, x) => sum + x * x, 0) / 8000));
      expect(Math.max(...rms), clip.file).toBeGreaterThan(10 * Math.max(1, Math.min(...rms)));
      // About 1-4 words a second, as people speak.
      const words = wordsOf(clip.text).length;
      expect(words / seconds, clip.file).toBeGreaterThan(1);
      expect(words / seconds, clip.file).toBeLessThan(4);
    }
  });
});
