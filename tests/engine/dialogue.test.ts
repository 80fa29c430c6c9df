import { describe, expect, it } from 'vitest';
import { echoes, opened, pressed, replied, taskFor, viewFor } from '../../server/engine/dialogue';

const ask = (id: string, asker: string, to: string, text: string) => ({ id, asker, to, text });
const said = (id: string, speaker: string, text: string) => ({ id, speaker, text });
const human = (id: string, speaker: string, text: string, replyTo: string | null = null) => ({ id, speaker, text, human: true, replyTo, addressee: replyTo });

describe('the dialogue state', () => {
  it('keeps what became of each question: answered, partly, dodged, open', () => {
    let state = opened([], ask('u1', 'raj', 'alex', 'How many clinics use the reminders?'));
    state = opened(state, ask('u3', 'hannah', 'alex', 'Why did you leave your last job?'));
    state = opened(state, ask('u5', 'raj', 'alex', 'When did the redesign ship?'));
    state = replied(state, 'u1', said('u2', 'alex', 'About 340 of them.'));
    state = replied(state, 'u3', said('u4', 'alex', 'Pass.'));
    expect(state.map((e) => [e.id, e.type, e.status])).toEqual([
      ['u1', 'how-many', 'answered'],
      ['u3', 'why', 'dodged'],
      ['u5', 'when', 'open'],
    ]);
  });

  it('opens no exchange for a statement or a repeat request, and counts a repeat request on the question', () => {
    let state = opened([], ask('u1', 'raj', 'alex', 'The cron job is nine years old.'));
    expect(state).toEqual([]);
    state = opened(state, ask('u2', 'raj', 'alex', 'Which number would you watch first?'));
    state = replied(state, 'u2', said('u3', 'alex', 'Sorry, could you repeat the question?'));
    expect(state[0]).toMatchObject({ status: 'open', repeats: 1 });
  });

  it('has the asker probe a dodged question once, and take up an answered one', () => {
    let state = opened([], ask('u1', 'raj', 'alex', 'How many clinics use the reminders?'));
    state = replied(state, 'u1', said('u2', 'alex', 'Pass.'));
    const probe = taskFor({ speaker: 'raj', obligation: null, last: human('u2', 'alex', 'Pass.', 'raj'), exchanges: state });
    expect(probe).toMatchObject({ kind: 'probe', question: { id: 'u1', type: 'how-many' }, line: { act: 'non-answer', fit: 'not' } });
    expect(echoes(probe)).toBe(true);
    // Pressed once, it is taken up, not pressed again.
    const again = taskFor({ speaker: 'raj', obligation: null, last: human('u2', 'alex', 'Pass.', 'raj'), exchanges: pressed(state, 'u1') });
    expect(again.kind).toBe('take-up');
    // Someone else takes the dodge up; only the asker presses it.
    expect(taskFor({ speaker: 'hannah', obligation: null, last: human('u2', 'alex', 'Pass.', 'raj'), exchanges: state }).kind).toBe('take-up');
    const answered = replied(opened([], ask('u1', 'raj', 'alex', 'How many clinics use the reminders?')), 'u1', said('u2', 'alex', 'About 340.'));
    expect(taskFor({ speaker: 'raj', obligation: null, last: human('u2', 'alex', 'About 340.', 'raj'), exchanges: answered })).toMatchObject({ kind: 'take-up', line: { fit: 'answered' } });
  });

  it('repeats the question asked, or the line just said when it was not a question', () => {
    const state = opened([], ask('u1', 'raj', 'alex', 'Which number would you watch first?'));
    const obligation = { utterance: 'u2', from: 'alex', text: 'Could you repeat that?' };
    expect(taskFor({ speaker: 'raj', obligation, last: human('u2', 'alex', 'Could you repeat that?'), exchanges: state, previous: { speaker: 'raj', text: 'Which number would you watch first?' } })).toMatchObject({
      kind: 'repeat',
      question: { id: 'u1' },
    });
    const statement = taskFor({ speaker: 'raj', obligation, last: human('u2', 'alex', 'Could you repeat that?'), exchanges: state, previous: { speaker: 'raj', text: 'The cron job is nine years old.' } });
    expect(statement).toMatchObject({ kind: 'repeat', question: { text: 'The cron job is nine years old.' } });
  });

  it('knows a question asked again, so the answer refers back to what was said', () => {
    let state = opened([], ask('u1', 'alex', 'hannah', 'Hannah, why did the last PM leave?'));
    state = replied(state, 'u1', said('u2', 'hannah', 'She quit after the CTO rewrote her roadmap.'));
    state = opened(state, ask('u3', 'alex', 'hannah', 'Why did the last PM leave, Hannah?'));
    const task = taskFor({ speaker: 'hannah', obligation: { utterance: 'u3', from: 'alex', text: 'Why did the last PM leave, Hannah?' }, last: null, exchanges: state });
    expect(task).toMatchObject({ kind: 'answer', again: 1, question: { type: 'why' } });
    expect(viewFor(state, 'hannah', task).answered).toEqual([{ from: 'alex', question: 'Hannah, why did the last PM leave?', answer: 'She quit after the CTO rewrote her roadmap.' }]);
  });
});
