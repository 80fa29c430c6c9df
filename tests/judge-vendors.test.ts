/**
 * The breakdown judge through the real vendor SDKs against local fakes of their servers: what it
 * sends (the model, MMAgents' Figure 6 prompt with the taxonomy and the transcript, JSON mode),
 * that a good answer is used, and that garbage is asked again once, then left to the rules with a
 * note. A vendor that keeps failing is retried by providers/resilience.ts, then left to the rules.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { UtteranceEvent } from '../shared/events';
import { breakdownsOf } from '../server/metrics/breakdowns';
import { createModelJudge } from '../server/metrics/judge';
import { repetitionOf } from '../server/metrics/repetition';
import { createGenerator } from '../server/providers/generator';
import { startFakeGemini } from './fakes/gemini-server';
import { startFakeOpenAI } from './fakes/openai-server';
import { lineMaker } from './fakes/utterances';
import type { FakeVendor } from './fakes/vendor-server';
import { nodeArgs } from './server/bundle';

let fakes: FakeVendor[] = [];
afterEach(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  fakes = [];
});

const line = lineMaker();
const transcript: UtteranceEvent[] = [
  line('ana', 'Ben, what is the budget for the migration?', { addressee: 'ben', pair: 'question', act: 'question' }),
  line('cy', 'Penguins enjoy swimming in freezing water.', { source: 'simulated-human' }),
  line('ben', 'The migration budget is ten thousand.'),
];
const rules = breakdownsOf(transcript, repetitionOf(transcript));
const good = JSON.stringify({
  turns: [
    { turn: 1, breakdown: 'none' },
    { turn: 2, breakdown: ['Ignore question', 'Topic-change error'] },
    { turn: 3, breakdown: 'none' },
  ],
});

const vendors = {
  openai: async () => {
    const fake = await startFakeOpenAI();
    fakes.push(fake);
    const judge = createModelJudge(createGenerator('openai', { OPENAI_BASE_URL: fake.baseUrl, OPENAI_MODEL: 'judge-model' }, { breaker: null, sleep: async () => {}, retries: 1 }));
    /** The body's model, system and user text, and whether it asked for JSON. */
    const sent = (i: number) => {
      const body = fake.requests[i]!.body;
      return { model: body.model, system: body.messages[0].content, prompt: body.messages[1].content, json: body.response_format?.type === 'json_object' };
    };
    return { fake, judge, sent };
  },
  gemini: async () => {
    const fake = await startFakeGemini();
    fakes.push(fake);
    const judge = createModelJudge(createGenerator('gemini', { GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: fake.baseUrl, GEMINI_MODEL: 'judge-model' }, { breaker: null, sleep: async () => {}, retries: 1 }));
    const sent = (i: number) => {
      const { path, body } = fake.requests[i]!;
      /** Every `text` part, joined: the SDK sends a string as `{parts: [{text}]}`. */
      const text = (content: any): string =>
        typeof content === 'string' ? content : Array.isArray(content) ? content.map(text).join('') : content && typeof content === 'object' ? Object.entries(content).map(([k, v]) => (k === 'text' ? String(v) : text(v))).join('') : '';
      return {
        model: /models\/([^:]+):/.exec(path)?.[1],
        system: text(body.systemInstruction),
        prompt: text(body.contents),
        json: body.generationConfig?.responseMimeType === 'application/json',
      };
    };
    return { fake, judge, sent };
  },
};

