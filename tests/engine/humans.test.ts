import { describe, expect, it } from 'vitest';
import { step } from '../../server/engine/session';
import { ai, cueText, human, makeScene, ofType, run, utterances } from './harness';
import type { GenerateRequest } from '../../server/engine/requests';

const cast = (mode: 'reactive' | 'human-control' | 'autonomous', derailProbability = 0) => [
  ai('ada', 'Ada Park'),
  ai('ben', 'Ben Osei'),
  ai('cleo', 'Cleo Ruiz'),
  human('tara', 'Tara Quinn', mode, { derailProbability, impromptuTurns: { min: 3, max: 3 } }),
];

describe('a real human in the room', () => {
  const scene = makeScene({ participants: cast('reactive'), snippets: [{ id: 'a', initiator: 'ada', turns: 10 }] });
  const askTara = (r: GenerateRequest) => (r.purpose === 'utterance' && r.cue.act !== 'answer' ? 'Tara, what did the client say?' : cueText(r));

  it('waits for a present human who was asked a question', () => {
    const { state, events } = run(scene, { present: ['tara'], respond: askTara });
    expect(events.at(-1)).toMatchObject({ type: 'human-input-required', participant: 'tara', addressedBy: 'ada', pair: 'question' });
    expect(state.awaiting?.speaker).toBe('tara');
    const answered = step(state, { type: 'say', participant: 'tara', text: 'They want it by Friday.' });
    const u = utterances(answered.events)[0]!;
    expect(u).toMatchObject({ speaker: 'tara', source: 'human', act: 'answer', text: 'They want it by Friday.' });
    expect(answered.requests.length).toBeGreaterThan(0);
  });

  it('in realtime, goes on from when the human was heard, not from when their words were transcribed', () => {
    const { state } = run(scene, { present: ['tara'], respond: askTara });
    const live = { ...state, pace: 'realtime' as const };
    // Tara spoke from 20 s to 25 s; the transcript came at 26 s.
    const at26 = step(live, { type: 'clock', t: 26_000 }).state;
    const answered = step(at26, { type: 'say', participant: 'tara', text: 'They want it by Friday.', durationMs: 5000, spoken: { start: 20_000, end: 25_000 } });
    expect(utterances(answered.events)[0]).toMatchObject({ speaker: 'tara', t: 26_000, spoken: { start: 20_000, end: 25_000 } });
    // The next line is dated from 26 s (as soon as it may be), not a whole utterance later (31.4 s).
    expect(answered.state.t).toBe(26_000);
    // At instant pace, simulated time goes on as before.
    const instant = step(step({ ...state, pace: 'instant' as const }, { type: 'clock', t: 26_000 }).state, { type: 'say', participant: 'tara', text: 'They want it by Friday.', durationMs: 5000, spoken: { start: 20_000, end: 25_000 } });
    expect(instant.state.t).toBe(26_000 + 5000 + 400);
  });

  it('in realtime, a line said before the question was heard is the human\'s own, and the question still waits for them', () => {
    const { state } = run(scene, { present: ['tara'], respond: askTara });
    // Ada's question was logged at once but queued behind speech: Tara typed before the room heard it.
    const live = step({ ...state, pace: 'realtime' as const }, { type: 'clock', t: 27_000 }).state;
    const early = step(live, { type: 'say', participant: 'tara', text: 'I also led the billing migration last year.', sentAt: 27_000, before: state.last!.id });
    const [line] = utterances(early.events);
    expect(line).toMatchObject({ speaker: 'tara', act: 'statement', sentAt: 27_000 });
    expect(line!.replyTo).toBeUndefined();
    // Tara is still the one asked: the room waits for her answer, and it answers Ada's question.
    expect(early.events.at(-1)).toMatchObject({ type: 'human-input-required', participant: 'tara', addressedBy: 'ada', pair: 'question' });
    const answered = step(step(early.state, { type: 'clock', t: 36_000 }).state, { type: 'say', participant: 'tara', text: 'They want it by Friday.', sentAt: 36_000 });
    expect(utterances(answered.events)[0]).toMatchObject({ speaker: 'tara', act: 'answer', replyTo: state.last!.id });
    // Sent after the question was heard, the same line answers it at once.
    const heard = step(live, { type: 'say', participant: 'tara', text: 'They want it by Friday.', sentAt: 27_000 });
    expect(utterances(heard.events)[0]).toMatchObject({ act: 'answer', replyTo: state.last!.id });
  });

  it('in realtime, a typed line is read at once: the clock does not wait out its estimated length', () => {
    const { state } = run(scene, { present: ['tara'], respond: askTara });
    const live = step({ ...state, pace: 'realtime' as const }, { type: 'clock', t: 26_000 }).state;
    const typed = step(live, { type: 'say', participant: 'tara', text: 'They want the whole thing delivered by Friday at the latest.', sentAt: 26_000 });
    expect(typed.state.t).toBe(26_400);
  });

  it('lets a human barge in: the pending generation is dropped and its late answer ignored', () => {
    const respond = (r: GenerateRequest) => cueText(r);
    let { state, requests } = (() => {
      const s0 = step(
        run(scene, { present: ['tara'], respond, inputs: [] }).state,
        { type: 'start' },
      );
      return { state: s0.state, requests: s0.requests };
    })();
    const pending = requests[0]!;
    const barge = step(state, { type: 'say', participant: 'tara', text: 'Sorry, can I jump in? Ben, is the budget final?' });
    expect(ofType(barge.events, 'floor')[0]).toMatchObject({ speaker: 'tara', reason: 'human' });
    expect(utterances(barge.events)[0]).toMatchObject({ speaker: 'tara', addressee: 'ben', pair: 'question' });
    state = barge.state;
    const late = step(state, { type: 'generated', request: pending.id, text: 'Too late.' });
    expect(late.events).toEqual([]);
  });

  it('logs what was already heard of a reply a human cut off, as an interruption by that human', () => {
    const first = step(run(scene, { present: ['tara'], inputs: [] }).state, { type: 'start' });
    const pending = first.requests[0]!;
    const cut = step(first.state, {
      type: 'say',
      participant: 'tara',
      text: 'Sorry to cut in, but Ben, is the budget final?',
      cut: { request: pending.id, partial: 'Good morning everyone, today we will' },
    });
    const u = utterances(cut.events);
    expect(u[0]).toMatchObject({ speaker: 'ada', text: 'Good morning everyone, today we will—', interrupted: true, pair: 'none' });
    expect(ofType(cut.events, 'interruption')[0]).toMatchObject({ by: 'tara', of: 'ada', vibe: 'barge-in', utterance: u[0]!.id, atWord: 6 });
    expect(u[1]).toMatchObject({ speaker: 'tara', source: 'human', addressee: 'ben' });
    // Ben answers the human next, not a pending interrupter.
    expect(cut.requests[0]!.kind === 'generate' && cut.requests[0]!.request.cue).toMatchObject({ speaker: { id: 'ben' }, act: 'answer' });
  });

  it('lets a human who joins mid-session take over their seat at the next turn', () => {
    // Nobody present: Tara's simulated self answers Ada's question.
    const before = run(scene, { respond: askTara, maxTurns: 2 });
    expect(utterances(before.events)[1]).toMatchObject({ speaker: 'tara', source: 'simulated-human' });
    // Tara joins; the next question to her waits for the real person.
    const joined = run(scene, { respond: askTara, inputs: [{ type: 'start' }, { type: 'presence', participant: 'tara', present: true }] });
    const asked = ofType(joined.events, 'human-input-required');
    expect(asked[0]).toMatchObject({ participant: 'tara' });
    expect(joined.state.awaiting?.speaker).toBe('tara');
  });

  it('simulates a human who leaves while the room waits for them', () => {
    const { state } = run(scene, { present: ['tara'], respond: askTara });
    expect(state.awaiting?.speaker).toBe('tara');
    const left = step(state, { type: 'presence', participant: 'tara', present: false });
    expect(left.state.awaiting).toBeNull();
    const request = left.requests[0]!;
    expect(request.kind === 'generate' && request.request.cue).toMatchObject({ speaker: { id: 'tara' }, act: 'answer' });
  });

  it('rejects speech from someone who is not a human participant, and keeps going', () => {
    const s = run(scene, { present: ['tara'], respond: askTara }).state;
    const r = step(s, { type: 'say', participant: 'ada', text: 'I am an AI' });
    expect(r.events[0]).toMatchObject({ type: 'system', code: 'not-a-human' });
    expect(r.state.awaiting?.speaker).toBe('tara');
  });
});

