/**
 * Who speaks next (server/engine/floor.ts): the priority order, decided in one pure function.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSession, selectNextSpeaker, type LastUtterance, type SessionState } from '../../server/engine/session';
import { ai, everyPolicy, human, makeScene, run } from './harness';

const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
};

const said = (speaker: string, extra: Partial<LastUtterance> = {}): LastUtterance => ({
  id: 'u1',
  speaker,
  text: 'A remark.',
  addressee: null,
  pair: 'none',
  replyTo: null,
  interrupted: false,
  approved: false,
  ...extra,
});

const table = [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), ai('cleo', 'Cleo Ruiz'), human('tara', 'Tara Quinn', 'human-control', { derailProbability: 1 })];

describe('selectNextSpeaker', () => {
  const scene = makeScene({
    participants: table,
    snippets: [{ id: 'a', initiator: 'ada', turns: 10, lines: [{ speaker: 'cleo', text: 'Welcome, all.' }] }],
  });
  const fresh = createSession(scene, { seed: 1 });
  const underWay: SessionState = { ...fresh, line: 1, snippetTurns: 2, turns: 2, last: said('ada') };

  it('gives the floor to a pending interrupter before anyone else', () => {
    const state = { ...fresh, snippetTurns: 1, interruption: { by: 'ben', vibe: 'critical' }, last: said('ada', { interrupted: true }) };
    const { state: next, decision } = selectNextSpeaker(state);
    expect(decision).toMatchObject({ kind: 'turn', plan: { speaker: 'ben', reason: 'interruption', act: 'interrupt', vibe: 'critical', addressee: 'ada' } });
    expect(next.interruption).toBeNull();
  });

  it('gives the floor to the addressee of a question before the script and the initiator', () => {
    const { decision } = selectNextSpeaker({ ...fresh, last: said('ada', { addressee: 'ben', pair: 'question' }) });
    expect(decision).toMatchObject({ kind: 'turn', plan: { speaker: 'ben', reason: 'designated', act: 'answer' } });
  });

  it('speaks the scripted lines before the initiator opens', () => {
    const { state: next, decision } = selectNextSpeaker(fresh);
    expect(decision).toMatchObject({ kind: 'line', plan: { speaker: 'cleo', reason: 'scripted' }, text: 'Welcome, all.' });
    expect(next.line).toBe(1);
    expect(selectNextSpeaker(next).decision).toMatchObject({ kind: 'turn', plan: { speaker: 'ada', reason: 'initiator', act: 'greeting' } });
  });

  it('lets a derailing human agent propose a deviation once the snippet is under way, but not twice for one turn', () => {
    expect(selectNextSpeaker(underWay).decision).toMatchObject({ kind: 'derail', participant: 'tara' });
    const { state: next, decision } = selectNextSpeaker({ ...underWay, skipDerail: true });
    expect(decision.kind).not.toBe('derail');
    expect(next.skipDerail).toBe(false);
  });

  it('keeps derailing agents out of an impromptu phase, whose participant speaks every other turn', () => {
    const impromptu = { participant: 'tara', intent: 'drift' as const, remaining: 2 };
    expect(selectNextSpeaker({ ...underWay, impromptu }).decision).toMatchObject({ kind: 'turn', plan: { speaker: 'tara', reason: 'impromptu', act: 'deviation' } });
  });

  it('in moderated mode, raises a derailing agent’s hand instead, and does not roll again for that turn', () => {
    const moderated = makeScene({
      participants: [ai('host', 'Hana Host'), ai('p1', 'Pia Lund'), human('q1', 'Quinn Roe', 'human-control', { derailProbability: 1 })],
      parties: [
        { id: 'chair', members: ['host'] },
        { id: 'audience', members: ['p1', 'q1'] },
      ],
      turnTaking: { policy: 'party', partyMode: 'moderated', moderator: 'host' },
      snippets: [{ id: 'qa', initiator: 'host', turns: 10 }],
    });
    const state: SessionState = { ...createSession(moderated, { seed: 1 }), snippetTurns: 1, turns: 1, last: said('p1') };
    const { state: next, decision } = selectNextSpeaker(state);
    expect(decision).toEqual({ kind: 'raise-hands', participants: ['q1'] });
    expect(next.skipDerail).toBe(true);
    expect(next.hands).toEqual([]);
    expect(selectNextSpeaker({ ...next, hands: ['q1'] }).decision).toMatchObject({ kind: 'turn', plan: { speaker: 'host', act: 'moderate', addressee: 'q1' } });
  });

  it('never writes the state it is given, and decides the same way twice', () => {
    const policies = [...everyPolicy, { policy: 'party' as const, partyMode: 'moderated' as const, moderator: 'ada' }];
    fc.assert(
      fc.property(
        fc.constantFrom(...policies),
        fc.boolean(),
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (turnTaking, facilitated, derail, seed) => {
          const participants = [...table.slice(0, 3), human('tara', 'Tara Quinn', 'autonomous', { derailProbability: derail })];
          const scene = makeScene({
            participants,
            parties: [
              { id: 'hosts', members: ['ada'] },
              { id: 'guests', members: ['ben', 'cleo', 'tara'], speakingMode: 'subset', subset: ['ben', 'tara'] },
            ],
            turnTaking: { ...turnTaking, ...(facilitated ? { facilitator: { participant: 'ada' } } : {}) },
            snippets: [
              { id: 'a', initiator: 'ada', turns: 8, interruptions: [{ from: 'ben', to: 'ada', probability: 0.4 }] },
              { id: 'b', initiator: 'ben', turns: 6, lines: [{ speaker: 'cleo', text: 'On to the next item.' }] },
            ],
          });
          run(scene, {
            seed,
            visit: (state) => {
              const frozen = deepFreeze(structuredClone(state));
              const first = selectNextSpeaker(frozen);
              expect(first.state).not.toBe(frozen);
              expect(selectNextSpeaker(frozen)).toEqual(first);
            },
          });
        },
      ),
      { numRuns: 40 },
    );
  });
});
