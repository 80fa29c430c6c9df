/**
 * Approvals never hang (issue 15): a human-control proposal nobody decides gets the scene's default
 * when its time runs out (skip when unset, approve, or regenerate once), and the log says so.
 */
import { describe, expect, it } from 'vitest';
import { openConversation } from '../../server/conversation/conversation';
import type { SessionEvent } from '../../server/engine/events';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { ai, human, makeScene } from '../engine/harness';

const sceneWith = (onTimeout?: 'approve' | 'skip' | 'regenerate') =>
  makeScene({
    participants: [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), human('tara', 'Tara Quinn', 'human-control', { derailProbability: 1 })],
    turnTaking: { policy: 'round-robin', approval: { timeoutS: 0.15, ...(onTimeout ? { onTimeout } : {}) } },
    snippets: [{ id: 'a', initiator: 'ada', turns: 4 }],
  });

const until = async (check: () => boolean, what: string) => {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

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
