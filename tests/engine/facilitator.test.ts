/**
 * The facilitator per MUCA (§3.2.3, Algorithm 1): the arbitrator runs every N_exe utterances and
 * otherwise listens, never takes an ordinary policy turn, and each of its acts fires when its
 * trigger holds.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { driveSession } from '../../server/conversation/drive';
import {
  afterRun,
  afterTurn,
  arbitratorDue,
  chooseFacilitatorAct,
  emptyFacilitator,
  executionPeriod,
  type FacilitatorState,
  type FacilitatorView,
  type TurnRecord,
} from '../../server/engine/facilitator';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { loadScenes } from '../../server/scene/load';
import type { FacilitatorAct } from '../../shared/scene/schema';
import { ai, everyPolicy, human, makeScene, ofType, run, utterances } from './harness';

const members = ['ada', 'ben', 'cleo', 'dan'];
const rec = (speaker: string, words = 12, snippet = 'a'): TurnRecord => ({ speaker, words, openQuestion: false, disagreement: false, snippet });
const view = (over: Partial<FacilitatorView>): FacilitatorView => ({
  acts: ['encourage', 'summarize', 'transition', 'resolve-conflict', 'chime-in'],
  pace: 1,
  facilitator: 'sam',
  members,
  turns: 0,
  log: [],
  window: 5,
  snippet: 'a',
  snippetTurns: 0,
  hasNextSnippet: true,
  stuck: false,
  ...over,
});

describe('the arbitrator runs every N_exe utterances (MUCA Algorithm 1)', () => {
  it('uses 3 in a small group and 0.75 · Np in a larger one, unless the scene sets it', () => {
    expect(executionPeriod(2)).toBe(3);
    expect(executionPeriod(4)).toBe(3);
    expect(executionPeriod(8)).toBe(6);
    expect(executionPeriod(12)).toBe(9);
    expect(executionPeriod(4, 5)).toBe(5);
  });

  it('is due after N_exe utterances, and counts again from a run', () => {
    let state: FacilitatorState = emptyFacilitator();
    const v = view({});
    for (let i = 0; i < 3; i++) {
      expect(arbitratorDue(v, state)).toBe(false);
      state = afterTurn(state, members[i]!, 'sam', i + 1, null);
    }
    expect(arbitratorDue(v, state)).toBe(true);
    state = afterRun(state, false);
    expect(arbitratorDue(v, state)).toBe(false);
    expect(state.silent).toBe(1);
    // Speaking resets the silent runs.
    state = afterTurn(afterRun(state, true), 'sam', 'sam', 5, { act: 'chime-in', addressee: null });
    expect(state.silent).toBe(0);
  });
});

describe('each act fires when its trigger holds, and only then', () => {
  it('keeps silent when nothing holds', () => {
    const log = Array.from({ length: 8 }, (_, i) => rec(members[i % 4]!));
    expect(chooseFacilitatorAct(view({ turns: 8, log, snippetTurns: 8 }), emptyFacilitator())).toBeNull();
  });

  it('encourage: a lurker by Eq. 1-2, after the warm-up of 3 · Np turns', () => {
    const log = Array.from({ length: 12 }, (_, i) => rec(members[i % 3]!, 20)).concat([rec('dan', 2)]);
    log.push(...Array.from({ length: 6 }, (_, i) => rec(members[i % 3]!, 20)));
    const acts: FacilitatorAct[] = ['encourage'];
    expect(chooseFacilitatorAct(view({ acts, turns: log.length, log }), emptyFacilitator())).toEqual({ act: 'encourage', addressee: 'dan' });
    // Before the warm-up, nothing.
    expect(chooseFacilitatorAct(view({ acts, turns: 11, log: log.slice(0, 11) }), emptyFacilitator())).toBeNull();
    // Resting after an encouragement: c(x) = 2 + c(x) turns.
    const rested = afterTurn(emptyFacilitator(), 'sam', 'sam', log.length, { act: 'encourage', addressee: 'dan' });
    expect(chooseFacilitatorAct(view({ acts, turns: log.length + 1, log }), rested)).toBeNull();
  });

  it('summarize: once half the group has spoken since the last summary, after 11 · Np turns', () => {
    const log = Array.from({ length: 44 }, (_, i) => rec(members[i % 4]!));
    const acts: FacilitatorAct[] = ['summarize'];
    expect(chooseFacilitatorAct(view({ acts, turns: 44, log }), emptyFacilitator())).toEqual({ act: 'summarize', addressee: null });
    expect(chooseFacilitatorAct(view({ acts, turns: 43, log: log.slice(0, 43) }), emptyFacilitator())).toBeNull();
    // A scene that scales the windows for a short meeting gets there sooner.
    expect(chooseFacilitatorAct(view({ acts, turns: 22, log: log.slice(0, 22), pace: 0.5 }), emptyFacilitator())).toEqual({ act: 'summarize', addressee: null });
  });

  it('chime-in: after two silent runs (p_silence alone passes 0.45), not after one', () => {
    const acts: FacilitatorAct[] = ['chime-in'];
    const log = Array.from({ length: 6 }, (_, i) => rec(members[i % 4]!));
    const once = afterRun(emptyFacilitator(), false);
    expect(chooseFacilitatorAct(view({ acts, turns: 6, log }), once)).toBeNull();
    expect(chooseFacilitatorAct(view({ acts, turns: 6, log }), afterRun(once, false))).toEqual({ act: 'chime-in', addressee: null });
    // A stuck conversation brings it in at once.
    expect(chooseFacilitatorAct(view({ acts, turns: 6, log, stuck: true }), emptyFacilitator())).toEqual({ act: 'chime-in', addressee: null });
  });
});

describe('in a session', () => {
  const ordinary = new Set(['round-robin', 'random', 'llm-selector', 'self-selected', 'continues', 'party']);

  for (const turnTaking of everyPolicy) {
    it(`never takes an ordinary turn and acts at most once per N_exe utterances (${turnTaking.policy})`, () => {
      const scene = makeScene({
        participants: [ai('sam', 'Sam Lee'), ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), ai('cleo', 'Cleo Ruiz'), human('dan', 'Dan Wu', 'autonomous')],
        parties: [{ id: 'all', members: ['sam', 'ada', 'ben', 'cleo', 'dan'] }],
        turnTaking: { ...turnTaking, facilitator: { participant: 'sam', acts: ['encourage', 'summarize', 'transition', 'chime-in'], pace: 0.3 } },
        snippets: [
          { id: 'a', initiator: 'ada', turns: 24 },
          { id: 'b', initiator: 'ben', turns: 16 },
        ],
      });
      // Six seeds: design-critique's facilitator only resolves a stalled discussion (its summary's
      // warm-up of 11·Np turns is longer than the session), and not every session stalls.
      for (const seed of [1, 2, 3, 4, 5, 6]) {
        const { events } = run(scene, { seed });
        expect(ofType(events, 'floor').filter((f) => f.speaker === 'sam' && ordinary.has(f.reason))).toEqual([]);
        // The floor reason of each utterance: the floor event before it.
        const reasons: string[] = [];
        let reason = '';
        for (const e of events) {
          if (e.type === 'floor') reason = e.reason;
          if (e.type === 'utterance') reasons.push(reason);
        }
        const acts = reasons.flatMap((r, i) => (r === 'facilitator' ? [i] : []));
        expect(acts.length).toBeGreaterThan(0);
        for (let k = 1; k < acts.length; k++) expect(acts[k]! - acts[k - 1]!).toBeGreaterThanOrEqual(executionPeriod(4));
      }
    });
  }
});

describe('shipped scenes', () => {
  it('every facilitator speaks at most a quarter of the turns, and still acts', async () => {
    const scenes = (await loadScenes(fileURLToPath(new URL('../../scenes/', import.meta.url)))).filter((s) => s.turnTaking.facilitator);
    expect(scenes.length).toBeGreaterThanOrEqual(4);
    for (const scene of scenes) {
      const facilitator = scene.turnTaking.facilitator!.participant;
      let turns = 0;
      let theirs = 0;
      let acts = 0;
      // Six seeds: design-critique's facilitator only resolves a stalled discussion (its summary's
      // warm-up of 11·Np turns is longer than the session), and not every session stalls.
      for (const seed of [1, 2, 3, 4, 5, 6]) {
        const events = await driveSession(scene, { seed, generator: createScriptedGenerator() });
        // The goodbye that closes a session is its host's (often the facilitator), not a facilitator act.
        let closing = false;
        const u = events.filter((e) => {
          if (e.type === 'floor') closing = e.reason === 'closing';
          return e.type === 'utterance' && !closing;
        }) as ReturnType<typeof utterances>;
        turns += u.length;
        theirs += u.filter((x) => x.speaker === facilitator).length;
        acts += ofType(events, 'floor').filter((f) => f.reason === 'facilitator').length;
      }
      expect(theirs / turns, `${scene.id}: ${theirs}/${turns}`).toBeLessThanOrEqual(0.25);
      expect(acts, scene.id).toBeGreaterThan(0);
    }
  });
});
