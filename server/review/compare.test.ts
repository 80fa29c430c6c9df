import { describe, expect, it } from 'vitest';
import { compareOf, differencesOf, normalise, type CompareInput } from './compare';
import { formatFigure } from '../../shared/review/comparison';
import type { ParticipantReport, Report } from '../../shared/review/report';
import { quietParticipant } from '../../tests/fixtures/participant-report';

const person = (id: string, over: Partial<ParticipantReport> & { median?: number | null } = {}): ParticipantReport =>
  quietParticipant(id, { speakingShare: 0.5, turns: 4, wordsPerMinute: 150, responseLatencyMs: { median: over.median === undefined ? 400 : over.median, p90: null, samples: 1 }, ...over });

const breakdowns = (count: number) => ({ count, kinds: {}, list: [] }) as unknown as Report['breakdowns'];

const report = (over: Partial<Report> = {}): Report => ({
  scene: 'team-standup',
  title: 'Stand-up',
  seed: 1,
  lastSeq: 10,
  endReason: 'ended',
  durationMs: 60_000,
  turns: 8,
  words: 100,
  answeredNext: 0.5,
  evenness: 0.8,
  breakdowns: breakdowns(2),
  interruptions: 5,
  backchannels: 0,
  impromptuPhases: 0,
  participants: [person('ana'), person('ben')],
  timeline: [],
  ...over,
});

const run = (id: string, r: Report): CompareInput => ({ id, createdAt: 1, status: 'ended', report: r });

describe('normalise', () => {
  it('scales min-max to 0..1', () => expect(normalise([5, 12, 8.5])).toEqual([0, 1, 0.5]));
  it('gives 0.5 to all when all are equal', () => expect(normalise([3, 3, 3])).toEqual([0.5, 0.5, 0.5]));
  it('leaves nulls null and scales the rest', () => expect(normalise([null, 2, 4])).toEqual([null, 0, 1]));
  it('gives 0.5 to a single value and null to no values', () => {
    expect(normalise([null, 7])).toEqual([null, 0.5]);
    expect(normalise([null, null])).toEqual([null, null]);
  });
});

describe('compareOf', () => {
  it('with equal figures: every figure 0.5, no differences', () => {
    const c = compareOf([run('a', report()), run('b', report())]);
    expect(c.differences).toEqual([]);
    for (const f of c.figures) expect(c.normalised[f.key]).toEqual([0.5, 0.5]);
    expect(c.figures.map((f) => f.key)).toEqual([
      'durationMs', 'turns', 'answeredNext', 'evenness', 'breakdowns', 'interruptions',
      'p:ana:speakingShare', 'p:ana:turns', 'p:ana:wordsPerMinute', 'p:ana:responseLatencyMedianMs',
      'p:ben:speakingShare', 'p:ben:turns', 'p:ben:wordsPerMinute', 'p:ben:responseLatencyMedianMs',
    ]);
    expect(c.figures.find((f) => f.key === 'p:ben:wordsPerMinute')!.label).toBe("Ben's words per minute");
  });

  it('with one figure differing: says which run had how much more, with the values', () => {
    const c = compareOf([run('a', report()), run('b', report()), run('c', report({ interruptions: 12 }))]);
    expect(c.differences).toEqual(['Run 3 had 2.4x the interruptions of run 1 (12 vs 5)']);
    expect(c.normalised.interruptions).toEqual([0, 0, 1]);
    expect(c.normalised.turns).toEqual([0.5, 0.5, 0.5]);
    expect(c.sessions[2]).toMatchObject({ id: 'c', interruptions: 12, breakdowns: 2, values: { interruptions: 12 } });
    expect(c.sessions[0]!.participants[0]).toEqual({ id: 'ana', name: 'Ana', kind: 'ai', speakingShare: 0.5, turns: 4, wordsPerMinute: 150, responseLatencyMedianMs: 400 });
  });

  it('leaves out differences under 1.2x and orders the rest largest first', () => {
    const c = compareOf([run('a', report({ turns: 10, durationMs: 60_000 })), run('b', report({ turns: 11, durationMs: 180_000 }))]);
    expect(c.differences).toEqual(['Run 2 had 3x the length of run 1 (3:00 vs 1:00)']);
  });

  it('with a zero denominator: no ratio, the zero called out first', () => {
    const c = compareOf([run('a', report({ interruptions: 0, breakdowns: breakdowns(2) })), run('b', report({ interruptions: 3, breakdowns: breakdowns(8) }))]);
    expect(c.differences).toEqual(['Run 2 had interruptions where run 1 had none (3 vs 0)', 'Run 2 had 4x the breakdowns of run 1 (8 vs 2)']);
    // All zero: nothing to call out, both in the middle.
    const zeros = compareOf([run('a', report({ interruptions: 0 })), run('b', report({ interruptions: 0 }))]);
    expect(zeros.differences).toEqual([]);
    expect(zeros.normalised.interruptions).toEqual([0.5, 0.5]);
  });

  it('a session with no utterances: zeros and nulls, nulls out of the scaling and the differences', () => {
    const empty = report({
      durationMs: 0, turns: 0, words: 0, answeredNext: null, evenness: null, interruptions: 0,
      breakdowns: breakdowns(0),
      participants: [person('ana', { speakingShare: 0, turns: 0, wordsPerMinute: null, median: null }), person('ben', { speakingShare: 0, turns: 0, wordsPerMinute: null, median: null })],
    });
    const c = compareOf([run('a', report()), run('e', empty)]);
    expect(c.sessions[1]).toMatchObject({ turns: 0, evenness: null, answeredNext: null, values: { 'p:ana:wordsPerMinute': null, 'p:ana:responseLatencyMedianMs': null } });
    expect(c.normalised.evenness).toEqual([0.5, null]);
    expect(c.normalised['p:ana:wordsPerMinute']).toEqual([0.5, null]);
    expect(c.normalised.turns).toEqual([1, 0]);
    expect(c.differences.some((d) => /evenness|words per minute|latency/.test(d))).toBe(false);
    expect(c.differences[0]).toBe('Run 1 had length where run 2 had none (1:00 vs 0.0 s)');
  });
});

