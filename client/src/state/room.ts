/**
 * The client's view of a session, folded from the server's messages and from this client's own
 * (its connection, what its speakers play, its microphone): who is in the room and where attention
 * is (the floor, the addressee, hands, who is audibly speaking), the session's lifecycle (lobby,
 * live, paused and why, ended), the transcript with the speech of each line, what an instructor
 * must decide, and counters the avatars react to (a nod per backchannel, a cut per interruption).
 * Pure: the same messages at the same times give the same view.
 *
 * ```ts
 * let view = emptyRoom();
 * socket.onmessage = (m) => (view = reduceRoom(view, ServerMessage.parse(JSON.parse(m.data)), performance.now()));
 * view.status; // 'lobby' | 'live' | 'paused' | 'ended'
 * view.floor; // { speaker: 'nora', addressee: 'omar' }
 * ```
 *
 * What the HUD says follows from the view (state/status.ts), and so does which lines are shown
 * and how much of each (state/transcript.ts).
 */
import type { Role } from '../../../shared/claims';
import { endedBecause, type EventOf, type SessionEvent } from '../../../shared/events';
import type { ServerMessage, SessionStatus, Snapshot, VoiceOffer } from '../../../shared/protocol/messages';

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
  /** The draft its speech comes under: the generation request, or (a line written without one) the utterance id. */
  audio: string;
  /** Who wrote it: a human's own words are never waited for, everyone else's are spoken first. */
  source: EventOf<'utterance'>['source'] | 'streaming';
  /** Its speech has started here, or never will (logged before this client joined, not played here). */
  heard: boolean;
  t: number;
}

/** A reply's speech as this client plays it. */
export interface Speech {
  speaker: string;
  /** The words so far, in ms from the start of the draft's speech. */
  words: { word: string; start: number; end: number }[];
  /** `queued`: pieces arrived, not heard yet; `over`: heard to its end, stopped, or never to be heard here. */
  state: 'queued' | 'audible' | 'over';
}

export interface Notice {
  seq: number;
  level: EventOf<'system'>['level'];
  code: string;
  message: string;
}

/** The socket: `connecting` before the first welcome; `closed` when reconnecting cannot help. */
export type Connection = 'connecting' | 'open' | 'reconnecting' | 'closed';

/** This person's microphone: off, on (open or push-to-talk, transcribed by the server), or the browser's own speech recognition. */
export type MicState = 'off' | 'open' | 'push-to-talk' | 'browser';

/** What this client's shell reports: its connection, what its speakers play, its microphone. */
export type LocalMessage =
  | { type: 'connection'; state: Connection; detail?: string }
  /** This client plays the room's speech (it has an audio output). */
  | { type: 'speakers'; on: boolean }
  | { type: 'playback'; draft: string; state: 'audible' | 'over' }
  | { type: 'mic'; state: MicState };

export type Proposal = NonNullable<Snapshot['proposal']> & {
  /** When the scene's default decides it, on the client's clock (ms); null: it waits for the instructor. */
  deadline: number | null;
};

