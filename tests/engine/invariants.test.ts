/**
 * Property tests: rules that must hold for every scene shape, seed and generator behaviour.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events';
import type { GenerateRequest } from '../../server/engine/requests';
import { rngFrom } from '../../shared/rng';
import { ai, cueText, human, makeScene, run, utterances } from './harness';

const names = ['Ada Park', 'Ben Osei', 'Cleo Ruiz', 'Dev Shah', 'Eli Stone', 'Fay Moss', 'Gus Hale', 'Hal Ito'];

/** A generator that often designates someone, sometimes the group, sometimes nobody. */
const chatty = (bias: number) => (request: GenerateRequest) => {
  if (request.purpose !== 'utterance' || request.cue.act === 'answer') return cueText(request);
  const r = rngFrom(request.cue.variant);
  const others = request.cue.participants.filter((p) => p.id !== request.cue.speaker.id);
  const roll = r.next();
  if (roll < bias) return `${r.pick(others).shortName}, what do you make of point ${r.int(1, 99)}?`;
  if (roll < bias + 0.1) return 'Does anyone have a better idea?';
  if (roll < bias + 0.2) return `I agree with ${r.pick(others).shortName} about the plan.`;
  return cueText(request);
};

const sceneArb = fc.record({
  size: fc.integer({ min: 3, max: 8 }),
  humans: fc.integer({ min: 1, max: 2 }),
  mode: fc.constantFrom('reactive' as const, 'human-control' as const, 'autonomous' as const),
  derail: fc.double({ min: 0, max: 0.4, noNaN: true }),
  interrupt: fc.double({ min: 0, max: 0.6, noNaN: true }),
  seed: fc.integer({ min: 0, max: 1_000_000 }),
  bias: fc.double({ min: 0.2, max: 0.8, noNaN: true }),
  present: fc.boolean(),
});

const cast = (size: number, humans: number, mode: 'reactive' | 'human-control' | 'autonomous', derail: number) =>
  names.slice(0, size).map((name, i) => {
    const id = name.split(' ')[0]!.toLowerCase();
    return i >= size - humans ? human(id, name, mode, { derailProbability: derail }) : ai(id, name);
  });

/** The engine's answer to a present human: whatever the test says next. */
const humanReplies = (events: SessionEvent[]) => events.filter((e) => e.type === 'human-input-required');

