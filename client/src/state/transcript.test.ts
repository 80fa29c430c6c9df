import { beforeEach, describe, expect, it } from 'vitest';
import { reduceRoom, type RoomView } from './room';
import { audio, resetEvents, run, utterance, welcome } from './room.fixtures';
import { shownLines, spokenText } from './transcript';

beforeEach(resetEvents);

const texts = (view: RoomView) => shownLines(view).map((l) => `${l.speaker}: ${l.text}`);
const words = [
  { word: 'Tell', start: 0, end: 250 },
  { word: 'me', start: 250, end: 400 },
  { word: 'about', start: 400, end: 700 },
  { word: 'yourself', start: 700, end: 1200 },
];

describe('transcript timing', () => {
  it('shows a reply when its audio starts, not when its text arrives', () => {
    const streamed = run(
      welcome(),
      { type: 'speakers', on: true },
      { type: 'delta', speaker: 'sofia', draft: 'g1', text: 'Tell me about yourself' },
      audio('g1', 'sofia', 0, words),
      utterance('u1', 'sofia', 'Tell me about yourself', { draft: 'g1' }),
    );
    // Logged and its audio queued, but nothing heard yet: not on screen.
    expect(texts(streamed)).toEqual([]);
    const heard = reduceRoom(streamed, { type: 'playback', draft: 'g1', state: 'audible' });
    expect(texts(heard)).toEqual(['sofia: Tell me about yourself']);
  });

  it('shows a streaming reply once it is heard, before it is logged', () => {
    const view = run(welcome(), { type: 'speakers', on: true }, { type: 'delta', speaker: 'sofia', draft: 'g1', text: 'Tell me' }, audio('g1', 'sofia', 0, words.slice(0, 2)));
    expect(shownLines(view)).toEqual([]);
    const heard = reduceRoom(view, { type: 'playback', draft: 'g1', state: 'audible' });
    expect(shownLines(heard)).toEqual([expect.objectContaining({ streaming: true, text: 'Tell me' })]);
    // The logged line keeps its place on screen.
    expect(texts(reduceRoom(heard, utterance('u1', 'sofia', 'Tell me about yourself', { draft: 'g1' })))).toEqual(['sofia: Tell me about yourself']);
  });

  it('waits for the speech of a line written without a generation (voiced after it is logged, under its id)', () => {
    const view = run(welcome(), { type: 'speakers', on: true }, utterance('u1', 'sofia', 'Welcome to the interview', { source: 'scripted' }));
    expect(shownLines(view)).toEqual([]);
    expect(texts(reduceRoom(view, { type: 'playback', draft: 'u1', state: 'audible' }))).toEqual(['sofia: Welcome to the interview']);
  });

  it('reveals the words in step with the speech', () => {
    const view = run(welcome(), { type: 'speakers', on: true }, audio('g1', 'sofia', 0, words), utterance('u1', 'sofia', 'Tell me about yourself.', { draft: 'g1' }), {
      type: 'playback',
      draft: 'g1',
      state: 'audible',
    });
    const line = shownLines(view)[0]!;
    const at = (ms: number) => spokenText(line, view.speech.g1, ms);
    expect(at(-20)).toBe('Tell');
    expect(at(0)).toBe('Tell');
    expect(at(300)).toBe('Tell me');
    expect(at(699)).toBe('Tell me about');
    expect(at(700)).toBe('Tell me about yourself.');
    // Not playing here (no position), or over: all of it.
    expect(spokenText(line, view.speech.g1, null)).toBe('Tell me about yourself.');
    const over = reduceRoom(view, { type: 'playback', draft: 'g1', state: 'over' });
    expect(spokenText(line, over.speech.g1, 100)).toBe('Tell me about yourself.');
  });

  it("shows a human's own words at once", () => {
    const view = run(welcome(), { type: 'speakers', on: true }, utterance('u1', 'alex', 'I have five years of experience'));
    expect(texts(view)).toEqual(['alex: I have five years of experience']);
  });

  it('without speech (no synthesizer, or no audio output here) shows a reply when it is logged, never while it streams', () => {
    const noSynthesizer = run(welcome({ voice: { input: true, output: null } }), { type: 'speakers', on: true }, { type: 'delta', speaker: 'sofia', draft: 'g1', text: 'Tell me' });
    expect(shownLines(noSynthesizer)).toEqual([]);
    expect(texts(reduceRoom(noSynthesizer, utterance('u1', 'sofia', 'Tell me about yourself', { draft: 'g1' })))).toEqual(['sofia: Tell me about yourself']);
    const noSpeakers = run(welcome(), { type: 'delta', speaker: 'sofia', draft: 'g1', text: 'Tell me' }, utterance('u1', 'sofia', 'Tell me about yourself', { draft: 'g1' }));
    expect(texts(noSpeakers)).toEqual(['sofia: Tell me about yourself']);
  });

  it('shows a line whose speech will not be heard here once this client says so', () => {
    const view = run(welcome(), { type: 'speakers', on: true }, utterance('u1', 'sofia', 'Thanks', { draft: 'g1' }));
    expect(shownLines(view)).toEqual([]);
    expect(texts(reduceRoom(view, { type: 'playback', draft: 'g1', state: 'over' }))).toEqual(['sofia: Thanks']);
  });
});
