/**
 * The shipped scenes, simulated end to end with the embedded scripted generator: every mechanism
 * of the engine is reachable from a scene file, and every run is a well-formed log.
 */
import { voicesOf } from '../server/conversation/voices';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { driveSession } from '../server/conversation/drive';
import { SessionEvent } from '../shared/events';
import { runMetrics } from '../server/metrics/metrics';
import { createScriptedGenerator } from '../server/providers/generator/scripted';
import { loadScene, loadScenes } from '../server/scene/load';
import { knowledgeOf, type LoadedScene } from '../shared/scene/schema';
import { longestSharedRun, MAX_QUOTED_WORDS, wordsOf } from '../server/engine/novelty';

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

/** Participant ids a list of role references names: participants, parties' members, or everyone for "*". */
const resolveRoles = (scene: LoadedScene, refs: readonly string[]): string[] =>
  refs.flatMap((ref) =>
    ref === '*' ? scene.participants.map((p) => p.id) : (scene.parties.find((party) => party.id === ref)?.members ?? [ref]),
  );

describe('the authored scene text', async () => {
  const scenes = await loadScenes('scenes');
  const banks = (scene: LoadedScene) =>
    scene.participants.flatMap((p) => [...(p.persona?.questions ?? []), ...(p.persona?.points ?? [])].map((text) => ({ speaker: p.id, text })));

  it('declares who asks whom in every scene', () => {
    for (const scene of scenes) expect(scene.structure, scene.id).toBeDefined();
  });

  it('never quotes more than 8 consecutive words of private knowledge in a question or a talking point', () => {
    for (const scene of scenes) {
      const secrets = scene.participants.flatMap((p) => knowledgeOf(p.persona).map((k) => k.text));
      for (const { speaker, text } of banks(scene)) {
        for (const secret of secrets) expect(longestSharedRun(text, secret), `${scene.id} ${speaker}: "${text}" quotes "${secret}"`).toBeLessThanOrEqual(MAX_QUOTED_WORDS);
      }
    }
  });

  it('opens no two questions, talking points or scripted lines of a scene with the same four words', () => {
    for (const scene of scenes) {
      const lines = [...banks(scene).map((b) => b.text), ...scene.snippets.flatMap((s) => s.lines.map((l) => l.text))];
      const openings = lines.map((text) => wordsOf(text).slice(0, 4).join(' '));
      const repeated = openings.filter((o, i) => openings.indexOf(o) !== i);
      expect(repeated, scene.id).toEqual([]);
    }
  });

  it('gives every AI asker 3-6 questions and every AI persona 2-5 talking points', () => {
    for (const scene of scenes) {
      const roles = [scene.structure!, ...scene.snippets.flatMap((s) => (s.roles ? [s.roles] : []))];
      const askers = new Set(roles.flatMap((r) => resolveRoles(scene, r.askers)));
      for (const p of scene.participants.filter((p) => p.kind === 'ai')) {
        const { questions, points } = p.persona!;
        if (askers.has(p.id)) expect(questions.length, `${scene.id} ${p.id} questions`).toBeGreaterThanOrEqual(3);
        expect(questions.length, `${scene.id} ${p.id} questions`).toBeLessThanOrEqual(6);
        expect(points.length, `${scene.id} ${p.id} points`).toBeGreaterThanOrEqual(2);
        expect(points.length, `${scene.id} ${p.id} points`).toBeLessThanOrEqual(5);
      }
    }
  });
});