describe('invariants', () => {
  it('cssn-or-ss: the addressee of a designation always speaks next, unless a human barges in', () => {
    fc.assert(
      fc.property(sceneArb, ({ size, humans, mode, derail, interrupt, seed, bias }) => {
        const participants = cast(size, humans, mode, derail);
        const ids = participants.map((p) => p.id);
        const scene = makeScene({
          participants,
          snippets: [
            { id: 'a', initiator: ids[0]!, turns: 10, interruptions: [{ from: ids[1]!, to: ids[0]!, probability: interrupt }] },
            { id: 'b', initiator: ids[1]!, turns: 10, lines: [{ speaker: ids[2]!, text: 'Let us move on to the next item.' }] },
          ],
        });
        const { events } = run(scene, { seed, respond: chatty(bias) });
        const u = utterances(events);
        u.forEach((x, i) => {
          if (x.pair === 'none' || !x.addressee || i + 1 >= u.length) return;
          expect(u[i + 1]!.speaker, `after "${x.text}"`).toBe(x.addressee);
        });
      }),
      { numRuns: 60 },
    );
  });

  it('cssn-or-ss with a present human: their barge-in is the only way to skip the addressee', () => {
    fc.assert(
      fc.property(sceneArb, ({ size, seed, bias }) => {
        const participants = cast(size, 1, 'reactive', 0);
        const you = participants.at(-1)!.id;
        const scene = makeScene({ participants, snippets: [{ id: 'a', initiator: participants[0]!.id, turns: 12 }] });
        let r = run(scene, { seed, present: [you], respond: chatty(bias) });
        const all = [...r.events];
        for (let k = 0; k < 4 && r.state.phase !== 'ended'; k++) {
          // The human answers when asked, or barges in while an AI is being generated.
          const text = k % 2 ? 'Can I add something? I think we are missing the budget.' : 'Yes, I agree with that.';
          r = run(scene, { state: r.state, inputs: [{ type: 'say', participant: you, text }], respond: chatty(bias) });
          all.push(...r.events);
        }
        const u = utterances(all);
        u.forEach((x, i) => {
          if (x.pair === 'none' || !x.addressee || i + 1 >= u.length) return;
          const next = u[i + 1]!;
          if (next.source === 'human') return; // a human may always barge in
          expect(next.speaker).toBe(x.addressee);
        });
        expect(humanReplies(all).every((e) => e.type === 'human-input-required' && e.participant === you)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('moderated: only the moderator, an approved hand, or whom that hand asked, speaks', () => {
    fc.assert(
      fc.property(sceneArb, ({ size, humans, mode, derail, interrupt, seed, bias }) => {
        const participants = cast(Math.max(size, 4), humans, mode, derail);
        const ids = participants.map((p) => p.id);
        const [moderator, presenter, ...audience] = ids as [string, string, ...string[]];
        const scene = makeScene({
          participants,
          parties: [
            { id: 'chair', members: [moderator] },
            { id: 'presenters', members: [presenter] },
            { id: 'audience', members: audience },
          ],
          contents: [{ id: 'slides', kind: 'slides', title: 'Findings', owner: 'presenters' }],
          turnTaking: { policy: 'party', partyMode: 'moderated', moderator },
          snippets: [
            {
              id: 'qa',
              initiator: moderator,
              turns: 20,
              interruptions: audience.map((a) => ({ from: a, to: presenter, probability: interrupt })),
            },
          ],
        });
        const { events } = run(scene, { seed, respond: chatty(bias) });
        let approved: string | null = null;
        let askedBy: string | null = null;
        for (const e of events) {
          if (e.type === 'hand-raise' && e.action === 'approve') approved = e.participant;
          if (e.type !== 'utterance') continue;
          const ok = e.speaker === moderator || e.speaker === approved || e.speaker === askedBy;
          expect(ok, `${e.speaker} spoke without approval`).toBe(true);
          askedBy = e.speaker === approved && e.pair !== 'none' ? e.addressee : null;
          if (e.speaker === approved) approved = null;
        }
      }),
      { numRuns: 60 },
    );
  });

  it('representative: a party in representative mode speaks through its representative, a member only when asked by name, under every policy', () => {
    fc.assert(
      fc.property(sceneArb, fc.constantFrom('round-robin', 'random', 'cssn-or-ss', 'party', 'llm-selector'), (shape, policy) => {
        const participants = cast(Math.max(shape.size, 5), shape.humans, shape.mode, shape.derail);
        const ids = participants.map((p) => p.id);
        const [rep, member, ...rest] = ids as [string, string, ...string[]];
        const scene = makeScene({
          participants,
          parties: [
            { id: 'team', members: [member, rep], speakingMode: 'representative', representative: rep },
            { id: 'others', members: rest, speakingMode: 'random' },
          ],
          turnTaking: policy === 'party' ? { policy, partyMode: 'free' } : { policy: policy as 'random' },
          snippets: [
            {
              id: 'a',
              initiator: rest[0]!,
              turns: 20,
              interruptions: [{ from: member, to: rest[0]!, probability: shape.interrupt }],
              backchannels: [{ probability: 0.5 }],
            },
          ],
        });
        const { events } = run(scene, { seed: shape.seed, respond: chatty(shape.bias) });
        // A member speaks only to answer what was put to them by name: never for the party.
        const all = utterances(events);
        all.forEach((u, i) => {
          if (u.speaker !== member) return;
          const previous = all[i - 1];
          expect(u.act).toBe('answer');
          expect(previous?.addressee).toBe(member);
        });
        expect(events.filter((e) => e.type === 'interruption' && e.by === member)).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});
