import { describe, expect, it } from 'vitest';
import { lineMaker } from '../../tests/fakes/utterances';
import type { UtteranceEvent } from '../../shared/events';
import { Scene, type LoadedScene } from '../../shared/scene/schema';
import { breakdownsOf, breakdownUtterances, countKinds, taxonomy, type BreakdownRule } from './breakdowns';
import { breakdownKinds, type BreakdownKind } from '../../shared/review/report';
import { repetitionOf } from './repetition';

const scene: LoadedScene = {
  id: 'planning',
  ...Scene.parse({
    title: 'Quarterly planning',
    topic: 'the quarterly budget',
    context: 'The team decides which projects to fund next quarter.',
    formation: 'table',
    participants: [
      { id: 'ana', kind: 'ai', name: 'Ana Ruiz', persona: { backstory: 'Finance lead.', points: ['Hiring should wait until spring.'] } },
      { id: 'ben', kind: 'ai', name: 'Ben Okoro', persona: { backstory: 'Engineer.' } },
      { id: 'cy', kind: 'human', name: 'Cy Lee' },
    ],
    snippets: [{ id: 'main', initiator: 'ana', turns: 20, goal: 'Agree on the migration estimate.' }],
  }),
};

const line = lineMaker();
const question = (speaker: string, addressee: string | null, text = 'What is the budget for the migration?'): UtteranceEvent =>
  line(speaker, text, { addressee, pair: 'question', act: 'question' });
const answer = (speaker: string, addressee: string | null, replyTo?: string, text = 'The budget covers the migration.'): UtteranceEvent =>
  line(speaker, text, { addressee, act: 'answer', ...(replyTo ? { replyTo } : {}) });
const firstPart = (speaker: string, addressee: string | null, pair: 'request' | 'invitation' | 'offer' | 'greeting', text: string): UtteranceEvent =>
  line(speaker, text, { addressee, pair, act: pair });

const judge = (utterances: UtteranceEvent[], withScene = true) => breakdownsOf(utterances, repetitionOf(utterances), withScene ? scene : undefined);

/** The findings of one kind, as [utterance id] lists. */
const found = (kind: BreakdownKind, utterances: UtteranceEvent[], withScene = true): string[] =>
  judge(utterances, withScene)
    .filter((b) => b.kind === kind)
    .map((b) => b.utterance);

/** The findings of one kind, as [utterance id, rule] pairs. */
const why = (kind: BreakdownKind, utterances: UtteranceEvent[], withScene = true): [string, BreakdownRule | undefined][] =>
  judge(utterances, withScene)
    .filter((b) => b.kind === kind)
    .map((b) => [b.utterance, b.rule]);

describe('the taxonomy', () => {
  it('is MMAgents Table 1: five response-level types and six context-level ones, named as the paper names them', () => {
    expect(breakdownKinds).toHaveLength(11);
    expect(breakdownKinds.filter((k) => taxonomy[k].level === 'response').map((k) => taxonomy[k].name)).toEqual([
      'Ignore question',
      'Ignore request',
      'Ignore suggestion',
      'Ignore greeting',
      'Ignore expectation',
    ]);
    expect(breakdownKinds.filter((k) => taxonomy[k].level === 'context').map((k) => taxonomy[k].name)).toEqual([
      'Unclear intention of utterance',
      'Topic-change error',
      'Lack of information',
      'Self-contradiction',
      'Interlocutor contradiction',
      'Repetition',
    ]);
    expect(breakdownKinds.filter((k) => taxonomy[k].aspect === 'content')).toEqual(['ignore-expectation', 'self-contradiction', 'interlocutor-contradiction', 'repetition']);
  });

  it('counts an utterance with several types once, and once under each type', () => {
    const findings = [
      { utterance: 'u1', kind: 'ignore-question' as const },
      { utterance: 'u1', kind: 'repetition' as const },
      { utterance: 'u2', kind: 'repetition' as const },
    ];
    expect(breakdownUtterances(findings)).toBe(2);
    expect(countKinds(findings)).toMatchObject({ 'ignore-question': 1, repetition: 2, 'topic-change': 0 });
  });
});

