/**
 * What the HUD's status line says: exactly one state of the room, read from the view. The first
 * that holds wins, in this order:
 *
 *   ended › reconnecting › lobby › paused › transcription failed (a few seconds) ›
 *   someone speaking › your turn (or an open floor) › transcription unavailable › mic muted › listening
 *
 * "Your turn" needs the floor to be yours and the room to be quiet: a persona whose audio still
 * plays, or whose reply is still streaming, is speaking, whatever the engine already expects; a
 * line whose speech has yet to start here is not your turn yet. A floor the policy merely offers (nobody asked) is an open floor: the
 * conversation goes on after a short silence, and the line says so.
 *
 * ```ts
 * const status = roomStatus(view, performance.now());
 * line.textContent = statusText(view, status);
 * ```
 */
import { nameOf, shortNameOf, yourTurnText, type RoomView } from './room';
import { awaitingSpeech } from './transcript';

export type RoomStatus =
  | { kind: 'ended' }
  /** The socket dropped (`closed`: reconnecting cannot help). */
  | { kind: 'reconnecting'; closed: boolean; detail: string | null }
  /** Names of the human seats taken and still empty. */
  | { kind: 'lobby'; present: string[]; missing: string[] }
  | { kind: 'paused'; reason: 'instructor' }
  /** The server cannot save the session now: it goes on once it can. */
  | { kind: 'paused'; reason: 'saving' }
  /** `seats`: whose (names), when the server said. */
  | { kind: 'paused'; reason: 'seat-empty'; seats: string[] }
  | { kind: 'transcription-failed'; message: string }
  | { kind: 'speaking'; speaker: string }
  /** `muted`: the server would hear this person, but their microphone is off. */
  | { kind: 'your-turn'; muted: boolean }
  /** The policy offered this person the floor, nobody asked them: the talk goes on after a short silence. */
  | { kind: 'open-floor' }
  /** The server has no transcriber (and the browser's recognition is off). */
  | { kind: 'transcription-unavailable' }
  | { kind: 'mic-muted' }
  /** Live and quiet, the microphone on; `you`: it hears you now. */
  | { kind: 'listening'; you: boolean };

export type StatusKind = RoomStatus['kind'];

/** How long a failed transcription stays on the status line before it falls back. */
export const TRANSCRIPTION_FAILED_MS = 6000;

/** Who is audible or about to be: a reply's speech playing here, a reply still streaming, another human talking. */
export const speakerNow = (view: RoomView): string | null => {
  for (const speech of Object.values(view.speech)) if (speech.state === 'audible' && speech.speaker) return speech.speaker;
  const streaming = view.transcript.findLast((l) => l.streaming);
  if (streaming) return streaming.speaker;
  const me = view.you?.participant ?? null;
  return view.talking.find((p) => p !== me) ?? null;
};

/** The room's state for this person at `now` (client clock, ms). */
export const roomStatus = (view: RoomView, now: number): RoomStatus => {
  if (view.status === 'ended') return { kind: 'ended' };
  if (view.connection.state === 'reconnecting' || view.connection.state === 'closed') {
    return { kind: 'reconnecting', closed: view.connection.state === 'closed', detail: view.connection.detail };
  }
  if (view.savingFailed) return { kind: 'paused', reason: 'saving' };
  const humans = view.snapshot?.participants.filter((p) => p.kind === 'human') ?? [];
  if (view.status === 'lobby') {
    // Whoever reads this on their seat's page is here, though the server's word of it may come a moment after its welcome.
    const mine = view.you?.role === 'participant' ? view.you.participant : null;
    const here = (p: (typeof humans)[number]) => p.present || p.id === mine;
    return { kind: 'lobby', present: humans.filter(here).map((p) => p.name), missing: humans.filter((p) => !here(p)).map((p) => p.name) };
  }
  if (view.status === 'paused') {
    const pausedFor = view.pausedFor;
    return pausedFor?.reason === 'seat-empty' ? { kind: 'paused', reason: 'seat-empty', seats: pausedFor.participants.map((id) => shortNameOf(view, id)) } : { kind: 'paused', reason: 'instructor' };
  }
  const failed = view.transcriptionFailed;
  if (failed && now - failed.at < TRANSCRIPTION_FAILED_MS) return { kind: 'transcription-failed', message: failed.message };
  const speaker = speakerNow(view);
  if (speaker) return { kind: 'speaking', speaker };
  const me = view.you?.role === 'participant' ? view.you.participant : null;
  if (me === null) return { kind: 'listening', you: false };
  // A question is not "your turn" before it is heard and shown: a line logged whose speech has not started here yet.
  const coming = view.transcript.some((l) => awaitingSpeech(view, l));
  if (view.waitingFor === me && !coming) return view.floorOpen ? { kind: 'open-floor' } : { kind: 'your-turn', muted: view.mic === 'off' && view.voice?.input === true };
  if (view.mic === 'browser') return { kind: 'listening', you: false };
  if (view.voice && !view.voice.input) return { kind: 'transcription-unavailable' };
  if (view.mic === 'off') return { kind: 'mic-muted' };
  return { kind: 'listening', you: view.talking.includes(me) };
};

const possessive = (name: string) => `${name}'s`;

/** The status line's words. */
export const statusText = (view: RoomView, status: RoomStatus): string => {
  switch (status.kind) {
    case 'ended':
      return view.endedBecause ? `The session has ended: ${view.endedBecause.charAt(0).toLowerCase()}${view.endedBecause.slice(1)}` : 'The session has ended';
    case 'reconnecting':
      return status.closed ? 'Disconnected: reload the page to rejoin' : `Reconnecting…${status.detail ? ` (${status.detail})` : ''}`;
    case 'lobby':
      return `Waiting for everyone to join: ${status.present.join(', ') || 'nobody yet'} / ${status.missing.length ? `waiting for ${status.missing.join(', ')}` : 'starting'}`;
    case 'paused':
      if (status.reason === 'instructor') return view.held.length ? 'Paused by the instructor: what you said is kept and will be said when the session resumes' : 'Paused by the instructor';
      if (status.reason === 'saving') return 'Paused: the server cannot save the session right now; it goes on by itself once it can';
      if (status.seats.length === 0) return "Paused: a participant's seat is empty";
      return `Paused: ${status.seats.map(possessive).join(' and ')} ${status.seats.length > 1 ? 'seats are' : 'seat is'} empty`;
    case 'transcription-failed':
      return 'Your speech could not be transcribed: say it again, or type it';
    case 'speaking':
      return `${nameOf(view, status.speaker)} speaking`;
    case 'your-turn':
      // Being asked with the mic off is when a trainee most needs to know it is off.
      return status.muted ? `${yourTurnText(view)} (mic muted: type, or turn the mic on)` : yourTurnText(view);
    case 'open-floor':
      return 'The floor is open: speak or type now if you like; otherwise the conversation goes on';
    case 'transcription-unavailable':
      return 'Transcription unavailable: type to speak';
    case 'mic-muted':
      return 'Mic muted: type, or turn the mic on';
    case 'listening':
      return status.you ? 'Listening to you' : view.you?.role === 'participant' ? 'Listening' : 'Live';
  }
};
