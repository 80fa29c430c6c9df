import { describe, expect, it } from 'vitest';
import { SessionEvent } from '../../shared/events';
import { createSession, step } from '../../server/engine/session';
import { ai, human, makeScene, ofType, plain, run, utterances } from './harness';

const trio = [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), ai('cleo', 'Cleo Ruiz'), human('dan', 'Dan Wu')];

describe('conversation flow (DialogLab Algorithm 1)', () => {
  it('opens with the first snippet initiator greeting the room', () => {
    const scene = makeScene({ participants: trio, snippets: [{ id: 'open', initiator: 'ben', turns: 3 }] });
    const { events } = run(scene);
    expect(events[0]!.type).toBe('session-start');
    expect(events[1]).toMatchObject({ type: 'snippet-start', snippet: 'open', initiator: 'ben' });
    const first = utterances(events)[0]!;
    expect(first.speaker).toBe('ben');
    expect(first.act).toBe('greeting');
  });

  it('runs snippets in order within their turn budgets, then ends', () => {
    const scene = makeScene({
      participants: trio,
      turnTaking: { policy: 'round-robin' },
      snippets: [
        { id: 'one', initiator: 'ada', turns: 4 },
        { id: 'two', initiator: 'cleo', turns: 3, next: 'four' },
        { id: 'three', initiator: 'ben', turns: 5 },
        { id: 'four', initiator: 'ben', turns: 2, pattern: 'disagree' },
      ],
    });
    const { events } = run(scene, { respond: plain });
    expect(ofType(events, 'snippet-start').map((e) => e.snippet)).toEqual(['one', 'two', 'four']);
    const per = (id: string) => utterances(events).filter((u) => u.snippet === id);
    expect(per('one')).toHaveLength(4);
    expect(per('two')).toHaveLength(3);
    expect(per('four')).toHaveLength(2);
    expect(per('two')[0]!.speaker).toBe('cleo');
    expect(events.at(-1)).toMatchObject({ type: 'end', reason: 'snippets-done', turns: 9 });
  });

  it('lets a question asked on the last turn of a snippet be answered before moving on', () => {
    const scene = makeScene({
      participants: trio,
      turnTaking: { policy: 'round-robin' },
      snippets: [
        { id: 'one', initiator: 'ada', turns: 2 },
        { id: 'two', initiator: 'cleo', turns: 2 },
      ],
    });
    const respond = (r: Parameters<typeof plain>[0]) => (r.purpose === 'utterance' && r.cue.speaker.id === 'ben' ? 'Dan, can you check the numbers?' : plain(r));
    const u = utterances(run(scene, { respond }).events);
    expect(u.map((x) => [x.snippet, x.speaker])).toEqual([
      ['one', 'ada'],
      ['one', 'ben'],
      ['one', 'dan'],
      ['two', 'cleo'],
      ['two', 'ada'],
    ]);
  });

  it('stops at the turn cap', () => {
    const scene = makeScene({ participants: trio, turnTaking: { policy: 'random', maxTurns: 5 }, snippets: [{ id: 'a', initiator: 'ada', turns: 50 }] });
    const { events } = run(scene);
    expect(utterances(events)).toHaveLength(5);
    expect(events.at(-1)).toMatchObject({ type: 'end', reason: 'max-turns' });
  });

  it('speaks scripted lines verbatim, in order, before generating', () => {
    const scene = makeScene({
      participants: trio,
      snippets: [
        {
          id: 'a',
          initiator: 'ada',
          turns: 4,
          lines: [
            { speaker: 'ada', text: 'Welcome, everyone, to the planning review.' },
            { speaker: 'cleo', text: 'Thanks, Ada. I brought the revised numbers.' },
          ],
        },
      ],
    });
    const u = utterances(run(scene).events);
    expect(u.slice(0, 2).map((x) => [x.speaker, x.text, x.source])).toEqual([
      ['ada', 'Welcome, everyone, to the planning review.', 'scripted'],
      ['cleo', 'Thanks, Ada. I brought the revised numbers.', 'scripted'],
    ]);
    expect(u).toHaveLength(4);
  });

  it('puts the snippet pattern into the generation context', () => {
    const scene = makeScene({ participants: trio, snippets: [{ id: 'a', initiator: 'ada', turns: 3, pattern: 'disagree' }] });
    const prompts = run(scene).requests.flatMap((r) => (r.kind === 'generate' ? [r.request] : []));
    const utterancePrompts = prompts.filter((p) => p.purpose === 'utterance' && p.cue.act === 'statement' && p.cue.move !== 'close');
    expect(utterancePrompts.length).toBeGreaterThan(0);
    for (const p of utterancePrompts) expect(p.prompt).toContain('respectfully disagree');
  });

  it('is a pure function of state and input', () => {
    const scene = makeScene({ participants: trio, turnTaking: { policy: 'random' } });
    const initial = createSession(scene, { seed: 9 });
    const snapshot = JSON.stringify(initial);
    const a = step(initial, { type: 'start' });
    const b = step(initial, { type: 'start' });
    expect(JSON.stringify(initial)).toBe(snapshot);
    expect(a.events).toEqual(b.events);
    expect(a.requests).toEqual(b.requests);
  });

  it('gives the same log for the same seed and a different one for another seed', () => {
    const scene = makeScene({ participants: trio, turnTaking: { policy: 'random' } });
    const one = JSON.stringify(run(scene, { seed: 3 }).events);
    expect(JSON.stringify(run(scene, { seed: 3 }).events)).toBe(one);
    expect(JSON.stringify(run(scene, { seed: 4 }).events)).not.toBe(one);
  });

  it('writes only events that match the log schema, numbered from 1 in time order', () => {
    const scene = makeScene({
      participants: trio,
      snippets: [{ id: 'a', initiator: 'ada', turns: 12, interruptions: [{ from: 'ben', to: 'ada', probability: 0.5, vibe: 'critical' }], backchannels: [{ probability: 0.3 }] }],
    });
    const { events } = run(scene, { seed: 5 });
    events.forEach((e, i) => {
      expect(SessionEvent.safeParse(e).success).toBe(true);
      expect(e.seq).toBe(i + 1);
    });
    const turnTimes = events.filter((e) => e.type === 'utterance').map((e) => e.t);
    expect([...turnTimes].sort((x, y) => x - y)).toEqual(turnTimes);
  });

  it('refuses inputs before start with a system event and survives', () => {
    const scene = makeScene({ participants: trio });
    const r = step(createSession(scene, { seed: 1 }), { type: 'say', participant: 'dan', text: 'hello' });
    expect(r.events).toEqual([expect.objectContaining({ type: 'system', code: 'not-started' })]);
    expect(step(r.state, { type: 'start' }).events[0]!.type).toBe('session-start');
  });
});
