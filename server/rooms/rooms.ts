/**
 * Live rooms: one per session, each a conversation (conversation/conversation.ts, the engine's
 * shell) plus the clients connected to it. Every event is committed to the store before any client sees it; clients that
 * join or reconnect get a snapshot and every event after the last one they saw, then the live
 * stream, with nothing twice and nothing missed. Rooms share nothing, so sessions are isolated.
 *
 * Voice: replies are spoken by the room's synthesizer (audio and cues go to every client, never
 * to the event log). Each participant's microphone frames are relayed to the room's other clients
 * (embedded transport: two desktop participants hear each other) and, with a transcriber, go
 * through a listener of their own (VAD, endpointing, transcription) into the conversation.
 *
 * Other transports (the LiveKit bridge, server/livekit/bridge.ts) reach a room without a socket:
 * `subscribe` gives them every message broadcast to the room, `hear` a participant's microphone,
 * and `presence` their coming and going; `RoomsOptions.onOpen` hands them each new room.
 *
 * Lifecycle: a new session waits in its lobby until every human seat is taken, or until the
 * instructor starts it, explicitly with stand-ins for the seats still empty. A joined human who
 * drops keeps their seat: after a grace period the session pauses (`seat-empty`) and resumes when
 * they are back (`seat-back`); the simulation speaks for a seat only when the instructor says so
 * (`stand-in`). A reload rejoins the same seat, with the log so far.
 *
 * At start-up, sessions the store holds unfinished (the server died under them) are marked
 * ended with a `system` event, never silently lost.
 *
 * Recordings (recordings/): the audio of every persona's utterance, and with `recording` on (the
 * scene's, or the instructor's choice at creation; participants are told in the snapshot) every
 * transcribed human utterance's microphone audio, are written beside the store once the utterance
 * is committed. Without `recording` a human's audio is never written anywhere.
 *
 * Storage: events reach the store through the journal (store/journal.ts), which broadcasts each
 * once it is stored. When writing keeps failing, only that session pauses: its clients are told
 * at once (an `error` with code `storage`, outside the log), the log gets `saving-failed` and
 * `saving-recovered` notices once it can take them, and the session resumes by itself.
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { Role } from '../auth/claims';
import { createListener, type Listener } from '../conversation/listen';
import { openConversation, type Conversation } from '../conversation/conversation';
import type { Pace } from '../conversation/pacing';
import { audienceOf, visibleTo, type SessionEvent } from '../engine/events';
import type { Vad } from '../media/vad';
import type { Generator } from '../providers/generator/port';
import type { Synthesizer } from '../providers/synthesis/port';
import type { Transcriber } from '../providers/transcription/port';
import { createRecorder } from '../recordings/recorder';
import type { RecordingStore } from '../recordings/store';
import { MIC_SAMPLE_RATE, type ClientMessage, type ServerMessage, type SessionStatus, type Snapshot, type VoiceOffer } from '../protocol/messages';
import { cleanText } from '../protocol/text';
import type { LoadedScene } from '../scene/schema';
import { briefOf, sceneViewOf, seatsOf } from '../scene/view';
import { createJournal, type Journal } from '../store/journal';
import type { Store } from '../store/store';

export type { Pace };

/** A connected client, as the room sees it. */
export interface Client {
  participant: string | null;
  role: Role;
  send(message: ServerMessage): void;
  /**
   * A message already serialised (its JSON): a broadcast is serialised once for all its
   * recipients and handed to each client that takes it this way, else to `send`.
   */
  sendRaw?(json: string): void;
  /**
   * 'livekit': the client receives the live stream (events, deltas, cues, controls) on the
   * LiveKit data topics; its socket carries the welcome, the backlog after a seq, errors and pongs.
   */
  streamVia?: 'socket' | 'livekit';
  /** Closes the connection (a newer one took the seat). */
  close?(): void;
}

/** What a client whose live stream comes through LiveKit still gets on its socket. */
const socketOnly = new Set<ServerMessage['type']>(['welcome', 'error', 'pong']);