describe('the breakdown judge against vendors', () => {
  for (const [name, start] of Object.entries(vendors)) {
    it(`sends ${name} the model, Figure 6's prompt with the taxonomy and the transcript, in JSON mode, and uses a good answer`, async () => {
      const { fake, judge, sent } = await start();
      fake.setDefault({ chunks: [good.slice(0, 20), good.slice(20)] });
      const judgement = await judge.judge(transcript);
      expect(fake.requests).toHaveLength(1);
      const request = sent(0);
      expect(request.model).toBe('judge-model');
      expect(request.json).toBe(true);
      expect(request.system).toContain('You are an expert in conversation analysis.');
      for (const name of ['Ignore question', 'Ignore request', 'Ignore suggestion', 'Ignore greeting', 'Ignore expectation', 'Unclear intention of utterance', 'Topic-change error', 'Repetition', 'Lack of information', 'Self-contradiction', 'Interlocutor contradiction']) {
        expect(request.prompt).toContain(`- ${name}: `);
      }
      expect(request.prompt).toContain('Turns to judge (1 to 3):\n\nTurn 1\nana: "Ben, what is the budget for the migration?"\n\nTurn 2\ncy: "Penguins');
      expect(judgement).toEqual({
        breakdowns: [
          { utterance: transcript[1]!.id, kind: 'ignore-question' },
          { utterance: transcript[1]!.id, kind: 'topic-change' },
        ],
        judgedBy: { model: 1, rules: 0 },
        notes: [],
      });
    });

    it(`asks ${name} once more after garbage, then leaves the sample to the rules with a note`, async () => {
      const { fake, judge } = await start();
      fake.setDefault({ chunks: ['I think turn 2 ', 'is a bit off.'] });
      const judgement = await judge.judge(transcript);
      expect(fake.requests).toHaveLength(2);
      expect(judgement).toEqual({
        breakdowns: rules,
        judgedBy: { model: 0, rules: 1 },
        notes: [`turns 1-3: ${name} answered without the JSON asked for, twice; judged by the rules`],
      });
      expect(rules.map((b) => b.kind)).toEqual(['ignore-question']); // the rules' own finding, not the model's
    });

    it(`uses ${name}'s second answer when the first was garbage`, async () => {
      const { fake, judge } = await start();
      fake.script({ chunks: ['{"turns": [{"turn": 1, '] }, { chunks: [good] });
      const judgement = await judge.judge(transcript);
      expect(fake.requests).toHaveLength(2);
      expect(judgement.judgedBy).toEqual({ model: 1, rules: 0 });
    });

    it(`leaves the sample to the rules when ${name} keeps failing`, async () => {
      const { fake, judge } = await start();
      fake.setDefault({ status: 500 });
      const judgement = await judge.judge(transcript);
      expect(fake.requests).toHaveLength(2); // the call and resilience's one retry; a failed vendor is not asked again
      expect(judgement.breakdowns).toEqual(rules);
      expect(judgement.notes).toEqual([`turns 1-3: ${name} did not answer (generator-fallback); judged by the rules`]);
    });
  }
});

describe('the experiment with a vendor judge', () => {
  it('judges every ten-turn sample with the vendor configured by environment, and says so', async () => {
    const fake = await startFakeOpenAI();
    fakes.push(fake);
    fake.setDefault({ chunks: ['{"turns": []}'] }); // no breakdown in any sample
    // Asynchronously: the fake answers from this process, so it must not be blocked.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [...nodeArgs('server/cli/simulate.ts'), '--experiment', 'mmagents', 'scenes/team-standup.yaml', '--runs', '2', '--turns', '10', '--judge', 'openai', '--json'],
      { env: { ...process.env, OPENAI_BASE_URL: fake.baseUrl, OPENAI_MODEL: 'judge-model' } },
    );
    const [result] = JSON.parse(stdout);
    expect(result).toMatchObject({ generator: 'scripted', judge: 'openai' });
    expect(fake.requests).toHaveLength(6); // 3 conditions x 2 runs x one 10-turn sample
    expect(fake.requests.every((r) => r.body.model === 'judge-model' && r.body.messages[1].content.includes('Conditions for dialogue breakdown:'))).toBe(true);
    for (const c of result.conditions) {
      expect(c.breakdownsPer10.mean).toBe(0);
      for (const r of c.runs) expect(r.judgedBy).toEqual({ model: 1, rules: 0 });
    }
  }, 60_000);
});
