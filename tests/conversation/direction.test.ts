/**
 * The instructor's direction for the next AI turn is followed by every generator, the scripted one
 * included (issue 15): asked for a question, it asks it; asked to say a line, it says it.
 */
import { describe, expect, it } from 'vitest';
import { openConversation } from '../../server/conversation/conversation';
import type { SessionEvent } from '../../shared/events';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { ai, makeScene } from '../engine/harness';

const scene = makeScene({
  participants: [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), ai('cleo', 'Cleo Ruiz')],
  turnTaking: { policy: 'round-robin' },
  snippets: [{ id: 'a', initiator: 'ada', turns: 8 }],
});

const directedRun = (direction: string, seed = 2) => {
  const log: SessionEvent[] = [];
  const conversation = openConversation(scene, { seed, generator: createScriptedGenerator(), onEvent: (e) => log.push(e), autostart: false });
  conversation.send({ type: 'start' });
  // The first turn is already asked for; the direction goes to the next AI turn requested.
  conversation.send({ type: 'inject', text: direction });
  return conversation.ended.then(() => log);
};

describe('a direction for the next AI turn, with the scripted generator', () => {
  it.each([1, 2, 3, 4])('asks the question it was told to ask, of the person named, who answers (seed %i)', async (seed) => {
    const log = await directedRun('ask Ben about the launch budget', seed);
    const u = log.filter((e): e is Extract<SessionEvent, { type: 'utterance' }> => e.type === 'utterance');
    const asked = u.findIndex((x) => /launch budget/.test(x.text));
    expect(asked).toBeGreaterThanOrEqual(0);
    expect(u[asked]!.text).not.toMatch(/^ask\b/i);
    expect(u[asked]).toMatchObject({ pair: 'question' });
    // Whoever had the turn asks Ben, who answers; Ben himself would ask the room.
    if (u[asked]!.speaker !== 'ben') {
      expect(u[asked]).toMatchObject({ addressee: 'ben' });
      expect(u[asked + 1]).toMatchObject({ speaker: 'ben', act: 'answer' });
    } else expect(u[asked]!.text).toMatch(/^I'd like to ask everyone/);
  });

  it('says a line it was given, as given', async () => {
    const log = await directedRun('say "We are not shipping on Friday, and that is final."');
    expect(log.some((e) => e.type === 'utterance' && e.text === 'We are not shipping on Friday, and that is final.')).toBe(true);
  });
});
