import { beforeEach, describe, expect, it } from 'vitest';
import type { RigInput } from './rig';
import { event, resetEvents, run, utterance, welcome } from '../state/room.fixtures';
import { attend, speakerOf } from './attention';

const input = (): RigInput => ({ visemes: null, lookAt: null, speaking: false, nod: 0, handRaised: false, cutAt: 0 });

describe("the room's attention", () => {
  beforeEach(resetEvents);

  it('has the speaker look at whom they address and everyone else at the speaker', () => {
    const view = run(welcome(), utterance('u1', 'sofia', 'Alex, tell me about yourself.', { addressee: 'alex' }));
    const speaker = speakerOf(view, null);
    expect(speaker).toBe('sofia');
    expect(attend(input(), view, 'sofia', null, speaker)).toBe('alex');
    expect(attend(input(), view, 'mia', null, speaker)).toBe('sofia');
    // The addressee looks back at the speaker.
    expect(attend(input(), view, 'alex', null, speaker)).toBe('sofia');
  });

  it('follows the voice heard over the floor, and the speaker with no addressee looks ahead', () => {
    const view = run(welcome(), utterance('u1', 'sofia', 'Welcome.'));
    expect(speakerOf(view, 'mia')).toBe('mia');
    const heard = input();
    expect(attend(heard, view, 'mia', 'mia', 'mia')).toBeNull();
    expect(heard.speaking).toBe(true);
  });

  it('passes on nods, cuts and raised hands', () => {
    const view = run(
      welcome(),
      utterance('u1', 'sofia', 'So.'),
      event({ type: 'backchannel', participant: 'mia', to: 'sofia', utterance: 'u1', kind: 'nod' }),
      event({ type: 'interruption', by: 'alex', of: 'sofia', utterance: 'u1', vibe: 'eager', atWord: 1 }),
      event({ type: 'hand-raise', participant: 'mia', action: 'raise', queue: ['mia'] }),
    );
    const mia = input();
    attend(mia, view, 'mia', null, 'sofia');
    expect(mia).toMatchObject({ nod: 1, handRaised: true, speaking: false });
    const sofia = input();
    attend(sofia, view, 'sofia', null, 'sofia');
    expect(sofia.cutAt).toBe(1);
  });
});
