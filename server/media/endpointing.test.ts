import { describe, expect, it } from 'vitest';
import { silenceNeeded, silenceNeededMs } from './endpointing';

const { afterQuestion, afterSentence, byDefault, whileHolding } = silenceNeeded;

describe('silenceNeededMs: how long a silence ends a turn', () => {
  it('waits least after a question, which hands the floor over', () => {
    expect(silenceNeededMs('How are you doing today?')).toBe(afterQuestion);
    expect(silenceNeededMs('Tea or coffee, or?')).toBe(afterQuestion);
    expect(silenceNeededMs('"Did you see it?" ')).toBe(afterQuestion);
  });

  it('takes a wh-question or an inverted auxiliary for a question without its question mark', () => {
    expect(silenceNeededMs('what time does the train leave')).toBe(afterQuestion);
    expect(silenceNeededMs('um so where did you put it')).toBe(afterQuestion);
    expect(silenceNeededMs("what's the plan")).toBe(afterQuestion);
    expect(silenceNeededMs('are you coming with us')).toBe(afterQuestion);
    expect(silenceNeededMs("don't you think so")).toBe(afterQuestion);
  });

  it('does not take a statement that opens with a wh-word or an auxiliary for a question', () => {
    expect(silenceNeededMs('what I think is that we wait')).toBe(byDefault);
    expect(silenceNeededMs('would be nice to have it done')).toBe(byDefault);
    expect(silenceNeededMs('do you')).toBe(byDefault);
  });

  it('waits less after a finished sentence than after words with no cue', () => {
    expect(silenceNeededMs('I think we should go with the second option.')).toBe(afterSentence);
    expect(silenceNeededMs('That is brilliant!')).toBe(afterSentence);
    expect(afterSentence).toBeLessThan(byDefault);
    expect(afterQuestion).toBeLessThan(afterSentence);
  });

  it('waits the default for a statement without punctuation, and without a transcript', () => {
    expect(silenceNeededMs('I think we should go with the second option')).toBe(byDefault);
    expect(silenceNeededMs(null)).toBe(byDefault);
    expect(silenceNeededMs('   ')).toBe(byDefault);
  });

  it.each(['and', 'but', 'so', 'because', 'or', "'cause"])('holds the turn after a trailing "%s"', (word) => {
    expect(silenceNeededMs(`We should ship it on Monday ${word}`)).toBe(whileHolding);
  });

  it('does not hold the turn after a "so" that ends a clause', () => {
    expect(silenceNeededMs('I think so.')).toBe(afterSentence);
    expect(silenceNeededMs('I hope so')).toBe(byDefault);
  });

  it.each(['um', 'uh', 'like', 'erm'])('holds the turn after the filler "%s", punctuated or not', (filler) => {
    expect(silenceNeededMs(`I was going to say ${filler}`)).toBe(whileHolding);
    expect(silenceNeededMs(`I was going to say, ${filler}.`)).toBe(whileHolding);
  });

  it('holds the turn while a list is being built or a phrase is left open', () => {
    expect(silenceNeededMs('We need apples, pears, and')).toBe(whileHolding);
    expect(silenceNeededMs('We need apples, pears,')).toBe(whileHolding);
    expect(silenceNeededMs('The thing is...')).toBe(whileHolding);
    expect(silenceNeededMs('The thing is —')).toBe(whileHolding);
    expect(silenceNeededMs('Could you pass me the')).toBe(whileHolding);
    expect(whileHolding).toBeGreaterThan(byDefault);
  });
});
