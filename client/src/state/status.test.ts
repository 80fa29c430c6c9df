import { beforeEach, describe, expect, it } from 'vitest';
import { reduceRoom, type LocalMessage, type RoomView } from './room';
import { audio, event, resetEvents, run, system, utterance, welcome } from './room.fixtures';
import { roomStatus, statusText, TRANSCRIPTION_FAILED_MS, type StatusKind } from './status';

beforeEach(resetEvents);

const micOn: LocalMessage = { type: 'mic', state: 'open' };
const yourTurn = () => event({ type: 'human-input-required', participant: 'alex', addressedBy: 'sofia', pair: 'question' });
/** Sofia's reply, its audio playing here. */
const sofiaSpeaking = (view: RoomView) =>
  [audio('g1', 'sofia', 0, [{ word: 'Tell', start: 0, end: 200 }]), { type: 'playback', draft: 'g1', state: 'audible' } as LocalMessage].reduce((v, m) => reduceRoom(v, m), view);

const kind = (view: RoomView, now = 0): StatusKind => roomStatus(view, now).kind;
const text = (view: RoomView, now = 0): string => statusText(view, roomStatus(view, now));

describe('the status line: each state', () => {
  it('lobby: who is here and who the session waits for', () => {
    const view = run(welcome({ snapshot: { status: 'lobby', phase: 'new' } }));
    expect(roomStatus(view, 0)).toEqual({ kind: 'lobby', present: ['Alex Kim'], missing: ['Mia Ross'] });
    expect(text(view)).toBe('Waiting for everyone to join: Alex Kim / waiting for Mia Ross');
    // Alex's own page, welcomed before the server counts Alex as here: Alex is here, not awaited.
    const early = run(welcome({ snapshot: { status: 'lobby', phase: 'new', participants: view.snapshot!.participants.map((p) => ({ ...p, present: false })) } }));
    expect(text(early)).toBe('Waiting for everyone to join: Alex Kim / waiting for Mia Ross');
    // The instructor's view counts only those the server counts.
    const watching = run(welcome({ role: 'observer', snapshot: { status: 'lobby', phase: 'new', participants: view.snapshot!.participants.map((p) => ({ ...p, present: false })) } }));
    expect(text(watching)).toBe('Waiting for everyone to join: nobody yet / waiting for Alex Kim, Mia Ross');
  });

  it('listening: live and quiet, the microphone on', () => {
    const view = run(welcome(), micOn);
    expect(text(view)).toBe('Listening');
    expect(text(reduceRoom(view, { type: 'speech', participant: 'alex', active: true }))).toBe('Listening to you');
  });

  it('your turn: the floor is yours and nobody speaks, with who asked what', () => {
    expect(text(run(welcome(), micOn, yourTurn()))).toBe('Sofia asked you a question: your turn');
    expect(kind(run(welcome({ snapshot: { waitingFor: 'alex' } }), micOn))).toBe('your-turn');
  });

  it('your turn: calls the asker by their short name, not a title ("Professor Margaret Osei" is "Margaret")', () => {
    const base = run(welcome());
    const participants = base.snapshot!.participants.map((p) => (p.id === 'sofia' ? { ...p, name: 'Professor Margaret Osei', shortName: 'Margaret' } : p));
    expect(text(run(welcome({ snapshot: { participants } }), micOn, yourTurn()))).toBe('Margaret asked you a question: your turn');
    // An older server's snapshot has no short names: the name's first word.
    expect(text(run(welcome(), micOn, yourTurn()))).toBe('Sofia asked you a question: your turn');
  });

  it('<persona> speaking: while their audio plays here', () => {
    const view = sofiaSpeaking(run(welcome(), { type: 'speakers', on: true }, micOn));
    expect(text(view)).toBe('Sofia Marin speaking');
  });

  it('<persona> speaking: while their reply streams', () => {
    expect(text(run(welcome(), micOn, { type: 'delta', speaker: 'sofia', draft: 'g1', text: 'Well' }))).toBe('Sofia Marin speaking');
  });

  it('<human> speaking: while another human talks', () => {
    expect(text(run(welcome(), micOn, { type: 'speech', participant: 'mia', active: true }))).toBe('Mia Ross speaking');
  });

  it('paused by the instructor, or for an empty seat (whose)', () => {
    expect(text(run(welcome(), system('paused')))).toBe('Paused by the instructor');
    expect(text(run(welcome(), system('seat-empty', 'mia'), system('paused')))).toBe("Paused: Mia's seat is empty");
    expect(text(run(welcome(), system('seat-empty'), system('paused')))).toBe("Paused: a participant's seat is empty");
    expect(text(run(welcome({ snapshot: { status: 'paused', paused: true, pausedFor: { reason: 'seat-empty', participants: ['mia', 'alex'] } } })))).toBe("Paused: Mia's and Alex's seats are empty");
  });

  it('paused while the server cannot save the session, until its held events arrive', () => {
    const failing = run(welcome(), micOn, { type: 'error', code: 'storage', message: 'Saving failed; the session is paused until storage recovers.' });
    expect(roomStatus(failing, 0)).toEqual({ kind: 'paused', reason: 'saving' });
    expect(text(failing)).toBe('Paused: the server cannot save the session right now; it goes on by itself once it can');
    // Another error meanwhile does not end it; the first event after recovery does.
    expect(kind(reduceRoom(failing, { type: 'error', code: 'rate-limited', message: 'slow down' }))).toBe('paused');
    expect(kind(reduceRoom(failing, system('saving-recovered')))).toBe('listening');
  });

  it('reconnecting: the socket dropped; disconnected when reconnecting cannot help', () => {
    expect(text(run(welcome(), { type: 'connection', state: 'reconnecting', detail: 'retrying in 2 s' }))).toBe('Reconnecting… (retrying in 2 s)');
    expect(text(run(welcome(), { type: 'connection', state: 'closed' }))).toBe('Disconnected: reload the page to rejoin');
  });

  it('ended', () => {
    // An older log's end, without who ended it.
    expect(text(run(welcome(), event({ type: 'end', reason: 'ended', turns: 4 })))).toBe('The session has ended');
    expect(kind(run(welcome({ snapshot: { status: 'ended', phase: 'ended' } })))).toBe('ended');
  });

  it('transcription unavailable: the server has no transcriber', () => {
    expect(text(run(welcome({ voice: { input: false, output: 'espeak' } }), micOn))).toBe('Transcription unavailable: type to speak');
    // The browser's own recognition listens instead.
    expect(kind(run(welcome({ voice: { input: false, output: 'espeak' } }), { type: 'mic', state: 'browser' }))).toBe('listening');
  });

  it('transcription failed: for a few seconds, then it falls back', () => {
    const view = run(welcome(), micOn, [system('transcription-failed', 'alex'), 1000]);
    expect(text(view, 1000)).toBe('Your speech could not be transcribed: say it again, or type it');
    expect(kind(view, 1000 + TRANSCRIPTION_FAILED_MS - 1)).toBe('transcription-failed');
    expect(kind(view, 1000 + TRANSCRIPTION_FAILED_MS)).toBe('listening');
    // Someone else's failure is not yours.
    expect(kind(run(welcome(), micOn, system('transcription-failed', 'mia')))).toBe('listening');
  });

  it('mic muted: live and quiet, the microphone off', () => {
    expect(text(run(welcome()))).toBe('Mic muted: type, or turn the mic on');
  });

  it('an instructor sees the room, never a turn or a microphone', () => {
    const view = run(welcome({ role: 'observer', snapshot: { waitingFor: 'alex' } }));
    expect(text(view)).toBe('Live');
    expect(kind(run(welcome({ role: 'observer', snapshot: { status: 'lobby' } })))).toBe('lobby');
  });
});

