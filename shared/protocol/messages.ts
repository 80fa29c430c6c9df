/**
 * The realtime protocol between a room and its clients (WebSocket now, LiveKit data later).
 * One zod schema per message, shared by the server, the client and the tests; session events
 * travel inside `event` messages exactly as they are in the log.
 *
 * Server → client: `welcome` (on join and on reconnect, with a snapshot and what voice the
 * server offers), `event` (each logged event the viewer may see, in order, never twice), `seq`
 * (on the LiveKit data topics, which the whole room shares: an event not for everyone, by its
 * seq alone), `delta` (text of a reply
 * as it is generated; superseded by the `utterance` event naming the same `draft`), `audio` (a
 * piece of a reply's speech with its viseme cues and word timings), `audio-stop` (stop playing
 * a reply's speech at `atMs`), `voice` (another human's microphone, relayed), `pose` (another
 * human's headset pose, relayed; a frame may be dropped), `speech` (a human
 * started or stopped speaking), `error` (a typed complaint about one message; the connection
 * stays open, except after `replaced` and `token-expired`), `pong`. Audio and voice are transient:
 * never in the log, never replayed on the socket (recordings/ keeps each utterance's audio apart).
 * Client → server: participants `say`, `raise-hand`, `lower-hand`, `typing`, `leave`, `gaze`,
 * `pose` (in a headset, ~12 times a second: relayed to the room as it came, never logged), and
 * microphone audio as binary frames (PCM16 little-endian, 16 kHz, mono, at most 1 s each;
 * 20-40 ms frames are usual); observers `pause`, `resume`, `skip-turn`, `approve`, `edit`,
 * `dismiss`, `regenerate`, `inject`, `end`; everyone `ping`.
 */
import { z } from 'zod';
import { Role } from '../claims';
import { SessionEvent, sessionPhases } from '../events';
import { VisemeCue } from '../visemes';
import { contentKinds, formations, intents, participantKinds, structureForms } from '../scene/schema';
import { cleanText } from './text';

export const PROTOCOL_VERSION = 1;

/** The longest line a person may say or type, in characters. */
export const MAX_LINE_CHARS = 2000;

/**
 * A line from a person, typed or spoken: cleaned as it arrives (NFC, one line, no controls or
 * bidi overrides: shared/protocol/text.ts), then trusted inside. A typed line is parsed with the
 * message it comes in; a transcript (server/rooms/voice-input.ts) with this, cut to the limit first.
 */
export const LineText = z.string().overwrite(cleanText).min(1, 'expected some text').max(MAX_LINE_CHARS, `at most ${MAX_LINE_CHARS} characters`);
const text = LineText;
const id = z.string().overwrite(cleanText).min(1).max(64);

/** A seat-relative coordinate, metres: a person reaches at most a few metres from their seat. */
const metres = z.number().min(-5).max(5);
const unit = z.number().min(-1).max(1);
/** Where a tracked part of a person is, in their seat's frame (see `Pose`). */
export const Joint = z
  .object({
    /** Position [x, y, z], metres. */
    p: z.tuple([metres, metres, metres]),
    /** Orientation as a quaternion [x, y, z, w]; about unit length (it is normalised where it is used). */
    q: z.tuple([unit, unit, unit, unit]).refine(([x, y, z, w]) => Math.abs(Math.hypot(x, y, z, w) - 1) < 0.05, 'expected a unit quaternion'),
  })
  .strict();
export type Joint = z.infer<typeof Joint>;

/**
 * A headset wearer's pose, in their seat's frame: from the seat's point on the floor, y up, +z the
 * way the seat faces, +x to its left (the avatar's own axes, so every client places it on that
 * seat's avatar, wherever it sits in its own room). The head looks down its -z, as a camera does;
 * `left` and `right` are the controllers' or hands' grips, null when not tracked.
 */
export const PoseMessage = z
  .object({
    type: z.literal('pose'),
    /** The sender's own seat (any other is refused): the message is relayed as it came. */
    participant: id,
    head: Joint,
    left: Joint.nullable(),
    right: Joint.nullable(),
  })
  .strict();