export interface RoomView {
  /** Welcomed, on an open socket. */
  connected: boolean;
  connection: { state: Connection; detail: string | null };
  you: { participant: string | null; role: Role } | null;
  voice: VoiceOffer | null;
  snapshot: Snapshot | null;
  lastSeq: number;
  /** The session's lifecycle, from the snapshot and then from events. */
  status: SessionStatus;
  pausedFor: Snapshot['pausedFor'];
  transcript: Line[];
  /** Each reply's speech, by draft. */
  speech: Record<string, Speech>;
  /** This client plays the room's speech: lines wait for their audio. */
  speakers: boolean;
  mic: MicState;
  /** Who holds the floor now (the last speaker, or the one being generated) and whom they address. */
  floor: { speaker: string | null; addressee: string | null };
  /** The human the room is waiting for (your turn, when it is you). */
  waitingFor: string | null;
  /** Who put the question (or request, greeting…) the room waits for that human to answer. */
  waitingOn: { from: string; pair: string } | null;
  /** The floor was offered by the policy, nobody asked: the room waits only a short silence for them. */
  floorOpen: boolean;
  /** Your lines said during a pause, kept until the session resumes. */
  held: string[];
  /** Why the session ended, in words for everyone ("Ended by the instructor"); null while it runs. */
  endedBecause: string | null;
  hands: string[];
  snippet: string | null;
  /** The current snippet's title, its turn budget and the turns taken in it so far. */
  progress: { title: string; turns: number; done: number } | null;
  /** Why the floor went to whoever holds it: the engine's reason (designated, self-selected, round-robin…). */
  floorReason: EventOf<'floor'>['reason'] | null;
  /** Observers: the seats the instructor speaks for. */
  controlled: string[];
  /** The session clock: the last event's time (ms since the start) and when it arrived here (client clock). */
  clock: { t: number; at: number } | null;
  impromptu: string | null;
  /** The slide each slide deck shows now (from 0), by content id; a deck not listed shows its first. */
  slides: Record<string, number>;
  /** Open human-control proposal (observers). */
  proposal: Proposal | null;
  /** Human seats the instructor handed to the simulation (until their human is back). */
  standIns: string[];
  /** Humans whose microphone is active now (the server's VAD). */
  talking: string[];
  /** Your speech could not be transcribed: when (client clock, ms), and the server's words. */
  transcriptionFailed: { at: number; message: string } | null;
  /**
   * Whom each headset wearer's head pointed at last (their `gaze` events, which only instructors
   * and the review read), by participant; null: at nobody. The replay turns their avatar's head so.
   */
  gazes: Record<string, string | null>;
  /** Increments per participant: a backchannel nod, an interruption that cut them. */
  nods: Record<string, number>;
  cuts: Record<string, number>;
  notices: Notice[];
  /** The last typed error from the server (bad message, voice off…). */
  error: { code: string; message: string } | null;
  /**
   * The server cannot save the session's events (error `storage`): it is paused until it can. Its
   * events, held meanwhile, arrive once saving works again, and with the first of them this ends.
   */
  savingFailed: boolean;
}

export const emptyRoom = (): RoomView => ({
  connected: false,
  connection: { state: 'connecting', detail: null },
  you: null,
  voice: null,
  snapshot: null,
  lastSeq: 0,
  status: 'lobby',
  pausedFor: null,
  transcript: [],
  speech: {},
  speakers: false,
  mic: 'off',
  floor: { speaker: null, addressee: null },
  waitingFor: null,
  waitingOn: null,
  floorOpen: false,
  held: [],
  endedBecause: null,
  hands: [],
  snippet: null,
  progress: null,
  floorReason: null,
  controlled: [],
  clock: null,
  impromptu: null,
  slides: {},
  proposal: null,
  standIns: [],
  talking: [],
  transcriptionFailed: null,
  gazes: {},
  nods: {},
  cuts: {},
  notices: [],
  error: null,
  savingFailed: false,
});

const MAX_LINES = 400;
const MAX_NOTICES = 50;
/** Speech remembered per draft; the oldest finished ones are forgotten beyond this. */
const MAX_SPEECH = 64;

/**
 * The view after `message`. `now` is the client's clock when it arrived (ms, e.g.
 * `performance.now()`), for what shows for a while: a failed transcription, a proposal's countdown.
 */
