import { describe, expect, it } from 'vitest';
import type { ParticipantReport, Report, TimelineItem } from '../../shared/review/report';
import { quietParticipant, quietReport } from '../../tests/fixtures/participant-report';
import { createScriptedGenerator } from '../providers/generator/scripted';
import { clock, debriefOf, outcomeOf } from './debrief';
import { answerFit } from '../engine/understanding';
import { feedback } from './feedback';
import { linesOf } from './model';
import { reportOf as reportOfLog } from './report';
import { lineMaker } from '../../tests/fakes/utterances';
import type { SessionEvent } from '../../shared/events';

const person = (id: string, over: Partial<ParticipantReport> = {}): ParticipantReport =>
  quietParticipant(id, { kind: 'human', speakingMs: 60_000, speakingShare: 0.5, turns: 4, words: 150, wordsPerMinute: 150, responseLatencyMs: { median: 500, p90: 900, samples: 3 }, ...over });

const say = (participant: string, startMs: number, endMs: number, text: string, over: Partial<TimelineItem> = {}): TimelineItem => ({ kind: 'utterance', participant, startMs, endMs, text, utterance: `u${startMs}`, addressee: null, pair: 'none', ...over });

const reportOf = (participants: ParticipantReport[], timeline: TimelineItem[]): Report => quietReport(participants, timeline);

describe('the debrief', () => {
  it('picks the three most notable observations, with their numbers and moments', () => {
    const timeline = [
      say('hannah', 0, 5_000, 'What would you do about the budget next year?', { pair: 'question', addressee: 'jordan', answer: 'not', reply: 'u15000' }),
      say('sam', 6_000, 10_000, 'I think we should cut travel first.'),
      say('jordan', 15_000, 90_000, 'Um, so, um, like I said the plan is fine um'),
      { kind: 'interruption', participant: 'jordan', startMs: 12_000, endMs: 12_000, of: 'sam', utterance: 'u6000' } satisfies TimelineItem,
      say('hannah', 191_000, 192_000, 'And the hiring plan?', { pair: 'question', addressee: 'jordan', answer: 'answered', reply: 'u198000' }),
      say('jordan', 198_000, 200_000, 'Like, um, yes.'),
    ];
    const jordan = person('jordan', {
      speakingMs: 77_000,
      speakingShare: 0.9,
      turns: 2,
      words: 300,
      wordsPerMinute: 190,
      fillers: { count: 8, list: [{ filler: 'um', count: 6 }, { filler: 'like', count: 2 }] },
      interruptionsMade: 1,
      questionsReceived: 2,
      questionsAnswered: 1,
      answersGiven: { questions: 2, answered: 1, partly: 0, not: 1 },
      responseLatencyMs: { median: 5_500, p90: 6_000, samples: 2 },
    });
    const report = reportOf([jordan, person('hannah', { speakingShare: 0.05 }), person('sam', { speakingShare: 0.05 })], timeline);
    const debrief = debriefOf(report, 'jordan')!;
    expect(debrief.expectedShare).toBeCloseTo(1 / 3);
    // Fillers in speech: four "um" and one "Like," over 77 s of speaking; 14 words are too few to judge pace.
    expect(debrief.fillersPerMinute).toBe(3.9);
    expect(debrief.speech.wordsPerMinute).toBe(10.9);
    expect(debrief.observations).toHaveLength(3);
    // Slowest replies (p90 6 s: weight 3) and the unanswered question (3), above share (2.7), interruptions (2.5), long turns (2) and fillers (1.95).
    expect(debrief.observations.map((o) => o.id)).toEqual(['slow-response', 'unanswered', 'share-high']);
    const unanswered = debrief.observations.find((o) => o.id === 'unanswered')!;
    expect(unanswered.text).toBe(
      'Your replies answered 1 of the 2 questions put to you by name; your reply to Hannah\'s question at 0:00 (“What would you do about the budget next year?”), “Um, so, um, like I said the plan is fine um”, did not give what it asked for.',
    );
    expect(unanswered.moments).toEqual([{ startMs: 0, label: '0:00' }]);
    expect(debrief.observations[0]!.moments).toEqual([{ startMs: 198_000, label: '3:18' }]);
    expect(debrief.observations[0]!.text).toContain('6.0 s at the slowest tenth');
    expect(debrief.observations[0]!.text).toContain('the longest pause, 6.0 s, came at 3:18 after Hannah said “And the hiring plan?”');
  });

  it('says what went well when everything is in range', () => {
    const report = reportOf([person('jordan'), person('hannah')], [say('hannah', 0, 4_000, 'Hello there.'), say('jordan', 4_500, 14_500, 'Hello, good to see you. I have read the plan twice and I think the reminders are the right place for us to start.')]);
    const debrief = debriefOf(report, 'jordan')!;
    expect(debrief.observations).toHaveLength(3);
    expect(debrief.observations.every((o) => o.tone === 'positive')).toBe(true);
    expect(debrief.observations[0]!.text).toBe('Your pace, 144 words per minute of speech, sat in the comfortable 140–160 band; your longest spoken turn is a good one to listen back to.');
    expect(debrief.observations[0]!.moments).toEqual([{ startMs: 4_500, label: '0:04' }]);
  });

  it('flags long turns and interruptions with their moments', () => {
    const timeline = [say('hannah', 0, 4_000, 'Go ahead.'), say('jordan', 5_000, 80_000, 'A long answer.'), { kind: 'interruption', participant: 'jordan', startMs: 2_000, endMs: 2_000, of: 'hannah' } satisfies TimelineItem];
    const debrief = debriefOf(reportOf([person('jordan', { interruptionsMade: 1 }), person('hannah')], timeline), 'jordan')!;
    expect(debrief.observations.find((o) => o.id === 'long-turns')?.moments).toEqual([{ startMs: 5_000, label: '0:05' }]);
    expect(debrief.observations.find((o) => o.id === 'interruptions')?.text).toBe('You interrupted 1 time (first Hannah at 0:02), and were interrupted 0 times; let the speaker finish their point.');
  });

  it('has plain words for a seat that never spoke, an empty session and an unknown seat', () => {
    const silent = person('jordan', { speakingMs: 0, speakingShare: 0, turns: 0, words: 0, wordsPerMinute: null, responseLatencyMs: { median: null, p90: null, samples: 0 } });
    const spoke = debriefOf(reportOf([silent, person('hannah', { speakingShare: 1 })], [say('hannah', 0, 4_000, 'Anyone?')]), 'jordan')!;
    expect(spoke.fillersPerMinute).toBeNull();
    expect(spoke.observations.map((o) => o.id)).toEqual(['silent']);
    expect(spoke.observations[0]!.text).toMatch(/^You did not speak in this session; the others spoke 1 time\./);
    const empty = debriefOf(reportOf([silent], []), 'jordan')!;
    expect(empty.observations[0]!.text).toBe('Nobody spoke in this session, so there is nothing to measure yet.');
    expect(empty.observations[0]!.tone).toBe('note');
    expect(spoke.observations[0]!.tone).toBe('improve');
    expect(debriefOf(reportOf([silent], []), 'nobody')).toBeNull();
  });

  it('writes times as minutes and seconds', () => {
    expect(clock(192_000)).toBe('3:12');
    expect(clock(5_400)).toBe('0:05');
  });
});

