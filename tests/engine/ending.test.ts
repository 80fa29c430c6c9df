/**
 * How a session ends on its own (engine/ending.ts): never on a question left open, always with a
 * closing line, and at once when the instructor ends it.
 */
import { describe, expect, it } from 'vitest';
import { createSession, step, type EngineInput, type SessionState } from '../../server/engine/session';
import type { SessionEvent } from '../../shared/events';
import { ai, cueText, human, makeScene, ofType, run, utterances } from './harness';

const panel = (extra: Record<string, unknown> = {}) =>
  makeScene({
    participants: [ai('hannah', 'Hannah Okafor'), ai('raj', 'Raj Malhotra'), human('alex', 'Alex Moreno')],
    turnTaking: { policy: 'round-robin' },
    snippets: [{ id: 'main', initiator: 'hannah', turns: 5 }],
    ...extra,
  });

/**
 * Runs a session with Alex present: each time the room waits for Alex, `line(turn)` is what Alex
 * says (the turn being the session's count so far). `onClose`: what to send instead of the
 * goodbye when one is requested (a barge-in), or null to let it be said.
 */
const session = (
  scene: ReturnType<typeof panel>,
  line: (state: SessionState) => string,
  options: { onClose?: (closes: number) => string | null; endAfter?: number } = {},
): { events: SessionEvent[]; state: SessionState } => {
  let state = createSession(scene, { seed: 3, present: ['alex'] });
  const events: SessionEvent[] = [];
  const queue: EngineInput[] = [{ type: 'start' }];
  let closes = 0;
  for (let guard = 0; queue.length > 0 && guard < 10_000; guard++) {
    const result = step(state, queue.shift()!);
    state = result.state;
    events.push(...result.events);
    if (options.endAfter !== undefined && utterances(events).length >= options.endAfter && state.phase === 'running') {
      queue.length = 0;
      queue.push({ type: 'end' });
      continue;
    }
    for (const request of result.requests) {
      if (request.kind !== 'generate') continue;
      const barge = request.request.cue.move === 'close' ? options.onClose?.(closes++) : null;
      if (barge) queue.push({ type: 'say', participant: 'alex', text: barge });
      else queue.push({ type: 'generated', request: request.id, text: cueText(request.request) });
    }
    if (queue.length === 0 && state.awaiting?.speaker === 'alex') queue.push({ type: 'say', participant: 'alex', text: line(state) });
  }
  return { events, state };
};

/** The utterance each floor event led to, with the floor's reason. */
const withReasons = (events: readonly SessionEvent[]) => {
  let reason: string | null = null;
  return events.flatMap((e) => {
    if (e.type === 'floor') reason = e.reason;
    if (e.type !== 'utterance') return [];
    const out = { ...e, reason };
    reason = null;
    return [out];
  });
};

describe('a session that runs out of turns', () => {
  it("answers a human's question asked as its budget runs out, then the host closes it", () => {
    const question = 'What would the first six months look like for the team?';
    // Alex's turn comes at the snippet's fifth and last turn: the question is its last line.
    const { events } = session(panel(), (state) => (state.snippetTurns >= 4 ? question : 'I agree, that matters to me.'));
    const lines = withReasons(events);
    const asked = lines.findLast((u) => u.text === question)!;
    expect(asked).toBeDefined();
    const after = lines.slice(lines.indexOf(asked) + 1);
    // The answer first, by a persona, to the question...
    expect(after[0]).toMatchObject({ replyTo: asked.id, act: 'answer' });
    expect(['hannah', 'raj']).toContain(after[0]!.speaker);
    // ...then the host's goodbye, and the end.
    expect(after.at(-1)).toMatchObject({ speaker: 'hannah', reason: 'closing', act: 'statement' });
    expect(after).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: 'end', reason: 'snippets-done' });
  });

  it('answers a question put to a persona at the turn cap before closing', () => {
    const question = 'Raj, what does the reminder job run on today?';
    const scene = panel({ turnTaking: { policy: 'round-robin', maxTurns: 5 }, snippets: [{ id: 'main', initiator: 'hannah', turns: 40 }] });
    const { events } = session(scene, (state) => (state.turns >= 4 ? question : 'Fine by me.'));
    const lines = withReasons(events);
    const asked = lines.findLast((u) => u.text === question)!;
    const after = lines.slice(lines.indexOf(asked) + 1);
    expect(after[0]).toMatchObject({ speaker: 'raj', replyTo: asked.id });
    expect(after.at(-1)).toMatchObject({ reason: 'closing', speaker: 'hannah' });
    expect(events.at(-1)).toMatchObject({ type: 'end', reason: 'max-turns' });
  });

  it('answers a human who keeps asking twice, then closes', () => {
    const opening = 'What happens after this round?';
    const questions = ['Who decides what we build next?', 'And how is that decided today?'];
    const { events } = session(panel(), (state) => (state.snippetTurns >= 4 ? opening : 'Sounds good.'), {
      // Alex speaks over each goodbye with another question.
      onClose: (closes) => questions[closes] ?? null,
    });
    const lines = withReasons(events);
    const answered = (text: string) => {
      const q = lines.find((u) => u.text === text && u.speaker === 'alex')!;
      expect(q, text).toBeDefined();
      return lines.some((u) => u.replyTo === q.id && u.speaker !== 'alex');
    };
    expect([opening, ...questions].map(answered)).toEqual([true, true, false]);
    // The third goes unanswered, but the session still closes with a goodbye after it.
    expect(lines.at(-2)).toMatchObject({ speaker: 'alex', text: questions[1] });
    expect(lines.at(-1)).toMatchObject({ speaker: 'hannah', reason: 'closing' });
    expect(events.at(-1)).toMatchObject({ type: 'end', reason: 'snippets-done' });
  });

  it("closes with the scene's own closing line, as written, by its speaker", () => {
    const closing = { speaker: 'raj', text: "That's time. Thank you, Alex; we'll be in touch this week." };
    const { events } = run(panel({ closing }), { seed: 2 });
    const lines = utterances(events);
    expect(lines.at(-1)).toMatchObject({ speaker: 'raj', text: closing.text, source: 'scripted' });
    expect(lines.filter((u) => u.text === closing.text)).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'end', reason: 'snippets-done' });
  });

  it('ends with one goodbye, not two, when the last turn already closed', () => {
    const { events } = run(panel(), { seed: 5 });
    const closings = ofType(events, 'floor').filter((f) => f.reason === 'closing');
    expect(closings.length).toBeLessThanOrEqual(1);
    // The last turn of the snippet was planned as a close: it is the session's last line.
    const lines = utterances(events);
    expect(lines.length).toBeLessThanOrEqual(7);
  });

  it("stops exactly at a caller's cap (an experiment's window of turns), without winding down", () => {
    for (const seed of [1, 2, 3, 4]) {
      const { events } = run(panel({ snippets: [{ id: 'main', initiator: 'hannah', turns: 40 }] }), { seed, maxTurns: 7 });
      expect(utterances(events)).toHaveLength(7);
      expect(events.at(-1)).toMatchObject({ type: 'end', reason: 'max-turns' });
    }
  });

  it('ends at once when the instructor ends it: no answer, no goodbye', () => {
    const { events } = session(panel(), () => 'What is the next step for the team?', { endAfter: 3 });
    expect(events.at(-1)).toMatchObject({ type: 'end', reason: 'ended' });
    expect(ofType(events, 'floor').some((f) => f.reason === 'closing')).toBe(false);
  });
});