describe('the status line: which state wins', () => {
  it('never says "your turn" while a persona is still speaking or streaming', () => {
    const speaking = sofiaSpeaking(run(welcome(), { type: 'speakers', on: true }, micOn, yourTurn()));
    expect(kind(speaking)).toBe('speaking');
    expect(kind(reduceRoom(speaking, { type: 'playback', draft: 'g1', state: 'over' }))).toBe('your-turn');
    expect(kind(run(welcome(), micOn, yourTurn(), { type: 'delta', speaker: 'sofia', draft: 'g2', text: 'And' }))).toBe('speaking');
  });

  it('says your turn over a muted mic or a missing transcriber (typing is always there)', () => {
    expect(kind(run(welcome(), yourTurn()))).toBe('your-turn');
    expect(kind(run(welcome({ voice: { input: false, output: null } }), yourTurn()))).toBe('your-turn');
  });

  it('says so when it is your turn and the mic the server would hear is off', () => {
    expect(text(run(welcome(), yourTurn()))).toBe('Sofia asked you a question: your turn (mic muted: type, or turn the mic on)');
    expect(text(run(welcome(), micOn, yourTurn()))).toBe('Sofia asked you a question: your turn');
    // Without a transcriber the mic is not the way in: nothing to unmute.
    expect(text(run(welcome({ voice: { input: false, output: null } }), yourTurn()))).toBe('Sofia asked you a question: your turn');
  });

  it('puts a failed transcription above speaking and your turn, below a pause', () => {
    const failed = run(welcome(), { type: 'speakers', on: true }, micOn, yourTurn(), [system('transcription-failed', 'alex'), 0]);
    expect(kind(failed)).toBe('transcription-failed');
    expect(kind(sofiaSpeaking(failed))).toBe('transcription-failed');
    expect(kind(reduceRoom(failed, system('paused')))).toBe('paused');
  });

  it('puts a pause above anyone speaking, the lobby above anything said, a dropped connection above the lobby, the end above all', () => {
    const all = sofiaSpeaking(run(welcome(), { type: 'speakers', on: true }, micOn, yourTurn(), system('paused')));
    expect(kind(all)).toBe('paused');
    const lobby = sofiaSpeaking(run(welcome({ snapshot: { status: 'lobby' } }), { type: 'speakers', on: true }));
    expect(kind(lobby)).toBe('lobby');
    expect(kind(reduceRoom(lobby, system('session-started')))).toBe('speaking');
    const dropped = reduceRoom(lobby, { type: 'connection', state: 'reconnecting' });
    expect(kind(dropped)).toBe('reconnecting');
    expect(kind(reduceRoom(dropped, event({ type: 'end', reason: 'ended', turns: 1 })))).toBe('ended');
  });

  it('puts speaking above a missing transcriber and a muted mic', () => {
    expect(kind(run(welcome({ voice: { input: false, output: 'espeak' } }), { type: 'delta', speaker: 'sofia', draft: 'g1', text: 'So' }))).toBe('speaking');
    expect(kind(run(welcome(), { type: 'delta', speaker: 'sofia', draft: 'g1', text: 'So' }))).toBe('speaking');
  });
});

