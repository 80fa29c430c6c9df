import { describe, expect, it } from 'vitest';
import { createPacing, type Pace } from '../../server/conversation/pacing';

/** Pacing on a clock that only moves when it sleeps. */
const paced = (pace: Pace, speed = 1) => {
  let clock = 1_000;
  const slept: number[] = [];
  const pacing = createPacing({
    pace,
    speed,
    typingHoldMs: 5000,
    now: () => clock,
    sleep: async (ms) => {
      slept.push(ms);
      clock += ms;
    },
  });
  return { pacing, slept, clock: () => clock, advance: (ms: number) => (clock += ms) };
};

const always = () => true;
const never = () => false;

describe('pacing', () => {
  it('in realtime, holds the next reply until the last speech has been heard, at the given speed', async () => {
    const { pacing, slept, clock } = paced('realtime', 2);
    pacing.spoke(3000);
    expect(pacing.floorFreeAt).toBe(2_500);
    await pacing.untilTurn(always, never);
    expect(clock()).toBe(2_500);
    expect(slept.every((ms) => ms <= 250)).toBe(true);
  });

  it('at instant pace, never waits for speech to be heard', async () => {
    const { pacing, slept } = paced('instant');
    pacing.spoke(3000);
    await pacing.untilTurn(always, never);
    expect(slept).toEqual([]);
  });

  it('holds the next reply while a present human types, until the signal lapses or they stop', async () => {
    const typing = paced('instant');
    typing.pacing.typing('tara', true);
    await typing.pacing.untilTurn(always, never);
    expect(typing.clock()).toBe(6_000);
    const stopped = paced('instant');
    stopped.pacing.typing('tara', true);
    stopped.pacing.typing('tara', false);
    await stopped.pacing.untilTurn(always, never);
    expect(stopped.slept).toEqual([]);
  });

  it('holds the next reply while a human talks, until their words come', async () => {
    const { pacing, slept } = paced('instant');
    pacing.voiceStarted('tara');
    let held = true;
    const turn = pacing.untilTurn(always, never).then(() => (held = false));
    await Promise.resolve();
    expect(held).toBe(true);
    pacing.release('tara');
    await turn;
    expect(slept.length).toBeGreaterThan(0);
  });

  it('holds the next reply while the session is paused', async () => {
    const { pacing, clock } = paced('instant');
    const resumeAt = clock() + 300;
    await pacing.untilTurn(always, () => clock() < resumeAt);
    expect(clock()).toBe(resumeAt);
  });

  it('stops waiting once the reply is no longer wanted', async () => {
    const { pacing, slept } = paced('realtime');
    pacing.spoke(60_000);
    pacing.typing('tara', true);
    await pacing.untilTurn(never, always);
    expect(slept).toEqual([]);
  });

  it('frees the floor when speech is cut off, and measures what was heard at its speed', () => {
    const { pacing, advance } = paced('realtime', 2);
    pacing.spoke(10_000);
    pacing.freeFloor();
    expect(pacing.floorFreeAt).toBe(1_000);
    const started = 1_000;
    advance(400);
    expect(pacing.heardSince(started)).toBe(800);
    expect(pacing.heardAt(started, 800)).toBe(1_400);
  });
});