describe('questions put to the seat, by what the replies said', () => {
  const line = lineMaker();
  const ask = (text: string) => line('hannah', text, { addressee: 'jordan', pair: 'question', act: 'question', durationMs: 2000 });
  const start: SessionEvent = { seq: 0, t: 0, type: 'session-start', scene: 'test', title: 'Test', seed: 1, policy: 'round-robin', participants: [{ id: 'jordan', name: 'Jordan Lee', kind: 'human', present: true, speakingRate: 150 }, { id: 'hannah', name: 'Hannah Cole', kind: 'ai', present: false, speakingRate: 150 }] };

  it('does not say a question was answered because the seat spoke next', () => {
    const report = reportOfLog([
      start,
      ask('Jordan, how many clinics use the reminder system?'),
      line('jordan', 'About 340 clinics use it today.', { durationMs: 2000 }),
      ask('Why did the last product manager leave, Jordan?'),
      line('jordan', 'I built the first version of the app myself.', { durationMs: 2000 }),
      ask('Jordan, when does the pilot start?'),
      line('jordan', 'Pass.', { durationMs: 1000 }),
    ]);
    // Jordan spoke next after all three: turn-taking would call that three of three.
    expect(report.participants.find((p) => p.id === 'jordan')!.questionsAnswered).toBe(3);
    const debrief = debriefOf(report, 'jordan')!;
    expect(debrief.questions).toMatchObject({ received: 3, answeredNext: 3, byContent: { questions: 3, answered: 1, partly: 0, not: 2 }, dodged: 1 });
    expect(debrief.questions.put.map((q) => q.outcome)).toEqual(['answered', 'not', 'non-answer']);
    const unanswered = debrief.observations.find((o) => o.id === 'unanswered')!;
    expect(unanswered.text).toBe(
      'Your replies answered 1 of the 3 questions put to you by name; your reply to Hannah\'s question at 0:03 (“Why did the last product manager leave, Jordan?”), “I built the first version of the app myself.”, did not give what it asked for.',
    );
    expect(unanswered.moments.map((m) => m.label)).toEqual(['0:03']);
    // "Pass." is not an answer: a dodge, with its own moment.
    expect(debrief.observations.find((o) => o.id === 'dodged')!.moments.map((m) => m.label)).toEqual(['0:05']);
    expect(debrief.observations.some((o) => o.id === 'questions-ok')).toBe(false);
  });

  it('says all were answered only when every reply gave what was asked', () => {
    const report = reportOfLog([start, ask('Jordan, how many clinics use the reminder system?'), line('jordan', 'About 340 clinics use it today.', { durationMs: 2000 })]);
    const good = debriefOf(report, 'jordan')!.observations.find((o) => o.id === 'questions-ok');
    expect(good?.text).toBe('Your reply answered the one question put to you by name: it gave what was asked.');
  });
});

