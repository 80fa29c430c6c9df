import { beforeEach, describe, expect, it } from 'vitest';
import { emptyRoom, reduceRoom, yourTurnText } from './room';
import { audio, event, resetEvents, run, system, utterance, welcome } from './room.fixtures';

beforeEach(resetEvents);

describe('the client view of a room', () => {
  it('streams a reply as a draft line, then replaces it with the logged utterance', () => {
    const streaming = run(welcome(), { type: 'delta', speaker: 'sofia', draft: 'g1', text: 'Hello ' }, { type: 'delta', speaker: 'sofia', draft: 'g1', text: 'Alex,' });
    expect(streaming.transcript).toEqual([expect.objectContaining({ id: 'draft:g1', speaker: 'sofia', text: 'Hello Alex,', streaming: true, audio: 'g1' })]);
    expect(streaming.floor.speaker).toBe('sofia');
    const done = reduceRoom(streaming, utterance('u2', 'sofia', 'Hello Alex, tell me about you?', { addressee: 'alex', pair: 'question', act: 'question', draft: 'g1' }));
    expect(done.transcript).toEqual([expect.objectContaining({ id: 'u2', streaming: false, addressee: 'alex', audio: 'g1', source: 'ai' })]);
    expect(done.floor).toEqual({ speaker: 'sofia', addressee: 'alex' });
  });

  it('applies each event once, even when a reconnect replays it', () => {
    const first = event({ type: 'backchannel', participant: 'sofia', to: 'alex', utterance: 'u1', kind: 'nod' });
    const view = run(welcome(), first, welcome({ resumedFrom: 1 }), first);
    expect(view.nods).toEqual({ sofia: 1 });
    expect(view.lastSeq).toBe(1);
  });

  it('counts an event that is not for this viewer (a seq marker) without showing anything', () => {
    const first = event({ type: 'backchannel', participant: 'sofia', to: 'alex', utterance: 'u1', kind: 'nod' });
    const view = run(welcome(), first, { type: 'seq', seq: 2 });
    expect(view.lastSeq).toBe(2);
    expect(view.transcript).toEqual(run(welcome(), first).transcript);
    // A marker for an event already counted changes nothing.
    expect(reduceRoom(view, { type: 'seq', seq: 1 })).toBe(view);
  });

  it('tracks turns, hands, cuts, proposals, presence and talking', () => {
    const view = run(
      welcome(),
      event({ type: 'human-input-required', participant: 'alex', addressedBy: 'sofia', pair: 'question' }),
      event({ type: 'hand-raise', participant: 'mia', action: 'raise', queue: ['mia'] }),
      event({ type: 'interruption', by: 'alex', of: 'sofia', utterance: 'u3', vibe: 'barge-in', atWord: 3, atMs: 900 }),
      event({ type: 'approval-needed', proposal: 'p1', participant: 'mia', intent: 'question', text: 'Can I ask?' }),
      system('joined', 'mia'),
      { type: 'speech', participant: 'alex', active: true },
    );
    expect(view.waitingFor).toBe('alex');
    expect(view.waitingOn).toEqual({ from: 'sofia', pair: 'question' });
    expect(yourTurnText(view)).toBe('Sofia asked you a question: your turn');
    expect(yourTurnText({ ...view, waitingOn: null })).toBe('Your turn');
    expect(view.hands).toEqual(['mia']);
    expect(view.cuts).toEqual({ sofia: 1 });
    expect(view.proposal).toMatchObject({ id: 'p1', intent: 'question', deadline: null });
    expect(view.snapshot!.participants.find((p) => p.id === 'mia')!.present).toBe(true);
    expect(view.talking).toEqual(['alex']);
    const resolved = reduceRoom(view, event({ type: 'approval-resolved', proposal: 'p1', decision: 'approve' }));
    expect(resolved.proposal).toBeNull();
  });

  it("counts a proposal's time limit from when it arrived", () => {
    const view = run(welcome({ role: 'observer' }), [event({ type: 'approval-needed', proposal: 'p1', participant: 'mia', intent: 'question', text: 'Can I ask?', timeoutMs: 20_000 }), 5000]);
    expect(view.proposal?.deadline).toBe(25_000);
  });
});

