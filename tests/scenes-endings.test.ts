/**
 * Every shipped scene keeps its promises about time and ends properly: its stated duration is
 * what its snippets fill at real-time pace, no line promises more minutes than that, and every
 * session, under every turn policy, ends with a closing line and no human question left open.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { driveSession } from '../server/conversation/drive';
import type { SessionEvent } from '../shared/events';
import { understand } from '../server/engine/understanding';
import { countWords } from '../shared/words';
import { createScriptedGenerator } from '../server/providers/generator/scripted';
import { loadScene } from '../server/scene/load';
import type { LoadedScene, Policy } from '../shared/scene/schema';

const scenes = await Promise.all(
  readdirSync('scenes')
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => loadScene(`scenes/${f}`)),
);

type Utterance = Extract<SessionEvent, { type: 'utterance' }>;
const utterancesOf = (events: SessionEvent[]) => events.filter((e): e is Utterance => e.type === 'utterance');
const humansOf = (scene: LoadedScene) => new Set(scene.participants.filter((p) => p.kind === 'human').map((p) => p.id));

/** A goodbye, as the scripted generator and the scenes' closing lines say one. */
const goodbye = /\b(thank|thanks|goodbye|goodnight|good luck|enjoy|in touch|meet you|that is time|that's (?:our )?time|tonight|tomorrow|look forward|hope you find|police)\b/i;
const asks = (u: Utterance) => u.pair === 'question' || u.pair === 'request' || ['question', 'request'].includes(understand(u.text).act);

/** The scene under `policy`, with what that policy needs (parties for party, no chair's rules otherwise). */
const underPolicy = (scene: LoadedScene, policy: Policy): LoadedScene => {
  const { partyMode: _, moderator: __, ...rest } = scene.turnTaking;
  return { ...scene, turnTaking: policy === 'party' ? { ...rest, policy, partyMode: 'free' } : { ...rest, policy } };
};
const policies: Policy[] = ['round-robin', 'random', 'llm-selector', 'cssn-or-ss', 'equal', 'self-selection', 'party'];

describe('every shipped scene ends properly', () => {
  for (const scene of scenes) {
    it(`${scene.id}: every session, under every turn policy, ends with a closing line and no human question open`, async () => {
      const humans = humansOf(scene);
      const variants = [scene, ...policies.filter((p) => p !== scene.turnTaking.policy && (p !== 'party' || scene.parties.length > 0)).map((p) => underPolicy(scene, p))];
      for (const variant of variants) {
        for (const seed of variant === scene ? [1, 2, 3] : [1]) {
          const label = `${scene.id} (${variant.turnTaking.policy}, seed ${seed})`;
          const events = await driveSession(variant, { seed, generator: createScriptedGenerator() });
          expect(events.at(-1), label).toMatchObject({ type: 'end' });
          expect(['snippets-done', 'max-turns'], label).toContain((events.at(-1) as Extract<SessionEvent, { type: 'end' }>).reason);
          const lines = utterancesOf(events);
          const last = lines.at(-1)!;
          // The last line closes: a goodbye nobody cut off, asking nothing.
          expect(last.text, label).toMatch(goodbye);
          expect(last.interrupted ?? false, label).toBe(false);
          expect(asks(last), `${label}: ${last.text}`).toBe(false);
          // The last question a human asked was answered: someone else replied before the goodbye,
          // and at the session's last turns (where the scene's interruption rules stand down) in full.
          const question = lines.findLast((u) => humans.has(u.speaker) && asks(u) && !u.interrupted);
          if (question) {
            const index = lines.indexOf(question);
            const reply = lines.slice(index + 1, -1).find((u) => u.speaker !== question.speaker);
            expect(reply, `${label}: "${question.text}" unanswered`).toBeDefined();
            if (index >= lines.length - 3) expect(reply!.interrupted ?? false, `${label}: the reply to "${question.text}" was cut off`).toBe(false);
          }
        }
      }
    });
  }
});

/**
 * How long a simulated session would take at real-time pace, in minutes: its speech and gaps (the
 * log's clock at instant pace), a second for each persona's first audio, and, for the trainee's
 * lines, either spoken (as logged) or typed at 40 words a minute with a few seconds' thought.
 */
const minutesOf = (scene: LoadedScene, events: SessionEvent[]) => {
  const end = events.at(-1)!.t;
  const lines = utterancesOf(events);
  const humans = humansOf(scene);
  const personas = lines.filter((u) => !humans.has(u.speaker)).length;
  const spoken = end + 1000 * personas;
  const typing = lines.filter((u) => humans.has(u.speaker)).reduce((ms, u) => ms + (countWords(u.text) / 40) * 60_000 + 5000 - u.durationMs, 0);
  return { spoken: spoken / 60_000, typed: (spoken + typing) / 60_000 };
};

const number: Record<string, number> = { a: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, fifteen: 15, twenty: 20, thirty: 30, 'forty-five': 45, sixty: 60 };
/** Every number of minutes a text mentions ("ten minutes", "a 45-minute panel"). */
const minutesIn = (text: string): number[] =>
  [...text.matchAll(/\b(\d+|[a-z]+(?:-[a-z]+)?)[- ]minutes?\b/gi)].map((m) => Number(m[1]) || number[m[1]!.toLowerCase()] || 0).filter((n) => n > 0);

describe('every shipped scene keeps its promises about time', () => {
  for (const scene of scenes) {
    it(`${scene.id}: its stated duration is what its snippets fill, and no line promises more`, async () => {
      expect(scene.duration, `${scene.id} states no duration`).toBeDefined();
      const duration = scene.duration!;
      const runs = await Promise.all([1, 2, 3, 4].map((seed) => driveSession(scene, { seed, generator: createScriptedGenerator() })));
      const measured = runs.map((events) => minutesOf(scene, events));
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      const spoken = mean(measured.map((m) => m.spoken));
      const typed = mean(measured.map((m) => m.typed));
      // A trainee who speaks takes about the spoken time, one who types about the typed time: the promise lies between,
      // as a round figure would (a fifth either way; what a persona says varies a little with the generator).
      expect(duration, `${scene.id}: ${duration} min stated, ${spoken.toFixed(1)} spoken, ${typed.toFixed(1)} typed`).toBeGreaterThanOrEqual(Math.floor(spoken * 0.8));
      expect(duration, `${scene.id}: ${duration} min stated, ${spoken.toFixed(1)} spoken, ${typed.toFixed(1)} typed`).toBeLessThanOrEqual(Math.ceil(typed * 1.2));
      // What the room is told or hears: the situation, scripted and closing lines, goals, points, questions, briefs.
      const said = [
        scene.context,
        scene.topic,
        scene.closing?.text ?? '',
        ...scene.snippets.flatMap((s) => [s.goal, ...s.subtopics, ...s.lines.map((l) => l.text)]),
        ...scene.participants.flatMap((p) => [...(p.persona?.goals ?? []), ...(p.persona?.points ?? []), ...(p.persona?.questions ?? []), p.brief?.background ?? '', ...(p.brief?.goals ?? [])]),
      ];
      for (const text of said) for (const minutes of minutesIn(text)) expect(minutes, `${scene.id}: "${text}" promises ${minutes} minutes of a ${duration}-minute session`).toBeLessThanOrEqual(duration);
    });
  }

  it('reads the minutes a line promises', () => {
    expect(minutesIn('This is the final round: a 45-minute panel')).toEqual([45]);
    expect(minutesIn('We have forty-five minutes; we will leave the last ten minutes for yours.')).toEqual([45, 10]);
    expect(minutesIn('Anything longer than a minute goes to the parking lot')).toEqual([1]);
  });
});
