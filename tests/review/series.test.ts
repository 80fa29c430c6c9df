import { describe, expect, it } from 'vitest';
import type { ParticipantReport, Report, TimelineItem } from '../../shared/review/report';
import { quietParticipant, quietReport } from '../fixtures/participant-report';
import { clock, cumulativeSpeaking, lanesOf, paceOf, utteranceAt, windowFor } from '../../client/src/review/series';

const person = (id: string): ParticipantReport => quietParticipant(id, { name: id.toUpperCase() });

const said = (participant: string, startMs: number, endMs: number, words: number): TimelineItem => ({
  kind: 'utterance',
  participant,
  startMs,
  endMs,
  text: Array.from({ length: words }, () => 'word').join(' '),
  utterance: `u${startMs}`,
});

const reportWith = (timeline: TimelineItem[], durationMs: number): Report => quietReport([person('ann'), person('bo')], timeline, { durationMs });

describe("the review's series", () => {
  it('gives each participant a lane, and the room one last when something happened to no one', () => {
    const report = reportWith([{ kind: 'system', participant: null, startMs: 0, endMs: 0, code: 'end' }, said('bo', 0, 1000, 2)], 1000);
    expect(lanesOf(report).map((l) => l.name)).toEqual(['ANN', 'BO', 'Room']);
  });

  it("accumulates each participant's speaking time, ramping through each utterance", () => {
    const report = reportWith([said('ann', 0, 2000, 5), said('bo', 3000, 4000, 2), said('ann', 5000, 6000, 3)], 8000);
    expect(cumulativeSpeaking(report).get('ann')).toEqual([
      [0, 0],
      [0, 0],
      [2000, 2],
      [5000, 2],
      [6000, 3],
      [8000, 3],
    ]);
  });

  it('shares an utterance that spans two windows between them by time, and leaves silent windows empty', () => {
    // 30 words over 10 s (180 wpm), half in each 10 s window; Bo says nothing.
    const report = reportWith([said('ann', 5000, 15_000, 30)], 30_000);
    const pace = paceOf(report, 10_000);
    expect(pace.starts).toEqual([0, 10_000, 20_000]);
    expect(pace.lines.get('ann')).toEqual([180, 180, null]);
    expect(pace.lines.get('bo')).toEqual([null, null, null]);
  });

  it('picks round windows, about a dozen per session', () => {
    expect(windowFor(2 * 60_000)).toBe(10_000);
    expect(windowFor(60 * 60_000)).toBe(300_000);
  });

  it('writes times as m:ss, with hours when there are any', () => {
    expect(clock(754_000)).toBe('12:34');
    expect(clock(3_723_000)).toBe('1:02:03');
  });
});

describe('the utterance under the playhead', () => {
  const lines = [said('a', 0, 1000, 2), said('b', 900, 2000, 2), said('a', 3000, 4000, 2)];
  it('is the latest to start of those running, and none between lines', () => {
    expect(utteranceAt(lines, 500)?.utterance).toBe('u0');
    expect(utteranceAt(lines, 950)?.utterance).toBe('u900');
    expect(utteranceAt(lines, 2500)).toBeNull();
    expect(utteranceAt(lines, 4000)).toBeNull();
  });
});
