import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../server/engine/events';
import type { ServerMessage, Snapshot } from '../../../server/protocol/messages';
import { emptyRoom, reduceRoom, yourTurnText, type RoomView } from './room';

const snapshot: Snapshot = {
  session: 's1',
  scene: { id: 'job-interview', title: 'Interview', topic: 'a job', formation: 'panel', contents: [], moderated: false },
  participants: [
    { id: 'alex', name: 'Alex', kind: 'human', role: 'candidate', present: true, avatar: 'avatar-04' },
    { id: 'sofia', name: 'Sofia', kind: 'ai', role: null, present: false, avatar: 'avatar-07' },
    { id: 'mia', name: 'Mia', kind: 'human', role: null, present: false, avatar: 'avatar-06' },
  ],
  phase: 'running',
  paused: false,
  turns: 0,
  snippet: 'intro',
  expected: 'sofia',
  waitingFor: null,
  hands: [],
  proposal: null,
  lastSeq: 0,
};

const welcome = (resumedFrom = 0): ServerMessage => ({ type: 'welcome', protocol: 1, you: { participant: 'alex', role: 'participant' }, resumedFrom, snapshot, voice: { input: false, output: 'espeak' } });
let seq = 0;
const event = (e: Record<string, unknown>): ServerMessage => ({ type: 'event', event: { seq: ++seq, t: seq * 100, ...e } as SessionEvent });
const run = (...messages: ServerMessage[]): RoomView => messages.reduce(reduceRoom, emptyRoom());

describe('the client view of a room', () => {
  it('streams a reply as a draft line, then replaces it with the logged utterance', () => {
    seq = 0;
    const streaming = run(welcome(), { type: 'delta', speaker: 'sofia', draft: 'g1', text: 'Hello ' }, { type: 'delta', speaker: 'sofia', draft: 'g1', text: 'Alex,' });
    expect(streaming.transcript).toEqual([expect.objectContaining({ id: 'draft:g1', speaker: 'sofia', text: 'Hello Alex,', streaming: true })]);
    expect(streaming.floor.speaker).toBe('sofia');
    const done = reduceRoom(streaming, event({ type: 'utterance', id: 'u2', speaker: 'sofia', text: 'Hello Alex, tell me about you?', addressee: 'alex', pair: 'question', act: 'question', snippet: 'intro', source: 'ai', durationMs: 2000, draft: 'g1' }));
    expect(done.transcript).toEqual([expect.objectContaining({ id: 'u2', streaming: false, addressee: 'alex' })]);
    expect(done.floor).toEqual({ speaker: 'sofia', addressee: 'alex' });
  });

  it('applies each event once, even when a reconnect replays it', () => {
    seq = 0;
    const first = event({ type: 'backchannel', participant: 'sofia', to: 'alex', utterance: 'u1', kind: 'nod' });
    const view = run(welcome(), first, welcome(1), first);
    expect(view.nods).toEqual({ sofia: 1 });
    expect(view.lastSeq).toBe(1);
  });

  it('tracks turns, hands, cuts, proposals, presence, pauses and the end', () => {
    seq = 0;
    const view = run(
      welcome(),
      event({ type: 'human-input-required', participant: 'alex', addressedBy: 'sofia', pair: 'question' }),
      event({ type: 'hand-raise', participant: 'mia', action: 'raise', queue: ['mia'] }),
      event({ type: 'interruption', by: 'alex', of: 'sofia', utterance: 'u3', vibe: 'barge-in', atWord: 3, atMs: 900 }),
      event({ type: 'approval-needed', proposal: 'p1', participant: 'mia', intent: 'question', text: 'Can I ask?' }),
      event({ type: 'system', level: 'info', code: 'joined', message: 'Mia joined the room', participant: 'mia' }),
      event({ type: 'system', level: 'info', code: 'paused', message: 'paused' }),
      { type: 'speech', participant: 'alex', active: true },
    );
    expect(view.waitingFor).toBe('alex');
    expect(view.waitingOn).toEqual({ from: 'sofia', pair: 'question' });
    expect(yourTurnText(view)).toMatch(/^\S+ asked you a question: your turn$/);
    expect(yourTurnText({ ...view, waitingOn: null })).toBe('Your turn');
    expect(view.hands).toEqual(['mia']);
    expect(view.cuts).toEqual({ sofia: 1 });
    expect(view.proposal).toMatchObject({ id: 'p1', intent: 'question' });
    expect(view.snapshot!.participants.find((p) => p.id === 'mia')!.present).toBe(true);
    expect(view.paused).toBe(true);
    expect(view.talking).toEqual(['alex']);
    const resolved = reduceRoom(view, event({ type: 'approval-resolved', proposal: 'p1', decision: 'approve' }));
    expect(resolved.proposal).toBeNull();
    const ended = reduceRoom(resolved, event({ type: 'end', reason: 'ended', turns: 3 }));
    expect(ended.ended).toBe(true);
  });
});
