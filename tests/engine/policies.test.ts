import { describe, expect, it } from 'vitest';
import { nextInOrder, parseBid, parseSelection, sampleUtteranceLength, selectMostImportant } from '../../server/engine/policies';
import { rngFrom } from '../../shared/rng';
import { ai, cueText, human, makeScene, ofType, plain, run, utterances } from './harness';
import type { GenerateRequest } from '../../server/engine/requests';

const four = [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), ai('cleo', 'Cleo Ruiz'), ai('dev', 'Dev Shah'), human('eve', 'Eve Lund')];
const statementsOnly = plain;

describe('round-robin', () => {
  it('visits participants in scene order, skipping reactive simulated humans', () => {
    const scene = makeScene({ participants: four, turnTaking: { policy: 'round-robin' }, snippets: [{ id: 'a', initiator: 'ada', turns: 9 }] });
    const speakers = utterances(run(scene, { respond: statementsOnly }).events).map((u) => u.speaker);
    expect(speakers).toEqual(['ada', 'ben', 'cleo', 'dev', 'ada', 'ben', 'cleo', 'dev', 'ada']);
  });

  it('tells the speaker who will respond after them (DialogLab A.3.7)', () => {
    const scene = makeScene({ participants: four, turnTaking: { policy: 'round-robin' }, snippets: [{ id: 'a', initiator: 'ada', turns: 4 }] });
    const prompts = run(scene, { respond: statementsOnly }).requests.flatMap((r) => (r.kind === 'generate' ? [r.request.prompt] : []));
    expect(prompts[1]).toContain('After you speak, Cleo will respond.');
  });
});

describe('random', () => {
  it('never gives the floor to the same speaker twice in a row and covers everyone', () => {
    const scene = makeScene({ participants: four, turnTaking: { policy: 'random' }, snippets: [{ id: 'a', initiator: 'ada', turns: 40 }] });
    const speakers = utterances(run(scene, { respond: statementsOnly, seed: 11 }).events).map((u) => u.speaker);
    for (let i = 1; i < speakers.length; i++) expect(speakers[i]).not.toBe(speakers[i - 1]);
    expect(new Set(speakers)).toEqual(new Set(['ada', 'ben', 'cleo', 'dev']));
  });
});

describe('llm-selector (MPOD §3.1)', () => {
  const scene = makeScene({ participants: four, turnTaking: { policy: 'llm-selector' }, snippets: [{ id: 'a', initiator: 'ada', turns: 6 }] });

  it('uses round-robin until two utterances exist, then follows the selector JSON', () => {
    const answered: string[] = [];
    const respond = (r: GenerateRequest) => {
      if (r.purpose !== 'select') return statementsOnly(r);
      answered.push(r.cue.candidates!.at(-1)!);
      return JSON.stringify({ next: answered.at(-1) });
    };
    const { events, requests } = run(scene, { respond });
    const floors = ofType(events, 'floor');
    expect(floors.slice(0, 2).map((f) => f.reason)).toEqual(['initiator', 'round-robin']);
    expect(floors.slice(2).map((f) => f.reason)).toEqual(Array(4).fill('llm-selector'));
    expect(floors.slice(2).map((f) => scene.participants.find((p) => p.id === f.speaker)!.name)).toEqual(answered);
    const select = requests.find((r) => r.kind === 'generate' && r.request.purpose === 'select');
    expect(select?.kind === 'generate' && select.request.json).toBe(true);
  });

  it('retries malformed JSON three times, then falls back to a random candidate', () => {
    let selectorCalls = 0;
    const respond = (r: GenerateRequest) => {
      if (r.purpose !== 'select') return statementsOnly(r);
      selectorCalls++;
      return selectorCalls % 2 ? '{"next": ' : 'I think Dev should talk';
    };
    const { events } = run(scene, { respond, maxTurns: 3 });
    const fallback = ofType(events, 'system').filter((e) => e.code === 'selector-fallback');
    expect(fallback).toHaveLength(1);
    expect(selectorCalls).toBe(4);
    expect(ofType(events, 'floor').at(-1)!.reason).toBe('llm-selector-fallback');
  });

  it('reads selector answers by full or short name and rejects unknown names', () => {
    const candidates = [
      { id: 'ada', names: ['Ada Park', 'Ada'] },
      { id: 'ben', names: ['Ben Osei', 'Ben'] },
    ];
    expect(parseSelection('```json\n{"next": "ben"}\n```', candidates)).toBe('ben');
    expect(parseSelection('{"next":"Ada Park"}', candidates)).toBe('ada');
    expect(parseSelection('{"next":"Zed"}', candidates)).toBeNull();
    expect(parseSelection('not json', candidates)).toBeNull();
  });
});