export const reduceRoom = (view: RoomView, message: ServerMessage | LocalMessage, now = 0): RoomView => {
  switch (message.type) {
    case 'welcome': {
      const s = message.snapshot;
      // A reconnect resumes after the last event seen; a fresh join starts over (this client's own state stays).
      const fresh = message.resumedFrom === 0;
      const base = fresh ? { ...emptyRoom(), speakers: view.speakers, mic: view.mic } : view;
      return {
        ...base,
        connected: true,
        connection: { state: 'open', detail: null },
        // Still failing, the server says so right after the welcome.
        savingFailed: false,
        you: message.you,
        voice: message.voice,
        snapshot: s,
        lastSeq: fresh ? 0 : view.lastSeq,
        status: s.status,
        pausedFor: s.pausedFor,
        waitingFor: s.waitingFor,
        waitingOn: s.waitingFor === view.waitingFor ? view.waitingOn : null,
        floorOpen: s.waitingFor === view.waitingFor ? view.floorOpen : false,
        hands: s.hands,
        snippet: s.snippet,
        controlled: s.controlled ?? [],
        slides: s.slides ?? {},
        proposal: s.proposal ? { ...s.proposal, deadline: view.proposal?.id === s.proposal.id ? view.proposal.deadline : null } : null,
        floor: fresh ? { speaker: s.expected, addressee: null } : view.floor,
      };
    }
    case 'event':
      return onEvent(view.savingFailed ? { ...view, savingFailed: false } : view, message.event, now);
    case 'seq':
      // An event not for this viewer went by (on a stream the whole room shares): counted, not shown.
      return message.seq > view.lastSeq ? { ...view, lastSeq: message.seq } : view;
    case 'delta': {
      const id = `draft:${message.draft}`;
      const at = view.transcript.findIndex((l) => l.id === id);
      if (at >= 0) {
        const line = view.transcript[at]!;
        const transcript = view.transcript.slice();
        transcript[at] = { ...line, text: line.text + message.text };
        return { ...view, transcript };
      }
      const line: Line = {
        id,
        speaker: message.speaker,
        addressee: null,
        text: message.text,
        streaming: true,
        interrupted: false,
        draft: message.draft,
        audio: message.draft,
        source: 'streaming',
        heard: begun(view.speech[message.draft]),
        t: 0,
      };
      return { ...view, transcript: [...view.transcript, line].slice(-MAX_LINES), floor: { speaker: message.speaker, addressee: null } };
    }
    case 'audio': {
      const speech = view.speech[message.draft];
      const words = [...(speech?.words ?? []), ...message.words];
      // More of a reply that had fallen silent (its pieces came late): it is not over after all.
      const state = speech?.state === 'over' ? 'queued' : (speech?.state ?? 'queued');
      return { ...view, speech: remember(view.speech, message.draft, { speaker: message.speaker, words, state }) };
    }
    case 'audio-stop': {
      // A rejected reply is withdrawn: its streaming line goes with its speech.
      const transcript = message.reason === 'rejected' ? view.transcript.filter((l) => !(l.streaming && l.draft === message.draft)) : view.transcript;
      return transcript === view.transcript ? view : { ...view, transcript };
    }
    case 'speech': {
      const talking = view.talking.filter((p) => p !== message.participant);
      return { ...view, talking: message.active ? [...talking, message.participant] : talking };
    }
    case 'error':
      return { ...view, error: { code: message.code, message: message.message }, ...(message.code === 'storage' ? { savingFailed: true } : {}) };
    case 'voice':
    case 'pose':
    case 'pong':
      return view;
    case 'connection': {
      // The first open counts once the welcome says so; after a drop, an open connection is back.
      if (message.state === 'open' && view.you === null) return view;
      return { ...view, connected: message.state === 'open', connection: { state: message.state, detail: message.detail ?? null } };
    }
    case 'speakers':
      return view.speakers === message.on ? view : { ...view, speakers: message.on };
    case 'playback': {
      const speech = view.speech[message.draft];
      if (speech?.state === message.state) return view;
      const transcript = view.transcript.map((l) => (l.audio === message.draft && !l.heard ? { ...l, heard: true } : l));
      return { ...view, transcript, speech: remember(view.speech, message.draft, { speaker: speech?.speaker ?? '', words: speech?.words ?? [], state: message.state }) };
    }
    case 'mic':
      return view.mic === message.state ? view : { ...view, mic: message.state };
  }
};

/** Sets a draft's speech; beyond MAX_SPEECH drafts the oldest finished ones are forgotten. */
const remember = (all: Record<string, Speech>, draft: string, speech: Speech): Record<string, Speech> => {
  const next = { ...all, [draft]: speech };
  const drafts = Object.keys(next);
  let excess = drafts.length - MAX_SPEECH;
  for (const old of drafts) {
    if (excess <= 0) break;
    if (old !== draft && next[old]!.state === 'over') {
      delete next[old];
      excess--;
    }
  }
  return next;
};

/** The speech has started here (and may be over). */
const begun = (speech: Speech | undefined): boolean => speech?.state === 'audible' || speech?.state === 'over';

const bump = (counts: Record<string, number>, who: string): Record<string, number> => ({ ...counts, [who]: (counts[who] ?? 0) + 1 });
const without = (list: readonly string[], who: string): string[] => list.filter((p) => p !== who);

const setPresence = (view: RoomView, participant: string, present: boolean): RoomView => {
  if (!view.snapshot) return view;
  const participants = view.snapshot.participants.map((p) => (p.id === participant ? { ...p, present } : p));
  return { ...view, snapshot: { ...view.snapshot, participants } };
};