export type PoseMessage = z.infer<typeof PoseMessage>;

export const ParticipantMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('say'), text }).strict(),
  z.object({ type: z.literal('raise-hand') }).strict(),
  z.object({ type: z.literal('lower-hand') }).strict(),
  z.object({ type: z.literal('typing'), active: z.boolean() }).strict(),
  z.object({ type: z.literal('leave') }).strict(),
  /** Shows slide `index` (from 0) of slide deck `content` to everyone: its presenters and the instructor may. */
  z.object({ type: z.literal('slide'), content: id, index: z.number().int().min(0).max(999) }).strict(),
  /** In VR: the participant the head now points at (null: nobody), sent when it changes. */
  z.object({ type: z.literal('gaze'), at: id.nullable() }).strict(),
  PoseMessage,
]);

export const sessionStatuses = ['lobby', 'live', 'paused', 'ended'] as const;
export type SessionStatus = (typeof sessionStatuses)[number];

export const ObserverMessage = z.discriminatedUnion('type', [
  /** Starts a session from its lobby; with `standIns` the simulation speaks for humans not yet here. */
  z.object({ type: z.literal('start'), standIns: z.boolean().optional() }).strict(),
  /** The simulation speaks for this human's seat until they are back (the instructor's call, never automatic). */
  z.object({ type: z.literal('stand-in'), participant: id }).strict(),
  z.object({ type: z.literal('pause') }).strict(),
  z.object({ type: z.literal('resume') }).strict(),
  z.object({ type: z.literal('skip-turn') }).strict(),
  /** `choice`: which of the proposal's candidates to approve (the first when unset). */
  z.object({ type: z.literal('approve'), proposal: id, choice: z.number().int().min(0).max(9).optional() }).strict(),
  z.object({ type: z.literal('edit'), proposal: id, text }).strict(),
  z.object({ type: z.literal('dismiss'), proposal: id }).strict(),
  z.object({ type: z.literal('regenerate'), proposal: id, intent: z.enum(intents).optional() }).strict(),
  z.object({ type: z.literal('inject'), text }).strict(),
  z.object({ type: z.literal('end') }).strict(),
  /** The instructor speaks for a seat (a persona, or a human seat nobody has joined) until `hand-back`. */
  z.object({ type: z.literal('take-over'), participant: id }).strict(),
  z.object({ type: z.literal('hand-back'), participant: id }).strict(),
  /** The instructor's line in a seat they took over: logged as that participant's and voiced with their voice. */
  z.object({ type: z.literal('say-as'), participant: id, text }).strict(),
]);

export const PingMessage = z.object({ type: z.literal('ping') }).strict();

export const ClientMessage = z.discriminatedUnion('type', [ParticipantMessage, ObserverMessage, PingMessage]);
export type ClientMessage = z.infer<typeof ClientMessage>;
export type ParticipantMessage = z.infer<typeof ParticipantMessage>;
export type ObserverMessage = z.infer<typeof ObserverMessage>;

export const participantTypes = ParticipantMessage.options.map((o) => o.shape.type.value);
export const observerTypes = ObserverMessage.options.map((o) => o.shape.type.value);
/** Every type a client may send: a message of another type is unknown, not malformed. */
export const clientTypes: readonly string[] = [...participantTypes, ...observerTypes, PingMessage.shape.type.value];

