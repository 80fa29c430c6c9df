import { describe, expect, it } from 'vitest';
import { lineMaker } from '../../tests/fakes/utterances';
import type { UtteranceEvent } from '../../shared/events';
import type { GenerateRequest } from '../engine/requests';
import type { Generator } from '../providers/generator/port';
import type { OnNotice } from '../providers/notice';
import { breakdownsOf } from './breakdowns';
import { breakdownPrompt, createModelJudge, parseJudgement, rulesJudge } from './judge';
import { repetitionOf } from './repetition';

const line = lineMaker();
/** Twelve turns: a question to Ben that Cy takes, then ten statements. */
const transcript: UtteranceEvent[] = [
  line('ana', 'Ben, what is the budget for the migration?', { addressee: 'ben', pair: 'question', act: 'question' }),
  line('cy', 'I think the hiring plan matters more.'),
  ...Array.from({ length: 10 }, (_, i) => line(i % 2 ? 'ana' : 'ben', `Point ${i + 1} about the migration budget, item ${i + 1}.`)),
];

/** A generator that answers from a script, one entry per call, recording the requests; a function entry may notify. */
const scripted = (...answers: (string | ((onNotice?: OnNotice) => string))[]) => {
  const requests: GenerateRequest[] = [];
  const generator: Generator = {
    name: 'fake',
    async *stream(request, _signal, onNotice) {
      requests.push(request);
      const next = answers.shift() ?? '';
      yield typeof next === 'string' ? next : next(onNotice);
    },
  };
  return { generator, requests };
};

const none = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ({ turn: from + i, breakdown: 'none' }));

describe('breakdownPrompt', () => {
  it('is MMAgents Figure 6: its system prompt, every condition of Table 1 with its definition, and the turns to judge', () => {
    const { system, prompt, turns } = breakdownPrompt(transcript.slice(10, 12), transcript.slice(5, 10), 11);
    expect(system).toContain('You are an expert in conversation analysis. Analyze whether the conversation is breaking down according to the specified conditions');
    expect(system).toContain('{"turns": [{"turn": <turn number>, "breakdown": ["<condition name>", ...]}, ...]}');
    for (const condition of [
      '- Ignore question: The question is ignored.',
      '- Ignore request: The response does not appropriately address a request like "Please do xxx."',
      '- Ignore suggestion:',
      '- Ignore greeting:',
      '- Ignore expectation: The response addresses the previous statement, but does not contain the expected content.',
      '- Unclear intention of utterance:',
      '- Topic-change error: Shifting to a different topic without explanation',
      '- Repetition: Simply repeating something already stated or persistently asking the same question.',
      '- Lack of information:',
      '- Self-contradiction: The statement contradicts something the speaker has previously said.',
      '- Interlocutor contradiction:',
    ]) {
      expect(prompt).toContain(condition);
    }
    expect(prompt).toContain('Detect and output all conditions for dialogue breakdown included in the input. If none of the conditions apply, answer "none".');
    expect(prompt).toContain('Earlier turns, for context only (do not judge them):\n\nTurn 6\n');
    expect(prompt).toContain(`Turns to judge (11 to 12):\n\nTurn 11\nben: "${transcript[10]!.text}"`);
    expect(turns).toEqual([
      { turn: 11, utterance: transcript[10]!.id },
      { turn: 12, utterance: transcript[11]!.id },
    ]);
  });
});

