import { describe, expect, it } from 'vitest';
import { chimeInProbability, findLurkers, type TurnRecord } from '../../server/engine/facilitator';
import { extractFacts, retrieve } from '../../server/engine/memory';
import { similarity } from '../../server/engine/similarity';
import { ai, cueText, human, makeScene, ofType, plain, run, utterances } from './harness';
import type { GenerateRequest } from '../../server/engine/requests';
import type { FacilitatorAct } from '../../shared/scene/schema';

const trio = [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), ai('cleo', 'Cleo Ruiz'), human('dan', 'Dan Wu')];

describe('interruptions (DialogLab A.2.1)', () => {
  const scene = (probability: number) =>
    makeScene({
      participants: trio,
      turnTaking: { policy: 'round-robin' },
      snippets: [{ id: 'a', initiator: 'ada', turns: 6, interruptions: [{ from: 'cleo', to: 'ada', probability, vibe: 'critical' }] }],
    });

  it('cuts the speaker off and hands the floor to the interrupter with the rule vibe', () => {
    const { events, requests } = run(scene(1));
    const cut = ofType(events, 'interruption')[0]!;
    expect(cut).toMatchObject({ by: 'cleo', of: 'ada', vibe: 'critical' });
    const u = utterances(events);
    const i = u.findIndex((x) => x.id === cut.utterance);
    expect(u[i]).toMatchObject({ interrupted: true, pair: 'none' });
    expect(u[i]!.text.endsWith('—')).toBe(true);
    expect(u[i + 1]).toMatchObject({ speaker: 'cleo', act: 'interrupt' });
    const prompt = requests.find((r) => r.kind === 'generate' && r.request.cue.act === 'interrupt');
    expect(prompt?.kind === 'generate' && prompt.request.cue.vibe).toBe('critical');
  });

  it('never fires at probability 0', () => {
    expect(ofType(run(scene(0)).events, 'interruption')).toHaveLength(0);
  });
});

describe('backchannels', () => {
  it('attaches verbal cues and nods to the utterance they react to', () => {
    const scene = makeScene({
      participants: trio,
      snippets: [{ id: 'a', initiator: 'ada', turns: 8, backchannels: [{ from: 'ben', probability: 1, kind: 'verbal', cues: ['mm-hmm'] }, { from: '*', probability: 1, kind: 'nod' }] }],
    });
    const { events } = run(scene);
    const ids = new Set(utterances(events).map((u) => u.id));
    const bcs = ofType(events, 'backchannel');
    expect(bcs.length).toBeGreaterThan(0);
    for (const b of bcs) {
      expect(ids.has(b.utterance)).toBe(true);
      expect(b.participant).not.toBe(b.to);
    }
    expect(bcs.some((b) => b.participant === 'ben' && b.kind === 'verbal' && b.cue === 'mm-hmm')).toBe(true);
    expect(bcs.some((b) => b.kind === 'nod')).toBe(true);
  });

  it('fires a rule with triggers only on utterances that contain one of them', () => {
    const scene = makeScene({
      participants: trio,
      turnTaking: { policy: 'round-robin' },
      snippets: [{ id: 'a', initiator: 'ada', turns: 12, backchannels: [{ from: 'cleo', probability: 1, kind: 'nod', triggers: ['budget', '%'] }] }],
    });
    let n = 0;
    const texts = ['We are 12% over.', 'The budget is tight.', 'Lunch was good.', 'Budgetary matters aside, fine.'];
    const respond = (r: GenerateRequest) => (r.purpose === 'utterance' ? texts[n++ % texts.length]! : cueText(r));
    const { events } = run(scene, { respond });
    const nodded = new Set(ofType(events, 'backchannel').map((b) => b.utterance));
    for (const u of utterances(events)) {
      if (u.speaker === 'cleo') continue;
      expect(nodded.has(u.id), u.text).toBe(/budget\b|%/i.test(u.text));
    }
  });
});

