/**
 * The report's figures against hand-computed ones on a known log (tests/fixtures/review-log.ts),
 * and the logs that must still give a sensible report: none, no utterances, aborted, old shapes.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { knownLog } from '../../tests/fixtures/review-log';
import { quietParticipant } from '../../tests/fixtures/participant-report';
import { driveSession } from '../conversation/drive';
import type { SessionEvent } from '../../shared/events';
import { breakdownKinds } from '../../shared/review/report';
import { runMetrics } from '../metrics/metrics';
import { createScriptedGenerator } from '../providers/generator/scripted';
import { loadScenes } from '../scene/load';
import { createReportCache } from './cache';
import { fillersIn } from './fillers';
import { readLog, reportFor, reportOf } from './report';
import { Report, type ParticipantReport } from '../../shared/review/report';

const noBreakdowns = Object.fromEntries(breakdownKinds.map((k) => [k, 0]));
const quiet = (id: string, name: string, kind: 'ai' | 'human'): ParticipantReport => quietParticipant(id, { name, kind });

describe('the report of a known log', () => {
  const report = reportOf(knownLog);

  it('gives the session figures worked out by hand', () => {
    expect(Report.parse(report)).toEqual(report);
    expect({ ...report, participants: undefined, timeline: undefined }).toEqual({
      scene: 'planning',
      title: 'Budget review',
      seed: 7,
      lastSeq: 18,
      endReason: 'ended',
      // The end event (30.3 s) is later than the last utterance's end (26.9 + 3 s).
      durationMs: 30_300,
      turns: 7,
      words: 60,
      // Questions put to someone: u1 (Cy answers next) and u6 (Ana does not: Ben goes on).
      answeredNext: 0.5,
      // By content: Cy's "it is… twenty thousand" answers what the budget is; Ana never replies to u6.
      answers: { questions: 2, answered: 1, partly: 0, not: 1 },
      answeredByContent: 0.5,
      // Words 17, 24, 19: mean 20, sample sd sqrt((9 + 16 + 1) / 2) = 3.606 -> 18.0 %.
      evenness: 18,
      // Ben, not Ana, speaks after Ben's question to Ana.
      breakdowns: { count: 1, kinds: { ...noBreakdowns, 'ignore-question': 1 }, list: [{ utterance: 'u7', kind: 'ignore-question', rule: 'not-the-addressee', startMs: 26_900 }] },
      interruptions: 1,
      backchannels: 1,
      impromptuPhases: 1,
      participants: undefined,
      timeline: undefined,
    });
  });

  it('carries the answers by content, and still reads a report file from before them', () => {
    const parsed = Report.parse(report);
    expect(parsed.answers).toEqual({ questions: 2, answered: 1, partly: 0, not: 1 });
    expect(parsed.participants.find((p) => p.id === 'cy')!.answersGiven).toEqual({ questions: 1, answered: 1, partly: 0, not: 0 });
    expect(parsed.timeline.filter((i) => i.answer).map((i) => [i.utterance, i.answer, i.reply])).toEqual([
      ['u1', 'answered', 'u2'],
      ['u6', 'not', null],
    ]);
    const { answers: _answers, answeredByContent: _rate, ...older } = report;
    expect(Report.safeParse({ ...older, participants: older.participants.map(({ answersGiven: _given, answersReceived: _received, ...p }) => p) }).success).toBe(true);
  });

  it('says how the session ran, as its log does, and nothing for an older log', () => {
    const ran = (pace: 'instant' | 'realtime') => knownLog.map((e) => (e.type === 'session-start' ? { ...e, pace } : e));
    expect(reportOf(ran('instant')).pace).toBe('instant');
    expect(Report.parse(reportOf(ran('realtime'))).pace).toBe('realtime');
    // A log from before the pace was logged.
    expect('pace' in report).toBe(false);
  });

  it('gives each participant the figures worked out by hand', () => {
    expect(report.participants).toEqual([
      {
        id: 'ana',
        name: 'Ana Ruiz',
        kind: 'ai',
        // 4000 + u5's 7 words at 150 wpm (no duration logged) = 2800.
        speakingMs: 6800,
        speakingShare: 0.269, // 6800 / 25300
        turns: 2,
        words: 17,
        wordsPerMinute: 150,
        fillers: { count: 1, list: [{ filler: 'um', count: 1 }] },
        interruptionsMade: 0,
        interruptionsReceived: 0,
        questionsAsked: 1,
        questionsReceived: 1,
        questionsAnswered: 0,
        // Ben's u6 to her went unanswered; Cy answered her u1.
        answersGiven: { questions: 1, answered: 0, partly: 0, not: 1 },
        answersReceived: { questions: 1, answered: 1, partly: 0, not: 0 },
        // u5 at 19.4 s after Cy's u4 ended at 18.5 s (its spoken end); u1 opens the session.
        responseLatencyMs: { median: 900, p90: 900, samples: 1 },
        gazeAtSpeakerShare: null,
      },
      {
        id: 'ben',
        name: 'Ben Okoro',
        kind: 'ai',
        speakingMs: 8500, // 3000 (cut) + 2500 + 3000
        speakingShare: 0.336,
        turns: 3,
        words: 24,
        wordsPerMinute: 169.4, // 24 / (8500 / 60000)
        // "I mean," opens a sentence; "a kind of answer" names a kind; "would like more" is a verb.
        fillers: { count: 1, list: [{ filler: 'i mean', count: 1 }] },
        interruptionsMade: 0,
        interruptionsReceived: 1,
        questionsAsked: 1,
        questionsReceived: 0,
        questionsAnswered: 0,
        answersGiven: { questions: 0, answered: 0, partly: 0, not: 0 },
        answersReceived: { questions: 1, answered: 0, partly: 0, not: 1 },
        // u3: 11.9 - 11.0 s (Cy's spoken end, not the later log time); u6: 24.0 - 22.2 s; u7 follows himself.
        responseLatencyMs: { median: 1350, p90: 1800, samples: 2 },
        gazeAtSpeakerShare: null,
      },
      {
        id: 'cy',
        name: 'Cy Lee',
        kind: 'human',
        speakingMs: 10_000,
        speakingShare: 0.395,
        turns: 2,
        words: 19,
        wordsPerMinute: 114, // 19 / (10000 / 60000)
        fillers: {
          count: 5,
          list: [
            { filler: 'uh', count: 1 },
            { filler: 'like', count: 1 },
            { filler: 'you know', count: 1 },
            { filler: 'basically', count: 1 },
            { filler: 'kind of', count: 1 },
          ],
        },
        interruptionsMade: 1,
        interruptionsReceived: 0,
        questionsAsked: 1,
        questionsReceived: 1,
        questionsAnswered: 1,
        answersGiven: { questions: 1, answered: 1, partly: 0, not: 0 },
        answersReceived: { questions: 0, answered: 0, partly: 0, not: 0 },
        // u2: 5.0 - 4.0 s; u4 began (14.5 s) before Ben's cut line ended (14.9 s): 0. Median of [0, 1000]; p90 by nearest rank.
        responseLatencyMs: { median: 500, p90: 1000, samples: 2 },
        gazeAtSpeakerShare: null,
      },
    ]);
  });

  it('marks a human seat the simulation played throughout as simulated, and one a person spoke in as not', () => {
    const standIn = reportOf(knownLog.map((e): SessionEvent => (e.type === 'utterance' && e.speaker === 'cy' ? { ...e, source: 'simulated-human' } : e)));
    expect(standIn.participants.find((p) => p.id === 'cy')!.simulated).toBe(true);
    expect(standIn.participants.filter((p) => p.simulated).map((p) => p.id)).toEqual(['cy']);
    // A scripted line in the stand-in's seat is the scene's words, not a person's: still a stand-in.
    const firstOfCy = knownLog.findIndex((x) => x.type === 'utterance' && x.speaker === 'cy');
    const scripted = reportOf(knownLog.map((e, i): SessionEvent => (e.type === 'utterance' && e.speaker === 'cy' ? { ...e, source: i === firstOfCy ? 'scripted' : 'simulated-human' } : e)));
    expect(scripted.participants.find((p) => p.id === 'cy')!.simulated).toBe(true);
    // One line of their own: a person was there.
    const joined = reportOf(knownLog.map((e): SessionEvent => (e.type === 'utterance' && e.id === 'u2' ? { ...e, source: 'simulated-human' } : e)));
    expect(joined.participants.find((p) => p.id === 'cy')!.simulated).toBeUndefined();
    expect(report.participants.some((p) => p.simulated)).toBe(false);
  });

  it('lays out the timeline in session time, every utterance at its real start', () => {
    expect(report.timeline).toEqual([
      { kind: 'snippet', participant: 'ana', startMs: 0, endMs: 30_300, text: 'The budget', code: 'main' },
      { kind: 'utterance', participant: 'ana', startMs: 0, endMs: 4000, text: knownLog[2]!.type === 'utterance' ? knownLog[2]!.text : '', utterance: 'u1', addressee: 'cy', pair: 'question', answer: 'answered', reply: 'u2' },
      { kind: 'backchannel', participant: 'ben', startMs: 2000, endMs: 2000, text: 'mm-hm', utterance: 'u1', code: 'verbal' },
      { kind: 'utterance', participant: 'cy', startMs: 5000, endMs: 11_000, text: 'Well, it is, like, kind of tight, you know. Uh, twenty thousand.', utterance: 'u2', addressee: 'ana', pair: 'none', input: 'speech' },
      { kind: 'utterance', participant: 'ben', startMs: 11_900, endMs: 14_900, text: 'I mean, that is a kind of answer, but I would like more detail.', utterance: 'u3', addressee: null, pair: 'none' },
      { kind: 'utterance', participant: 'cy', startMs: 14_500, endMs: 18_500, text: 'Sorry, basically, can we cut the scope?', utterance: 'u4', addressee: null, pair: 'question', input: 'speech' },
      // The barge-in: 3000 ms into Ben's line.
      { kind: 'interruption', participant: 'cy', startMs: 14_900, endMs: 14_900, text: 'barge-in', utterance: 'u3', of: 'ben' },
      { kind: 'impromptu', participant: 'cy', startMs: 19_400, endMs: 22_600, text: 'question' },
      { kind: 'utterance', participant: 'ana', startMs: 19_400, endMs: 22_200, text: 'Actually we could cut the reporting module.', utterance: 'u5', addressee: null, pair: 'none' },
      { kind: 'instructor', participant: null, startMs: 22_600, endMs: 22_600, text: 'Press Cy on the numbers.', code: 'direction', audience: 'observers' },
      // The proposal spans the wait for the instructor's decision.
      { kind: 'instructor', participant: 'cy', startMs: 22_600, endMs: 24_000, text: 'Let us talk about lunch.', code: 'approval-dismiss', audience: 'observers' },
      { kind: 'utterance', participant: 'ben', startMs: 24_000, endMs: 26_500, text: 'Ana, is the reporting module needed?', utterance: 'u6', addressee: 'ana', pair: 'question', answer: 'not', reply: null },
      { kind: 'utterance', participant: 'ben', startMs: 26_900, endMs: 29_900, text: 'No, it is not.', utterance: 'u7', addressee: null, pair: 'none' },
      { kind: 'hand-raise', participant: 'ben', startMs: 30_000, endMs: 30_000, code: 'raise' },
      { kind: 'system', participant: null, startMs: 30_300, endMs: 30_300, text: 'The session ended (ended) after 7 turns.', code: 'end' },
    ]);
  });

  it('measures gaze at the speaker from a human\'s gaze changes, over others\' speech after the first', () => {
    const [start] = knownLog;
    const line = (seq: number, id: string, speaker: string, t: number, durationMs: number): SessionEvent => ({ seq, t, type: 'utterance', id, speaker, text: 'Fine.', addressee: null, pair: 'none', act: 'statement', snippet: 'main', source: 'ai', durationMs });
    const gaze = (seq: number, t: number, at: string | null): SessionEvent => ({ seq, t, type: 'gaze', participant: 'cy', at, audience: 'observers' });
    const report = reportOf([start!, line(2, 'u1', 'ana', 0, 4000), gaze(3, 1000, 'ana'), gaze(4, 3000, 'ben'), line(5, 'u2', 'ben', 5000, 4000), gaze(6, 7000, null), line(7, 'u3', 'cy', 10_000, 2000), gaze(8, 12_500, 'ana'), line(9, 'u4', 'ana', 13_000, 2000)]);
    // Heard from 1 s on: u1 3000 ms (at Ana 2000), u2 4000 (at Ben 2000, then nobody), u4 2000 (at Ana 2000); Cy's own u3 does not count.
    expect(report.participants.map((p) => [p.id, p.gazeAtSpeakerShare])).toEqual([
      ['ana', null],
      ['ben', null],
      ['cy', 0.667],
    ]);
    expect(report.timeline.some((item) => item.kind !== 'utterance')).toBe(false);
  });

  it('shows a participant everything but the instructors\' items; instructors see all', () => {
    const mine = reportFor(report, { role: 'participant', participant: 'cy' });
    expect(mine.timeline).toEqual(report.timeline.filter((item) => item.kind !== 'instructor'));
    expect(JSON.stringify(mine)).not.toContain('Press Cy');
    expect(JSON.stringify(mine)).not.toContain('lunch');
    expect(mine.participants).toEqual(report.participants);
    expect(reportFor(report, { role: 'observer', participant: null })).toEqual(report);
    expect(reportFor(report, { role: 'author', participant: null })).toEqual(report);
  });

  it("shows a participant the instructor's say-as line as the seat's own: a persona's, or a stand-in's for a human seat", () => {
    const said = (speaker: string, text: string) => ({ kind: 'utterance' as const, participant: speaker, startMs: 1000, endMs: 2000, text, utterance: `u-${speaker}`, addressee: null, pair: 'none' as const, input: 'instructor' as const });
    const withSayAs: Report = { ...report, timeline: [...report.timeline, said('ben', 'Let us move on.'), said('cy', 'I agree.')] };
    const mine = reportFor(withSayAs, { role: 'participant', participant: 'cy' });
    const lines = mine.timeline.filter((item) => item.utterance === 'u-ben' || item.utterance === 'u-cy');
    expect(lines.map((item) => [item.participant, item.input])).toEqual([
      ['ben', undefined],
      ['cy', 'simulated'],
    ]);
    expect(JSON.stringify(mine)).not.toContain('"instructor"');
    // Instructors see who spoke.
    expect(reportFor(withSayAs, { role: 'observer', participant: null }).timeline.filter((item) => item.input === 'instructor')).toHaveLength(2);
  });

  it('reads an audience of one seat as that seat\'s and the instructors\', and one it does not know as the instructors\'', () => {
    const log = [
      ...knownLog.slice(0, -1),
      { seq: 18, t: 30_100, type: 'system', level: 'info', code: 'note', message: 'For Cy only', audience: { seat: 'cy' } },
      { seq: 19, t: 30_200, type: 'system', level: 'info', code: 'note', message: 'For someone new', audience: 'trainers' },
    ] as unknown[];
    const full = reportOf(readLog(log));
    expect(full.timeline.map((i) => i.text)).toEqual(expect.arrayContaining(['For Cy only', 'For someone new']));
    const texts = (participant: string) => reportFor(full, { role: 'participant', participant }).timeline.map((i) => i.text);
    expect(texts('cy')).toContain('For Cy only');
    expect(texts('ben')).not.toContain('For Cy only');
    expect(texts('cy')).not.toContain('For someone new');
  });
});

describe('the report and metrics.ts', () => {
  it('give the same figures for simulated runs of every shipped scene', async () => {
    for (const scene of await loadScenes(fileURLToPath(new URL('../../scenes/', import.meta.url)))) {
      const events = await driveSession(scene, { seed: 3, generator: createScriptedGenerator() });
      const report = reportOf(events, scene);
      const metrics = runMetrics(events, scene);
      const rounded = (x: number | null, digits: number) => (x === null ? null : Math.round(x * 10 ** digits) / 10 ** digits);
      expect(report, scene.id).toMatchObject({
        turns: metrics.turns,
        words: metrics.words,
        answeredNext: rounded(metrics.answeredNext, 3),
        answers: metrics.answers,
        answeredByContent: rounded(metrics.answeredByContent, 3),
        evenness: rounded(metrics.evenness, 1),
        breakdowns: { count: metrics.breakdowns, kinds: metrics.breakdownKinds },
        interruptions: metrics.interruptions,
        backchannels: metrics.backchannels,
        impromptuPhases: metrics.impromptuPhases,
        endReason: metrics.endReason,
      });
      expect(report.breakdowns.list.map((b) => b.utterance), scene.id).toEqual(metrics.breakdownDetails.map((b) => b.utterance));
      for (const [id, figures] of Object.entries(metrics.participants)) {
        expect(report.participants.find((p) => p.id === id), `${scene.id} ${id}`).toMatchObject({
          turns: figures.turns,
          words: figures.words,
          speakingMs: Math.round(figures.speakingMs),
          speakingShare: rounded(figures.speakingShare, 3),
        });
      }
    }
  }, 60_000);
});

describe('reports of logs with little or nothing in them', () => {
  const start = knownLog[0]!;

  it('gives zeros, nulls and empty lists for an empty log', () => {
    const report = reportOf([]);
    expect(Report.parse(report)).toEqual(report);
    expect(report).toMatchObject({ scene: null, title: null, seed: null, lastSeq: 0, endReason: null, durationMs: 0, turns: 0, words: 0, answeredNext: null, evenness: null, interruptions: 0, participants: [], timeline: [] });
    expect(report.breakdowns).toEqual({ count: 0, kinds: noBreakdowns, list: [] });
  });

  it('lists everyone, silent, when nobody spoke', () => {
    const report = reportOf([start, { seq: 2, t: 1500, type: 'end', reason: 'ended', turns: 0 }]);
    expect(Report.parse(report)).toEqual(report);
    expect(report).toMatchObject({ lastSeq: 2, endReason: 'ended', durationMs: 1500, turns: 0, words: 0, answeredNext: null, evenness: null });
    expect(report.participants).toEqual([quiet('ana', 'Ana Ruiz', 'ai'), quiet('ben', 'Ben Okoro', 'ai'), quiet('cy', 'Cy Lee', 'human')]);
    expect(report.timeline.map((i) => i.kind)).toEqual(['system']);
  });

  it('marks a session the server stopped under as aborted, with what was said before', () => {
    const report = reportOf([
      ...knownLog.slice(0, 3),
      { seq: 4, t: 9000, type: 'system', level: 'warn', code: 'server-restarted', message: 'The server stopped during this session; it was ended and its log kept.' },
    ]);
    expect(Report.parse(report)).toEqual(report);
    expect(report).toMatchObject({ endReason: 'aborted', turns: 1, words: 10, durationMs: 9000 });
    // The question was left unanswered at the end of the log.
    expect(report.answeredNext).toBe(0);
    expect(report.participants.find((p) => p.id === 'cy')).toMatchObject({ questionsReceived: 1, questionsAnswered: 0 });
  });

  it('reads logs of older versions: missing fields get defaults, unreadable events are left out', () => {
    const old: unknown[] = [
      { seq: 1, t: 0, type: 'session-start', scene: 'planning', title: 'Budget review', seed: 3, policy: 'round-robin', participants: [{ id: 'ana', name: 'Ana Ruiz', kind: 'ai', present: false }, { id: 'cy' }] },
      // No duration, act, pair, addressee, source or snippet; no id.
      { seq: 2, t: 100, type: 'utterance', speaker: 'ana', text: 'Um, shall we begin with the budget today?' },
      { seq: 3, t: 200, type: 'floor-was-called-this', speaker: 'cy' },
      null,
      'garbage',
      { seq: 4, t: 5000, type: 'utterance', text: 'no speaker' },
      { seq: 5, t: 6000, type: 'utterance', speaker: 'cy', text: 'Yes.', durationMs: 500, pair: 'none', act: 'answer', addressee: 'ana', source: 'human', snippet: 'main', id: 'x5' },
    ];
    const events = readLog(old);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 5]);
    const report = reportOf(events);
    expect(Report.parse(report)).toEqual(report);
    expect(report).toMatchObject({ seed: 3, lastSeq: 5, turns: 2, words: 9, endReason: null, durationMs: 6500 });
    expect(report.participants.map((p) => [p.id, p.name, p.speakingMs])).toEqual([
      ['ana', 'Ana Ruiz', 3200], // 8 words at the default 150 wpm
      ['cy', 'cy', 500],
    ]);
    expect(report.participants[0]!.fillers.count).toBe(1);
  });

  it('never throws on a log of stray values', () => {
    const report = reportOf(readLog([undefined, 42, [], { type: 'utterance' }, { seq: 'x', t: 'y', type: 'end' }]));
    expect(Report.parse(report)).toMatchObject({ turns: 0, participants: [], timeline: [] });
  });
});

describe('fillers', () => {
  it('counts hesitations anywhere, and markers and hedges only where they fill', () => {
    expect(fillersIn('Um, uh, I think, er, erm, umm, yes.')).toEqual(['um', 'uh', 'er', 'erm', 'um']);
    expect(fillersIn('It was, like, huge. You know, I mean, basically, it is actually fine.')).toEqual(['like', 'you know', 'i mean', 'basically']);
    expect(fillersIn("I'd like that. Do you know what I mean? I mean it. What I mean is this.")).toEqual([]);
    expect(fillersIn("It's kind of late and sort of odd; what kind of plan is this sort of thing?")).toEqual(['kind of', 'sort of']);
    expect(fillersIn('Likely, unlike, umbrella, user, error, her.')).toEqual([]);
  });
});

describe('the report cache', () => {
  it('builds a session\'s report once per state of its log', () => {
    const cache = createReportCache(2);
    let builds = 0;
    const build = (events: readonly SessionEvent[]) => () => {
      builds += 1;
      return reportOf(events);
    };
    const first = cache.get('s1', 18, build(knownLog));
    expect(cache.get('s1', 18, build(knownLog))).toBe(first);
    expect(builds).toBe(1);
    // The log grew: built again.
    expect(cache.get('s1', 19, build(knownLog)).lastSeq).toBe(18);
    expect(builds).toBe(2);
    // Bounded: a third session pushes out the least recently read.
    cache.get('s2', 1, build([]));
    cache.get('s1', 19, build(knownLog));
    cache.get('s3', 1, build([]));
    expect(builds).toBe(4);
    cache.get('s1', 19, build(knownLog));
    expect(builds).toBe(4);
    cache.get('s2', 1, build([]));
    expect(builds).toBe(5);
  });
});

describe('pace is of speech only', () => {
  it('gives a trainee who only typed no words per minute, and one who spoke the pace of their spoken lines', () => {
    const typed = knownLog.map((e) => (e.type === 'utterance' && e.speaker === 'cy' ? (({ spoken: _s, ...rest }) => rest)(e) : e));
    expect(reportOf(typed).participants.find((p) => p.id === 'cy')!.wordsPerMinute).toBeNull();
    expect(reportOf(typed).participants.find((p) => p.id === 'cy')!.words).toBeGreaterThan(0);
    expect(reportOf(knownLog).participants.find((p) => p.id === 'cy')!.wordsPerMinute).not.toBeNull();
  });
});
