/**
 * The client's view of a session, folded from the server's messages: who is in the room and
 * where attention is (the floor, the addressee, hands, who is audibly speaking), the transcript
 * with replies still streaming, what an instructor must decide, and counters the avatars react to
 * (a nod per backchannel, a cut per interruption). Pure: the same messages give the same view.
 *
 * ```ts
 * let view = emptyRoom();
 * socket.onmessage = (m) => (view = reduceRoom(view, ServerMessage.parse(JSON.parse(m.data))));
 * view.floor; // { speaker: 'nora', addressee: 'omar' }
 * ```
 */
import type { Role } from '../../../server/auth/claims';
import type { EventOf, SessionEvent } from '../../../server/engine/events';
import type { ServerMessage, Snapshot, VoiceOffer } from '../../../server/protocol/messages';

export interface Line {
  /** The utterance id, or `draft:<id>` while a reply is still streaming. */
  id: string;
  speaker: string;
  addressee: string | null;
  text: string;
  /** Still being generated. */
  streaming: boolean;
  interrupted: boolean;
  /** The generation request it answers (audio and deltas name it). */
  draft: string | null;
  t: number;
}

export interface Notice {
  seq: number;
  level: EventOf<'system'>['level'];
  code: string;
  message: string;
}

export interface RoomView {
  connected: boolean;
  you: { participant: string | null; role: Role } | null;
  voice: VoiceOffer | null;
  snapshot: Snapshot | null;
  lastSeq: number;
  transcript: Line[];
  /** Who holds the floor now (the last speaker, or the one being generated) and whom they address. */
  floor: { speaker: string | null; addressee: string | null };
  /** The human the room is waiting for (your turn, when it is you). */
  waitingFor: string | null;
  /** Who put the question (or request, greeting…) the room waits for that human to answer. */
  waitingOn: { from: string; pair: string } | null;
  hands: string[];
  snippet: string | null;
  impromptu: string | null;
  paused: boolean;
  ended: boolean;
  /** Open human-control proposal (observers). */
  proposal: Snapshot['proposal'];
  /** Humans whose microphone is active now (the server's VAD). */
  talking: string[];
  /** Increments per participant: a backchannel nod, an interruption that cut them. */
  nods: Record<string, number>;
  cuts: Record<string, number>;
  notices: Notice[];
  /** The last typed error from the server (bad message, voice off…). */
  error: { code: string; message: string } | null;
}

export const emptyRoom = (): RoomView => ({
  connected: false,
  you: null,
  voice: null,
  snapshot: null,
  lastSeq: 0,
  transcript: [],
  floor: { speaker: null, addressee: null },
  waitingFor: null,
  waitingOn: null,
  hands: [],
  snippet: null,
  impromptu: null,
  paused: false,
  ended: false,
  proposal: null,
  talking: [],
  nods: {},
  cuts: {},
  notices: [],
  error: null,
});

const MAX_LINES = 400;
const MAX_NOTICES = 50;

export const reduceRoom = (view: RoomView, message: ServerMessage): RoomView => {
  switch (message.type) {
    case 'welcome': {
      const s = message.snapshot;
      // A reconnect resumes after the last event seen; a fresh join starts over.
      const fresh = message.resumedFrom === 0;
      return {
        ...(fresh ? emptyRoom() : view),
        connected: true,
        you: message.you,
        voice: message.voice,
        snapshot: s,
        lastSeq: fresh ? 0 : view.lastSeq,
        waitingFor: s.waitingFor,
        waitingOn: s.waitingFor === view.waitingFor ? view.waitingOn : null,
        hands: s.hands,
        snippet: s.snippet,
        paused: s.paused,
        ended: s.phase === 'ended',
        proposal: s.proposal,
        floor: fresh ? { speaker: s.expected, addressee: null } : view.floor,
      };
    }
    case 'event':
      return onEvent(view, message.event);
    case 'delta': {
      const id = `draft:${message.draft}`;
      const at = view.transcript.findIndex((l) => l.id === id);
      if (at >= 0) {
        const line = view.transcript[at]!;
        const transcript = view.transcript.slice();
        transcript[at] = { ...line, text: line.text + message.text };
        return { ...view, transcript };
      }
      const line: Line = { id, speaker: message.speaker, addressee: null, text: message.text, streaming: true, interrupted: false, draft: message.draft, t: 0 };
      return { ...view, transcript: [...view.transcript, line].slice(-MAX_LINES), floor: { speaker: message.speaker, addressee: null } };
    }
    case 'speech': {
      const talking = view.talking.filter((p) => p !== message.participant);
      return { ...view, talking: message.active ? [...talking, message.participant] : talking };
    }
    case 'error':
      return { ...view, error: { code: message.code, message: message.message } };
    case 'audio':
    case 'audio-stop':
    case 'voice':
    case 'pong':
      return view;
  }
};

