/**
 * Approvals never hang (issue 15): a human-control proposal nobody decides gets the scene's default
 * when its time runs out (skip when unset, approve, or regenerate once), and the log says so. And
 * the line the room waits for is an answer, never a barge-in.
 */
import { describe, expect, it } from 'vitest';
import { until } from '../until';
import { openConversation } from '../../server/conversation/conversation';
import type { SessionEvent } from '../../shared/events';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import type { Synthesizer } from '../../server/providers/synthesis/port';
import { ai, human, makeScene } from '../engine/harness';

const sceneWith = (onTimeout?: 'approve' | 'skip' | 'regenerate') =>
  makeScene({
    participants: [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), human('tara', 'Tara Quinn', 'human-control', { derailProbability: 1 })],
    turnTaking: { policy: 'round-robin', approval: { timeoutS: 0.15, ...(onTimeout ? { onTimeout } : {}) } },
    snippets: [{ id: 'a', initiator: 'ada', turns: 4 }],
  });


const run = async (onTimeout?: 'approve' | 'skip' | 'regenerate') => {
  const log: SessionEvent[] = [];
  const conversation = openConversation(sceneWith(onTimeout), { seed: 3, generator: createScriptedGenerator(), onEvent: (e) => log.push(e) });
  await until(() => log.some((e) => e.type === 'system' && e.code === 'approval-timeout'), 'a timeout');
  return { log, conversation };
};

describe('a proposal nobody decides', () => {
  it('says how long the instructor has', async () => {
    const { log, conversation } = await run();
    expect(log.find((e) => e.type === 'approval-needed')).toMatchObject({ timeoutMs: 150 });
    conversation.send({ type: 'end' });
  });

  it('is skipped by default, and the log says so', async () => {
    const { log, conversation } = await run();
    const need = log.find((e) => e.type === 'approval-needed')!;
    const notice = log.find((e) => e.type === 'system' && e.code === 'approval-timeout');
    expect(notice).toMatchObject({ level: 'warn', message: expect.stringMatching(/^No decision on Tara Quinn's proposal within 0\.\d s: skipped \(the scene's default\)/) });
    expect(log).toContainEqual(expect.objectContaining({ type: 'approval-resolved', proposal: need.type === 'approval-needed' && need.proposal, decision: 'dismiss' }));
    // The room went on.
    await until(() => log.filter((e) => e.type === 'utterance').length >= 2, 'the room going on');
    conversation.send({ type: 'end' });
  });

  it('is approved when the scene says so', async () => {
    const { log, conversation } = await run('approve');
    const need = log.find((e) => e.type === 'approval-needed');
    await until(() => log.some((e) => e.type === 'utterance' && e.speaker === 'tara'), 'Tara speaking');
    expect(log.find((e) => e.type === 'utterance' && e.speaker === 'tara')).toMatchObject({ text: need?.type === 'approval-needed' && need.text, act: 'deviation' });
    conversation.send({ type: 'end' });
  });

  it('is drawn again once when the scene says regenerate, then skipped', async () => {
    const { log, conversation } = await run('regenerate');
    await until(() => log.filter((e) => e.type === 'system' && e.code === 'approval-timeout').length >= 2, 'a second timeout');
    const decisions = log.flatMap((e) => (e.type === 'approval-resolved' ? [e.decision] : []));
    expect(decisions.slice(0, 2)).toEqual(['regenerate', 'dismiss']);
    conversation.send({ type: 'end' });
  });
});

describe('the answer the room waits for', () => {
  it('never cuts off a persona whose audio is still playing: it is the human’s turn, not a barge-in', async () => {
    // Instant pace: the floor reaches Tara while Ada's long reply is still being heard.
    const tone: Synthesizer = {
      name: 'tone',
      async *synthesize({ text }) {
        yield { pcm: new Int16Array(24_000 * 5), sampleRate: 24_000, offsetMs: 0, cues: [], words: text.split(' ').map((word, i) => ({ word, start: i * 100, end: i * 100 + 90 })) };
      },
    };
    const scene = makeScene({
      participants: [ai('ada', 'Ada Park'), human('tara', 'Tara Quinn')],
      turnTaking: { policy: 'round-robin' },
      snippets: [{ id: 'a', initiator: 'ada', turns: 4 }],
    });
    const log: SessionEvent[] = [];
    const conversation = openConversation(scene, { seed: 1, generator: createScriptedGenerator(), synthesizer: tone, present: ['tara'], onEvent: (e) => log.push(e) });
    await until(() => log.some((e) => e.type === 'human-input-required' && e.participant === 'tara'), 'the floor to Tara');
    conversation.send({ type: 'say', participant: 'tara', text: 'Thanks, Ada, I will go first then.' });
    await until(() => log.some((e) => e.type === 'utterance' && e.speaker === 'tara'), "Tara's answer");
    expect(log.filter((e) => e.type === 'interruption')).toEqual([]);
    expect(log.filter((e) => e.type === 'utterance' && e.interrupted)).toEqual([]);
    conversation.send({ type: 'end' });
  });
});
