import { describe, expect, it } from 'vitest';
import { lineMaker } from '../../tests/fakes/utterances';
import type { UtteranceEvent } from '../../shared/events';
import { countAnswers, nameWordsOf, questionsOf } from './answers';
import { runMetrics } from './metrics';

const names = nameWordsOf(['Ana Ruiz', 'Ben Okoro', 'Cy Lee']);

/** Four questions to Ben: answered by content, answered next but not by content, dodged, never answered. */
const log = (): UtteranceEvent[] => {
  const line = lineMaker();
  const ask = (speaker: string, to: string, text: string) => line(speaker, text, { addressee: to, pair: 'question', act: 'question' });
  return [
    ask('ana', 'ben', 'Ben, how many clinics use the reminder system?'),
    line('ben', 'About 340 clinics use it today.', { replyTo: 'u1' }),
    ask('ana', 'ben', 'Why did the last product manager leave, Ben?'),
    line('ben', 'I built the first version of the app myself.', { replyTo: 'u3' }),
    ask('cy', 'ben', 'Ben, what is your salary?'),
    line('ben', 'Pass.'),
    ask('cy', 'ben', 'When does the pilot start, Ben?'),
    line('cy', 'Well, nobody seems to know.'),
  ];
};

describe('questionsOf', () => {
  it('reads each designated question against its addressee\'s reply: answered, answered next but not by content, dodged, never answered', () => {
    expect(questionsOf(log(), names)).toEqual([
      { utterance: 'u1', asker: 'ana', addressee: 'ben', reply: 'u2', fit: 'answered' },
      { utterance: 'u3', asker: 'ana', addressee: 'ben', reply: 'u4', fit: 'not' },
      { utterance: 'u5', asker: 'cy', addressee: 'ben', reply: 'u6', fit: 'not' },
      { utterance: 'u7', asker: 'cy', addressee: 'ben', reply: null, fit: 'not' },
    ]);
  });

  it('takes the reply that says it answers the question over the addressee\'s next line, and not a line that answers another', () => {
    const line = lineMaker();
    const ask = (text: string, extra: Partial<UtteranceEvent> = {}) => line('ana', text, { addressee: 'ben', pair: 'question', act: 'question', ...extra });
    const asked = questionsOf(
      [
        ask('Ben, how many clinics use the reminders?'),
        ask('And who built the first version, Ben?', { pair: 'request' }),
        line('ben', 'Priya built the first version.', { replyTo: 'u2' }),
        line('ben', 'About 340 clinics use the reminders.', { replyTo: 'u1' }),
      ],
      names,
    );
    expect(asked.map((a) => [a.utterance, a.reply, a.fit])).toEqual([
      ['u1', 'u4', 'answered'],
      ['u2', 'u3', 'answered'],
    ]);
    // Without u4, Ben's next line after u1 says it answers u2: u1 got no reply.
    const line2 = lineMaker();
    const unanswered = questionsOf(
      [
        line2('ana', 'Ben, how many clinics use the reminders?', { addressee: 'ben', pair: 'question', act: 'question' }),
        line2('ana', 'And who built the first version, Ben?', { addressee: 'ben', pair: 'question', act: 'question' }),
        line2('ben', 'Priya built the first version.', { replyTo: 'u2' }),
      ],
      names,
    );
    expect(unanswered.map((a) => [a.utterance, a.reply, a.fit])).toEqual([
      ['u1', null, 'not'],
      ['u2', 'u3', 'answered'],
    ]);
  });

  it('counts a question to nobody in particular, or one without a question, not at all', () => {
    const line = lineMaker();
    expect(questionsOf([line('ana', 'What should we do next?', { pair: 'question' }), line('ana', 'Ben, the plan is ready.', { addressee: 'ben' })])).toEqual([]);
  });
});

describe('answers by content in the run metrics', () => {
  it('counts answered, partly and not, and the share answered, beside answered-next', () => {
    const metrics = runMetrics(log());
    expect(countAnswers(questionsOf(log(), names))).toEqual({ questions: 4, answered: 1, partly: 0, not: 3 });
    expect(metrics.answers).toEqual({ questions: 4, answered: 1, partly: 0, not: 3 });
    expect(metrics.answeredByContent).toBe(0.25);
    expect(metrics.partlyAnswered).toBe(0);
    // Ben spoke next after three of the four: turn-taking says 75%.
    expect(metrics.answeredNext).toBe(0.75);
  });

  it('counts a half answer as partly', () => {
    const line = lineMaker();
    const metrics = runMetrics([
      line('ana', 'Ben, how many clinics use the reminder system?', { addressee: 'ben', pair: 'question', act: 'question' }),
      line('ben', "I'm not sure how many clinics use the reminder system, honestly.", { replyTo: 'u1' }),
    ]);
    expect(metrics.answers).toEqual({ questions: 1, answered: 0, partly: 1, not: 0 });
    expect(metrics).toMatchObject({ answeredByContent: 0, partlyAnswered: 1 });
  });

  it('is null without designated questions', () => {
    expect(runMetrics([lineMaker()('ana', 'Good morning, all.')])).toMatchObject({ answers: { questions: 0 }, answeredByContent: null, partlyAnswered: null });
  });
});