describe("the session's lifecycle", () => {
  it('takes the status and the reason for a pause from the snapshot', () => {
    expect(run(welcome({ snapshot: { status: 'lobby', phase: 'new' } })).status).toBe('lobby');
    const paused = run(welcome({ snapshot: { status: 'paused', paused: true, pausedFor: { reason: 'seat-empty', participants: ['mia'] } } }));
    expect(paused).toMatchObject({ status: 'paused', pausedFor: { reason: 'seat-empty', participants: ['mia'] } });
  });

  it('follows the events without a new snapshot: started, paused, resumed, ended', () => {
    const lobby = run(welcome({ snapshot: { status: 'lobby', phase: 'new' } }));
    const live = reduceRoom(lobby, system('session-started'));
    expect(live.status).toBe('live');
    const paused = reduceRoom(live, system('paused'));
    expect(paused).toMatchObject({ status: 'paused', pausedFor: { reason: 'instructor', participants: [] } });
    const resumed = reduceRoom(paused, system('resumed'));
    expect(resumed).toMatchObject({ status: 'live', pausedFor: null });
    const ended = reduceRoom(resumed, event({ type: 'end', reason: 'ended', turns: 3 }));
    expect(ended.status).toBe('ended');
    expect(reduceRoom(ended, system('resumed')).status).toBe('ended');
  });

  it('pauses for an empty seat, and is no longer waiting for it once its human is back or stood in for', () => {
    const joined = run(welcome(), system('joined', 'mia'));
    // The server says whose seat emptied, then pauses.
    const empty = reduceRoom(reduceRoom(joined, system('seat-empty', 'mia')), system('paused'));
    expect(empty).toMatchObject({ status: 'paused', pausedFor: { reason: 'seat-empty', participants: ['mia'] } });
    const back = reduceRoom(empty, system('seat-back', 'mia'));
    expect(back.pausedFor).toEqual({ reason: 'seat-empty', participants: [] });
    expect(reduceRoom(back, system('resumed'))).toMatchObject({ status: 'live', pausedFor: null });

    const stoodIn = reduceRoom(empty, system('stand-in', 'mia'));
    expect(stoodIn.pausedFor!.participants).toEqual([]);
    expect(stoodIn.standIns).toEqual(['mia']);
    expect(reduceRoom(stoodIn, system('joined', 'mia')).standIns).toEqual([]);
  });

  it('marks the connection dropped and back', () => {
    const open = run(welcome());
    expect(open.connection.state).toBe('open');
    const dropped = reduceRoom(open, { type: 'connection', state: 'reconnecting', detail: 'retrying in 1 s' });
    expect(dropped).toMatchObject({ connected: false, connection: { state: 'reconnecting', detail: 'retrying in 1 s' } });
    expect(reduceRoom(dropped, { type: 'connection', state: 'open' })).toMatchObject({ connected: true, connection: { state: 'open' } });
    // Before the first welcome an open socket is not yet a joined room.
    expect(reduceRoom(emptyRoom(), { type: 'connection', state: 'open' }).connected).toBe(false);
  });

  it("remembers a failed transcription of your speech, and forgets it once you are heard", () => {
    const failed = run(welcome(), [system('transcription-failed', 'alex'), 1234]);
    expect(failed.transcriptionFailed).toEqual({ at: 1234, message: 'transcription-failed' });
    expect(run(welcome(), system('transcription-failed', 'mia')).transcriptionFailed).toBeNull();
    expect(reduceRoom(failed, utterance('u1', 'alex', 'As I was saying')).transcriptionFailed).toBeNull();
  });
});