/** What a client needs to draw the room at once: who is here, who holds the floor, what is pending. */
export const Snapshot = z.object({
  session: z.string(),
  scene: z.object({
    id: z.string(),
    title: z.string(),
    topic: z.string(),
    formation: z.enum(formations),
    /** The shape of the meeting (the scene's `structure.form`): which setting a formation is furnished as (a lunch table, a retro's whiteboard). */
    form: z.enum(structureForms).nullable().optional(),
    /** Shared material on the room's board: public contents only (a party's private notes stay out). */
    /** The contents this viewer may see: the public ones, their own party's; observers see all. `owner`: a party id or "public". */
    contents: z.array(z.object({ id: z.string(), kind: z.enum(contentKinds), title: z.string(), summary: z.string(), sections: z.array(z.string()), owner: z.string().optional(), file: z.string().optional() })),
    moderated: z.boolean().describe('party mode "moderated": participants raise hands and wait to be called on'),
    /** The situation, as every persona is told it (nothing private). */
    context: z.string().optional(),
    /** How long a session runs at real-time pace, in minutes, as the scene states it. */
    duration: z.number().nullable().optional(),
  }),
  /** A participant's own part: what their seat wants and who they are (never anyone else's). */
  brief: z.object({ goals: z.array(z.string()), backstory: z.string().nullable() }).nullable().optional(),
  participants: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      /** What others call them ("Margaret" for "Professor Margaret Osei"); absent from older servers. */
      shortName: z.string().optional(),
      kind: z.enum(participantKinds),
      role: z.string().nullable(),
      present: z.boolean(),
      avatar: z.string().nullable(),
    }),
  ),
  phase: z.enum(sessionPhases),
  /**
   * The session's lifecycle: `lobby` until its humans have joined or the instructor starts it with
   * stand-ins; `live`; `paused` (by the instructor, or while a joined human's seat is empty past its
   * grace period); `ended`.
   */
  status: z.enum(sessionStatuses),
  /** `paused`: why (the instructor, or a seat left empty: whose). */
  pausedFor: z.object({ reason: z.enum(['instructor', 'seat-empty']), participants: z.array(z.string()) }).nullable(),
  paused: z.boolean(),
  turns: z.number().int(),
  snippet: z.string(),
  /** Who the room expects to speak: the speaker being generated, or the human it waits for. */
  expected: z.string().nullable(),
  waitingFor: z.string().nullable().describe('a present human the room is waiting for'),
  hands: z.array(z.string()),
  /** The slide each slide deck shows now (from 0); absent: the first. */
  slides: z.record(z.string(), z.number().int()).optional(),
  /** Observers only: the seats the instructor has taken over. */
  controlled: z.array(z.string()).optional(),
  /** Observers only: the open human-control proposal. */
  proposal: z
    .object({ id: z.string(), participant: z.string(), intent: z.enum(intents), text: z.string(), candidates: z.array(z.object({ intent: z.enum(intents), text: z.string() })).optional() })
    .nullable(),
  lastSeq: z.number().int(),
  /**
   * Participants' microphones are recorded in this session (the scene's or the instructor's
   * choice): the client tells the participant before they join. Always sent; absent (older
   * servers): false.
   */
  recording: z.boolean().optional(),
});
export type Snapshot = z.infer<typeof Snapshot>;

/** A session as GET /api/sessions lists it for the instructors' sessions page (api/sessions.ts). */
export interface SessionSummary {
  id: string;
  scene: { id: string; title: string };
  status: SessionStatus;
  pace: 'realtime' | 'instant';
  seed: number;
  /** ms since the epoch. */
  createdAt: number;
  endedAt: number | null;
  /** Conversation time, from the session's start to its end (or to now while it runs). */
  durationMs: number;
  turns: number;
  /** Every seat: humans (present now, for a live session) and personas. */
  participants: { id: string; name: string; kind: 'human' | 'ai'; present: boolean }[];
  events: number;
  /** Whether participants' microphones are kept as audio with the session (personas' speech always is). */
  recording: boolean;
}

/**
 * `replaced`: a newer connection took this seat (or this credential's place) and this one is closed;
 * `token-expired`: the credential ran out and the socket is closed (close code 4401);
 * `storage`: the session's events cannot be saved now; it is paused until they can.
 */
export const errorCodes = ['bad-json', 'bad-message', 'forbidden', 'too-large', 'rate-limited', 'ended', 'voice-off', 'not-ready', 'not-in-lobby', 'replaced', 'paused', 'token-expired', 'storage'] as const;

