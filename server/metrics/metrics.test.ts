import { describe, expect, it } from 'vitest';
import type { EventDraft, SessionEvent } from '../../shared/events';
import { countWords } from '../../shared/words';
import { Scene, type LoadedScene } from '../../shared/scene/schema';
import { aggregateMetrics, numericMetrics, runMetrics, type RunMetrics } from './metrics';
import { utteranceDraft } from '../../tests/fakes/utterances';

/** Numbers and times the drafts: one event every second. */
const log = (...drafts: EventDraft[]): SessionEvent[] => drafts.map((d, i) => ({ ...d, seq: i + 1, t: i * 1000 }) as SessionEvent);

const start = (ids: string[], speakingRate = 120): EventDraft => ({
  type: 'session-start',
  scene: 'test',
  title: 'Test',
  seed: 7,
  policy: 'cssn-or-ss',
  participants: ids.map((id) => ({ id, name: id, kind: 'ai', present: true, speakingRate })),
});

let utteranceCount = 0;
const say = (speaker: string, text: string, extra: Parameters<typeof utteranceDraft>[3] = {}): EventDraft =>
  utteranceDraft(`u${++utteranceCount}`, speaker, text, { snippet: 's1', source: 'scripted', ...extra });

const words = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

describe('runMetrics', () => {
  it('counts words as tokens that hold a letter or digit', () => {
    expect(countWords('  Well — I think so, 42 times!  ')).toBe(6);
    expect(countWords('')).toBe(0);
  });

  it('measures evenness as the sample std of words per participant in % of the mean (MUCA Table 1)', () => {
    // words 10, 20, 30: mean 20, sample std sqrt((100 + 0 + 100) / 2) = 10, so 50%.
    const m = runMetrics(log(start(['a', 'b', 'c']), say('a', words(10)), say('b', words(20)), say('c', words(30))));
    expect(m.turns).toBe(3);
    expect(m.words).toBe(60);
    expect(m.wordsPerTurn).toBe(20);
    expect(m.evenness).toBeCloseTo(50, 10);
    // Gini: ordered-pair differences 2 * (10 + 20 + 10) = 80, over 2 * n^2 * mean = 2 * 9 * 20 = 360.
    expect(m.gini).toBeCloseTo(80 / 360, 10);
  });

  it('counts silent participants from session-start with 0 words', () => {
    // words 30, 0: mean 15, sample std sqrt(225 + 225) = 21.21, so 141.4%; Gini 60 / (2 * 4 * 15) = 0.5.
    const m = runMetrics(log(start(['a', 'b']), say('a', words(30))));
    expect(m.participants.b).toEqual({ turns: 0, words: 0, speakingMs: 0, speakingShare: 0 });
    expect(m.evenness).toBeCloseTo(Math.SQRT2 * 100, 10);
    expect(m.gini).toBeCloseTo(0.5, 10);
  });

  it('estimates speaking time from the speaking rate unless the utterance has a duration', () => {
    // At 120 wpm: 10 words are 5 s and 20 words 10 s; c's 30 words have a logged 4 s.
    const m = runMetrics(
      log(start(['a', 'b', 'c']), say('a', words(10)), say('b', words(20)), say('c', words(30), { durationMs: 4000 })),
    );
    expect(m.participants.a).toEqual({ turns: 1, words: 10, speakingMs: 5000, speakingShare: 5000 / 19_000 });
    expect(m.participants.b?.speakingMs).toBe(10_000);
    expect(m.participants.c?.speakingMs).toBe(4000);
    expect(m.participants.c?.speakingShare).toBeCloseTo(4 / 19, 10);
  });

  it('adds a speaker missing from session-start at the default 150 wpm', () => {
    const m = runMetrics(log(start(['a']), say('x', words(15))));
    expect(Object.keys(m.participants)).toEqual(['a', 'x']);
    expect(m.participants.x?.speakingMs).toBe(6000);
  });

  it('completes an adjacency pair when the addressee speaks next', () => {
    const m = runMetrics(
      log(
        start(['a', 'b', 'c']),
        say('a', 'Bea, what do you think?', { addressee: 'b', pair: 'question', act: 'question' }),
        say('b', 'I like it.', { act: 'answer' }), // completes the question
        say('b', 'Cy, could you send the file?', { addressee: 'c', pair: 'request', act: 'request' }),
        say('a', 'I can send it.', { addressee: 'c', pair: 'none' }), // breaks the request; not itself a first pair part
        say('a', 'Cy, are you there?', { addressee: 'c', pair: 'question', act: 'question' }),
        say('c', 'Yes, sorry.', { act: 'answer' }), // completes the second question
      ),
    );
    expect(m.adjacencyPairs).toBe(3);
    expect(m.adjacencyCompletion).toBeCloseTo(2 / 3, 10);
  });

  it('answers next when the addressee of a designated question speaks next, whatever they say', () => {
    const m = runMetrics(
      log(
        start(['a', 'b', 'c']),
        say('a', 'Bea, what do you think?', { addressee: 'b', pair: 'question', act: 'question' }),
        say('b', 'Let me think about it.'), // answered next: Bea speaks
        say('b', 'Cy, could you send the file?', { addressee: 'c', pair: 'request', act: 'request' }), // a request, not a question
        say('a', 'I can send it.'),
        say('a', 'Cy, are you there?', { addressee: 'c', pair: 'question', act: 'question' }),
        say('b', 'He stepped out.'), // not Cy
        say('b', 'Any questions?', { pair: 'question', act: 'question' }), // to nobody in particular
        say('a', 'Bea, is it done?', { addressee: 'b', pair: 'question', act: 'question' }), // unanswered at the end
      ),
    );
    expect(m.answeredNext).toBeCloseTo(1 / 3, 10);
    expect(runMetrics(log(start(['a', 'b']), say('a', 'Hello Bea.', { addressee: 'b', pair: 'greeting' }))).answeredNext).toBeNull();
  });

  it('counts a first pair part left unanswered at the end as not completed', () => {
    const m = runMetrics(log(start(['a', 'b']), say('a', 'Bea, any questions?', { addressee: 'b', pair: 'question' })));
    expect(m.adjacencyCompletion).toBe(0);
  });

  it('finds the longest run of consecutive utterances by one speaker', () => {
    const m = runMetrics(log(start(['a', 'b']), say('a', 'one'), say('b', 'two'), say('b', 'three'), say('b', 'four'), say('a', 'five')));
    expect(m.longestRun).toBe(3);
    expect(m.longestRunSpeaker).toBe('b');
    expect(m.topSpeakerShare).toBe(3 / 5);
  });

  it('keeps the first speaker on a tie for the longest run', () => {
    const m = runMetrics(log(start(['a', 'b']), say('a', 'one'), say('a', 'two'), say('b', 'three'), say('b', 'four')));
    expect(m.longestRun).toBe(2);
    expect(m.longestRunSpeaker).toBe('a');
  });

  it('recomputes repetition against the same speaker’s last five utterances, ignoring the logged similarity', () => {
    const line = 'The budget report is due on Friday afternoon';
    const m = runMetrics(
      log(
        start(['a', 'b']),
        say('a', line),
        say('b', line), // another speaker's words are not a's repetition
        say('a', line, { similarity: 0 }), // repeats a's first line despite the logged 0
        say('a', 'Penguins enjoy cold water', { similarity: 0.99 }),
      ),
    );
    expect(m.repetitionRate).toBe(1 / 4);
  });

  it('forgets utterances older than the five-utterance window', () => {
    const line = 'The budget report is due on Friday afternoon';
    const fillers = ['Penguins enjoy cold water', 'Trains leave hourly', 'Violins need tuning', 'Gardens bloom slowly', 'Clocks tick loudly'];
    const m = runMetrics(log(start(['a']), say('a', line), ...fillers.map((f) => say('a', f)), say('a', line)));
    expect(m.repetitionRate).toBe(0);
  });

  it('measures repeats by anyone, near-duplicates of one’s own lines and the top opening of AI lines', () => {
    const m = runMetrics(
      log(
        start(['a', 'b']),
        say('a', 'The budget report is due on Friday.', { source: 'ai' }),
        say('b', 'The budget report is due on Friday!', { source: 'ai' }), // verbatim repeat, not b's near-duplicate
        say('a', 'The budget report is due this Friday.', { source: 'ai' }), // a's near-duplicate: 6 of its 7 words
        say('b', 'Penguins enjoy cold water.'), // scripted: not an AI line
      ),
    );
    expect(m.repeatRate).toBe(1 / 4);
    expect(m.nearDuplicateRate).toBe(1 / 4);
    expect(m.topOpening).toEqual({ phrase: 'the budget report is', lines: 3, share: 1 });
    expect(m.topOpeningShare).toBe(1);
  });

  it('measures leaks and role adherence only with the scene; breakdowns without it judge the topic by the last lines only', () => {
    const scene: LoadedScene = {
      id: 'test',
      ...Scene.parse({
        title: 'Interview',
        topic: 'hiring a product manager',
        formation: 'panel',
        participants: [
          { id: 'a', kind: 'ai', name: 'Ann', persona: { backstory: 'Hiring manager.', privateKnowledge: ['The salary band tops out below the ask.'] } },
          { id: 'b', kind: 'ai', name: 'Bea', persona: { backstory: 'Candidate.' } },
        ],
        structure: { form: 'interview', askers: ['a'], answerers: ['b'] },
        snippets: [{ id: 's1', initiator: 'a', turns: 10 }],
      }),
    };
    const events = log(
      start(['a', 'b']),
      say('a', 'Bea, why product management?', { addressee: 'b', pair: 'question', act: 'question', source: 'ai' }),
      say('b', 'Ann, the salary band for product managers tops out below my ask, right?', { source: 'ai' }), // another's knowledge, and no answer
      say('a', 'Penguins enjoy swimming in freezing water.', { source: 'ai' }), // off-topic
    );
    const withScene = runMetrics(events, scene);
    expect(withScene).toMatchObject({ leaks: 1, roleAdherence: 1, questionsByPart: { 'asker->answerer': 1 }, breakdowns: 2 });
    expect(withScene.leakDetails).toEqual([{ utterance: 'u' + (utteranceCount - 1), speaker: 'b', owner: 'a', kind: 'another' }]);
    expect(withScene.breakdownKinds).toMatchObject({ 'ignore-question': 1, 'topic-change': 1, repetition: 0, 'self-contradiction': 0 });
    expect(withScene.breakdownDetails.map((b) => b.rule)).toEqual(['no-answer', 'off-topic']);
    const without = runMetrics(events);
    expect(without).toMatchObject({ leaks: null, leakDetails: [], roleAdherence: null, questionsByPart: {}, breakdowns: 2 });
    expect(without.breakdownDetails.map((b) => b.rule)).toEqual(['no-answer', 'unrelated-to-previous']);
  });

  it('counts an utterance that leads to a breakdown once, and each of its types', () => {
    const m = runMetrics(
      log(
        start(['a', 'b']),
        say('a', 'Bea, is the launch date fixed?', { addressee: 'b', pair: 'question', act: 'question', source: 'ai' }),
        say('a', 'Bea, is the launch date fixed?', { source: 'ai' }), // not Bea's answer, and a repeat
      ),
    );
    expect(m.breakdowns).toBe(1);
    expect(m.breakdownKinds).toMatchObject({ 'ignore-question': 1, repetition: 1 });
  });

  it('counts interruptions, backchannels, impromptu phases, hand raises, approvals and fallbacks, the turn selector’s too', () => {
    const m = runMetrics(
      log(
        start(['a', 'b']),
        say('a', 'Hello there'),
        { type: 'backchannel', participant: 'b', to: 'a', utterance: 'u1', kind: 'nod' },
        { type: 'backchannel', participant: 'b', to: 'a', utterance: 'u1', kind: 'verbal', cue: 'mhm' },
        { type: 'interruption', by: 'b', of: 'a', utterance: 'u1', vibe: 'eager', atWord: 1 },
        { type: 'hand-raise', participant: 'b', action: 'raise', queue: ['b'] },
        { type: 'hand-raise', participant: 'b', action: 'approve', queue: [] },
        { type: 'impromptu-start', participant: 'b', intent: 'drift', turns: 2 },
        { type: 'impromptu-end', participant: 'b' },
        { type: 'approval-needed', proposal: 'p1', participant: 'b', intent: 'question', text: 'Why?' },
        { type: 'approval-resolved', proposal: 'p1', decision: 'edit', text: 'Why not?' },
        { type: 'approval-needed', proposal: 'p2', participant: 'b', intent: 'drift', text: 'Lunch?' },
        { type: 'approval-resolved', proposal: 'p2', decision: 'dismiss' },
        { type: 'system', level: 'warn', code: 'generator-fallback', message: 'used the script' },
        { type: 'system', level: 'warn', code: 'generator-circuit-open', message: 'not called; used the script' },
        { type: 'system', level: 'warn', code: 'synthesis-fallback', message: 'spoke with espeak' },
        { type: 'system', level: 'info', code: 'snippet-done', message: 'done' },
        { type: 'floor', speaker: 'a', reason: 'llm-selector-fallback' },
        { type: 'floor', speaker: 'b', reason: 'llm-selector' },
        { type: 'end', reason: 'max-turns', turns: 1 },
      ),
    );
    expect(m).toMatchObject({
      backchannels: 2,
      interruptions: 1,
      handRaises: 1,
      impromptuPhases: 1,
      approvals: 2,
      approved: 1,
      fallbacks: 2,
      selectorFallbacks: 1,
      durationMs: 19_000,
      endReason: 'max-turns',
      seed: 7,
    });
  });

  it('leaves evenness undefined for a single participant, whose Gini is 0', () => {
    const m = runMetrics(log(start(['a']), say('a', words(5)), say('a', words(7))));
    expect(m.evenness).toBeNull();
    expect(m.gini).toBe(0);
    expect(m.participants.a?.speakingShare).toBe(1);
    expect(m.longestRun).toBe(2);
  });

  it('gives zero counts and undefined ratios for a session without utterances', () => {
    const m = runMetrics(log(start(['a', 'b']), { type: 'end', reason: 'ended', turns: 0 }));
    expect(m).toMatchObject({
      turns: 0,
      words: 0,
      wordsPerTurn: null,
      evenness: null,
      gini: null,
      adjacencyPairs: 0,
      adjacencyCompletion: null,
      answeredNext: null,
      longestRun: 0,
      longestRunSpeaker: null,
      topSpeakerShare: null,
      repetitionRate: null,
      repeatRate: null,
      nearDuplicateRate: null,
      topOpening: null,
      topOpeningShare: null,
      breakdowns: 0,
      selectorFallbacks: 0,
      durationMs: 1000,
      endReason: 'ended',
    });
    expect(m.participants).toEqual({
      a: { turns: 0, words: 0, speakingMs: 0, speakingShare: 0 },
      b: { turns: 0, words: 0, speakingMs: 0, speakingShare: 0 },
    });
  });

  it('accepts an empty log', () => {
    expect(runMetrics([])).toMatchObject({ seed: null, turns: 0, durationMs: 0, endReason: null, participants: {} });
  });
});