export interface Room {
  id: string;
  scene: LoadedScene;
  pace: Pace;
  seed: number;
  /** Participants' microphones are recorded (they are told so in the snapshot). */
  readonly recording: boolean;
  /** The session's conversation. */
  conversation: Conversation;
  /** Joins a client: a welcome with a snapshot, then every event after `afterSeq`, then live ones. */
  join(client: Client, afterSeq: number): () => void;
  /** Carries out one validated message from a client; returns an error message to send back, if any. */
  handle(client: Client, message: ClientMessage): ServerMessage | null;
  /** A participant's microphone frame (PCM16, 16 kHz, mono) from their socket: `hear`d as theirs. */
  audio(client: Client, pcm: Int16Array): void;
  /**
   * A participant's microphone frame (PCM16, 16 kHz, mono), whichever way it came: relayed to the
   * other clients as `voice`, and heard when voice input is on.
   */
  hear(participant: string, pcm: Int16Array): void;
  /**
   * A participant is here (or gone) by another transport than a socket, e.g. in the LiveKit room.
   * Counted like one more connection of theirs; repeating the same value changes nothing.
   */
  presence(participant: string, present: boolean): void;
  /**
   * Every message broadcast to the whole room that every participant may see (events whose
   * audience is `all`; for any other event only a `seq` marker; no `voice` relays, which go to
   * sockets): `event`, `seq`, `delta`, `audio`, `audio-stop`, `speech`. Returns the unsubscribe.
   */
  subscribe(listener: (message: ServerMessage) => void): () => void;
  readonly voice: VoiceOffer;
  snapshot(role: Role, participant?: string | null): Snapshot;
  /** lobby | live | paused | ended. */
  status(): SessionStatus;
  ended(): boolean;
  /** Ends the session now; `by` says who asked (the server's log line says it). */
  end(by: string): void;
}

export interface RoomsOptions {
  store: Store;
  scenes: ReadonlyMap<string, LoadedScene>;
  /**
   * The generator for a new session. One can serve every session: its notices (a fallback, a
   * cut) go with each call into the log of the session that made it.
   */
  generator: () => Generator;
  /** The speech synthesizer for a new session (null: text only); shared like the generator. */
  synthesizer?: () => Synthesizer | null;
  /** Shared by every room; null or absent: humans type. */
  transcriber?: Transcriber | null;
  /** A fresh VAD for one microphone stream (Silero by default). */
  vad?: () => Promise<Vad>;
  speed?: number;
  /** How long an ended room stays in memory for late readers; its log stays in the store. Default 10 min. */
  keepEndedMs?: number;
  now?: () => number;
  /** How long an open floor (offered by the policy, nobody's question) waits for a human before the talk goes on. */
  openFloorMs?: number;
  /** How long a joined human's empty seat is held before the session pauses for them. Default 20 s. */
  seatGraceMs?: number;
  /** A room was created (before its first event): where another transport attaches to it. */
  onOpen?: (room: Room) => void;
  /** Writes every room's events to `store` (default: a journal with its default retries). */
  journal?: Journal;
  /** Where utterances' audio is written; absent: nothing is recorded. */
  recordings?: RecordingStore;
  /** The server's log: one line when a session is created, starts and ends (and why). Default: none. */
  log?: (line: string) => void;
}

export interface Rooms {
  /**
   * A new session, in its lobby; `standIns`: started at once, the simulation speaking for every
   * human not here; `recording`: record participants' microphones (default: the scene's `recording`).
   */
  create(scene: string, options: { pace: Pace; seed?: number; standIns?: boolean; recording?: boolean }): Room;
  get(id: string): Room | undefined;
  /** Forgets an ended room at once (its session was deleted). */
  remove(id: string): void;
  list(): Room[];
  /** Marks sessions left unfinished by a previous process as ended; returns their ids. */
  recover(): string[];
}

