import { describe, expect, it } from 'vitest';
import { checkpointJson, CheckpointError, parseCheckpoint, type Resume } from '../../server/conversation/checkpoint';
import { openConversation } from '../../server/conversation/conversation';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import type { SessionEvent } from '../../shared/events';
import { ai, human, makeScene } from '../engine/harness';

const scene = makeScene({
  participants: [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), ai('cy', 'Cy Lee'), human('tara', 'Tara Quinn')],
  turnTaking: { policy: 'round-robin' },
  snippets: [{ id: 'a', initiator: 'ada', turns: 8 }],
});

/** A whole instant run, with the checkpoint (as stored: JSON) after every step. */
const run = async () => {
  const checkpoints: string[] = [];
  const conversation = openConversation(scene, { seed: 3, generator: createScriptedGenerator(), onStep: (resume) => resume && checkpoints.push(checkpointJson(resume)) });
  return { log: await conversation.ended, checkpoints };
};

const lines = (events: readonly SessionEvent[]) => events.flatMap((e) => (e.type === 'utterance' ? [`${e.speaker}: ${e.text}`] : []));

describe('a conversation resumed from its checkpoint', () => {
  it('goes on from where it was: the seqs continue, the last turn is not said again, the same lines follow', async () => {
    const whole = await run();
    // A checkpoint taken while a persona's turn was being generated (its request in flight).
    const middle = whole.checkpoints.map((json) => parseCheckpoint(json, scene)).find((r) => r.requests.length > 0 && r.state.turns === 3)!;
    expect(middle).toBeDefined();
    const before = whole.log.filter((e) => e.seq <= middle.seq);

    const resumed = openConversation(scene, { seed: 3, generator: createScriptedGenerator(), resume: middle });
    const after = await resumed.ended;

    expect(after[0]).toMatchObject({ seq: middle.seq + 1, type: 'system', code: 'session-resumed', level: 'info' });
    expect(after.map((e) => e.seq)).toEqual(after.map((_, i) => middle.seq + 1 + i));
    expect(after.every((e) => e.t >= middle.t)).toBe(true);
    // Nothing said before the restart is said again, and the rest of the session is the one it would have had.
    expect(lines([...before, ...after])).toEqual(lines(whole.log));
    expect(after.at(-1)).toMatchObject({ type: 'end', reason: 'snippets-done' });
  });

  it('refuses a checkpoint of another format, another scene or a scene edited since, saying why', async () => {
    const { checkpoints } = await run();
    const json = checkpoints[5]!;
    expect(() => parseCheckpoint('{"format":', scene)).toThrow(CheckpointError);
    expect(() => parseCheckpoint(json.replace('"format":1', '"format":99'), scene)).toThrow(/format 99 is not this server's/);
    expect(() => parseCheckpoint(json, { ...scene, id: 'other' })).toThrow(/is of scene "test", not "other"/);
    expect(() => parseCheckpoint(json, scene)).not.toThrow();
    expect(() => parseCheckpoint(json, { ...scene, snippets: [] })).toThrow(/changed since the checkpoint/);
  });

  it('keeps the state as plain data: a checkpoint read back is the state it was', async () => {
    const states: Resume[] = [];
    const conversation = openConversation(scene, { seed: 3, generator: createScriptedGenerator(), onStep: (resume) => resume && states.push(resume) });
    await conversation.ended;
    for (const resume of states.slice(0, 40)) expect(parseCheckpoint(checkpointJson(resume), scene)).toEqual(resume);
  });
});