describe('the status line tells the truth about the floor (issue 25)', () => {
  const speakers: LocalMessage = { type: 'speakers', on: true };
  const voiced = welcome({ voice: { input: true, output: 'espeak' } });
  const question = () => utterance('u1', 'sofia', 'Alex, what drew you to this role?', { addressee: 'alex', pair: 'question', act: 'question', draft: 'g1' });

  it('"asked you a question: your turn" comes with the question, not while its speech is still to be heard', () => {
    // The question is logged and the floor is Alex's, but its audio has not started here yet.
    const queued = run(voiced, speakers, micOn, audio('g1', 'sofia', 0, [{ word: 'Alex', start: 0, end: 300 }]), question(), yourTurn());
    expect(kind(queued)).not.toBe('your-turn');
    const audible = reduceRoom(queued, { type: 'playback', draft: 'g1', state: 'audible' });
    expect(kind(audible)).toBe('speaking');
    const heard = reduceRoom(audible, { type: 'playback', draft: 'g1', state: 'over' });
    expect(text(heard)).toBe('Sofia asked you a question: your turn');
  });

  it('after an invitation, says why the floor is yours', () => {
    const invited = run(welcome(), micOn, event({ type: 'human-input-required', participant: 'alex', addressedBy: 'sofia', pair: 'invitation' }));
    expect(text(invited)).toBe('Your turn: Sofia invited you to respond');
    const opening = run(welcome(), micOn, event({ type: 'floor', speaker: 'alex', reason: 'initiator' }), event({ type: 'human-input-required', participant: 'alex', addressedBy: null, pair: 'none' }));
    expect(text(opening)).toBe('Your turn: you open this part');
  });

  it('an open floor (nobody asked) says the conversation goes on, and ends when it passes', () => {
    const offered = run(welcome(), micOn, event({ type: 'floor', speaker: 'alex', reason: 'round-robin' }), event({ type: 'human-input-required', participant: 'alex', addressedBy: null, pair: 'none', open: true }));
    expect(kind(offered)).toBe('open-floor');
    expect(text(offered)).toMatch(/^The floor is open: .*otherwise the conversation goes on$/);
    expect(kind(reduceRoom(offered, system('floor-passed', 'alex')))).toBe('listening');
  });

  it('paused: a line said meanwhile is kept, and the line says so until it is said', () => {
    const held = run(welcome(), micOn, system('paused'), event({ type: 'system', level: 'info', code: 'line-held', message: 'The session is paused: "I have a question" is kept and will be said when it resumes.', participant: 'alex', audience: { seat: 'alex' } }));
    expect(held.held).toEqual(['I have a question']);
    expect(text(held)).toBe('Paused by the instructor: what you said is kept and will be said when the session resumes');
    const said = run(welcome(), micOn, system('paused'), event({ type: 'system', level: 'info', code: 'line-held', message: 'The session is paused: "I have a question" is kept and will be said when it resumes.', participant: 'alex' }), system('resumed'), utterance('u9', 'alex', 'I have a question'));
    expect(said.held).toEqual([]);
  });

  it('ended: who ended it and why', () => {
    expect(text(run(welcome(), event({ type: 'end', reason: 'ended', turns: 4, by: 'instructor' })))).toBe('The session has ended: ended by the instructor');
    expect(text(run(welcome(), event({ type: 'end', reason: 'snippets-done', turns: 30 })))).toBe('The session has ended: all parts of the scene are done');
    expect(text(run(welcome(), event({ type: 'end', reason: 'max-turns', turns: 30 })))).toMatch(/^The session has ended: time is up/);
  });
});