describe('slides', () => {
  it('shows the slide the snapshot names, then follows every slide change for everyone', () => {
    const joined = run(welcome({ snapshot: { slides: { deck: 2 } } }));
    expect(joined.slides).toEqual({ deck: 2 });
    const moved = reduceRoom(joined, event({ type: 'slide', content: 'deck', index: 3, by: 'mia' }));
    expect(moved.slides).toEqual({ deck: 3 });
    expect(reduceRoom(moved, event({ type: 'slide', content: 'notes', index: 1, by: null })).slides).toEqual({ deck: 3, notes: 1 });
  });

  it('starts every deck on its first slide when the snapshot names none', () => {
    expect(run(welcome()).slides).toEqual({});
  });
});

describe('speech', () => {
  it("collects a reply's word timings and follows what this client reports of its playback", () => {
    const view = run(
      welcome(),
      { type: 'speakers', on: true },
      audio('g1', 'sofia', 0, [{ word: 'Hello', start: 0, end: 300 }]),
      audio('g1', 'sofia', 1, [{ word: 'Alex', start: 300, end: 700 }]),
    );
    expect(view.speech.g1).toEqual({ speaker: 'sofia', words: [expect.objectContaining({ word: 'Hello' }), expect.objectContaining({ word: 'Alex' })], state: 'queued' });
    expect(reduceRoom(view, { type: 'playback', draft: 'g1', state: 'audible' }).speech.g1!.state).toBe('audible');
  });

  it('takes up a reply again when more of it arrives after it fell silent', () => {
    const fellSilent = run(welcome(), { type: 'speakers', on: true }, audio('g1', 'sofia', 0, [{ word: 'Hello', start: 0, end: 300 }]), { type: 'playback', draft: 'g1', state: 'over' });
    expect(fellSilent.speech.g1!.state).toBe('over');
    expect(reduceRoom(fellSilent, audio('g1', 'sofia', 1, [{ word: 'Alex', start: 300, end: 700 }])).speech.g1!.state).toBe('queued');
  });

  it('withdraws a rejected reply with its speech', () => {
    const view = run(welcome(), { type: 'delta', speaker: 'sofia', draft: 'g1', text: 'As I said' }, { type: 'audio-stop', speaker: 'sofia', draft: 'g1', atMs: 0, reason: 'rejected' });
    expect(view.transcript).toEqual([]);
  });

  it('keeps lines logged before this client joined as heard', () => {
    const view = run(welcome({ snapshot: { lastSeq: 1 } }), { type: 'speakers', on: true }, utterance('u1', 'sofia', 'Welcome, everyone'));
    expect(view.transcript[0]!.heard).toBe(true);
  });
});

describe("the instructor's view of the turn", () => {
  it('says why the floor went where it did, and how far the snippet has come', () => {
    const view = run(
      welcome({ role: 'observer' }),
      event({ type: 'snippet-start', snippet: 'intro', title: 'Introductions', turns: 4, initiator: 'sofia' }),
      event({ type: 'floor', speaker: 'sofia', reason: 'designated' }),
      utterance('u1', 'sofia', 'Alex, tell us about yourself.'),
    );
    expect(view.floor.speaker).toBe('sofia');
    expect(view.floorReason).toBe('designated');
    expect(view.progress).toEqual({ title: 'Introductions', turns: 4, done: 1 });
    expect(reduceRoom(view, event({ type: 'snippet-start', snippet: 'next', title: 'Track record', turns: 6, initiator: 'sofia' })).progress).toEqual({ title: 'Track record', turns: 6, done: 0 });
  });

  it('keeps the session clock from the last event', () => {
    const view = run(welcome({ role: 'observer' }), [event({ type: 'floor', speaker: 'sofia', reason: 'initiator' }), 5000]);
    expect(view.clock).toEqual({ t: 100, at: 5000 });
  });

  it('follows the seats the instructor takes over and hands back', () => {
    const taken = run(welcome({ role: 'observer', snapshot: { controlled: ['mia'] } }), system('take-over', 'sofia'));
    expect(taken.controlled).toEqual(['mia', 'sofia']);
    expect(reduceRoom(taken, system('hand-back', 'mia')).controlled).toEqual(['sofia']);
  });
});