describe('simulated humans (DialogLab §5.2.2)', () => {
  it('reactive: speaks only when addressed', () => {
    const scene = makeScene({ participants: cast('reactive'), turnTaking: { policy: 'random' }, snippets: [{ id: 'a', initiator: 'ada', turns: 30 }] });
    const { events } = run(scene, { seed: 6 });
    const u = utterances(events);
    u.forEach((x, i) => {
      if (x.speaker !== 'tara') return;
      expect(u[i - 1]!.addressee).toBe('tara');
      expect(x.source).toBe('simulated-human');
    });
    expect(u.some((x) => x.speaker === 'tara')).toBe(true);
  });

  it('human-control: a proposal waits for approval, then an impromptu phase runs and the snippet resumes', () => {
    const scene = makeScene({ participants: cast('human-control', 1), snippets: [{ id: 'a', initiator: 'ada', turns: 6 }] });
    const waiting = run(scene, { approvals: 'wait' });
    const need = ofType(waiting.events, 'approval-needed')[0]!;
    expect(need).toMatchObject({ participant: 'tara' });
    expect(['drift', 'extend', 'question', 'emotional']).toContain(need.intent);
    expect(waiting.state.proposal?.id).toBe(need.proposal);
    expect(waiting.requests.at(-1)?.kind === 'generate' && waiting.requests.at(-1)).toBeTruthy();

    const edited = run(scene, { state: waiting.state, inputs: [{ type: 'approval', proposal: need.proposal, decision: 'edit', text: 'Honestly, I am worried about the deadline.' }], approvals: 'dismiss' });
    const start = ofType(edited.events, 'impromptu-start')[0]!;
    expect(start).toMatchObject({ participant: 'tara', turns: 3 });
    const u = utterances(edited.events);
    expect(u[0]).toMatchObject({ speaker: 'tara', text: 'Honestly, I am worried about the deadline.', act: 'deviation', impromptu: true });
    expect(u.slice(0, 3).every((x) => x.impromptu)).toBe(true);
    expect(u[3]?.impromptu).toBeUndefined();
    expect(ofType(edited.events, 'impromptu-end')).toHaveLength(1);
    // Impromptu turns do not spend the snippet's budget.
    expect(u.filter((x) => !x.impromptu).length + utterances(waiting.events).length).toBe(6);
  });

  it('human-control: the instructor chooses among 2-3 candidates, each with its own intent (DialogLab)', () => {
    const scene = makeScene({ participants: cast('human-control', 1), snippets: [{ id: 'a', initiator: 'ada', turns: 6 }] });
    const waiting = run(scene, { approvals: 'wait', seed: 5 });
    const need = ofType(waiting.events, 'approval-needed')[0]!;
    const candidates = need.candidates ?? [];
    expect(candidates.length).toBe(3);
    expect(new Set(candidates.map((x) => x.intent)).size).toBe(3);
    expect(candidates[0]).toEqual({ intent: need.intent, text: need.text });
    expect(new Set(candidates.map((x) => x.text)).size).toBe(3);
    // Approving the third takes its text and its intent.
    const chosen = run(scene, { state: waiting.state, inputs: [{ type: 'approval', proposal: need.proposal, decision: 'approve', choice: 2 }], approvals: 'dismiss' });
    expect(ofType(chosen.events, 'approval-resolved')[0]).toMatchObject({ decision: 'approve', choice: 2 });
    expect(ofType(chosen.events, 'impromptu-start')[0]).toMatchObject({ participant: 'tara', intent: candidates[2]!.intent });
    expect(utterances(chosen.events)[0]).toMatchObject({ speaker: 'tara', text: candidates[2]!.text, act: 'deviation' });
  });

  it('human-control: a dismissed proposal changes nothing; regenerate asks again with the chosen intent', () => {
    const scene = makeScene({ participants: cast('human-control', 1), snippets: [{ id: 'a', initiator: 'ada', turns: 4 }] });
    const waiting = run(scene, { approvals: 'wait' });
    const need = ofType(waiting.events, 'approval-needed')[0]!;
    const regen = step(waiting.state, { type: 'approval', proposal: need.proposal, decision: 'regenerate', intent: 'emotional' });
    expect(regen.requests[0]!.kind === 'generate' && regen.requests[0]!.request.cue.intent).toBe('emotional');
    const dismissed = step(waiting.state, { type: 'approval', proposal: need.proposal, decision: 'dismiss' });
    expect(ofType(dismissed.events, 'approval-resolved')[0]!.decision).toBe('dismiss');
    expect(ofType(dismissed.events, 'impromptu-start')).toHaveLength(0);
    expect(dismissed.requests[0]!.kind).not.toBeUndefined();
  });

  it('human-control: the human joining withdraws their simulated proposal, and the room goes on', () => {
    const scene = makeScene({ participants: cast('human-control', 1), snippets: [{ id: 'a', initiator: 'ada', turns: 6 }] });
    const waiting = run(scene, { approvals: 'wait' });
    const need = ofType(waiting.events, 'approval-needed')[0]!;
    const joined = step(waiting.state, { type: 'presence', participant: 'tara', present: true });
    expect(ofType(joined.events, 'system').map((e) => e.code)).toEqual(['joined', 'proposal-withdrawn']);
    expect(ofType(joined.events, 'approval-resolved')[0]).toMatchObject({ proposal: need.proposal, decision: 'dismiss' });
    expect(joined.state.proposal).toBeNull();
    expect(joined.requests.length).toBeGreaterThan(0);
  });

  it('human-control: a present human who speaks while a stand-in\'s proposal waits withdraws it, and the one they asked answers', () => {
    // Tara is a stand-in whose line waits for the instructor; Pat is really here. Pat asking Ben
    // something must not wait on a decision about a line written before Pat spoke.
    const scene = makeScene({
      participants: [...cast('human-control', 1), human('pat', 'Pat Lee')],
      snippets: [{ id: 'a', initiator: 'ada', turns: 8 }],
    });
    const waiting = run(scene, { approvals: 'wait', present: ['pat'], inputs: [{ type: 'start' }, { type: 'silence', participant: 'pat' }] });
    const need = ofType(waiting.events, 'approval-needed')[0]!;
    expect(waiting.state.proposal?.id).toBe(need.proposal);
    const asked = step(waiting.state, { type: 'say', participant: 'pat', text: 'Ben, what did the client say about the deadline?' });
    expect(ofType(asked.events, 'approval-resolved')).toEqual([expect.objectContaining({ proposal: need.proposal, decision: 'dismiss' })]);
    const withdrawn = ofType(asked.events, 'system').find((e) => e.code === 'proposal-withdrawn');
    expect(withdrawn).toMatchObject({ participant: 'tara', audience: 'observers', message: "Pat Lee spoke; Tara Quinn's proposed line was withdrawn, as the conversation moved on." });
    expect(asked.state.proposal).toBeNull();
    expect(utterances(asked.events)).toEqual([expect.objectContaining({ speaker: 'pat', addressee: 'ben' })]);
    // Ben's answer is asked for at once.
    const next = asked.requests.find((r) => r.kind === 'generate');
    expect(next?.kind === 'generate' && next.request.cue.speaker.id).toBe('ben');
    expect(ofType(asked.events, 'floor').at(-1)).toMatchObject({ speaker: 'ben', reason: 'designated' });
    expect(asked.state.pending?.kind).toBe('utterance');
  });

  it('autonomous: deviates without approval', () => {
    const scene = makeScene({ participants: cast('autonomous', 0.5), snippets: [{ id: 'a', initiator: 'ada', turns: 10 }] });
    const { events } = run(scene, { seed: 2 });
    expect(ofType(events, 'approval-needed')).toHaveLength(0);
    expect(ofType(events, 'impromptu-start').length).toBeGreaterThan(0);
    expect(utterances(events).some((u) => u.speaker === 'tara' && u.act === 'deviation')).toBe(true);
  });
});