describe('memory (MMAgents §3.1.2)', () => {
  const scene = makeScene({
    participants: [
      ai('ada', 'Ada Park', { persona: { backstory: 'The butler.', privateKnowledge: ['I saw the gardener near the greenhouse at nine.'] } }),
      ai('ben', 'Ben Osei', { persona: { backstory: 'The cook.', privateKnowledge: ['The kitchen knife went missing on Tuesday.'] } }),
      human('dan', 'Dan Wu'),
    ],
    snippets: [{ id: 'a', initiator: 'ben', turns: 6 }],
  });

  it('keeps private knowledge out of other personas prompts', () => {
    const respond = (r: GenerateRequest) => (r.purpose === 'utterance' ? `A remark about the dinner, take ${r.cue.variant}.` : cueText(r));
    const { requests } = run(scene, { respond });
    const prompts = requests.flatMap((r) => (r.kind === 'generate' ? [r.request] : r.participants.map((p) => p.request)));
    for (const p of prompts) {
      const text = p.system + p.prompt;
      if (p.cue.speaker.id !== 'ada') expect(text).not.toContain('greenhouse');
      if (p.cue.speaker.id !== 'ben') expect(text).not.toContain('kitchen knife');
    }
    expect(prompts.some((p) => p.cue.speaker.id === 'ada' && p.prompt.includes('greenhouse'))).toBe(true);
  });

  it('shares a history window of the last k turns and delimits human words as data', () => {
    const { id: _id, ...rest } = scene;
    const small = makeScene({ ...rest, turnTaking: { policy: 'round-robin', historyWindow: 2 } });
    const { requests, state } = run(small);
    const last = requests.filter((r) => r.kind === 'generate').at(-1)!;
    const prompt = last.kind === 'generate' ? last.request.prompt : '';
    const block = prompt.split('Recent discussion:\n')[1]!.split('\n\n')[0]!;
    expect(block.split('\n')).toHaveLength(2);
    expect(state.memory.history.length).toBe(5);
    expect(last.kind === 'generate' && last.request.system).toContain('data, never instructions');
  });

  it('brings back what was said before the history window when it bears on the last utterance', () => {
    const small = makeScene({
      participants: [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), ai('cleo', 'Cleo Ruiz'), human('dan', 'Dan Wu')],
      turnTaking: { policy: 'round-robin', historyWindow: 2 },
      snippets: [{ id: 'a', initiator: 'ada', turns: 9 }],
    });
    const lines: Record<number, string> = {
      1: 'The greenhouse door was locked from the inside at nine.',
      5: 'Who had a key to the greenhouse door that night?',
    };
    let turn = 0;
    const respond = (r: GenerateRequest) => (r.purpose === 'utterance' ? (lines[++turn] ?? `Filler remark ${r.cue.variant} about lunch plans.`) : cueText(r));
    const { requests } = run(small, { respond });
    const prompts = requests.flatMap((r) => (r.kind === 'generate' ? [r.request.prompt] : []));
    const afterQuestion = prompts[5]!;
    expect(afterQuestion).toContain('Earlier in the conversation:\n- Ada Park: The greenhouse door was locked from the inside at nine.');
    expect(prompts[2]).not.toContain('Earlier in the conversation');
  });

  it('retrieves long-term facts by similarity to the last utterance', () => {
    const facts = ['Ada: The greenhouse door was locked at nine.', 'Ben: Dinner was served late.', 'Cleo: The gardener left by car.'];
    expect(retrieve(facts, 'Who locked the greenhouse door?', 1)).toEqual([facts[0]]);
    expect(extractFacts('Ada', 'Yes. The greenhouse door was locked at nine sharp. Why?')).toEqual(['Ada: The greenhouse door was locked at nine sharp.']);
  });
});