describe('cssn-or-ss (MMAgents §3.2)', () => {
  const scene = makeScene({ participants: four, snippets: [{ id: 'a', initiator: 'ada', turns: 12 }] });

  it('gives the floor to the addressee of a question', () => {
    const respond = (r: GenerateRequest) => (r.purpose === 'utterance' && r.cue.act !== 'answer' ? `Cleo, what is your view on the ${r.cue.variant} plan?` : cueText(r));
    const { events } = run(scene, { respond, maxTurns: 4 });
    const u = utterances(events);
    expect(u[0]).toMatchObject({ speaker: 'ada', addressee: 'cleo', pair: 'question' });
    expect(u[1]).toMatchObject({ speaker: 'cleo', act: 'answer', replyTo: u[0]!.id });
    expect(ofType(events, 'floor')[1]!.reason).toBe('designated');
  });

  it('tells the designated speaker to answer (MMAgents Fig. 4)', () => {
    const respond = (r: GenerateRequest) => (r.purpose === 'utterance' && r.cue.act !== 'answer' ? 'Ben, where were you at nine?' : cueText(r));
    const { requests } = run(scene, { respond, maxTurns: 2 });
    const answer = requests.flatMap((r) => (r.kind === 'generate' && r.request.cue.act === 'answer' ? [r.request] : []))[0]!;
    expect(answer.cue.speaker.id).toBe('ben');
    expect(answer.prompt).toContain('Ada asked you');
    expect(answer.prompt).toContain('You must answer them now.');
  });

  it('self-selects the highest bidder and logs the bids', () => {
    const bids: Record<string, string> = {
      ben: '{"thought":"t","action":"speak","importance":4}',
      cleo: '{"thought":"I know where the ring is","action":"speak","importance":8}',
      dev: '{"thought":"t","action":"listen","importance":9}',
    };
    const respond = (r: GenerateRequest) => (r.purpose === 'think' ? bids[r.cue.speaker.id]! : statementsOnly(r));
    const { events, state } = run(scene, { respond, maxTurns: 2 });
    const floor = ofType(events, 'floor')[1]!;
    expect(floor).toMatchObject({ speaker: 'cleo', reason: 'self-selected' });
    expect(floor.bids).toHaveLength(3);
    expect(state.memory.thoughts.cleo).toContain('I know where the ring is');
  });

  it('lets the current speaker continue when everyone listens', () => {
    const respond = (r: GenerateRequest) => (r.purpose === 'think' ? '{"thought":"","action":"listen","importance":3}' : statementsOnly(r));
    const floors = ofType(run(scene, { respond, maxTurns: 3 }).events, 'floor');
    expect(floors.slice(1).map((f) => [f.speaker, f.reason])).toEqual([
      ['ada', 'continues'],
      ['ada', 'continues'],
    ]);
  });

  it('treats a malformed bid as listening', () => {
    expect(parseBid('x', 'speak!')).toBeNull();
    expect(parseBid('x', '{"action":"speak","importance":12}')).toMatchObject({ action: 'speak', importance: 9 });
  });

  it('breaks importance ties at random and only among the tied', () => {
    const bids = [
      { participant: 'a', action: 'speak' as const, importance: 7, thought: '' },
      { participant: 'b', action: 'speak' as const, importance: 7, thought: '' },
      { participant: 'c', action: 'speak' as const, importance: 2, thought: '' },
    ];
    const winners = new Set(Array.from({ length: 200 }, (_, i) => selectMostImportant(bids, 'z', rngFrom(i)).speaker));
    expect(winners).toEqual(new Set(['a', 'b']));
  });
});

describe('helpers', () => {
  it('walks the order cyclically from the last speaker', () => {
    expect(nextInOrder(['a', 'b', 'c'], 'c', () => true)).toBe('a');
    expect(nextInOrder(['a', 'b', 'c'], 'a', (id) => id !== 'b')).toBe('c');
    expect(nextInOrder(['a'], 'a', () => false)).toBeNull();
  });

  it('samples MUCA log-normal utterance lengths inside [min, max], skewed short', () => {
    const rng = rngFrom(5);
    const lengths = Array.from({ length: 2000 }, () => sampleUtteranceLength({ min: 3, avg: 9, max: 20 }, rng));
    expect(Math.min(...lengths)).toBeGreaterThanOrEqual(3);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(20);
    const mean = lengths.reduce((a, b) => a + b, 0) / lengths.length;
    const median = [...lengths].sort((a, b) => a - b)[1000]!;
    expect(median).toBeLessThanOrEqual(mean);
  });
});