describe('the moments of the things to work on', () => {
  // Jordan speaks fast (a 240 wpm line and a 150 wpm one) and is asked two questions, both answered.
  const timeline = [
    say('hannah', 0, 3_000, 'Jordan, what did you ship last week?', { pair: 'question', addressee: 'jordan' }),
    say('jordan', 3_500, 8_500, 'We shipped the booking flow, the reminders, the new calendar sync and two fixes for the payments page.'),
    say('sam', 9_000, 12_000, 'And what comes next for you, Jordan?', { pair: 'question', addressee: 'jordan' }),
    say('jordan', 12_500, 17_500, 'Next we move to the reporting screens and then the export work.'),
  ];
  const jordan = person('jordan', { speakingShare: 0.3, turns: 2, words: 60, wordsPerMinute: 200, questionsReceived: 2, questionsAnswered: 2 });
  const report = reportOf([jordan, person('hannah', { speakingShare: 0.35 }), person('sam', { speakingShare: 0.35 })], timeline);

  it('points pace at the seat\'s fastest turns, fastest included', () => {
    const pace = debriefOf(report, 'jordan')!.observations.find((o) => o.id === 'pace-fast')!;
    expect(pace.moments.map((m) => m.startMs)).toContain(3_500);
    expect(pace.moments.every((m) => [3_500, 12_500].includes(m.startMs))).toBe(true);
  });

  it('points a high share at the seat\'s longest turns', () => {
    const loud = reportOf([person('jordan', { speakingShare: 0.8, turns: 2 }), person('hannah', { speakingShare: 0.1 }), person('sam', { speakingShare: 0.1 })], timeline);
    const share = debriefOf(loud, 'jordan')!.observations.find((o) => o.id === 'share-high')!;
    expect(share.moments.map((m) => m.startMs)).toEqual([3_500, 12_500]);
  });

  it('gives the written paragraph the moments of its advice, not the questions put to the seat', async () => {
    const written = await feedback(report, linesOf(report), 'jordan', createScriptedGenerator());
    expect(written.paragraph).toContain('The main thing to work on: you spoke at 180 words per minute');
    expect(written.moments.map((m) => m.startMs)).toContain(3_500);
    expect(written.moments.map((m) => m.startMs)).not.toContain(0);
    expect(written.moments.map((m) => m.startMs)).not.toContain(9_000);
  });
});

describe('what a reply to a question is called in the debrief', () => {
  const outcome = (question: string, reply: string) => outcomeOf(reply, answerFit(question, reply));
  it('calls saying one does not know a reply that did not answer, however it is put', () => {
    expect(outcome('Tell us about a time you and an engineering lead disagreed about scope.', "I haven't got a good answer on the engineering lead yet.")).toBe('not');
    expect(outcome("And then what happened when a big customer asked for something you'd already cut, Alex?", "Hannah, I'd have to think about the big customer before I answered.")).toBe('not');
    expect(outcome('Why did the launch slip?', "I'd be guessing at the reasons.")).toBe('not');
  });
  it('calls a line cut off before it said anything a reply that did not answer', () => {
    expect(outcome('What do you think our reminder system looks like today?', 'Raj, it comes back to this: my—')).toBe('not');
    expect(outcome('What do you think our reminder system looks like today?', 'Raj, I think the reminder system sends one text the day before, from a—')).toBe('answered');
  });
  it('calls "sounds good" an answer to "does that work?"', () => {
    expect(outcome('We have ten minutes; we will each ask a question or two. Does that work?', 'Sounds good, Sofia.')).toBe('answered');
  });
});