describe('aggregateMetrics', () => {
  const run = (turnsOf: Record<string, number>, endReason: RunMetrics['endReason']): RunMetrics =>
    runMetrics(
      log(
        start(Object.keys(turnsOf)),
        ...Object.entries(turnsOf).flatMap(([id, n]) => Array.from({ length: n }, (_, i) => say(id, `${id} says thing number ${i}`))),
        ...(endReason ? [{ type: 'end', reason: endReason, turns: 0 } as const] : []),
      ),
    );

  it('gives mean, sample std, min and max of each metric over runs', () => {
    const a = aggregateMetrics([run({ a: 1, b: 3 }, 'max-turns'), run({ a: 4, b: 2 }, 'snippets-done')]);
    // turns 4 and 6: mean 5, sample std sqrt((1 + 1) / 1).
    expect(a.runs).toBe(2);
    expect(a.metrics.turns).toEqual({ mean: 5, std: Math.SQRT2, min: 4, max: 6 });
    expect(a.metrics.longestRun).toEqual({ mean: 3.5, std: Math.SQRT1_2, min: 3, max: 4 });
    expect(a.endReasons).toEqual({ 'max-turns': 1, 'snippets-done': 1 });
  });

  it('aggregates per-participant tables by id, over the runs each participant appears in', () => {
    const a = aggregateMetrics([run({ a: 1, b: 3 }, null), run({ a: 3, c: 2 }, null)]);
    expect(a.participants.a?.turns).toEqual({ mean: 2, std: Math.SQRT2, min: 1, max: 3 });
    expect(a.participants.b?.turns).toEqual({ mean: 3, std: 0, min: 3, max: 3 });
    expect(Object.keys(a.participants)).toEqual(['a', 'b', 'c']);
    expect(a.endReasons).toEqual({});
  });

  it('skips runs where a ratio is undefined and gives null when no run defines it', () => {
    const a = aggregateMetrics([run({ a: 2, b: 2 }, null), run({ a: 0, b: 0 }, null)]);
    expect(a.metrics.evenness).toEqual({ mean: 0, std: 0, min: 0, max: 0 });
    expect(a.metrics.adjacencyCompletion).toBeNull();
    expect(a.metrics.turns).toMatchObject({ mean: 2, min: 0, max: 4 });
    expect(a.metrics.turns?.std).toBeCloseTo(Math.sqrt(8), 12);
  });

  it('aggregates the quality measures like the others, and breakdowns per kind', () => {
    const repeats = (n: number): RunMetrics =>
      runMetrics(log(start(['a', 'b']), say('a', 'We should ship on Friday.'), ...Array.from({ length: n }, () => say('b', 'We should ship on Friday.'))));
    const a = aggregateMetrics([repeats(1), repeats(3)]);
    expect(numericMetrics).toEqual(expect.arrayContaining(['answeredNext', 'repeatRate', 'nearDuplicateRate', 'topOpeningShare', 'leaks', 'roleAdherence', 'breakdowns']));
    // repeat rates 1/2 and 3/4; repetition breakdowns 1 and 3.
    expect(a.metrics.repeatRate).toMatchObject({ mean: 5 / 8, min: 1 / 2, max: 3 / 4 });
    expect(a.metrics.breakdowns).toMatchObject({ mean: 2, min: 1, max: 3 });
    expect(a.breakdownKinds.repetition).toMatchObject({ mean: 2, min: 1, max: 3 });
    expect(a.breakdownKinds['topic-change']).toEqual({ mean: 0, std: 0, min: 0, max: 0 });
    expect(a.metrics.leaks).toBeNull();
  });

  it('returns an empty aggregate for no runs', () => {
    const a = aggregateMetrics([]);
    expect(a.runs).toBe(0);
    expect(a.metrics.turns).toBeNull();
    expect(a.participants).toEqual({});
    expect(a.breakdownKinds.repetition).toBeNull();
  });
});