describe('parseJudgement', () => {
  const turns = [
    { turn: 1, utterance: 'u1' },
    { turn: 2, utterance: 'u2' },
  ];

  it('reads a label list per turn, by the paper’s names or ours, in any case, "none" for none', () => {
    const text = JSON.stringify({ turns: [{ turn: 1, breakdown: 'none' }, { turn: 2, breakdown: ['Ignore question', 'topic-change error', 'REPETITION', 'Ignore question'] }] });
    expect(parseJudgement(text, turns)).toEqual({
      breakdowns: [
        { utterance: 'u2', kind: 'ignore-question' },
        { utterance: 'u2', kind: 'topic-change' },
        { utterance: 'u2', kind: 'repetition' },
      ],
      unknown: [],
    });
    expect(parseJudgement('```json\n{"turns": [{"turn": 2, "breakdown": "Unclear intention"}]}\n```', turns)?.breakdowns).toEqual([{ utterance: 'u2', kind: 'unclear-intention' }]);
  });

  it('drops labels that name no condition, and keeps them for a note', () => {
    expect(parseJudgement('{"turns": [{"turn": 1, "breakdown": ["Rudeness", "Self-contradiction"]}]}', turns)).toEqual({
      breakdowns: [{ utterance: 'u1', kind: 'self-contradiction' }],
      unknown: ['Rudeness'],
    });
  });

  it('refuses what is not the JSON asked for: garbage, another shape, a turn outside the sample', () => {
    expect(parseJudgement('Turn 2 ignores the question.', turns)).toBeNull();
    expect(parseJudgement('{"turns": [{"turn": 1, "breakdown": ', turns)).toBeNull();
    expect(parseJudgement('{"breakdowns": []}', turns)).toBeNull();
    expect(parseJudgement('{"turns": [{"turn": 3, "breakdown": "none"}]}', turns)).toBeNull();
  });
});

describe('createModelJudge', () => {
  it('judges ten-turn samples with the model and uses its labels', async () => {
    const { generator, requests } = scripted(
      JSON.stringify({ turns: [...none(1, 1), { turn: 2, breakdown: ['Ignore question'] }, ...none(3, 10)] }),
      JSON.stringify({ turns: [{ turn: 11, breakdown: ['Repetition'] }, ...none(12, 12)] }),
    );
    const judgement = await createModelJudge(generator).judge(transcript);
    expect(judgement).toEqual({
      breakdowns: [
        { utterance: transcript[1]!.id, kind: 'ignore-question' },
        { utterance: transcript[10]!.id, kind: 'repetition' },
      ],
      judgedBy: { model: 2, rules: 0 },
      notes: [],
    });
    expect(requests.map((r) => [r.json, r.temperature])).toEqual([
      [true, 0],
      [true, 0],
    ]);
    expect(requests[1]!.prompt).toContain('Turns to judge (11 to 12)');
  });

  it('asks once more after an answer that is not the JSON asked for', async () => {
    const { generator, requests } = scripted('Sure! Turn 2 ignores the question.', JSON.stringify({ turns: none(1, 10) }), JSON.stringify({ turns: none(11, 12) }));
    const judgement = await createModelJudge(generator).judge(transcript);
    expect(requests).toHaveLength(3);
    expect(judgement).toEqual({ breakdowns: [], judgedBy: { model: 2, rules: 0 }, notes: [] });
  });

  it('leaves a sample to the rules after two bad answers, or when the fallback wrote the answer, and says so', async () => {
    const rules = breakdownsOf(transcript, repetitionOf(transcript));
    expect(rules.length).toBeGreaterThan(0);
    const fallback = (onNotice?: OnNotice) => {
      onNotice?.({ code: 'generator-fallback', message: 'fake failed 3 times; used scripted for this turn' });
      return '{"next": "Ana"}';
    };
    const { generator, requests } = scripted('not json', '{"turns": [', fallback);
    const judgement = await createModelJudge(generator).judge(transcript);
    expect(requests).toHaveLength(3);
    expect(judgement.breakdowns).toEqual(rules);
    expect(judgement.judgedBy).toEqual({ model: 0, rules: 2 });
    expect(judgement.notes).toEqual([
      'turns 1-10: fake answered without the JSON asked for, twice; judged by the rules',
      'turns 11-12: fake did not answer (generator-fallback); judged by the rules',
    ]);
  });

  it('leaves a sample to the rules when the call throws', async () => {
    const generator: Generator = {
      name: 'fake',
      async *stream() {
        throw new Error('HTTP 401: bad key');
      },
    };
    const judgement = await createModelJudge(generator).judge(transcript.slice(0, 4));
    expect(judgement.judgedBy).toEqual({ model: 0, rules: 1 });
    expect(judgement.notes).toEqual(['turns 1-4: fake failed: HTTP 401: bad key; judged by the rules']);
  });
});

describe('rulesJudge', () => {
  it('is the rules, over ten-turn samples', async () => {
    const judgement = await rulesJudge.judge(transcript);
    expect(judgement).toEqual({ breakdowns: breakdownsOf(transcript, repetitionOf(transcript)), judgedBy: { model: 0, rules: 2 }, notes: [] });
  });
});