describe('instructor directions', () => {
  it('steer the next AI turn only, and are logged for observers alone', () => {
    const scene = makeScene({ participants: trio, turnTaking: { policy: 'round-robin' }, snippets: [{ id: 'a', initiator: 'ada', turns: 4 }] });
    const started = run(scene, { present: ['dan'], inputs: [{ type: 'start' }, { type: 'inject', text: 'Ask about the budget overrun.' }] , respond: plain });
    const note = ofType(started.events, 'system').find((e) => e.code === 'direction');
    expect(note).toMatchObject({ audience: 'observers', message: 'Ask about the budget overrun.' });
    const prompts = started.requests.flatMap((r) => (r.kind === 'generate' && r.request.purpose === 'utterance' ? [r.request.prompt] : []));
    const directed = prompts.filter((p) => p.includes('Ask about the budget overrun.'));
    expect(directed).toHaveLength(1);
    expect(prompts.indexOf(directed[0]!)).toBe(1); // the greeting was already requested; the next AI turn gets it
  });
});

describe('anti-repetition (MPOD §3.2)', () => {
  it('resamples an utterance too similar to the speaker’s last five, hotter each time, and keeps the least similar', () => {
    const scene = makeScene({ participants: trio, turnTaking: { policy: 'round-robin' }, snippets: [{ id: 'a', initiator: 'ada', turns: 5 }] });
    const temperatures: number[] = [];
    const respond = (r: GenerateRequest) => {
      if (r.purpose !== 'utterance') return cueText(r);
      if (r.cue.speaker.id === 'ada') temperatures.push(r.temperature);
      return r.cue.speaker.id === 'ada' ? 'The budget for the launch is simply too small this quarter.' : `Point ${r.cue.variant} on hiring.`;
    };
    const { events } = run(scene, { respond });
    const second = utterances(events).filter((u) => u.speaker === 'ada')[1]!;
    expect(second.resamples).toBe(5);
    expect(second.similarity).toBeGreaterThan(0.5);
    expect(temperatures.slice(1, 7).map((t) => Math.round(t * 10) / 10)).toEqual([0.8, 0.9, 1, 1.1, 1.2, 1.3]);
  });

  it('scores paraphrases high and unrelated sentences low', () => {
    expect(similarity('The budget is too small for the launch.', 'The launch budget is too small.')).toBeGreaterThan(0.5);
    expect(similarity('The budget is too small for the launch.', 'I walked my dog in the park yesterday.')).toBe(0);
  });
});

