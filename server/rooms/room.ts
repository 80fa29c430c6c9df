/**
 * One live room: a session's conversation (conversation/conversation.ts, the engine's shell) with
 * its parts around it, each owning its own state: `presence.ts` (seats, the lobby, grace periods,
 * stand-ins), `voice-input.ts` (microphones into the conversation), `broadcast.ts` (who is sent
 * what), `saving.ts` (the log through the journal, and the pause while it fails) and `commands.ts`
 * (what a client's message does). The room ties them together: every event is saved, then
 * broadcast; a joining client gets a snapshot (`snapshot.ts`), then its backlog, then the live
 * stream, with nothing twice and nothing missed; the session's end closes every part.
 *
 * ```ts
 * const room = openRoom({ id, scene, pace: 'realtime', seed: 7, recording: false, store, journal, generator, forget: () => rooms.delete(id) });
 * const leave = room.join(client, 0); // welcome, backlog, then live
 * room.handle(client, { type: 'start', standIns: true });
 * room.close({ code: 4410, reason: 'session deleted' });
 * ```
 */
import type { Role } from '../../shared/claims';
import { checkpointJson, type Resume } from '../conversation/checkpoint';
import { openConversation, type Conversation } from '../conversation/conversation';
import type { Pace } from '../conversation/pacing';
import { audienceOf, type SessionEvent } from '../../shared/events';
import type { Vad } from '../media/vad';
import type { Generator } from '../providers/generator/port';
import type { Synthesizer } from '../providers/synthesis/port';
import type { Transcriber } from '../providers/transcription/port';
import { createRecorder } from '../recordings/recorder';
import type { RecordingStore } from '../recordings/store';
import { MIC_SAMPLE_RATE, type ClientMessage, type PoseMessage, type ServerMessage, type SessionStatus, type Snapshot, type VoiceOffer } from '../../shared/protocol/messages';
import type { LoadedScene } from '../../shared/scene/schema';
import type { Journal } from '../store/journal';
import { after, type AnyStore } from '../store/store';
import { createBroadcast, type Client, type CloseReason } from './broadcast';
import { createCommands } from './commands';
import { createPresence } from './presence';
import { createSaving, savingFailedMessage, tryTwice } from './saving';
import { snapshotOf } from './snapshot';
import { createVoiceInput, voiceInputHint } from './voice-input';

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
   * audience is `all`, as participants see them; for any other event only a `seq` marker; no
   * `voice` relays, which go to sockets): `event`, `seq`, `delta`, `audio`, `audio-stop`, `speech`.
   * Returns the unsubscribe.
   */
  subscribe(listener: (message: ServerMessage) => void): () => void;
  readonly voice: VoiceOffer;
  snapshot(role: Role, participant?: string | null): Snapshot;
  /** lobby | live | paused | ended. */
  status(): SessionStatus;
  ended(): boolean;
  /** Ends the session now; `by` says who asked (the server's log line says it). */
  end(by: string): void;
  /**
   * Ends the session if it still runs (`by`: who asked, default the admin), tells every client
   * why and closes their connections with `how.code`: the session is gone (deleted).
   */
  close(how: CloseReason & { by?: string }): void;
}

export interface RoomOptions {
  id: string;
  scene: LoadedScene;
  pace: Pace;
  seed: number;
  recording: boolean;
  store: AnyStore;
  journal: Journal;
  generator: Generator;
  synthesizer?: Synthesizer | null;
  transcriber?: Transcriber | null;
  vad: () => Promise<Vad>;
  recordings?: RecordingStore | undefined;
  now?: () => number;
  speed?: number | undefined;
  openFloorMs?: number | undefined;
  seatGraceMs?: number | undefined;
  /** How long the room stays in memory once ended. Default 10 min. */
  keepEndedMs?: number | undefined;
  /** The ended room may be forgotten (its log stays in the store). */
  forget(): void;
  /** The session resumes from its checkpoint (its server died): its log holds every event up to `resume.seq`. */
  resume?: Resume | undefined;
  log?: (line: string) => void;
}

const base64 = (pcm: Int16Array): string => Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64');