/**
 * Close codes for several servers on one database (server/cluster/). `CLOSE_MOVED`: this session
 * runs on another server; the close reason is that server's public URL (http(s), at most 123
 * bytes, as a close reason is), and the client reconnects there at once. `CLOSE_LEASE_LOST`: this
 * server stopped running the session because another took it over; the client reconnects as it
 * first did (through the load balancer), which finds the new owner.
 */
export const CLOSE_MOVED = 4307;
export const CLOSE_LEASE_LOST = 4503;

/** The sample format of microphone frames (client → server) and relayed voice. */
export const MIC_SAMPLE_RATE = 16_000;
/** The longest microphone frame accepted: 1 s of PCM16 at 16 kHz. */
export const MAX_MIC_FRAME_BYTES = MIC_SAMPLE_RATE * 2;

const pcm = z.string().describe('PCM16 little-endian mono samples, base64');

/** What voice the server offers this client; `hint` says how to turn on what is off. */
export const VoiceOffer = z.object({
  /** Microphone audio is transcribed (a transcriber is configured). */
  input: z.boolean(),
  /** Replies are spoken, by this synthesizer; null: text only. */
  output: z.string().nullable(),
  hint: z.string().optional(),
});
export type VoiceOffer = z.infer<typeof VoiceOffer>;

/** Why a reply's audio stops before its end (the `audio-stop` message). */
export const audioStopReasons = ['barge-in', 'interrupted', 'rejected', 'ended'] as const;
export type AudioStopReason = (typeof audioStopReasons)[number];

export const ServerMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('welcome'),
    protocol: z.literal(PROTOCOL_VERSION),
    you: z.object({ participant: z.string().nullable(), role: Role }),
    /** The client's `after` when it reconnected (0 if it was no seq, the last seq if past it): events after it follow, none before. */
    resumedFrom: z.number().int(),
    snapshot: Snapshot,
    voice: VoiceOffer,
  }),
  z.object({ type: z.literal('event'), event: SessionEvent }),
  /**
   * Event `seq` was logged but is not for everyone (an instructor's, one seat's): where a stream
   * reaches the whole room (the LiveKit data topics), it stands in for the event, so the stream
   * keeps its count and a real gap (events lost) is still told apart.
   */
  z.object({ type: z.literal('seq'), seq: z.number().int().positive() }),
  z.object({ type: z.literal('delta'), speaker: z.string(), draft: z.string(), text: z.string() }),
  z.object({
    type: z.literal('audio'),
    speaker: z.string(),
    draft: z.string(),
    /** 0, 1, 2… within the draft; pieces arrive in order. */
    seq: z.number().int().nonnegative(),
    /** Where this piece starts, in ms from the start of the draft's speech (pieces follow without gaps). */
    offsetMs: z.number().nonnegative(),
    sampleRate: z.number().int().positive(),
    pcm,
    /** Visemes (morph targets `viseme_<name>`) becoming dominant at `t` ms from the start of the draft's speech. */
    cues: z.array(VisemeCue),
    words: z.array(z.object({ word: z.string(), start: z.number(), end: z.number() })),
  }),
  z.object({
    type: z.literal('audio-stop'),
    speaker: z.string(),
    draft: z.string(),
    /** Stop playing the draft's speech here (ms from its start); now, if it is already past. */
    atMs: z.number().nonnegative(),
    reason: z.enum(audioStopReasons).describe("barge-in: a human started talking; interrupted: the scene's interruption rule; rejected: the engine resampled the reply"),
  }),
  z.object({ type: z.literal('voice'), participant: z.string(), sampleRate: z.literal(MIC_SAMPLE_RATE), pcm }),
  PoseMessage,
  z.object({ type: z.literal('speech'), participant: z.string(), active: z.boolean() }),
  z.object({ type: z.literal('error'), code: z.enum(errorCodes), message: z.string(), field: z.string().optional() }),
  z.object({ type: z.literal('pong') }),
]);
export type ServerMessage = z.infer<typeof ServerMessage>;