/** The lifecycle codes of `system` events (server/rooms/rooms.ts), and what each does to the view. */
const lifecycle: Record<string, (view: RoomView, participant: string | undefined) => RoomView> = {
  'session-started': (view) => ({ ...view, status: 'live', pausedFor: null }),
  paused: (view) => ({ ...view, status: 'paused', pausedFor: view.pausedFor ?? { reason: 'instructor', participants: [] } }),
  resumed: (view) => ({ ...view, status: 'live', pausedFor: null }),
  // A joined human dropped past the grace period: the session waits for them.
  'seat-empty': (view, participant) => {
    const earlier = view.pausedFor?.reason === 'seat-empty' ? view.pausedFor.participants : [];
    const participants = participant ? [...without(earlier, participant), participant] : earlier;
    return { ...view, status: 'paused', pausedFor: { reason: 'seat-empty', participants } };
  },
  // Back, or stood in for: no longer waited for (the server resumes when nobody else is).
  'seat-back': (view, participant) => ({ ...view, pausedFor: emptied(view.pausedFor, participant) }),
  'stand-in': (view, participant) => ({ ...view, pausedFor: emptied(view.pausedFor, participant), standIns: participant ? [...without(view.standIns, participant), participant] : view.standIns }),
  joined: (view, participant) => (participant ? { ...setPresence(view, participant, true), standIns: without(view.standIns, participant) } : view),
  left: (view, participant) => (participant ? setPresence(view, participant, false) : view),
  // The instructor speaks for a seat, or no longer does (observers only).
  'take-over': (view, participant) => (participant ? { ...view, controlled: [...without(view.controlled, participant), participant] } : view),
  'hand-back': (view, participant) => (participant ? { ...view, controlled: without(view.controlled, participant) } : view),
};

const emptied = (pausedFor: RoomView['pausedFor'], participant: string | undefined): RoomView['pausedFor'] =>
  pausedFor?.reason === 'seat-empty' && participant ? { ...pausedFor, participants: without(pausedFor.participants, participant) } : pausedFor;

/** A proposal's time limit, when the server gives one (`approval-needed.timeoutMs`). */
const timeoutOf = (event: EventOf<'approval-needed'>): number | null => {
  const timeoutMs = (event as { timeoutMs?: unknown }).timeoutMs;
  return typeof timeoutMs === 'number' && timeoutMs > 0 ? timeoutMs : null;
};

