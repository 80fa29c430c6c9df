/**
 * Live rooms: one per session, each a conversation (conversation/conversation.ts, the engine's
 * shell) plus the clients connected to it. Every event is committed to the store before any client sees it; clients that
 * join or reconnect get a snapshot and every event after the last one they saw, then the live
 * stream, with nothing twice and nothing missed. Rooms share nothing, so sessions are isolated.
 *
 * Voice: replies are spoken by the room's synthesizer (audio and cues go to every client, never
 * to the store). Each participant's microphone frames are relayed to the room's other clients
 * (embedded transport: two desktop participants hear each other) and, with a transcriber, go
 * through a listener of their own (VAD, endpointing, transcription) into the conversation.
 *
 * Other transports (the LiveKit bridge, server/livekit/bridge.ts) reach a room without a socket:
 * `subscribe` gives them every message broadcast to the room, `hear` a participant's microphone,
 * and `presence` their coming and going; `RoomsOptions.onOpen` hands them each new room.
 *
 * At start-up, sessions the store holds unfinished (the server died under them) are marked
 * ended with a `system` event, never silently lost.
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { Role } from '../auth/claims';
import { createListener, type Listener } from '../conversation/listen';
import { openConversation, type Conversation } from '../conversation/conversation';
import type { Pace } from '../conversation/pacing';
import type { SessionEvent } from '../engine/events';
import type { Vad } from '../media/vad';
import type { Generator } from '../providers/generator/port';
import type { Synthesizer } from '../providers/synthesis/port';
import type { Transcriber } from '../providers/transcription/port';
import { MIC_SAMPLE_RATE, type ClientMessage, type ServerMessage, type Snapshot, type VoiceOffer } from '../protocol/messages';
import type { LoadedScene } from '../scene/schema';
import type { Store } from '../store/store';

export type { Pace };

/** A connected client, as the room sees it. */
export interface Client {
  participant: string | null;
  role: Role;
  send(message: ServerMessage): void;
  /**
   * 'livekit': the client receives the live stream (events, deltas, cues, controls) on the
   * LiveKit data topics; its socket carries the welcome, the backlog after a seq, errors and pongs.
   */
  streamVia?: 'socket' | 'livekit';
}

/** What a client whose live stream comes through LiveKit still gets on its socket. */
const socketOnly = new Set<ServerMessage['type']>(['welcome', 'error', 'pong']);

export interface Room {
  id: string;
  scene: LoadedScene;
  pace: Pace;
  seed: number;
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
   * Every message broadcast to the whole room, as a participant receives it (no observer-only
   * events; no `voice` relays, which go to sockets): `event`, `delta`, `audio`, `audio-stop`,
   * `speech`. Returns the unsubscribe.
   */
  subscribe(listener: (message: ServerMessage) => void): () => void;
  readonly voice: VoiceOffer;
  snapshot(role: Role): Snapshot;
  ended(): boolean;
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
  /** A room was created (before its first event): where another transport attaches to it. */
  onOpen?: (room: Room) => void;
}

export interface Rooms {
  create(scene: string, options: { pace: Pace; seed?: number }): Room;
  get(id: string): Room | undefined;
  list(): Room[];
  /** Marks sessions left unfinished by a previous process as ended; returns their ids. */
  recover(): string[];
}

/** Events only instructors see. */
const forObservers = (event: SessionEvent): boolean => event.type === 'system' && event.audience === 'observers';
const visibleTo = (role: Role, event: SessionEvent): boolean => role !== 'participant' || !forObservers(event);

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

const base64 = (pcm: Int16Array): string => Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64');

