/**
 * The engine's per-turn cost (DESIGN §10: the local next-speaker decision under 1 ms).
 * Plays every shipped scene with the scripted generator, keeps each state at which the engine was
 * waiting for an utterance, then times `selectNextSpeaker` on them (the decision alone) and `step`
 * on the reply (accepting an utterance: designation, interruptions, backchannels, memory, the
 * next decision and its prompt).
 */
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadScene } from '../server/scene/load';
import { createSession, selectNextSpeaker, step, type EngineInput, type SessionState } from '../server/engine/session';
import { complete } from '../server/providers/generator/port';
import { createScriptedGenerator } from '../server/providers/generator/scripted';
import { percentile, round, timeEach, type BenchResult } from './timing';

const root = fileURLToPath(new URL('..', import.meta.url));

interface Sample {
  state: SessionState;
  input: EngineInput;
}

const collect = async (): Promise<Sample[]> => {
  const generator = createScriptedGenerator();
  const samples: Sample[] = [];
  const dir = resolve(root, 'scenes');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
    const scene = await loadScene(resolve(dir, file));
    for (let seed = 1; seed <= 5; seed++) {
      let state = createSession(scene, { seed });
      const queue: EngineInput[] = [{ type: 'start' }];
      while (queue.length) {
        const input = queue.shift()!;
        if (input.type === 'generated' && state.pending?.kind === 'utterance') samples.push({ state, input });
        const result = step(state, input);
        state = result.state;
        for (const e of result.events) {
          if (e.type === 'approval-needed') queue.push({ type: 'approval', proposal: e.proposal, decision: 'approve' });
          if (e.type === 'human-input-required') queue.push({ type: 'skip-turn' });
        }
        for (const r of result.requests) {
          if (r.kind === 'generate') queue.push({ type: 'generated', request: r.id, text: await complete(generator, r.request) });
          else {
            const answers = [];
            for (const p of r.participants) answers.push({ participant: p.participant, text: await complete(generator, p.request) });
            queue.push({ type: 'thoughts', request: r.id, answers });
          }
        }
      }
    }
  }
  return samples;
};

export default async function selectNextSpeakerBench(): Promise<BenchResult[]> {
  const samples = await collect();
  const calls = Math.max(20_000, samples.length * 5);
  const decide = timeEach((i) => selectNextSpeaker(samples[i % samples.length]!.state), { calls, warmup: 5000 });
  const turn = timeEach((i) => {
    const sample = samples[i % samples.length]!;
    return step(sample.state, sample.input);
  }, { calls, warmup: 5000 });
  return [
    { name: 'select_next_speaker.p50_us', value: round(percentile(decide, 50)), unit: 'us' },
    { name: 'select_next_speaker.p99_us', value: round(percentile(decide, 99)), unit: 'us' },
    { name: 'engine.step_accept_utterance.p50_us', value: round(percentile(turn, 50)), unit: 'us' },
    { name: 'engine.step_accept_utterance.p99_us', value: round(percentile(turn, 99)), unit: 'us' },
    { name: 'engine.bench_states', value: samples.length, unit: 'count' },
  ];
}
