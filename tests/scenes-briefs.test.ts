/**
 * What the person in each human seat is told before joining (the brief): spoken to them, in the
 * second person, and every person, place or number a goal names given to them.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadScene } from '../server/scene/load';
import { briefOf, secondPerson } from '../shared/scene/view';
import type { LoadedScene, Participant } from '../shared/scene/schema';

const scenes = await Promise.all(
  readdirSync('scenes')
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => loadScene(`scenes/${f}`)),
);

/** Everything the seat's person reads before joining: the scene, its contents they may read, the people in the room, their brief. */
const given = (scene: LoadedScene, seat: Participant): string => {
  const parties = new Set(scene.parties.filter((p) => p.members.includes(seat.id)).map((p) => p.id));
  return [
    scene.title,
    scene.topic,
    scene.context,
    ...scene.contents.filter((c) => c.owner === 'public' || parties.has(c.owner)).flatMap((c) => [c.title, c.summary, ...c.sections]),
    ...scene.participants.flatMap((p) => [p.name, p.role ?? '']),
    seat.role ?? '',
    briefOf(seat).backstory ?? '',
  ].join(' ');
};

const thirdPerson = /\b(they|them|their|theirs|themselves|he|she|him|his|her|hers)\b/i;

describe('every human seat is briefed in the second person, on what it was given', () => {
  for (const scene of scenes) {
    for (const seat of scene.participants.filter((p) => p.kind === 'human')) {
      it(`${scene.id}: ${seat.id}`, () => {
        const brief = briefOf(seat);
        expect(seat.brief, `${scene.id}: ${seat.id} has no brief`).toBeDefined();
        expect(brief.backstory, `${seat.id}'s background`).toMatch(/^You\b/);
        expect(brief.goals.length).toBeGreaterThan(0);
        const text = given(scene, seat);
        for (const goal of brief.goals) {
          expect(goal, `${seat.id}: "${goal}" speaks of them, not to them`).not.toMatch(thirdPerson);
          // Whom and what a goal names (people, places, numbers, times) is in what the seat was given.
          const named = [...goal.slice(1).matchAll(/\b([A-Z][\w'-]+|\d+(?:[:.]\d+)*%?)/g)].map((m) => m[1]!);
          for (const name of named) expect(text, `${seat.id}: "${goal}" names ${name}, which the brief never gives`).toContain(name);
        }
      });
    }
  }

  it("speaks a persona's goals to a seat without a brief", () => {
    expect(secondPerson('show they can push back on engineering estimates without losing their trust')).toBe('show you can push back on engineering estimates without losing your trust');
    expect(secondPerson("They're sure of themselves")).toBe("You're sure of yourself");
    const seat = { id: 'x', kind: 'human', name: 'X', persona: { backstory: 'A designer.', goals: ['introduce themselves in one sentence'] } } as unknown as Participant;
    expect(briefOf(seat)).toEqual({ goals: ['introduce yourself in one sentence'], backstory: 'A designer.' });
  });
});
