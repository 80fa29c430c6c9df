import { readFileSync } from 'node:fs';
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

describe('silenceNeededMs: a phrase left open holds the turn', () => {
  it.each(['I was talking to', 'We doubled the number of', 'Can you help me with', 'What do you think about'])('after a preposition without its object: "%s"', (said) => {
    expect(silenceNeededMs(said)).toBe(whileHolding);
  });

  it('reads the words, not the full stop a transcriber puts after any stretch of audio', () => {
    expect(silenceNeededMs('I was thinking about.')).toBe(whileHolding);
    expect(silenceNeededMs('We have been trying to.')).toBe(whileHolding);
    expect(silenceNeededMs('The report will be ready by the.')).toBe(whileHolding);
  });

  it('after "to", a possessive, a subject or a "that" with nothing after it', () => {
    expect(silenceNeededMs('What we really need is to')).toBe(whileHolding);
    expect(silenceNeededMs('Let me show you my')).toBe(whileHolding);
    expect(silenceNeededMs('And then we')).toBe(whileHolding);
    expect(silenceNeededMs('The problem is that')).toBe(whileHolding);
    expect(silenceNeededMs('Honestly I am not sure whether')).toBe(whileHolding);
  });

  it('after a modal or "is" without its verb', () => {
    expect(silenceNeededMs('I think we should')).toBe(whileHolding);
    expect(silenceNeededMs('The main thing is')).toBe(whileHolding);
    expect(silenceNeededMs('It depends on whether we can.')).toBe(whileHolding);
  });

  it('but not after an elliptical answer or an embedded question that ends the sentence', () => {
    expect(silenceNeededMs('Yes, we should.')).toBe(afterSentence);
    expect(silenceNeededMs('Of course it is.')).toBe(afterSentence);
    expect(silenceNeededMs("That's what it is.")).toBe(afterSentence);
    expect(silenceNeededMs("I hope we don't.")).toBe(afterSentence);
    expect(silenceNeededMs('I agree with that.')).toBe(afterSentence);
    expect(silenceNeededMs('Let us move on.')).toBe(afterSentence);
  });
});

/** tests/fixtures/pauses.json: mid-turn pauses (with how long the speaker paused) and finished turns. */
const pauses = JSON.parse(readFileSync(new URL('../../tests/fixtures/pauses.json', import.meta.url), 'utf8')) as {
  midTurn: { said: string; pauseMs: number; then: string; cue: string }[];
  finished: { said: string; cue: string }[];
};

describe('silenceNeededMs on the pauses fixture', () => {
  it('has a fixture of at least 30 mid-turn pauses of 300-1000 ms and a set of finished turns', () => {
    expect(pauses.midTurn.length).toBeGreaterThanOrEqual(30);
    expect(pauses.midTurn.filter(({ pauseMs }) => pauseMs < 300 || pauseMs > 1000)).toEqual([]);
    expect(pauses.finished.length).toBeGreaterThanOrEqual(15);
  });

  it('ends the turn inside at most 10% of the mid-turn pauses (a persona cutting the speaker off)', () => {
    const cutOff = pauses.midTurn.filter(({ said, pauseMs }) => pauseMs > silenceNeededMs(said));
    expect(cutOff.length / pauses.midTurn.length).toBeLessThanOrEqual(0.1);
  });

  const expected: Record<string, number> = {
    question: afterQuestion,
    'question, unpunctuated': afterQuestion,
    statement: afterSentence,
    'statement, unpunctuated': byDefault,
  };
  it.each(pauses.finished)('answers a finished turn with the short wait its form allows: "$said" ($cue)', ({ said, cue }) => {
    expect(silenceNeededMs(said)).toBe(expected[cue]);
  });
});
