import { describe, expect, it } from 'vitest';
import { answerFit, understand } from './understanding';

describe('understand', () => {
  it.each([
    ['Raj, how many clinics use it?', 'question', 'how-many'],
    ['Why did the last PM leave?', 'question', 'why'],
    ['When did you arrive at the house?', 'question', 'when'],
    ['Who was the last person to see Henry alive?', 'question', 'who'],
    ['Where were you at ten?', 'question', 'where'],
    ['Have you worked in healthcare?', 'question', 'yes-no'],
    ['Would you ship it now or wait a sprint?', 'question', 'choice'],
    ['When an engineer says no, what is your next move?', 'question', 'what'],
    ['Which number would you look at first?', 'question', 'which'],
    ['Walk me through how you decided what not to build.', 'request', 'how'],
    ['what did you ship last quarter', 'question', 'what'],
    ['Thanks, Hannah. Why is this role open again?', 'question', 'why'],
    ['Jordan, when, realistically, will staging be green?', 'question', 'when'],
    ['Nadia, can you give me a cost per avoided visit that I could put in front of a council?', 'request', 'how-many'],
  ])('reads %j as a %s of type %s', (text, act, type) => {
    const understood = understand(text);
    expect(understood.act).toBe(act);
    expect(understood.type).toBe(type);
  });

  it.each([
    ['Could you repeat the question?', 'repeat-request'],
    ['Sorry, again?', 'repeat-request'],
    ['Sorry, what was the question?', 'repeat-request'],
    ['Pardon?', 'repeat-request'],
    ['Pass.', 'non-answer'],
    ["I'd rather not say.", 'non-answer'],
    ['No idea.', 'non-answer'],
    ['Do you mean the reminders?', 'clarification'],
    ['I can send you the numbers after the call.', 'offer'],
    ['Jordan, let me know if you want a second pair of eyes on the migration.', 'offer'],
    ['Before we go further, can we look at the record?', 'proposal'],
    ['¿Por qué se fue el último gerente de producto?', 'foreign'],
    ["Kit, go ahead whenever you're ready.", 'statement'],
    ['Hi everyone!', 'greeting'],
    ['I think the estimate is too optimistic.', 'opinion'],
    ['I like pizza and football.', 'small-talk'],
    ['', 'empty'],
    ['😀', 'empty'],
  ])('reads %j as %s', (text, act) => {
    expect(understand(text).act).toBe(act);
  });
});

describe('answerFit', () => {
  it.each([
    ['How many clinics use it?', 'About 340 of them.', 'answered'],
    ['Why did the last PM leave?', 'She left because the CTO rewrote her roadmap without telling her.', 'answered'],
    ['When did you arrive?', 'Around nine, just after dinner.', 'answered'],
    ['Who was the last person to see Henry alive?', 'Agnes took him his port at ten.', 'answered'],
    ['Have you worked in healthcare?', 'No, never, and I worry it shows.', 'answered'],
  ])('counts %j answered by %j', (question, reply, fit) => {
    expect(answerFit(question, reply)).toBe(fit);
  });

  it.each([
    ['Why did the last PM leave?', 'I built the first version myself.'],
    // Naming what was asked and saying something else is no answer (issue 24's example).
    ['What do you think our reminder system looks like today?', 'When it comes to your reminder system, I can push back on engineering estimates without losing trust.'],
    ['Walk me through how you decided what not to build.', 'Pass.'],
    ['Walk me through how you decided what not to build.', 'Yes.'],
    ['How many clinics use it?', 'That is a good question.'],
  ])('counts %j not answered by %j', (question, reply) => {
    expect(answerFit(question, reply)).toBe('not');
  });

  it('counts a reply of the wrong kind as partly: a time of death for who', () => {
    expect(answerFit('Who was the last person to see Henry alive?', 'He died between ten and midnight, I would say.')).toBe('partly');
  });

  it('counts an honest "I don\'t know" that stays on the question as partly', () => {
    expect(answerFit('How many clinics use the new reminders?', "I don't have that number to hand; I can send it after.")).toBe('partly');
  });
});

describe('answerFit for what a persona knows, read out of context', () => {
  const names = new Set(['rupert', 'kit']);
  it('does not take where someone else was for where the speaker was', () => {
    expect(answerFit('Rupert, where were you at half past nine?', 'At 10:05pm Henry Ashcombe, the owner, was found dead in the barrel room beside a glass of port.', names, { anaphora: false })).not.toBe('answered');
    expect(answerFit('Rupert, where were you at half past nine?', 'At half past nine I was out at my car, having a smoke.', names, { anaphora: false })).toBe('answered');
  });
  it('wants more than one shared word with a question of three or more, and a short line about it', () => {
    expect(answerFit('What was the hardest part of the clinic front desks?', 'Northwind Health runs online appointment booking for 340 outpatient clinics.', names, { anaphora: false })).not.toBe('answered');
    expect(answerFit('Who told you to wash it?', 'My kitchen is no business of the guests.', names, { anaphora: false, about: 'What happened to the port decanter?' })).not.toBe('answered');
  });
  it('reads a thin question with what its pronoun stands for', () => {
    const fact = 'At quarter past ten, Dr. Marsh asked me to rinse the port decanter before the police came.';
    expect(answerFit('Who told you to wash it?', fact, names, { anaphora: false, about: 'What happened to the port decanter?' })).toBe('answered');
  });
});