const bump = (counts: Record<string, number>, who: string): Record<string, number> => ({ ...counts, [who]: (counts[who] ?? 0) + 1 });

const setPresence = (view: RoomView, participant: string, present: boolean): RoomView => {
  if (!view.snapshot) return view;
  const participants = view.snapshot.participants.map((p) => (p.id === participant ? { ...p, present } : p));
  return { ...view, snapshot: { ...view.snapshot, participants } };
};

const onEvent = (previous: RoomView, event: SessionEvent): RoomView => {
  if (event.seq <= previous.lastSeq) return previous; // never twice
  const view = { ...previous, lastSeq: event.seq };
  switch (event.type) {
    case 'utterance': {
      // The streamed draft becomes the logged line (its text may differ: cut, resampled).
      const line: Line = {
        id: event.id,
        speaker: event.speaker,
        addressee: event.addressee,
        text: event.text,
        streaming: false,
        interrupted: event.interrupted ?? false,
        draft: event.draft ?? null,
        t: event.t,
      };
      const transcript = view.transcript.filter((l) => !(l.streaming && (l.draft === event.draft || l.speaker === event.speaker)));
      return {
        ...view,
        transcript: [...transcript, line].slice(-MAX_LINES),
        floor: { speaker: event.speaker, addressee: event.addressee },
        waitingFor: view.waitingFor === event.speaker ? null : view.waitingFor,
        waitingOn: view.waitingFor === event.speaker ? null : view.waitingOn,
      };
    }
    case 'floor':
      return { ...view, floor: { speaker: event.speaker, addressee: null } };
    case 'human-input-required':
      return { ...view, waitingFor: event.participant, waitingOn: event.addressedBy ? { from: event.addressedBy, pair: event.pair } : null };
    case 'backchannel':
      return event.kind === 'nod' || event.kind === 'verbal' ? { ...view, nods: bump(view.nods, event.participant) } : view;
    case 'interruption':
      return { ...view, cuts: bump(view.cuts, event.of) };
    case 'hand-raise':
      return { ...view, hands: event.queue };
    case 'snippet-start':
      return { ...view, snippet: event.snippet };
    case 'impromptu-start':
      return { ...view, impromptu: event.participant };
    case 'impromptu-end':
      return { ...view, impromptu: null };
    case 'approval-needed':
      return {
        ...view,
        proposal: { id: event.proposal, participant: event.participant, intent: event.intent, text: event.text, candidates: event.candidates ?? [{ intent: event.intent, text: event.text }] },
      };
    case 'approval-resolved':
      return view.proposal?.id === event.proposal ? { ...view, proposal: null } : view;
    case 'system': {
      let next: RoomView = { ...view, notices: [...view.notices, { seq: event.seq, level: event.level, code: event.code, message: event.message }].slice(-MAX_NOTICES) };
      if (event.code === 'paused') next = { ...next, paused: true };
      if (event.code === 'resumed') next = { ...next, paused: false };
      if ((event.code === 'joined' || event.code === 'left') && event.participant) next = setPresence(next, event.participant, event.code === 'joined');
      return next;
    }
    case 'end':
      return { ...view, ended: true, floor: { speaker: null, addressee: null }, waitingFor: null, waitingOn: null };
    case 'session-start':
      return view;
  }
};

/** The participant's display name, or the id when unknown. */
export const nameOf = (view: RoomView, id: string | null): string => (id ? (view.snapshot?.participants.find((p) => p.id === id)?.name ?? id) : '');

const waitedFor: Record<string, string> = {
  question: 'asked you a question',
  request: 'asked you for something',
  offer: 'made you an offer',
  greeting: 'greeted you',
  invitation: 'invited you to speak',
};

/** The HUD's turn line when the floor is yours: who is waiting on you, and for what. */
export const yourTurnText = (view: RoomView): string => {
  const on = view.waitingOn;
  const what = on ? waitedFor[on.pair] : undefined;
  return on && what ? `${nameOf(view, on.from).split(/\s+/)[0]} ${what}: your turn` : 'Your turn';
};
