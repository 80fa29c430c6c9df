/**
 * The shipped scenes, simulated end to end with the embedded scripted generator: every mechanism
 * of the engine is reachable from a scene file, and every run is a well-formed log.
 */
import { voicesOf } from '../server/conversation/voices';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { driveSession } from '../server/conversation/drive';
import { SessionEvent } from '../server/engine/events';
import { runMetrics } from '../server/metrics/metrics';
import { createScriptedGenerator } from '../server/providers/generator/scripted';
import { loadScene } from '../server/scene/load';
import type { LoadedScene } from '../server/scene/schema';

const files = readdirSync('scenes').filter((f) => f.endsWith('.yaml'));

const simulateAll = async () => {
  const runs: { scene: LoadedScene; events: SessionEvent[] }[] = [];
  for (const file of files) {
    const scene = await loadScene(`scenes/${file}`);
    for (const seed of [1, 2, 3]) runs.push({ scene, events: await driveSession(scene, { seed, generator: createScriptedGenerator() }) });
  }
  return runs;
};

describe('shipped scenes', async () => {
  const runs = await simulateAll();
  const all = runs.flatMap((r) => r.events);

  it('cover every policy, party mode, speaking mode, human mode and formation', () => {
    const scenes = runs.map((r) => r.scene);
    expect(new Set(scenes.map((s) => s.turnTaking.policy))).toEqual(new Set(['round-robin', 'random', 'llm-selector', 'party', 'cssn-or-ss']));
    expect(new Set(scenes.map((s) => s.turnTaking.partyMode).filter(Boolean))).toEqual(new Set(['free', 'round-robin', 'moderated']));
    expect(new Set(scenes.flatMap((s) => s.parties.map((p) => p.speakingMode)))).toEqual(new Set(['all', 'representative', 'subset', 'random']));
    expect(new Set(scenes.flatMap((s) => s.participants.flatMap((p) => (p.simulated ? [p.simulated.mode] : []))))).toEqual(
      new Set(['reactive', 'human-control', 'autonomous']),
    );
    expect(new Set(scenes.map((s) => s.formation))).toEqual(new Set(['circle', 'table', 'panel', 'audience', 'poster', 'u-shape']));
    expect(scenes.every((s) => s.participants.some((p) => p.kind === 'human'))).toBe(true);
    expect(new Set(scenes.flatMap((s) => s.participants.flatMap((p) => (p.persona ? [p.persona.bargeIn] : []))))).toEqual(new Set(['polite', 'persistent']));
  });

  it('give every participant a voice of its own within the scene', () => {
    for (const { scene } of runs) {
      const voices = voicesOf(scene);
      const espeak = scene.participants.map((p) => voices.get(p.id)!.espeak);
      expect(new Set(espeak).size, `${scene.id}: ${espeak.join(', ')}`).toBe(espeak.length);
      // Stable: the same voices on every load.
      expect(voicesOf(scene)).toEqual(voices);
    }
  });

  it('produce every kind of event the engine can decide', () => {
    const types = new Set(all.map((e) => e.type));
    for (const type of ['utterance', 'backchannel', 'interruption', 'hand-raise', 'snippet-start', 'impromptu-start', 'impromptu-end', 'approval-needed', 'approval-resolved', 'end', 'floor']) {
      expect(types, type).toContain(type);
    }
    const acts = new Set(all.flatMap((e) => (e.type === 'utterance' ? [e.act] : [])));
    for (const act of ['greeting', 'question', 'answer', 'request', 'invitation', 'moderate', 'interrupt', 'deviation', 'encourage', 'summarize', 'chime-in']) {
      expect(acts, act).toContain(act);
    }
    const reasons = new Set(all.flatMap((e) => (e.type === 'floor' ? [e.reason] : [])));
    for (const reason of ['designated', 'self-selected', 'round-robin', 'llm-selector', 'party', 'moderator', 'hand-approved', 'interruption', 'facilitator']) {
      expect(reasons, reason).toContain(reason);
    }
  });

  it('write well-formed logs that end, with every designation answered under cssn-or-ss', () => {
    for (const { scene, events } of runs) {
      events.forEach((e, i) => {
        expect(SessionEvent.safeParse(e).success, `${scene.id} #${i}`).toBe(true);
        expect(e.seq).toBe(i + 1);
      });
      expect(events.at(-1)!.type).toBe('end');
      const metrics = runMetrics(events);
      expect(metrics.turns).toBeGreaterThan(10);
      if (scene.turnTaking.policy !== 'cssn-or-ss') continue;
      // Every designated first pair part is answered by its addressee, except one asked on the last turn.
      const u = events.filter((e) => e.type === 'utterance');
      u.slice(0, -1).forEach((x, i) => {
        if (x.type === 'utterance' && x.pair !== 'none' && x.addressee) expect(u[i + 1]).toMatchObject({ speaker: x.addressee });
      });
    }
  });
});