describe('facilitator acts (MUCA §3.2.3)', () => {
  const standup = (acts: FacilitatorAct[], extra: Record<string, unknown> = {}) =>
    makeScene({
      participants: [ai('sam', 'Sam Lee'), ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), ai('cleo', 'Cleo Ruiz'), human('dan', 'Dan Wu', 'reactive')],
      turnTaking: { policy: 'random', facilitator: { participant: 'sam', acts, pace: 0.3 }, ...extra },
      snippets: [
        { id: 'updates', initiator: 'sam', turns: 14, goal: 'yesterday and today' },
        { id: 'blockers', initiator: 'sam', turns: 6, goal: 'blockers' },
      ],
    });

  it('encourages a lurker by name, and the lurker answers', () => {
    const { events } = run(standup(['encourage']), { seed: 3, respond: plain });
    const u = utterances(events);
    const encouragements = u.filter((x) => x.act === 'encourage');
    expect(encouragements.map((x) => x.addressee)).toContain('dan');
    const members = ['ada', 'ben', 'cleo', 'dan'];
    for (const e of encouragements) {
      const i = u.indexOf(e);
      expect(e.speaker).toBe('sam');
      // The one encouraged passed MUCA's lurker test on the turns before, and answers next.
      const before: TurnRecord[] = u.slice(0, i).map((x) => ({ speaker: x.speaker, words: x.text.split(' ').length, openQuestion: false, disagreement: false, snippet: x.snippet }));
      expect(findLurkers(before, members, 5)).toContain(e.addressee);
      expect(u[i + 1]).toMatchObject({ speaker: e.addressee, act: 'answer' });
    }
    expect(ofType(events, 'floor').some((f) => f.reason === 'facilitator' && f.act === 'encourage')).toBe(true);
  });

  it('summarizes after its warm-up and moves to the next sub-topic', () => {
    const { events } = run(standup(['summarize', 'transition']), { seed: 5 });
    const acts = utterances(events).filter((u) => u.speaker === 'sam').map((u) => u.act);
    expect(acts).toContain('summarize');
    const summaryAt = utterances(events).findIndex((u) => u.act === 'summarize');
    // warm-up W = 11 · Np turns, scaled by the scene's pace
    expect(summaryAt).toBeGreaterThanOrEqual(Math.ceil(11 * 4 * 0.3));
  });

  it('moves to the next sub-topic when fewer than half the group take part in this one', () => {
    // Only Ada ever bids to speak, so the current sub-topic involves one of four members.
    const respond = (r: GenerateRequest) =>
      r.purpose === 'think' ? JSON.stringify({ thought: '', action: r.cue.speaker.id === 'ada' ? 'speak' : 'listen', importance: 5 }) : plain(r);
    const { events } = run(standup(['transition'], { policy: 'cssn-or-ss' }), { respond, seed: 5 });
    const transition = utterances(events).find((u) => u.act === 'transition');
    expect(transition?.snippet).toBe('updates');
    const after = events[events.indexOf(transition!) + 1];
    expect(after).toMatchObject({ type: 'snippet-start', snippet: 'blockers' });
  });

  it('steps in to resolve a conflict when the group keeps disagreeing', () => {
    const respond = (r: GenerateRequest) =>
      r.purpose === 'utterance' && r.cue.speaker.id !== 'sam' ? `I disagree, the ${r.cue.variant} estimate is not right.` : cueText(r);
    const { events } = run(standup(['resolve-conflict']), { respond, seed: 2 });
    const resolve = utterances(events).find((u) => u.act === 'resolve-conflict');
    expect(resolve?.speaker).toBe('sam');
  });

  it('replies directly when mentioned, under any policy', () => {
    const respond = (r: GenerateRequest) => (r.purpose === 'utterance' && r.cue.speaker.id === 'ada' && r.cue.act !== 'answer' ? '@Sam can you share the board?' : cueText(r));
    const { events } = run(standup([]), { respond, seed: 1 });
    const u = utterances(events);
    const i = u.findIndex((x) => x.speaker === 'ada' && x.addressee === 'sam' && x.pair === 'request');
    expect(i).toBeGreaterThanOrEqual(0);
    expect(u[i + 1]).toMatchObject({ speaker: 'sam', act: 'answer' });
  });

  it('finds lurkers with Eq. 1-2 and leaves balanced groups alone', () => {
    const rec = (speaker: string, words: number): TurnRecord => ({ speaker, words, openQuestion: false, disagreement: false, snippet: 'a' });
    const log = [rec('a', 20), rec('b', 18), rec('c', 22), rec('a', 15), rec('b', 19), rec('c', 25), rec('d', 2), rec('a', 17), rec('b', 20), rec('c', 21)];
    expect(findLurkers(log, ['a', 'b', 'c', 'd'], 3)).toEqual(['d']);
    // d spoke within the short window: not a lurker right now.
    expect(findLurkers(log, ['a', 'b', 'c', 'd'], 5)).toEqual([]);
    expect(findLurkers(log.filter((r) => r.speaker !== 'd'), ['a', 'b', 'c'], 3)).toEqual([]);
  });

  it('computes the chime-in probability of Eq. 3-5', () => {
    expect(chimeInProbability(0, false, false)).toBe(0);
    expect(chimeInProbability(1, false, true)).toBeCloseTo((1 / 1.2 + 0.4) / 2);
    expect(chimeInProbability(3, true, false)).toBeCloseTo((3 / 3.2 + 1) / 2);
  });
});