describe('differencesOf / formatFigure', () => {
  it('keeps at most six, and formats shares, pace and time for reading', () => {
    expect(formatFigure(0.425, 'share')).toBe('43%');
    expect(formatFigure(148.4, 'wpm')).toBe('148 wpm');
    expect(formatFigure(65_000, 'ms')).toBe('1:05');
    expect(formatFigure(850, 'ms')).toBe('0.9 s');
    expect(formatFigure(119_700, 'ms')).toBe('2:00');
    const c = compareOf([run('a', report({ turns: 1, interruptions: 1, durationMs: 1000 })), run('b', report({ turns: 9, interruptions: 9, durationMs: 9000, participants: [person('ana', { turns: 9, speakingShare: 0.9, wordsPerMinute: 300, median: 900 }), person('ben', { turns: 9 })] }))]);
    expect(differencesOf(c.sessions, c.figures)).toHaveLength(6);
    expect(formatFigure(58.34, 'score')).toBe('58.3');
  });

  it("names the participant first in their figures' sentences", () => {
    const c = compareOf([
      run('a', report({ participants: [person('ana', { speakingShare: 0.07, turns: 0 }), person('ben')] })),
      run('b', report({ participants: [person('ana', { speakingShare: 0.12, turns: 4 }), person('ben')] })),
    ]);
    expect(c.differences).toEqual(["Ana's turns in run 2, none in run 1 (4 vs 0)", "Ana's talk share in run 2 was 1.7x that in run 1 (12% vs 7%)"]);
  });

  it('says the run with the lower evenness spread was the more even one', () => {
    const c = compareOf([run('a', report({ evenness: 63.5 })), run('b', report({ evenness: 49.9 }))]);
    expect(c.differences).toEqual(['Run 2 was more even than run 1: spread 49.9 vs 63.5, lower is more even']);
    expect(c.figures.find((f) => f.key === 'evenness')!.label).toBe('evenness (spread: lower is more even)');
    const even = compareOf([run('a', report({ evenness: 20 })), run('b', report({ evenness: 0 }))]);
    expect(even.differences).toEqual(['Run 2 was perfectly even: spread 0.0 vs 20.0, lower is more even']);
  });

  it('says "were … those" of a plural figure', () => {
    const c = compareOf([
      run('a', report({ participants: [person('ana', { turns: 5 }), person('ben')] })),
      run('b', report({ participants: [person('ana', { turns: 7 }), person('ben')] })),
    ]);
    expect(c.differences).toEqual(["Ana's turns in run 2 were 1.4x those in run 1 (7 vs 5)"]);
  });
});