describe('breakdownsOf', () => {
  it('finds an ignored question: the next line is someone else’s, or the addressee’s but not an answer', () => {
    const q1 = question('ana', 'ben');
    const other = line('cy', 'The migration budget is tight.', { source: 'simulated-human' });
    const q2 = question('ana', 'ben', 'How long will the migration take?');
    const statement = line('ben', 'I want to talk about the migration budget.');
    const q3 = question('ana', 'ben', 'Which migration step is riskiest?');
    const answered = answer('ben', 'ana', q3.id, 'The database migration step is riskiest.');
    expect(why('ignore-question', [q1, other, q2, statement, q3, answered])).toEqual([
      [other.id, 'not-the-addressee'],
      [statement.id, 'no-answer'],
    ]);
  });

  it('finds a question put to the room that the next speaker leaves unanswered', () => {
    const asked = question('ana', null, 'Does anyone know the migration budget?');
    const past = line('ben', 'We should fund the hiring plan first.');
    expect(why('ignore-question', [asked, past])).toEqual([[past.id, 'room-left-unanswered']]);
    // Taken up: it shares a word, points back, is an answer, or is the asker going on.
    expect(found('ignore-question', [asked, line('ben', 'The migration budget is ten thousand.')])).toEqual([]);
    expect(found('ignore-question', [asked, line('ben', 'I can check that tomorrow.')])).toEqual([]);
    expect(found('ignore-question', [asked, answer('ben', null, asked.id, 'Ten thousand euros, roughly.')])).toEqual([]);
    expect(found('ignore-question', [asked, line('ana', 'We should fund the hiring plan first.')])).toEqual([]);
    expect(found('ignore-question', [asked, line('ben', 'We should fund the hiring—', { interrupted: true })])).toEqual([]);
  });

  it('does not judge a question left at the end of the log, one cut off, or a real person who lets one pass', () => {
    expect(found('ignore-question', [question('ana', 'ben')])).toEqual([]);
    expect(found('ignore-question', [question('ana', 'ben'), line('cy', 'About the migration budget...', { source: 'human' })])).toEqual([]);
    const cut = line('ana', 'Ben, what is the—', { addressee: 'ben', pair: 'question', act: 'question', interrupted: true });
    expect(found('ignore-question', [cut, line('cy', 'Sorry, one thing on the budget.', { source: 'simulated-human', act: 'interrupt' })])).toEqual([]);
  });

  it('finds an ignored request or invitation', () => {
    const request = firstPart('ana', 'ben', 'request', 'Ben, could you send me the migration notes?');
    const past = line('cy', 'The quarterly budget looks fine to me.', { source: 'simulated-human' });
    const again = firstPart('ana', 'ben', 'request', 'Ben, could you send me the migration notes today?');
    const counter = line('ben', 'Is the quarterly budget settled yet?', { act: 'question', pair: 'question', addressee: 'ana' });
    expect(why('ignore-request', [request, past, again, counter])).toEqual([
      [past.id, 'not-the-addressee'],
      [counter.id, 'no-answer'],
    ]);
    // An invitation is answered by taking the floor, whatever the line then does.
    const invitation = firstPart('ana', 'ben', 'invitation', "Let's hear from Ben.");
    expect(found('ignore-request', [invitation, line('ben', 'Is the quarterly budget settled yet?', { act: 'question', pair: 'question', addressee: 'ana' })])).toEqual([]);
    expect(found('ignore-request', [request, answer('ben', 'ana', request.id, 'Sure, I will send the migration notes today.')])).toEqual([]);
  });

  it('finds an ignored suggestion (an offer)', () => {
    const offer = firstPart('ana', 'ben', 'offer', 'Ben, shall I draft the migration plan for you?');
    const past = line('cy', 'The quarterly budget looks fine to me.', { source: 'simulated-human' });
    expect(why('ignore-suggestion', [offer, past])).toEqual([[past.id, 'not-the-addressee']]);
    expect(found('ignore-suggestion', [offer, answer('ben', 'ana', offer.id, 'Yes please, the migration plan would help.')])).toEqual([]);
  });

  it('finds an ignored greeting; a greeting back answers it, and a greeting to the room needs no one', () => {
    const hello = firstPart('ana', 'ben', 'greeting', 'Good morning, Ben!');
    const skipped = line('ben', 'The migration budget needs another review.');
    expect(why('ignore-greeting', [hello, skipped])).toEqual([[skipped.id, 'no-answer']]);
    expect(found('ignore-greeting', [hello, firstPart('ben', 'ana', 'greeting', 'Morning, Ana!')])).toEqual([]);
    expect(found('ignore-greeting', [firstPart('ana', null, 'greeting', 'Hello everyone!'), skipped])).toEqual([]);
  });

  it('finds an answer that replies without what was asked', () => {
    const asked = question('ana', 'ben', 'Ben, when does the hiring freeze end?');
    const beside = answer('ben', 'ana', asked.id, 'Honestly, the quarterly budget covers the migration.');
    expect(why('ignore-expectation', [asked, beside])).toEqual([[beside.id, 'wrong-kind-of-answer']]);
    const open = question('ana', 'ben', 'Ben, what slowed the hiring plan down?');
    const aside = answer('ben', 'ana', open.id, 'About the hiring plan: the quarterly budget covers the migration.');
    expect(why('ignore-expectation', [open, aside])).toEqual([[aside.id, 'answer-misses-it']]);
    // Answers that share a word, point back, say yes or no, or were cut off are not judged.
    expect(found('ignore-expectation', [asked, answer('ben', 'ana', asked.id, 'The freeze lasts until spring.')])).toEqual([]);
    expect(found('ignore-expectation', [asked, answer('ben', 'ana', asked.id, 'That is hard to say today.')])).toEqual([]);
    expect(found('ignore-expectation', [question('ana', 'ben', 'Ben, is the hiring freeze over?'), answer('ben', 'ana', undefined, 'Ana, no. The quarterly budget covers the migration.')])).toEqual([]);
    expect(found('ignore-expectation', [asked, { ...answer('ben', 'ana', asked.id, 'Honestly, the quarterly budget—'), interrupted: true }])).toEqual([]);
  });

  it('finds an answer addressed to someone who did not ask: an unclear intention', () => {
    const q = question('ana', 'ben');
    const wrong = answer('ben', 'cy', q.id);
    expect(why('unclear-intention', [q, wrong])).toEqual([[wrong.id, 'wrong-addressee']]);
    expect(found('unclear-intention', [q, answer('ben', 'ana', q.id)])).toEqual([]);
    // Without replyTo, the answer goes to the last first pair part's speaker.
    expect(found('unclear-intention', [q, answer('ben', 'ana')])).toEqual([]);
    const unasked = answer('ben', 'ana');
    expect(found('unclear-intention', [line('ana', 'The migration budget is tight.'), unasked])).toEqual([unasked.id]);
    // An answer to the room is not judged.
    expect(found('unclear-intention', [q, answer('ben', null, q.id)])).toEqual([]);
  });

  it('finds a topic change: an AI line unrelated to the last two lines after another’s statement with a topic', () => {
    const estimate = line('ana', 'The migration estimate looks realistic.');
    const jump = line('ben', 'Which projects do we fund next quarter?');
    expect(why('topic-change', [estimate, jump])).toEqual([[jump.id, 'unrelated-to-previous']]);
    expect(found('topic-change', [estimate, jump], false)).toEqual([jump.id]); // no scene needed
    // Announced, pointing back, after an answer, one's own, or after a line without a clear topic: no error.
    expect(found('topic-change', [estimate, line('ben', 'Anyway, which projects do we fund next quarter?')])).toEqual([]);
    expect(found('topic-change', [estimate, line('ben', 'Back to the projects we fund next quarter.')])).toEqual([]);
    expect(found('topic-change', [estimate, line('ben', 'Does that change which projects we fund?')])).toEqual([]);
    expect(found('topic-change', [answer('ana', null, undefined, 'The migration estimate looks realistic.'), jump])).toEqual([]);
    expect(found('topic-change', [estimate, line('ana', 'Which projects do we fund next quarter?')])).toEqual([]);
    expect(found('topic-change', [line('ana', 'Okay, I see.'), jump])).toEqual([]);
  });

  it('finds an AI line that shares no content word with the topic, its own points or the last two lines: a topic change off the scene', () => {
    const stray = line('ben', 'Penguins enjoy swimming in freezing water.');
    expect(why('topic-change', [line('ana', 'Let us look at the numbers.'), stray])).toEqual([[stray.id, 'off-topic']]);
    expect(found('topic-change', [line('ben', 'Penguins enjoy swimming in freezing water, like our budget.')])).toEqual([]); // the topic
    expect(found('topic-change', [line('ana', 'Spring hiring should wait for penguins.')])).toEqual([]); // Ana's talking point
    expect(found('topic-change', [line('ana', 'Penguins are lovely.'), stray])).toEqual([]); // the line before
    expect(found('topic-change', [line('ben', 'Penguins enjoy swimming in it, freezing water.')])).toEqual([]); // points back
  });

  it('leaves deviations, floor management, short lines and other sources out of topic changes; off the scene needs the scene', () => {
    const stray = 'Penguins enjoy swimming in freezing water.';
    expect(found('topic-change', [line('ben', stray, { impromptu: true })])).toEqual([]);
    expect(found('topic-change', [line('ben', stray, { interrupted: true })])).toEqual([]);
    expect(found('topic-change', [line('ben', 'Penguins, please go ahead and swim in freezing water.', { act: 'moderate', addressee: 'ana' })])).toEqual([]);
    expect(found('topic-change', [line('ben', 'Sorry, quick point before we move on.', { act: 'interrupt' })])).toEqual([]);
    expect(found('topic-change', [line('ben', 'Sorry, quick point before we move on.')])).toHaveLength(1);
    expect(found('topic-change', [line('ben', 'Penguins swim underwater.')])).toEqual([]); // three words
    expect(found('topic-change', [line('ben', 'Sorry, one small thing.')])).toEqual([]); // two content words
    expect(found('topic-change', [line('ben', stray, { source: 'simulated-human' })])).toEqual([]);
    expect(found('topic-change', [line('ben', stray)], false)).toEqual([]);
  });

  it('finds a pronoun with nobody to refer to: a lack of information', () => {
    const budget = line('ana', 'The migration budget needs another review.');
    const vague = line('ben', 'Honestly, he wants it approved by Friday.');
    expect(why('lack-of-information', [budget, vague])).toEqual([[vague.id, 'pronoun-without-referent']]);
    // A name in the line before the pronoun, or in the last three lines, is a referent.
    expect(found('lack-of-information', [budget, line('ben', 'Carl from finance says he wants it by Friday.')])).toEqual([]);
    expect(found('lack-of-information', [line('ana', 'I spoke to Carl this morning.'), budget, vague])).toEqual([]);
    expect(found('lack-of-information', [line('ben', 'Dana approved it; she signed on Monday.')])).toEqual([]);
  });

  it('finds a speaker stating the negation of an earlier statement of theirs', () => {
    const claim = line('ana', 'The migration estimate is realistic.');
    const negated = line('ana', 'Well, the migration estimate is not realistic.');
    const restated = line('ana', "No, the migration estimate isn't realistic at all.");
    expect(why('self-contradiction', [claim, negated])).toEqual([[negated.id, 'negates-own-claim']]);
    expect(found('self-contradiction', [claim, negated, restated])).toEqual([negated.id]); // same polarity as the last
    expect(found('self-contradiction', [claim, line('ben', 'The migration estimate is not realistic.')])).toEqual([]);
    expect(found('self-contradiction', [claim, line('ana', 'Is the migration estimate not realistic?')])).toEqual([]);
    expect(found('self-contradiction', [claim, line('ana', 'No, the migration estimate is realistic.')])).toEqual([]);
  });

  it('finds a statement, or a negative question, that contradicts what someone else stated', () => {
    const claim = line('ana', 'The migration estimate is realistic.');
    const denied = line('ben', 'The migration estimate is not realistic.');
    const doubted = line('ben', 'Is the migration estimate not realistic?');
    expect(why('interlocutor-contradiction', [claim, denied])).toEqual([[denied.id, 'negates-others-claim']]);
    expect(found('interlocutor-contradiction', [claim, doubted])).toEqual([doubted.id]);
    expect(found('interlocutor-contradiction', [claim, line('ben', 'Is the migration estimate realistic?')])).toEqual([]);
    expect(found('interlocutor-contradiction', [claim, line('ben', 'Agreed, the migration estimate is realistic enough.')])).toEqual([]);
    expect(found('interlocutor-contradiction', [claim, line('ana', 'The migration estimate is not realistic.')])).toEqual([]); // her own
    // A person's statement can be contradicted too.
    expect(found('interlocutor-contradiction', [line('cy', 'The migration estimate is realistic.', { source: 'human' }), denied])).toEqual([denied.id]);
  });

  it('finds verbatim repeats and near-duplicates', () => {
    const first = line('ana', 'The migration budget needs another review');
    const verbatim = line('ben', 'The migration budget needs another review.');
    const near = line('ana', 'Honestly the migration budget needs another review');
    const fresh = line('ben', 'The migration budget could fund the hiring plan first.');
    expect(why('repetition', [first, verbatim, near, fresh])).toEqual([
      [verbatim.id, 'verbatim'],
      [near.id, 'near-duplicate'],
    ]);
  });

  it('finds nothing in a conversation that holds together', () => {
    const asked = question('ana', 'ben', 'Ben, what is the migration estimate?');
    const clean = [
      asked,
      answer('ben', 'ana', asked.id, 'Ana, the migration estimate is six weeks.'),
      line('ana', 'Six weeks fits the quarterly budget.'),
      line('ben', 'Then the budget can also cover the testing work.'),
      line('cy', 'Penguins! Sorry, wrong window.', { source: 'human' }),
      firstPart('ana', 'cy', 'greeting', 'Hi Cy, welcome.'),
      line('cy', 'Thanks, glad to be here.', { source: 'human' }),
      question('ana', null, 'Anyway, which projects do we fund next quarter?'),
      line('ben', 'The migration project should come first.'),
      firstPart('ana', 'ben', 'request', 'Ben, could you write up the migration plan?'),
      answer('ben', 'ana', undefined, 'Sure, I will write the plan up this week.'),
    ];
    expect(judge(clean)).toEqual([]);
    expect(judge(clean, false)).toEqual([]);
  });

  describe('reads what an answer says, not only who gave it', () => {
    it('finds a how-many, when, who or why answered without a number, a time, a person or a reason', () => {
      const cases: [string, string][] = [
        ['Ben, how many engineers does the migration need?', 'Honestly, the vendor is still reviewing our contract.'],
        ['Ben, when does the hiring freeze end?', 'The quarterly budget covers the migration.'],
        ['Ben, who signed off the migration budget?', 'It was approved at the end of the quarter.'],
        ['Ben, why did the migration slip?', 'The migration slipped, and it is still slipping.'],
      ];
      for (const [q, a] of cases) {
        const asked = question('ana', 'ben', q);
        expect(why('ignore-expectation', [asked, answer('ben', 'ana', asked.id, a)]), q).toEqual([['u' + (Number(asked.id.slice(1)) + 1), 'wrong-kind-of-answer']]);
      }
      const when = question('ana', 'ben', 'Ben, when does the hiring freeze end?');
      expect(found('ignore-expectation', [when, answer('ben', 'ana', when.id, 'In March, after the audit.')])).toEqual([]);
      const because = question('ana', 'ben', 'Ben, why did the migration slip?');
      expect(found('ignore-expectation', [because, answer('ben', 'ana', because.id, 'Because the vendor shipped late.')])).toEqual([]);
    });

    it('finds a reply that only echoes the question, or names its topic and then says something else', () => {
      const asked = question('ana', 'ben', 'Ben, what would you change in the migration plan?');
      const echo = answer('ben', 'ana', asked.id, 'Ana, the migration plan is where I would look, honestly.');
      expect(why('ignore-expectation', [asked, echo])).toEqual([[echo.id, 'echo-without-answer']]);
      const leadIn = answer('ben', 'ana', asked.id, 'On the migration plan: penguins swim faster than ducks.');
      expect(why('ignore-expectation', [asked, leadIn])).toEqual([[leadIn.id, 'answer-misses-it']]);
      // With no lead-in, nothing in the reply addresses the question at all.
      const unrelated = answer('ben', 'ana', asked.id, 'Penguins swim faster than ducks in cold water.');
      expect(why('ignore-question', [asked, unrelated])).toEqual([[unrelated.id, 'unrelated-answer']]);
    });

    it('finds a request to say it again answered with something else; restating is no repetition', () => {
      const asked = question('ana', 'cy', 'Cy, how many engineers does the migration need?');
      const pardon = line('cy', 'Could you repeat the question?', { source: 'human', addressee: 'ana', act: 'answer', pair: 'request' });
      const moveOn = line('ana', 'Six weeks fits the quarterly budget.');
      expect(why('ignore-request', [asked, pardon, moveOn])).toEqual([[moveOn.id, 'repair-ignored']]);
      const again = question('ana', 'cy', 'Cy, how many engineers does the migration need?');
      expect(judge([asked, pardon, again])).toEqual([]);
    });

    it("finds a question asked again, or one's own point said again in other words", () => {
      const asked = question('ana', 'ben', 'Ben, does the migration budget cover testing?');
      const aside = line('cy', 'Penguins!', { source: 'human' });
      const reAsked = question('ana', 'ben', 'Ben, does the migration budget cover testing?');
      expect(found('repetition', [asked, aside, reAsked])).toEqual([reAsked.id]);
      const point = line('ben', 'Any change mid-sprint should trigger a quick re-estimate, even a five-minute one.');
      const other = line('ana', 'The quarterly budget is fine.');
      const said = line('ben', 'Every change in the middle of a sprint should get a quick re-estimate, even five minutes.');
      expect(why('repetition', [point, other, said])).toEqual([[said.id, 'paraphrase']]);
    });

    it('finds thanks to someone silent, a side taken on nothing, and an offer taken as a task: unclear intentions', () => {
      const silent = line('ana', 'Right, thank you, Cy. We will talk again next week.');
      expect(why('unclear-intention', [line('ben', 'The migration budget is settled.'), silent])).toEqual([[silent.id, 'thanks-someone-silent']]);
      const fine = line('cy', 'Fine.', { source: 'human' });
      const wary = line('ana', "I'm wary of that, because the numbers don't back it up yet.");
      expect(why('unclear-intention', [fine, wary])).toEqual([[wary.id, 'stance-on-nothing']]);
      const thing = line('ben', "I'd push back on the new student; the budget needs review.");
      expect(why('unclear-intention', [line('ana', 'The migration budget is settled.'), thing])).toEqual([[thing.id, 'stance-on-nothing']]);
      const offer = firstPart('ana', 'ben', 'request', 'Let me know if you want a second pair of eyes on the migration, Ben.');
      const task = answer('ben', 'ana', offer.id, 'Sure, Ana, I will do it today. I will start with the migration.');
      expect(why('unclear-intention', [offer, task])).toEqual([[task.id, 'offer-taken-as-task']]);
      expect(found('unclear-intention', [offer, answer('ben', 'ana', offer.id, 'Yes please, Ana, that would help.')])).toEqual([]);
    });

    it("never judges a person's line", () => {
      const asked = question('ana', 'cy', 'Cy, how many engineers does the migration need?');
      expect(judge([asked, answer('cy', 'ana', asked.id, 'I had pasta for lunch.'), ].map((u, i) => (i === 1 ? { ...u, source: 'human' as const } : u)))).toEqual([]);
    });
  });
});