export const createRooms = (options: RoomsOptions): Rooms => {
  const { store } = options;
  const now = options.now ?? (() => Date.now());
  const rooms = new Map<string, Room>();
  const transcriber = options.transcriber ?? null;
  const makeVad = options.vad ?? (async () => (await import('../media/vad')).createSileroVad());

  const open = (scene: LoadedScene, id: string, pace: Pace, seed: number): Room => {
    const clients = new Set<Client>();
    const connected = new Map<string, number>();
    /** Participants present by another transport (`room.presence`). */
    const elsewhere = new Set<string>();
    const listeners = new Set<(message: ServerMessage) => void>();
    let closed = false;
    const broadcast = (message: ServerMessage, event?: SessionEvent) => {
      for (const client of clients) {
        if (client.streamVia === 'livekit' && !socketOnly.has(message.type)) continue;
        if (!event || visibleTo(client.role, event)) client.send(message);
      }
      if (!event || visibleTo('participant', event)) for (const listener of listeners) listener(message);
    };
    const synthesizer = options.synthesizer?.() ?? null;
    const voice: VoiceOffer = {
      input: transcriber !== null,
      output: synthesizer?.name ?? null,
      ...(transcriber ? {} : { hint: voiceInputHint }),
    };
    const ears = new Map<string, Listener>();
    const conversation = openConversation(scene, {
      seed,
      generator: options.generator(),
      synthesizer,
      onAudio: ({ speaker, draft, seq, offsetMs, sampleRate, pcm, cues, words }) =>
        broadcast({ type: 'audio', speaker, draft, seq, offsetMs, sampleRate, pcm: base64(pcm), cues, words }),
      onAudioStop: (stop) => broadcast({ type: 'audio-stop', ...stop }),
      pace,
      ...(options.speed ? { speed: options.speed } : {}),
      onEvent: (event) => {
        // Committed before anyone sees it: a crash can lose nothing a client received.
        store.appendEvents(id, [event]);
        if (event.type === 'end') {
          store.markEnded(id, now());
          closed = true;
          for (const ear of ears.values()) void ear.close();
          ears.clear();
          setTimeout(() => rooms.delete(id), options.keepEndedMs ?? 600_000).unref();
        }
        broadcast({ type: 'event', event }, event);
      },
      onDelta: ({ speaker, draft, text }) => broadcast({ type: 'delta', speaker, draft, text }),
    });

    const snapshot = (role: Role): Snapshot => {
      const { state } = conversation;
      const pending = state.pending?.kind === 'utterance' ? state.pending.plan.speaker : null;
      return {
        session: id,
        scene: {
          id: scene.id,
          title: scene.title,
          topic: scene.topic,
          formation: scene.formation,
          contents: scene.contents.filter((c) => c.owner === 'public').map(({ id: contentId, kind, title, summary, sections }) => ({ id: contentId, kind, title, summary, sections })),
          moderated: scene.turnTaking.partyMode === 'moderated',
        },
        participants: scene.participants.map((p) => ({
          id: p.id,
          name: p.name,
          kind: p.kind,
          role: p.role ?? null,
          present: (connected.get(p.id) ?? 0) > 0,
          avatar: p.avatar ?? null,
        })),
        phase: state.phase,
        paused: state.paused,
        turns: state.turns,
        snippet: scene.snippets[state.snippet]!.id,
        expected: state.awaiting?.speaker ?? pending,
        waitingFor: state.awaiting?.speaker ?? null,
        hands: state.hands,
        proposal: role === 'participant' ? null : state.proposal,
        lastSeq: state.seq,
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
            if (!closed) conversation.voiceEnded(participant, heard);
          },
          onError: (error) => {
            const who = scene.participants.find((p) => p.id === participant)?.name ?? participant;
            if (!closed) conversation.send({ type: 'notice', level: 'warn', code: 'transcription-failed', message: `${who}'s speech could not be transcribed (${error.message}); they can type it instead.` });
          },
        });
        ears.set(participant, ear);
      }
      return ear;
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
      // A human takes over their seat at the next turn, and hands it back to the simulation on leaving.
      if ((before === 0) !== (after === 0) && !closed) conversation.send({ type: 'presence', participant, present: after > 0 });
    };

    const room: Room = {
      id,
      scene,
      pace,
      seed,
      conversation,
      voice,
      snapshot,
      audio(client, pcm) {
        if (client.participant) room.hear(client.participant, pcm);
      },
      hear(participant, pcm) {
        if (room.ended()) return;
        const relayed: ServerMessage = { type: 'voice', participant, sampleRate: MIC_SAMPLE_RATE, pcm: base64(pcm) };
        // LiveKit clients hear every human as a track already.
        for (const other of clients) if (other.participant !== participant && other.streamVia !== 'livekit') other.send(relayed);
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
      join(client, afterSeq) {
        // Synchronous from here to `clients.add`: no event can slip between the backlog and the live stream.
        client.send({ type: 'welcome', protocol: 1, you: { participant: client.participant, role: client.role }, resumedFrom: afterSeq, snapshot: snapshot(client.role), voice });
        for (const event of store.events(id, afterSeq) as SessionEvent[]) if (visibleTo(client.role, event)) client.send({ type: 'event', event });
        clients.add(client);
        if (client.participant) setPresence(client.participant, 1);
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
        switch (message.type) {
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
          case 'leave':
            return null;
          case 'pause':
          case 'resume':
          case 'skip-turn':
          case 'end':
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
        }
      },
    };
    return room;
  };

  return {
    create(sceneId, { pace, seed = randomInt(0, 2 ** 31 - 1) }) {
      const scene = options.scenes.get(sceneId);
      if (!scene) throw new Error(`unknown scene "${sceneId}"`);
      const id = randomBytes(9).toString('base64url');
      store.createSession({ id, scene: scene.id, seed, pace, createdAt: now() });
      const room = open(scene, id, pace, seed);
      rooms.set(id, room);
      options.onOpen?.(room);
      return room;
    },
    get: (id) => rooms.get(id),
    list: () => [...rooms.values()],
    recover() {
      const recovered: string[] = [];
      for (const row of store.unfinished()) {
        const log = store.events(row.id) as SessionEvent[];
        const seq = log.at(-1)?.seq ?? 0;
        const at = log.at(-1)?.t ?? 0;
        const turns = log.filter((e) => e.type === 'utterance').length;
        store.appendEvents(row.id, [
          { seq: seq + 1, t: at, type: 'system', level: 'warn', code: 'server-restarted', message: 'The server stopped during this session; it was ended and its log kept.' },
          { seq: seq + 2, t: at, type: 'end', reason: 'ended', turns },
        ]);
        store.markEnded(row.id, now());
        recovered.push(row.id);
      }
      return recovered;
    },
  };
};
