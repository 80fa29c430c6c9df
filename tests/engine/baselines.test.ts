/**
 * MMAgents' baselines (§4.1), so the paper's comparison can be rerun: EQUAL (everyone once a
 * round, in an order drawn afresh each round) and SS (bids only), both without detectDesignation().
 */
import { describe, expect, it } from 'vitest';
import type { GenerateRequest } from '../../server/engine/requests';
import { ai, cueText, makeScene, ofType, run, utterances } from './harness';

const four = [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), ai('cleo', 'Cleo Ruiz'), ai('dev', 'Dev Rao')];
const scene = (policy: 'equal' | 'self-selection' | 'cssn-or-ss') =>
  makeScene({ participants: four, turnTaking: { policy }, snippets: [{ id: 'a', initiator: 'ada', turns: 25 }] });

/** Everyone asks Ada, by name, every time: a designation on every turn but Ada's. */
const askAda = (r: GenerateRequest) =>
  r.purpose === 'utterance' && r.cue.speaker.id !== 'ada' && !r.cue.obligation ? 'Ada, what do you make of the budget?' : cueText(r);

describe('EQUAL', () => {
  it('gives everyone one turn a round, in orders that change between rounds', () => {
    const orders = new Set<string>();
    for (const seed of [1, 2, 3]) {
      const u = utterances(run(scene('equal'), { seed }).events).slice(1);
      const rounds = Math.floor(u.length / 4);
      expect(rounds).toBeGreaterThanOrEqual(5);
      for (let r = 0; r < rounds; r++) {
        const round = u.slice(r * 4, r * 4 + 4).map((x) => x.speaker);
        expect(new Set(round).size, round.join(' ')).toBe(4);
        orders.add(round.join(' '));
      }
    }
    expect(orders.size).toBeGreaterThan(3);
    expect(ofType(run(scene('equal')).events, 'floor').filter((f) => f.reason === 'equal').length).toBeGreaterThan(10);
  });

  it('does not let a question select the next speaker: the addressee waits for their turn', () => {
    const u = utterances(run(scene('equal'), { seed: 4, respond: askAda }).events);
    const asked = u.filter((x, i) => x.addressee === 'ada' && x.pair === 'question' && u[i + 1]);
    expect(asked.length).toBeGreaterThan(3);
    const answeredNext = asked.filter((x) => u[u.indexOf(x) + 1]!.speaker === 'ada').length;
    expect(answeredNext / asked.length).toBeLessThan(0.7);
  });
});

describe('SS', () => {
  it('chooses by bids only, never by designation', () => {
    const { events } = run(scene('self-selection'), { seed: 2, respond: askAda });
    const floors = ofType(events, 'floor');
    expect(floors.some((f) => f.reason === 'designated')).toBe(false);
    expect(floors.some((f) => f.reason === 'self-selected')).toBe(true);
    // The same conversation under CSSN-or-SS: every question to Ada is hers to answer.
    const cssn = ofType(run(scene('cssn-or-ss'), { seed: 2, respond: askAda }).events, 'floor');
    expect(cssn.some((f) => f.reason === 'designated' && f.speaker === 'ada')).toBe(true);
  });
});