/** Whether a client may see an event: its audience (everyone, the instructors, one seat) names them. */
const sees = (client: Pick<Client, 'role' | 'participant'>, event: SessionEvent): boolean => visibleTo({ instructor: client.role !== 'participant', seat: client.participant }, event);
/** `Rooms.create` was given a scene this server does not have (any other failure is the server's). */
export class UnknownSceneError extends Error {
  override name = 'UnknownSceneError';
}

/** What every client of a session is told while its events cannot be stored. */
export const savingFailedMessage = 'Saving failed; the session is paused until storage recovers.';


/** How to turn voice input on, for clients of a server without a transcriber. */
export const voiceInputHint =
  'Voice input is off on this server: it has no transcriber. Type instead, or ask the operator to set TRANSCRIBER (gemini, elevenlabs or openai for a local Whisper server; see README, "Voice").';

/** A VAD that loads on first use, so frames can be pushed at once. */
const lazyVad = (create: () => Promise<Vad>): Vad => {
  let vad: Promise<Vad> | null = null;
  const get = () => (vad ??= create());
  return {
    frame: async (samples) => (await get()).frame(samples),
    reset: () => void vad?.then((v) => v.reset()),
    close: async () => {
      if (vad) await (await vad).close();
    },
  };
};

/** A store call tried again once when it fails: a lock released a moment ago, a fault that passed. */
const tryTwice = <T>(call: () => T): T => {
  try {
    return call();
  } catch {
    return call();
  }
};

const base64 = (pcm: Int16Array): string => Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64');

