/**
 * Issue 25: the instructor's controls do what they say, in a running conversation (the shell the
 * live rooms use) with a present trainee. Skip on the trainee's turn moves the floor on; a line
 * said during a pause is kept and said at the resume; a direction is acted on in the persona's own
 * words, to the trainee, after the answer owed to the trainee's question; an open floor the policy
 * offers waits a short silence, a question waits for its answer; a proposal nobody watches is
 * decided at once, and one a present human speaks over is withdrawn; the end says who ended it.
 */
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { openConversation, type Conversation } from '../../server/conversation/conversation';
import { endedBecause, type SessionEvent, type UtteranceEvent } from '../../shared/events';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { loadScenes } from '../../server/scene/load';
import type { LoadedScene } from '../../shared/scene/schema';
import { ai, human, makeScene } from '../engine/harness';

let scenes: Map<string, LoadedScene>;
beforeAll(async () => {
  scenes = new Map((await loadScenes(fileURLToPath(new URL('../../scenes/', import.meta.url)))).map((s) => [s.id, s]));
});

const WAIT_MS = 10_000;

/** A conversation with its log, and a way to wait for an event in it. */
const open = (scene: LoadedScene, options: { present?: string[]; seed?: number; watched?: () => boolean; openFloorMs?: number; speed?: number } = {}) => {
  const log: SessionEvent[] = [];
  const waiters = new Set<() => void>();
  const conversation: Conversation = openConversation(scene, {
    seed: options.seed ?? 3,
    generator: createScriptedGenerator(),
    present: options.present ?? [],
    onEvent: (event) => {
      log.push(event);
      for (const wake of [...waiters]) wake();
    },
    ...(options.watched ? { watched: options.watched } : {}),
    ...(options.openFloorMs !== undefined ? { openFloorMs: options.openFloorMs } : {}),
    // A realtime room, its turns sped up so that a spoken line lasts a few milliseconds.
    ...(options.speed ? { pace: 'realtime' as const, speed: options.speed } : {}),
  });
  const waitFor = <E extends SessionEvent>(test: (e: SessionEvent) => e is E, what: string, after = 0): Promise<E> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = log.find((e) => e.seq > after && test(e));
        if (!found) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found as E);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; last events: ${JSON.stringify(log.slice(-4))}`));
      }, WAIT_MS);
      waiters.add(check);
      check();
    });
  return { conversation, log, waitFor };
};

const isUtterance = (e: SessionEvent): e is UtteranceEvent => e.type === 'utterance';
const inputRequired = (who: string, open?: boolean) => (e: SessionEvent): e is Extract<SessionEvent, { type: 'human-input-required' }> =>
  e.type === 'human-input-required' && e.participant === who && (open === undefined || !!e.open === open);
const system = (code: string) => (e: SessionEvent): e is Extract<SessionEvent, { type: 'system' }> => e.type === 'system' && e.code === code;

describe('skip on a human turn', () => {
  it.each(['job-interview', 'team-standup', 'sprint-retro', 'networking-lunch'])('moves the floor to the next speaker by the policy, not back to the trainee (%s)', async (id) => {
    const scene = scenes.get(id)!;
    const trainee = scene.participants.find((p) => p.kind === 'human')!.id;
    const { conversation, log, waitFor } = open(scene, { present: [trainee], openFloorMs: 60_000, watched: () => false });
    // Every time the room turns to the trainee, the instructor skips the turn.
    for (let after = 0, skips = 0; skips < 4; skips++) {
      const wanted = await waitFor(inputRequired(trainee), 'the room turning to the trainee', after);
      conversation.send({ type: 'skip-turn' });
      const skipped = await waitFor(system('turn-skipped'), 'the skip', wanted.seq);
      expect(skipped.message).toMatch(/turn was skipped/);
      const said = await waitFor(isUtterance, 'the next line', skipped.seq);
      expect(said.speaker).not.toBe(trainee);
      expect(log.filter((e) => e.seq > skipped.seq && e.seq < said.seq && (e.type === 'human-input-required' || (e.type === 'floor' && e.speaker === trainee)))).toEqual([]);
      after = said.seq;
    }
    conversation.send({ type: 'end', by: 'instructor' });
    await conversation.ended;
  });
});

describe('a line said during a pause', () => {
  it('is kept, its speaker told so, and said when the session resumes', async () => {
    const { conversation, log, waitFor } = open(scenes.get('job-interview')!, { present: ['alex'] });
    const asked = await waitFor(inputRequired('alex', false), 'the room waiting for Alex');
    conversation.send({ type: 'pause' });
    const paused = await waitFor(system('paused'), 'the pause', asked.seq);
    const text = 'I led the migration of our billing system to event sourcing.';
    conversation.send({ type: 'say', participant: 'alex', text });
    const held = await waitFor(system('line-held'), 'the line held', paused.seq);
    expect(held).toMatchObject({ participant: 'alex', audience: { seat: 'alex' } });
    expect(held.message).toContain(text);
    expect(log.filter((e) => e.seq > paused.seq && e.type === 'utterance')).toEqual([]);
    conversation.send({ type: 'resume' });
    const resumed = await waitFor(system('resumed'), 'the resume', held.seq);
    const said = await waitFor(isUtterance, "Alex's line", resumed.seq);
    expect(said).toMatchObject({ speaker: 'alex', text, source: 'human', replyTo: expect.any(String) });
    // Nothing was lost or said twice, and the room answers it.
    expect(log.filter((e) => e.type === 'utterance' && e.text === text)).toHaveLength(1);
    const answer = await waitFor(isUtterance, 'the reply to Alex', said.seq);
    expect(answer.speaker).not.toBe('alex');
    conversation.send({ type: 'end' });
    await conversation.ended;
  });
});

describe('a line said during a pause that never resumes', () => {
  it('is not lost in silence: its speaker is told it was not said', async () => {
    const { conversation, waitFor } = open(scenes.get('job-interview')!, { present: ['alex'] });
    await waitFor(inputRequired('alex', false), 'the room waiting for Alex');
    conversation.send({ type: 'pause' });
    conversation.send({ type: 'say', participant: 'alex', text: 'One more thing about the rota.' });
    conversation.send({ type: 'end', by: 'instructor' });
    const log = await conversation.ended;
    const notSaid = log.find(system('line-not-said'));
    expect(notSaid).toMatchObject({ participant: 'alex', audience: { seat: 'alex' }, message: expect.stringContaining('One more thing about the rota.') });
    expect(log.at(-1)).toMatchObject({ type: 'end', by: 'instructor' });
  });
});

describe('a direction for the next AI turn', () => {
  it('is said in the persona’s own words, to the trainee, after the answer owed to the trainee’s question', async () => {
    const { conversation, log, waitFor } = open(scenes.get('job-interview')!, { present: ['alex'] });
    const asked = await waitFor(inputRequired('alex', false), 'the room waiting for Alex');
    conversation.send({ type: 'inject', text: 'ask about their salary expectations' });
    const direction = await waitFor(system('direction'), 'the direction', asked.seq);
    expect(direction.audience).toBe('observers');
    conversation.send({ type: 'say', participant: 'alex', text: 'Raj, what does the platform team work on day to day?' });
    const question = await waitFor((e): e is UtteranceEvent => isUtterance(e) && e.speaker === 'alex', "Alex's question", direction.seq);
    const reply = await waitFor(isUtterance, 'the next AI line', question.seq);
    // Raj answers first, then asks Alex in the first person: the direction never replaces the answer.
    expect(reply).toMatchObject({ speaker: 'raj', act: 'answer', replyTo: question.id });
    const at = reply.text.indexOf('Alex, what are your salary expectations?');
    expect(at).toBeGreaterThan(10);
    expect(reply.text).not.toMatch(/\btheir\b|\bask about\b|\binstructor\b/i);
    // The question is Alex's to answer: the room waits for Alex.
    await waitFor(inputRequired('alex', false), 'the room waiting for Alex again', reply.seq);
    expect(log.filter((e) => e.type === 'utterance' && /salary/i.test(e.text))).toHaveLength(1);
    conversation.send({ type: 'end' });
    await conversation.ended;
  });

  it('goes to the next AI turn when no question is owed, addressed to the trainee', async () => {
    const { conversation, waitFor } = open(scenes.get('job-interview')!, { present: ['alex'] });
    const asked = await waitFor(inputRequired('alex', false), 'the room waiting for Alex');
    conversation.send({ type: 'inject', text: 'Ask them why they want to leave their current job.' });
    conversation.send({ type: 'say', participant: 'alex', text: 'Thanks, that makes sense.' });
    const said = await waitFor((e): e is UtteranceEvent => isUtterance(e) && e.speaker === 'alex', "Alex's line", asked.seq);
    const next = await waitFor(isUtterance, 'the next AI line', said.seq);
    expect(next.text).toMatch(/Alex, why do you want to leave your current job\?$/);
    expect(next).toMatchObject({ addressee: 'alex', pair: 'question' });
    conversation.send({ type: 'end' });
    await conversation.ended;
  });
});

describe('the floor after a statement', () => {
  const roundRobin = makeScene({
    participants: [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), human('alex', 'Alex Kim')],
    turnTaking: { policy: 'round-robin' },
    snippets: [{ id: 'a', initiator: 'ada', turns: 9 }],
  });

  /** Answers every question put to Alex until the policy offers Alex an open floor. */
  const untilOpenFloor = async ({ conversation, waitFor }: ReturnType<typeof open>) => {
    for (let after = 0; ; ) {
      const wanted = await waitFor(inputRequired('alex'), 'the room turning to Alex', after);
      if (wanted.open) return wanted;
      conversation.send({ type: 'say', participant: 'alex', text: 'I would keep the plan, and check the numbers again on Friday.' });
      after = wanted.seq;
    }
  };

  it('offered by the policy, waits a short silence for the trainee, then goes on without them', async () => {
    const room = open(roundRobin, { present: ['alex'], openFloorMs: 50 });
    const { conversation, log, waitFor } = room;
    const offered = await untilOpenFloor(room);
    expect(offered).toMatchObject({ addressedBy: null, pair: 'none', open: true });
    const passed = await waitFor(system('floor-passed'), 'the floor passing', offered.seq);
    expect(passed).toMatchObject({ participant: 'alex', audience: 'observers' });
    const next = await waitFor((e): e is Extract<SessionEvent, { type: 'floor' }> => e.type === 'floor', 'the next floor', passed.seq);
    expect(next.speaker).not.toBe('alex');
    const ended = await conversation.ended;
    expect(ended.at(-1)).toMatchObject({ type: 'end', reason: 'snippets-done' });
    expect(log.some(system('stalled'))).toBe(false);
  });

  it('is kept open while the trainee types, and a line typed then is theirs', async () => {
    const room = open(roundRobin, { present: ['alex'], openFloorMs: 50 });
    const { conversation, waitFor } = room;
    const offered = await untilOpenFloor(room);
    conversation.typing('alex', true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(conversation.state.awaiting?.speaker).toBe('alex');
    conversation.send({ type: 'say', participant: 'alex', text: 'I think we should test the rollback first.' });
    const said = await waitFor(isUtterance, "Alex's line", offered.seq);
    expect(said).toMatchObject({ speaker: 'alex', source: 'human' });
    conversation.send({ type: 'end' });
    await conversation.ended;
  });

  it('asked a question, waits for the trainee as long as it takes', async () => {
    const { conversation, log, waitFor } = open(scenes.get('job-interview')!, { present: ['alex'], openFloorMs: 20 });
    const asked = await waitFor(inputRequired('alex', false), 'a question for Alex');
    expect(asked.addressedBy).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(log.filter((e) => e.seq > asked.seq && e.type !== 'system')).toEqual([]);
    expect(conversation.state.awaiting?.speaker).toBe('alex');
    conversation.send({ type: 'end' });
    await conversation.ended;
  });
});

describe('a stand-in’s proposal', () => {
  /** Sam (human-control) proposes a deviation whenever the engine lets them. */
  const eager = (): LoadedScene => {
    const scene = scenes.get('performance-review')!;
    return { ...scene, participants: scene.participants.map((p) => (p.id === 'sam' && p.simulated ? { ...p, simulated: { ...p.simulated, derailProbability: 1 } } : p)) };
  };

  it('is decided at once by the scene’s default when no instructor is watching', async () => {
    // The proposal's time limit an hour away: a decision within the wait was not the time limit's.
    const scene = eager();
    const { conversation, log, waitFor } = open({ ...scene, turnTaking: { ...scene.turnTaking, approval: { ...scene.turnTaking.approval, timeoutS: 3600 } } }, { watched: () => false });
    const needed = await waitFor((e): e is Extract<SessionEvent, { type: 'approval-needed' }> => e.type === 'approval-needed', 'a proposal');
    const resolved = await waitFor((e): e is Extract<SessionEvent, { type: 'approval-resolved' }> => e.type === 'approval-resolved' && e.proposal === needed.proposal, 'its decision');
    const notice = log.find((e) => e.type === 'system' && e.code === 'approval-default');
    expect(notice?.type === 'system' && notice.message).toMatch(/No instructor is watching.*Sam.*at once/);
    expect(resolved.seq).toBeGreaterThan(needed.seq);
    conversation.send({ type: 'end' });
    await conversation.ended;
    // Decided at once on the session's clock too, not after a wait for the instructor.
    expect(resolved.t - needed.t).toBeLessThan(3_600_000);
    expect(log.some(system('approval-timeout'))).toBe(false);
  });

  it('is decided at once in a live room that no instructor watches, not after its time limit', async () => {
    const scene = eager();
    const { conversation, log, waitFor } = open({ ...scene, turnTaking: { ...scene.turnTaking, approval: { ...scene.turnTaking.approval, timeoutS: 3600 } } }, { watched: () => false, speed: 200 });
    const needed = await waitFor((e): e is Extract<SessionEvent, { type: 'approval-needed' }> => e.type === 'approval-needed', 'a proposal');
    await waitFor((e): e is Extract<SessionEvent, { type: 'approval-resolved' }> => e.type === 'approval-resolved' && e.proposal === needed.proposal, 'its decision');
    expect(log.find(system('approval-default'))).toMatchObject({ message: "No instructor is watching: Sam Whitaker's proposal was skipped at once (the scene's default)." });
    // The room goes on: somebody speaks after it.
    await waitFor(isUtterance, 'the next line', needed.seq);
    conversation.send({ type: 'end' });
    await conversation.ended;
    expect(log.some(system('approval-timeout'))).toBe(false);
  });

  it('is withdrawn when a present trainee speaks while it waits, and the persona they asked answers at once', async () => {
    // Sprint retro: Riley is here, Casey's seat is a stand-in whose lines wait for the instructor.
    const scene = scenes.get('sprint-retro')!;
    const eagerCasey = { ...scene, participants: scene.participants.map((p) => (p.id === 'casey' && p.simulated ? { ...p, simulated: { ...p.simulated, derailProbability: 1 } } : p)) };
    const { conversation, log, waitFor } = open(eagerCasey, { present: ['riley'], watched: () => true, speed: 200, openFloorMs: 50 });
    const needed = await waitFor((e): e is Extract<SessionEvent, { type: 'approval-needed' }> => e.type === 'approval-needed' && e.participant === 'casey', 'Casey’s proposal');
    conversation.send({ type: 'say', participant: 'riley', text: 'Ana, what would you change first?' });
    const resolved = await waitFor((e): e is Extract<SessionEvent, { type: 'approval-resolved' }> => e.type === 'approval-resolved', 'the proposal withdrawn', needed.seq);
    expect(resolved).toMatchObject({ proposal: needed.proposal, decision: 'dismiss' });
    expect(log.find(system('proposal-withdrawn'))).toMatchObject({ participant: 'casey', audience: 'observers' });
    const asked = log.find((e): e is UtteranceEvent => isUtterance(e) && e.speaker === 'riley')!;
    expect(asked).toMatchObject({ addressee: 'ana' });
    // The next line is Ana's answer, with no decision made by anyone.
    const answer = await waitFor(isUtterance, 'the answer', asked.seq);
    expect(answer).toMatchObject({ speaker: 'ana', addressee: 'riley' });
    conversation.send({ type: 'end', by: 'instructor' });
    await conversation.ended;
  });

  it('waits for the instructor who is watching', async () => {
    const { conversation, log, waitFor } = open(eager(), { watched: () => true });
    const needed = await waitFor((e): e is Extract<SessionEvent, { type: 'approval-needed' }> => e.type === 'approval-needed', 'a proposal');
    expect(needed.timeoutMs).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(log.at(-1)).toEqual(needed);
    conversation.send({ type: 'end', by: 'instructor' });
    await conversation.ended;
  });
});

describe('the end', () => {
  it('says who ended the session and why, in words for everyone', async () => {
    const { conversation } = open(scenes.get('team-standup')!);
    conversation.send({ type: 'end', by: 'instructor' });
    const log = await conversation.ended;
    const end = log.at(-1)!;
    expect(end).toMatchObject({ type: 'end', reason: 'ended', by: 'instructor' });
    if (end.type !== 'end') throw new Error('unreachable');
    expect(endedBecause(end)).toBe('Ended by the instructor');
    expect(endedBecause({ reason: 'snippets-done' })).toBe('All parts of the scene are done');
    expect(endedBecause({ reason: 'max-turns' })).toMatch(/^Time is up/);
    // An older log, without `by`.
    expect(endedBecause({ reason: 'ended' })).toBe('The session was ended');
  });
});