const onEvent = (previous: RoomView, event: SessionEvent, now: number): RoomView => {
  if (event.seq <= previous.lastSeq) return previous; // never twice
  const view = { ...previous, lastSeq: event.seq, clock: { t: event.t, at: now } };
  switch (event.type) {
    case 'utterance': {
      // The streamed draft becomes the logged line (its text may differ: cut, resampled).
      const audio = event.draft ?? event.id;
      const line: Line = {
        id: event.id,
        speaker: event.speaker,
        addressee: event.addressee,
        text: event.text,
        streaming: false,
        interrupted: event.interrupted ?? false,
        draft: event.draft ?? null,
        audio,
        source: event.source,
        // Lines from before this client joined (the backlog) have no speech to wait for.
        heard: event.seq <= (view.snapshot?.lastSeq ?? 0) || begun(view.speech[audio]),
        t: event.t,
      };
      const transcript = view.transcript.filter((l) => !(l.streaming && (l.draft === event.draft || l.speaker === event.speaker)));
      const mine = event.speaker === view.you?.participant;
      return {
        ...view,
        transcript: [...transcript, line].slice(-MAX_LINES),
        floor: { speaker: event.speaker, addressee: event.addressee },
        waitingFor: view.waitingFor === event.speaker ? null : view.waitingFor,
        waitingOn: view.waitingFor === event.speaker ? null : view.waitingOn,
        floorOpen: view.waitingFor === event.speaker ? false : view.floorOpen,
        held: mine ? view.held.filter((text) => text !== event.text) : view.held,
        // Heard after all: whatever failed before is past.
        transcriptionFailed: mine ? null : view.transcriptionFailed,
        progress: view.progress && { ...view.progress, done: view.progress.done + 1 },
      };
    }
    case 'floor':
      return { ...view, floor: { speaker: event.speaker, addressee: null }, floorReason: event.reason };
    case 'human-input-required':
      return { ...view, waitingFor: event.participant, waitingOn: event.addressedBy ? { from: event.addressedBy, pair: event.pair } : null, floorOpen: event.open === true };
    case 'backchannel':
      return event.kind === 'nod' || event.kind === 'verbal' ? { ...view, nods: bump(view.nods, event.participant) } : view;
    case 'interruption':
      return { ...view, cuts: bump(view.cuts, event.of) };
    case 'hand-raise':
      return { ...view, hands: event.queue };
    case 'snippet-start':
      return { ...view, snippet: event.snippet, progress: { title: event.title, turns: event.turns, done: 0 } };
    case 'impromptu-start':
      return { ...view, impromptu: event.participant };
    case 'impromptu-end':
      return { ...view, impromptu: null };
    case 'approval-needed': {
      const timeoutMs = timeoutOf(event);
      return {
        ...view,
        proposal: {
          id: event.proposal,
          participant: event.participant,
          intent: event.intent,
          text: event.text,
          candidates: event.candidates ?? [{ intent: event.intent, text: event.text }],
          deadline: timeoutMs === null ? null : now + timeoutMs,
        },
      };
    }
    case 'approval-resolved':
      return view.proposal?.id === event.proposal ? { ...view, proposal: null } : view;
    case 'system': {
      let next: RoomView = { ...view, notices: [...view.notices, { seq: event.seq, level: event.level, code: event.code, message: event.message }].slice(-MAX_NOTICES) };
      if (next.status !== 'ended') next = lifecycle[event.code]?.(next, event.participant) ?? next;
      // The floor went on without them, or the instructor moved it: nobody waits for them now.
      if ((event.code === 'floor-passed' || event.code === 'turn-skipped') && next.waitingFor !== null) next = { ...next, waitingFor: null, waitingOn: null, floorOpen: false };
      if (event.code === 'line-held' && event.participant !== undefined && event.participant === view.you?.participant) {
        const text = /"(.*)"/.exec(event.message)?.[1];
        if (text) next = { ...next, held: [...next.held, text] };
      }
      if (event.code === 'transcription-failed' && event.participant !== undefined && event.participant === view.you?.participant) {
        next = { ...next, transcriptionFailed: { at: now, message: event.message } };
      }
      return next;
    }
    case 'end':
      return { ...view, status: 'ended', pausedFor: null, floor: { speaker: null, addressee: null }, waitingFor: null, waitingOn: null, floorOpen: false, proposal: null, endedBecause: event.reason === 'ended' && !event.by ? null : endedBecause(event) };
    case 'slide':
      return { ...view, slides: { ...view.slides, [event.content]: event.index } };
    case 'gaze':
      return { ...view, gazes: { ...view.gazes, [event.participant]: event.at } };
    case 'session-start':
      return view;
  }
};

/** The participant's display name, or the id when unknown. */
export const nameOf = (view: RoomView, id: string | null): string => (id ? (view.snapshot?.participants.find((p) => p.id === id)?.name ?? id) : '');

/** What others call the participant: their short name, else their name's first word. */
export const shortNameOf = (view: RoomView, id: string | null): string => {
  const p = id ? view.snapshot?.participants.find((q) => q.id === id) : undefined;
  return p?.shortName ?? nameOf(view, id).split(/\s+/)[0] ?? '';
};

const waitedFor: Record<string, string> = {
  question: 'asked you a question',
  request: 'asked you for something',
  offer: 'made you an offer',
  greeting: 'greeted you',
  invitation: 'invited you to respond',
};

/** Why the floor is yours when nobody's line put it to you: the engine's reason, in words. */
const floorReasons: Partial<Record<EventOf<'floor'>['reason'], string>> = {
  initiator: 'you open this part',
  scripted: 'your line comes next',
  'hand-approved': 'you were called on',
  moderator: 'you chair this part',
  designated: 'you were asked',
};

/** The HUD's turn line when the floor is yours: who is waiting on you, and for what. */
export const yourTurnText = (view: RoomView): string => {
  const on = view.waitingOn;
  const what = on ? waitedFor[on.pair] : undefined;
  // A question puts the floor to you by itself; after an invitation (a statement that hands it over) the line says why it is yours.
  if (on && what) return on.pair === 'invitation' ? `Your turn: ${shortNameOf(view, on.from)} ${what}` : `${shortNameOf(view, on.from)} ${what}: your turn`;
  const why = view.floorReason ? floorReasons[view.floorReason] : undefined;
  return why ? `Your turn: ${why}` : 'Your turn';
};