export const openRoom = (options: RoomOptions): Room => {
  const { id, scene, pace, seed, recording, store } = options;
  const now = options.now ?? (() => Date.now());
  const logLine = options.log ?? (() => {});
  const transcriber = options.transcriber ?? null;
  const synthesizer = options.synthesizer ?? null;
  const broadcast = createBroadcast({ scene });
  const voice: VoiceOffer = { input: transcriber !== null, output: synthesizer?.name ?? null, ...(transcriber ? {} : { hint: voiceInputHint }) };
  let closed = false;
  /** Who ended the session early, for the log line (an engine's end names its own reason). */
  let endedBy: string | null = null;
  const recordings = options.recordings;
  /** Clients whose backlog a store that answers later is reading: the events committed meanwhile, given after it. */
  const joining = new Set<{ committed: SessionEvent[] }>();
  const recorder = recordings ? createRecorder({ write: (take) => void recordings.write(id, take) }) : null;
  /** The events of the step being taken, saved together with the checkpoint that follows them. */
  let step: SessionEvent[] = [];
  let stepEndedAt: number | undefined;
  const conversation = openConversation(scene, {
    seed,
    generator: options.generator,
    synthesizer,
    onAudio: (piece) => {
      const { speaker, draft, seq, offsetMs, sampleRate, pcm, cues, words } = piece;
      recorder?.audio(piece);
      broadcast.send({ type: 'audio', speaker, draft, seq, offsetMs, sampleRate, pcm: base64(pcm), cues, words });
    },
    onAudioStop: (stop) => {
      recorder?.audioStop(stop);
      broadcast.send({ type: 'audio-stop', ...stop });
    },
    ...(recorder ? { onAudioEnd: recorder.audioEnd } : {}),
    pace,
    autostart: false,
    // An instant run decides a stand-in's proposal at once unless an instructor is here to decide it.
    watched: broadcast.watched,
    ...(options.openFloorMs !== undefined ? { openFloorMs: options.openFloorMs } : {}),
    ...(options.speed ? { speed: options.speed } : {}),
    ...(options.resume ? { resume: options.resume } : {}),
    onEvent: (engineEvent) => {
      // The log keeps who may see each event, so replays and exports respect it.
      const event: SessionEvent = { ...engineEvent, audience: audienceOf(engineEvent) };
      if (event.type === 'end') {
        closed = true;
        presence.close();
        voiceInput.close();
        setTimeout(options.forget, options.keepEndedMs ?? 600_000).unref();
        const why = event.reason === 'snippets-done' ? 'every snippet done' : event.reason === 'max-turns' ? 'turn limit reached' : `ended by ${endedBy ?? 'request'}`;
        logLine(`session ${id}: ended after ${event.turns} turn(s) (${why})`);
      }
      // Committed before anyone sees it (the journal broadcasts it, once its step is saved): a crash can lose nothing a client received.
      step.push(event);
      if (event.type === 'end') stepEndedAt = now();
    },
    onStep: (resume) => {
      const events = step;
      const endedAt = stepEndedAt;
      step = [];
      stepEndedAt = undefined;
      if (events.length === 0) return;
      // An ended session resumes no more: its checkpoint is not written (the store drops it with the end).
      const checkpoint = resume && resume.state.phase !== 'ended' ? { seq: resume.seq, json: () => checkpointJson(resume) } : undefined;
      saving.append(events, endedAt, checkpoint);
    },
    onDelta: ({ speaker, draft, text }) => broadcast.send({ type: 'delta', speaker, draft, text }),
  });

  const saving = createSaving({
    session: id,
    journal: options.journal,
    conversation,
    committed: (event) => {
      recorder?.committed(event);
      for (const pending of joining) pending.committed.push(event);
      broadcast.send({ type: 'event', event }, event);
    },
    tell: (message) => broadcast.send(message),
    ended: () => closed,
    waitsForSeats: () => presence.emptySeats().length > 0,
  });
  const voiceInput = createVoiceInput({
    scene,
    transcriber,
    vad: options.vad,
    conversation,
    speaking: (participant, active) => broadcast.send({ type: 'speech', participant, active }),
    recording,
    recorder,
    now,
  });
  const presence = createPresence({
    session: id,
    scene,
    conversation,
    resume: saving.resume,
    gone: voiceInput.stop,
    log: logLine,
    ...(options.seatGraceMs !== undefined ? { seatGraceMs: options.seatGraceMs } : {}),
  });

  // After the conversation's own resume (its `session-resumed` notice first): the humans' seats held for them.
  if (options.resume) queueMicrotask(() => !closed && presence.reopened());

  const status = (): SessionStatus => (closed || conversation.state.phase === 'ended' ? 'ended' : !presence.started ? 'lobby' : conversation.state.paused ? 'paused' : 'live');

  const snapshot = (role: Role, participant?: string | null): Snapshot =>
    snapshotOf({ session: id, scene, state: conversation.state, status: status(), present: presence.present, emptySeats: presence.emptySeats(), recording }, role, participant);

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
      broadcast.relay(participant, { type: 'voice', participant, sampleRate: MIC_SAMPLE_RATE, pcm: base64(pcm) });
      voiceInput.hear(participant, pcm);
    },
    presence: presence.elsewhere,
    subscribe: broadcast.subscribe,
    ended: () => closed || conversation.state.phase === 'ended',
    end: (by) => {
      endedBy ??= by;
      conversation.send({ type: 'end', by: /admin/.test(by) ? 'admin' : /participant/.test(by) ? 'participant' : 'instructor' });
    },
    close({ by = 'the admin', ...how }) {
      if (!room.ended()) room.end(by);
      broadcast.close(how);
    },
    join(client, afterSeq) {
      const unreadable = () => {
        client.send({ type: 'error', code: 'storage', message: "The session's log could not be read; reconnect in a moment." });
        client.close?.();
      };
      let read: { resumedFrom: number; backlog: SessionEvent[] } | Promise<{ resumedFrom: number; backlog: SessionEvent[] }>;
      try {
        // A seq that is no seq of this log (negative, fractional, past its end) resumes from the start or the end.
        const resumed = Number.isSafeInteger(afterSeq) && afterSeq > 0 ? after(tryTwice(() => store.lastSeq(id)), (last) => Math.min(afterSeq, last)) : 0;
        read = after(resumed, (resumedFrom) => after(tryTwice(() => store.events(id, resumedFrom) as SessionEvent[] | Promise<SessionEvent[]>), (backlog) => ({ resumedFrom, backlog })));
      } catch {
        unreadable();
        return () => {};
      }
      // The SQLite store answers at once: synchronous from here to `broadcast.add`, no event can slip between the backlog and the live stream.
      if (!(read instanceof Promise)) return admit(client, read.resumedFrom, read.backlog);
      // A store that answers later: what is committed while the backlog is read is kept and given after it, each event once.
      const pending = { committed: [] as SessionEvent[] };
      joining.add(pending);
      let leave: (() => void) | null = null;
      let left = false;
      read.then(
        ({ resumedFrom, backlog }) => {
          joining.delete(pending);
          if (left) return;
          const last = backlog.at(-1)?.seq ?? resumedFrom;
          leave = admit(client, resumedFrom, [...backlog, ...pending.committed.filter((e) => e.seq > last)]);
        },
        () => {
          joining.delete(pending);
          if (!left) unreadable();
        },
      );
      return () => {
        left = true;
        joining.delete(pending);
        leave?.();
      };
    },
    // A pose is presence, not conversation: relayed to the others, never the engine's or the log's.
    handle: (client, message) => (message.type === 'pose' ? relayPose(client, message) : commands(client, message)),
  };

  /** A client with its backlog read: welcome, backlog, live stream; returns how it leaves. */
  const admit = (client: Client, resumedFrom: number, backlog: readonly SessionEvent[]): (() => void) => {
    client.send({ type: 'welcome', protocol: 1, you: { participant: client.participant, role: client.role }, resumedFrom, snapshot: snapshot(client.role, client.participant), voice });
    broadcast.replay(client, backlog);
    if (saving.failing) client.send({ type: 'error', code: 'storage', message: savingFailedMessage });
    broadcast.add(client);
    if (client.participant) presence.connect(client.participant, 1);
    // One seat, one tab: a newer connection takes the seat, and the older one is told why.
    if (client.participant && client.close !== undefined) {
      for (const older of broadcast.clients) {
        if (older === client || older.participant !== client.participant || older.close === undefined) continue;
        older.send({ type: 'error', code: 'replaced', message: 'Your seat was opened in another tab or on another device; this one is closed.' });
        older.close();
      }
    }
    let left = false;
    return () => {
      if (left) return;
      left = true;
      broadcast.remove(client);
      if (client.participant) presence.connect(client.participant, -1);
    };
  };
  /** A headset wearer's pose from their own seat, to everyone else in the room while it runs. */
  const relayPose = (client: Client, message: PoseMessage): ServerMessage | null => {
    if (message.participant !== client.participant) return { type: 'error', code: 'forbidden', message: 'A pose is your own: send it for your own seat.', field: 'participant' };
    if (!room.ended()) broadcast.pose(message);
    return null;
  };
  const commands = createCommands({ scene, conversation, presence, saving: () => saving.failing, end: room.end, ended: room.ended });
  return room;
};