export const createRooms = (options: RoomsOptions): Rooms => {
  const { store } = options;
  const journal = options.journal ?? createJournal(store);
  const now = options.now ?? (() => Date.now());
  const rooms = new Map<string, Room>();
  const transcriber = options.transcriber ?? null;
  const makeVad = options.vad ?? (async () => (await import('../media/vad')).createSileroVad());
  const logLine = options.log ?? (() => {});

  const open = (scene: LoadedScene, id: string, pace: Pace, seed: number, recording: boolean): Room => {
    const clients = new Set<Client>();
    const connected = new Map<string, number>();
    const humans = scene.participants.filter((p) => p.kind === 'human').map((p) => p.id);
    const nameOf = (participant: string) => scene.participants.find((p) => p.id === participant)?.name ?? participant;
    let started = false;
    /** Seats a joined human left: their grace timers, then (past grace) the seats the session is paused for. */
    const grace = new Map<string, ReturnType<typeof setTimeout>>();
    const emptySeats = new Set<string>();
    /** Seats the instructor handed to the simulation. */
    const stoodIn = new Set<string>();
    /** Participants present by another transport (`room.presence`). */
    const elsewhere = new Set<string>();
    const listeners = new Set<(message: ServerMessage) => void>();
    let closed = false;
    /** Who ended the session early, for the log line (an engine's end names its own reason). */
    let endedBy: string | null = null;
    const broadcast = (message: ServerMessage, event?: SessionEvent) => {
      // Serialised once, for every recipient (200 observers cost one JSON.stringify, not 200).
      let json: string | null = null;
      for (const client of clients) {
        if (client.streamVia === 'livekit' && !socketOnly.has(message.type)) continue;
        if (event && !sees(client, event)) continue;
        if (client.sendRaw) client.sendRaw((json ??= JSON.stringify(message)));
        else client.send(message);
      }
      // Other transports publish to the whole room: only what everyone may see, and for the rest its seq.
      const shared: ServerMessage = !event || audienceOf(event) === 'all' ? message : { type: 'seq', seq: event.seq };
      for (const listener of listeners) listener(shared);
    };
    const synthesizer = options.synthesizer?.() ?? null;
    const voice: VoiceOffer = {
      input: transcriber !== null,
      output: synthesizer?.name ?? null,
      ...(transcriber ? {} : { hint: voiceInputHint }),
    };
    const ears = new Map<string, Listener>();
    /** Saving failed while the session ran (or a seat came back meanwhile): it resumes once saving works. */
    let resumeAfterSaving = false;
    const recordings = options.recordings;
    const recorder = recordings ? createRecorder({ write: (take) => void recordings.write(id, take) }) : null;
    const log = journal.open(id, {
      committed: (events) => {
        for (const event of events as SessionEvent[]) {
          recorder?.committed(event);
          broadcast({ type: 'event', event }, event);
        }
      },
      failing: () => {
        broadcast({ type: 'error', code: 'storage', message: savingFailedMessage });
        if (closed) return;
        notice('saving-failed', 'Saving failed; the session was paused until storage recovered.', { level: 'warn' });
        resumeAfterSaving = !conversation.state.paused;
        if (resumeAfterSaving) conversation.send({ type: 'pause' });
      },
      recovered: () => {
        if (closed) return;
        notice('saving-recovered', 'Saving works again; the session goes on.');
        if (resumeAfterSaving && emptySeats.size === 0) conversation.send({ type: 'resume' });
        resumeAfterSaving = false;
      },
    });
    const conversation = openConversation(scene, {
      seed,
      generator: options.generator(),
      synthesizer,
      onAudio: (piece) => {
        const { speaker, draft, seq, offsetMs, sampleRate, pcm, cues, words } = piece;
        recorder?.audio(piece);
        broadcast({ type: 'audio', speaker, draft, seq, offsetMs, sampleRate, pcm: base64(pcm), cues, words });
      },
      onAudioStop: (stop) => {
        recorder?.audioStop(stop);
        broadcast({ type: 'audio-stop', ...stop });
      },
      ...(recorder ? { onAudioEnd: recorder.audioEnd } : {}),
      pace,
      autostart: false,
      // An instant run decides a stand-in's proposal at once unless an instructor is here to decide it.
      watched: () => [...clients].some((client) => client.role !== 'participant'),
      ...(options.openFloorMs !== undefined ? { openFloorMs: options.openFloorMs } : {}),
      ...(options.speed ? { speed: options.speed } : {}),
      onEvent: (engineEvent) => {
        // The log keeps who may see each event, so replays and exports respect it.
        const event: SessionEvent = { ...engineEvent, audience: audienceOf(engineEvent) };
        if (event.type === 'end') {
          closed = true;
          for (const timer of grace.values()) clearTimeout(timer);
          grace.clear();
          for (const ear of ears.values()) void ear.close();
          ears.clear();
          setTimeout(() => rooms.delete(id), options.keepEndedMs ?? 600_000).unref();
          const why = event.reason === 'snippets-done' ? 'every snippet done' : event.reason === 'max-turns' ? 'turn limit reached' : `ended by ${endedBy ?? 'request'}`;
          logLine(`session ${id}: ended after ${event.turns} turn(s) (${why})`);
        }
        // Committed before anyone sees it (the journal broadcasts it): a crash can lose nothing a client received.
        log.append(event, event.type === 'end' ? now() : undefined);
      },
      onDelta: ({ speaker, draft, text }) => broadcast({ type: 'delta', speaker, draft, text }),
    });

    const status = (): SessionStatus => (closed || conversation.state.phase === 'ended' ? 'ended' : !started ? 'lobby' : conversation.state.paused ? 'paused' : 'live');
    const present = (participant: string) => (connected.get(participant) ?? 0) > 0;

    /** The parties a participant belongs to: whose contents they may see and, for slides, advance. */
    const partiesOf = (participant: string | null | undefined) => new Set(scene.parties.filter((p) => participant && p.members.includes(participant)).map((p) => p.id));

    const snapshot = (role: Role, participant?: string | null): Snapshot => {
      const { state } = conversation;
      const mine = partiesOf(participant);
      const seat = scene.participants.find((p) => p.id === participant);
      const pending = state.pending?.kind === 'utterance' ? state.pending.plan.speaker : null;
      return {
        session: id,
        scene: sceneViewOf(scene, (owner) => role !== 'participant' || mine.has(owner)),
        brief: role === 'participant' && seat ? briefOf(seat) : null,
        participants: seatsOf(scene, (seat) => (connected.get(seat) ?? 0) > 0),
        phase: state.phase,
        status: status(),
        pausedFor: !state.paused ? null : emptySeats.size ? { reason: 'seat-empty', participants: [...emptySeats] } : { reason: 'instructor', participants: [] },
        paused: state.paused,
        turns: state.turns,
        snippet: scene.snippets[state.snippet]!.id,
        expected: state.awaiting?.speaker ?? pending,
        waitingFor: state.awaiting?.speaker ?? null,
        hands: state.hands,
        slides: state.slides,
        proposal: role === 'participant' ? null : state.proposal,
        ...(role === 'participant' ? {} : { controlled: state.controlled }),
        lastSeq: state.seq,
        recording,
      };
    };

    /** The participant's listener: their microphone, heard, into the conversation. */
    const earOf = (participant: string): Listener | null => {
      if (!transcriber || closed) return null;
      let ear = ears.get(participant);
      if (!ear) {
        const hints = scene.participants.flatMap((p) => [p.name, ...(p.shortName ? [p.shortName] : [])]);
        ear = createListener({
          transcriber,
          vad: lazyVad(makeVad),
          hints,
          now,
          onStart: () => {
            broadcast({ type: 'speech', participant, active: true });
            if (!closed) conversation.voiceStarted(participant);
          },
          onEnd: (heard) => {
            broadcast({ type: 'speech', participant, active: false });
            // Speech is text from a person too: cleaned like typed lines (protocol/text.ts).
            const text = heard ? cleanText(heard.text) : '';
            // Kept only when the session records and the participant was told so at join.
            if (recording && heard?.audio && text) recorder?.heard(participant, { pcm: heard.audio, sampleRate: MIC_SAMPLE_RATE, durationMs: Math.max(0, Math.round(heard.end - heard.start)) });
            if (!closed) conversation.voiceEnded(participant, heard && text ? { ...heard, text } : null);
          },
          onError: (error) => {
            const who = scene.participants.find((p) => p.id === participant)?.name ?? participant;
            if (!closed) conversation.send({ type: 'notice', level: 'warn', code: 'transcription-failed', message: `${who}'s speech could not be transcribed (${error.message}); they can type it instead.`, participant });
          },
        });
        ears.set(participant, ear);
      }
      return ear;
    };

    /** A lifecycle notice for everyone; `participant`: whose seat it is about (the clients follow seats by it). */
    const notice = (code: string, message: string, options: { level?: 'info' | 'warn'; participant?: string } = {}) =>
      conversation.send({ type: 'notice', level: options.level ?? 'info', code, message, ...(options.participant ? { participant: options.participant } : {}) });

    /** Starts the session from its lobby; humans not here are simulated (the instructor chose stand-ins, or everyone is here). */
    const start = (standIns: boolean) => {
      started = true;
      for (const h of humans) if (!present(h)) stoodIn.add(h);
      const missing = humans.filter((h) => !present(h));
      logLine(`session ${id}: started (${missing.length ? `stand-ins for ${missing.join(', ')}` : 'everyone here'})`);
      // Said by the start itself, before the first line (a notice sent after it came after that line).
      const message = missing.length && standIns ? `Started with stand-ins for ${missing.map(nameOf).join(', ')}.` : 'Everyone is here; the session starts.';
      conversation.send({ type: 'start', notice: { code: 'session-started', message } });
    };

    /** Nobody is waited for any more: the session resumes, or (saving failing) will once saving works. */
    const resumeUnlessSaving = () => {
      if (log.failing) resumeAfterSaving = true;
      else conversation.send({ type: 'resume' });
    };

    const seatLeft = (participant: string) => {
      if (!started) {
        // In the lobby a seat simply empties again.
        conversation.send({ type: 'presence', participant, present: false });
        return;
      }
      if (stoodIn.has(participant)) return;
      // The seat stays theirs: nobody speaks for them; past the grace period the session waits for them.
      conversation.send({ type: 'presence', participant, present: false, held: true });
      grace.set(
        participant,
        setTimeout(() => {
          grace.delete(participant);
          if (closed || present(participant) || stoodIn.has(participant)) return;
          const wasPaused = conversation.state.paused;
          emptySeats.add(participant);
          notice('seat-empty', `${nameOf(participant)} left; the session is paused until they are back (or the instructor has someone stand in).`, { level: 'warn', participant });
          if (!wasPaused) conversation.send({ type: 'pause' });
        }, options.seatGraceMs ?? 20_000),
      );
      (grace.get(participant) as { unref?: () => void }).unref?.();
    };

    const seatTaken = (participant: string) => {
      const timer = grace.get(participant);
      if (timer) clearTimeout(timer);
      grace.delete(participant);
      // A human who arrives speaks for themselves, stand-in or not.
      stoodIn.delete(participant);
      conversation.send({ type: 'presence', participant, present: true });
      if (emptySeats.delete(participant)) {
        notice('seat-back', `${nameOf(participant)} is back.`, { participant });
        if (emptySeats.size === 0 && conversation.state.paused) resumeUnlessSaving();
      }
      if (!started && humans.every(present)) start(false);
    };

    const setPresence = (participant: string, delta: 1 | -1) => {
      const before = connected.get(participant) ?? 0;
      const after = Math.max(0, before + delta);
      connected.set(participant, after);
      if (after === 0) {
        // The microphone is gone with its last connection: a turn in progress ends where it stopped.
        void ears.get(participant)?.close();
        ears.delete(participant);
      }
      if ((before === 0) === (after === 0) || closed) return;
      if (after > 0) seatTaken(participant);
      else seatLeft(participant);
    };

    const room: Room = {
      id,
      scene,
      pace,
      seed,
      recording,
      conversation,
      voice,
      snapshot,
      status,
      audio(client, pcm) {
        if (client.participant) room.hear(client.participant, pcm);
      },
      hear(participant, pcm) {
        if (room.ended()) return;
        const relayed: ServerMessage = { type: 'voice', participant, sampleRate: MIC_SAMPLE_RATE, pcm: base64(pcm) };
        let json: string | null = null;
        // LiveKit clients hear every human as a track already.
        for (const other of clients) {
          if (other.participant === participant || other.streamVia === 'livekit') continue;
          if (other.sendRaw) other.sendRaw((json ??= JSON.stringify(relayed)));
          else other.send(relayed);
        }
        void earOf(participant)?.push(pcm);
      },
      presence(participant, present) {
        if (present === elsewhere.has(participant)) return;
        if (present) elsewhere.add(participant);
        else elsewhere.delete(participant);
        setPresence(participant, present ? 1 : -1);
      },
      subscribe(listener) {
        listeners.add(listener);
        return () => void listeners.delete(listener);
      },
      ended: () => closed || conversation.state.phase === 'ended',
      end: (by) => {
        endedBy ??= by;
        conversation.send({ type: 'end', by: /admin/.test(by) ? 'admin' : /participant/.test(by) ? 'participant' : 'instructor' });
      },
      join(client, afterSeq) {
        // Synchronous from here to `clients.add`: no event can slip between the backlog and the live stream.
        // A seq that is no seq of this log (negative, fractional, past its end) resumes from the start or the end.
        let backlog: SessionEvent[];
        let resumedFrom: number;
        try {
          resumedFrom = Number.isSafeInteger(afterSeq) && afterSeq > 0 ? Math.min(afterSeq, tryTwice(() => store.lastSeq(id))) : 0;
          backlog = tryTwice(() => store.events(id, resumedFrom) as SessionEvent[]);
        } catch {
          client.send({ type: 'error', code: 'storage', message: "The session's log could not be read; reconnect in a moment." });
          client.close?.();
          return () => {};
        }
        client.send({ type: 'welcome', protocol: 1, you: { participant: client.participant, role: client.role }, resumedFrom, snapshot: snapshot(client.role, client.participant), voice });
        for (const event of backlog) if (sees(client, event)) client.send({ type: 'event', event });
        if (log.failing) client.send({ type: 'error', code: 'storage', message: savingFailedMessage });
        clients.add(client);
        if (client.participant) setPresence(client.participant, 1);
        // One seat, one tab: a newer connection takes the seat, and the older one is told why.
        if (client.participant && client.close !== undefined) {
          for (const older of clients) {
            if (older === client || older.participant !== client.participant || older.close === undefined) continue;
            older.send({ type: 'error', code: 'replaced', message: 'Your seat was opened in another tab or on another device; this one is closed.' });
            older.close();
          }
        }
        let left = false;
        return () => {
          if (left) return;
          left = true;
          clients.delete(client);
          if (client.participant) setPresence(client.participant, -1);
        };
      },
      handle(client, message) {
        if (message.type === 'ping') return { type: 'pong' };
        if (room.ended()) return { type: 'error', code: 'ended', message: 'This session has ended.' };
        const me = client.participant;
        if (!started && message.type !== 'start' && message.type !== 'leave' && message.type !== 'typing' && message.type !== 'end' && message.type !== 'stand-in') {
          return { type: 'error', code: 'not-ready', message: `The session has not started yet: it waits for ${humans.filter((h) => !present(h)).map(nameOf).join(', ') || 'the instructor'}.` };
        }
        // A line said during a pause is kept and said at resume (the engine tells its seat); a hand waits for the resume.
        if (conversation.state.paused && message.type === 'raise-hand') {
          return { type: 'error', code: 'paused', message: 'The session is paused; raise your hand again when it resumes.' };
        }
        switch (message.type) {
          case 'start': {
            if (started) return { type: 'error', code: 'not-in-lobby', message: 'The session has already started.' };
            const missing = humans.filter((h) => !present(h));
            if (missing.length && !message.standIns) {
              return { type: 'error', code: 'not-ready', message: `Waiting for ${missing.map(nameOf).join(', ')}; start with stand-ins to begin without them.` };
            }
            start(missing.length > 0);
            return null;
          }
          case 'stand-in': {
            if (!humans.includes(message.participant)) return { type: 'error', code: 'bad-message', message: `"${message.participant}" is not a human seat of this scene.` };
            if (present(message.participant)) return { type: 'error', code: 'bad-message', message: `${nameOf(message.participant)} is here and speaks for themselves.` };
            stoodIn.add(message.participant);
            const timer = grace.get(message.participant);
            if (timer) clearTimeout(timer);
            grace.delete(message.participant);
            conversation.send({ type: 'presence', participant: message.participant, present: false });
            if (started) notice('stand-in', `The simulation speaks for ${nameOf(message.participant)} until they are back.`, { participant: message.participant });
            if (emptySeats.delete(message.participant) && emptySeats.size === 0 && conversation.state.paused) resumeUnlessSaving();
            return null;
          }
          case 'say':
            conversation.send({ type: 'say', participant: me!, text: message.text });
            return null;
          case 'raise-hand':
          case 'lower-hand':
            conversation.send({ type: message.type, participant: me! });
            return null;
          case 'typing':
            conversation.typing(me!, message.active);
            return null;
          case 'gaze':
            conversation.send({ type: 'gaze', participant: me!, at: message.at });
            return null;
          case 'slide': {
            // The presenters (members of the deck's owning party) and the instructor advance slides.
            const deck = scene.contents.find((c) => c.id === message.content);
            if (client.role === 'participant' && (!deck || !partiesOf(me).has(deck.owner))) {
              return { type: 'error', code: 'forbidden', message: 'Only the presenters of these slides, or the instructor, change the slide.' };
            }
            conversation.send({ type: 'slide', content: message.content, index: message.index, by: me ?? null });
            return null;
          }
          case 'leave':
            return null;
          case 'resume':
            if (log.failing) return { type: 'error', code: 'storage', message: savingFailedMessage };
            // The instructor resumes: nobody is waited for any longer; empty seats are stood in for.
            for (const seat of emptySeats) {
              stoodIn.add(seat);
              conversation.send({ type: 'presence', participant: seat, present: false });
            }
            emptySeats.clear();
            conversation.send({ type: 'resume' });
            return null;
          case 'end':
            // Ending from the lobby: the session never ran; it ends all the same, with its log.
            if (!started) {
              started = true;
              conversation.send({ type: 'start' });
            }
            room.end(client.role === 'author' ? 'the admin' : client.role === 'observer' ? 'an instructor' : 'a participant');
            return null;
          case 'pause':
          case 'skip-turn':
            conversation.send({ type: message.type });
            return null;
          case 'approve':
            conversation.send({ type: 'approval', proposal: message.proposal, decision: 'approve', ...(message.choice !== undefined ? { choice: message.choice } : {}) });
            return null;
          case 'dismiss':
            conversation.send({ type: 'approval', proposal: message.proposal, decision: 'dismiss' });
            return null;
          case 'edit':
            conversation.send({ type: 'approval', proposal: message.proposal, decision: 'edit', text: message.text });
            return null;
          case 'regenerate':
            conversation.send({ type: 'approval', proposal: message.proposal, decision: 'regenerate', ...(message.intent ? { intent: message.intent } : {}) });
            return null;
          case 'inject':
            conversation.send({ type: 'inject', text: message.text });
            return null;
          case 'take-over':
          case 'hand-back': {
            const seat = scene.participants.find((p) => p.id === message.participant);
            if (!seat) return { type: 'error', code: 'bad-message', message: `"${message.participant}" is not a participant of this scene.` };
            if (message.type === 'take-over' && present(seat.id)) return { type: 'error', code: 'bad-message', message: `${seat.name} is here and speaks for themselves.` };
            conversation.send({ type: 'take-over', participant: seat.id, on: message.type === 'take-over' });
            return null;
          }
          case 'say-as':
            if (!conversation.state.controlled.includes(message.participant)) {
              return { type: 'error', code: 'bad-message', message: `Take over ${nameOf(message.participant)}'s seat first; the simulation speaks for it now.` };
            }
            conversation.send({ type: 'say', participant: message.participant, text: message.text });
            return null;
        }
      },
    };
    return room;
  };

  return {
    create(sceneId, { pace, seed = randomInt(0, 2 ** 31 - 1), standIns = false, recording }) {
      const scene = options.scenes.get(sceneId);
      if (!scene) throw new UnknownSceneError(`unknown scene "${sceneId}"`);
      const id = randomBytes(9).toString('base64url');
      const records = recording ?? scene.recording ?? false;
      const row = { id, scene: scene.id, seed, pace, createdAt: now(), recording: records };
      tryTwice(() => store.createSession(row));
      const room = open(scene, id, pace, seed, records);
      rooms.set(id, room);
      logLine(`session ${id}: created (${scene.id}, ${pace}${records ? ", records participants' microphones" : ''})`);
      options.onOpen?.(room);
      if (standIns) room.handle({ participant: null, role: 'author', send: () => {} }, { type: 'start', standIns: true });
      return room;
    },
    get: (id) => rooms.get(id),
    remove: (id) => void rooms.delete(id),
    list: () => [...rooms.values()],
    recover() {
      const recovered: string[] = [];
      for (const row of tryTwice(() => store.unfinished())) {
        const log = tryTwice(() => store.events(row.id) as SessionEvent[]);
        const seq = log.at(-1)?.seq ?? 0;
        const at = log.at(-1)?.t ?? 0;
        const turns = log.filter((e) => e.type === 'utterance').length;
        const closing = [
          { seq: seq + 1, t: at, type: 'system', level: 'warn', code: 'server-restarted', message: 'The server stopped during this session; it was ended and its log kept.' },
          { seq: seq + 2, t: at, type: 'end', reason: 'ended', turns },
        ];
        tryTwice(() => store.appendEvents(row.id, closing));
        const endedAt = now();
        tryTwice(() => store.markEnded(row.id, endedAt));
        recovered.push(row.id);
      }
      return recovered;
    },
  };
};
