/**
 * The media port of a session's LiveKit room, as the bridge (bridge.ts) needs it and nothing
 * more: humans' microphones in, one published track per persona out, data messages out. rtc.ts
 * implements it with `@livekit/rtc-node`; tests/fakes/livekit-media.ts in memory.
 *
 * ```ts
 * const media = createRtcMediaRoom({ url, token: () => mintServerToken(livekit, session), personaToken });
 * media.onHumanTrack((identity, frames) => { for await (const pcm of frames) room.hear(identity, pcm); });
 * await media.connect();
 * const ada = await media.publishPersona('persona:ada', 22_050);
 * await ada.push(pcm, 22_050);
 * await media.sendData(topics.events, JSON.stringify({ type: 'event', event }), true);
 * ```
 *
 * Data travels on four topics, each message one JSON object of the realtime protocol
 * (protocol/messages.ts), exactly as the WebSocket sends it, except that `audio` loses its PCM
 * (the samples are on the persona's track):
 *
 * - `rehearsal.events`: `event` messages, in log order. Participant-visible events only
 *   (observer-only `system` events stay on the socket, as LiveKit data reaches everyone).
 * - `rehearsal.deltas`: `delta` messages (a reply's text as it is generated).
 * - `rehearsal.cues`: `audio` messages without `pcm` ({@link CueMessage}): speaker, draft, seq,
 *   offsetMs, sampleRate, viseme cues and word timings of a piece of a persona's speech.
 * - `rehearsal.control`: `audio-stop` (stop that draft's speech at `atMs`) and `speech` (a human
 *   started or stopped talking).
 *
 * All are sent reliable (ordered, retransmitted): a cue message can exceed the ~1.3 kB a lossy
 * packet carries, and a lost event would be a hole in the log. A reliable packet holds at most
 * 15 KiB; protocol messages are far smaller.
 *
 * Nothing is replayed: while the bridge is disconnected, messages are dropped, and after a
 * reconnect only new ones are sent. Every event carries its `seq`, so a client that sees a gap
 * (or rejoins) reads what it missed from `GET /api/sessions/:id/events` (or the socket with
 * `after=<seq>`) and goes on from there: nothing lost, nothing twice.
 */
import type { z } from 'zod';
import { ServerMessage } from '../protocol/messages';

/** The data topics, for the server and the client alike. */
export const topics = {
  events: 'rehearsal.events',
  deltas: 'rehearsal.deltas',
  cues: 'rehearsal.cues',
  control: 'rehearsal.control',
} as const;
export type Topic = (typeof topics)[keyof typeof topics];

const AudioMessage = ServerMessage.options.find((option) => option.shape.type.value === 'audio') as Extract<(typeof ServerMessage.options)[number], { shape: { type: z.ZodLiteral<'audio'> } }>;

/** What `rehearsal.cues` carries: the protocol's `audio` message without its `pcm`. */
export const CueMessage = AudioMessage.omit({ pcm: true });
export type CueMessage = z.infer<typeof CueMessage>;

/** The topic a room message goes out on; null for messages that stay on the socket (`voice`, `welcome`, `error`, `pong`). */
export const topicOf = (message: ServerMessage): Topic | null => {
  switch (message.type) {
    case 'event':
    case 'seq':
      return topics.events;
    case 'delta':
      return topics.deltas;
    case 'audio':
      return topics.cues;
    case 'audio-stop':
    case 'speech':
      return topics.control;
    default:
      return null;
  }
};

/** A persona's published track: a playout queue of PCM16 mono audio. */
export interface PersonaTrack {
  /** The rate the track was published at. */
  readonly sampleRate: number;
  /** Queues samples (at any rate; resampled if it is not the track's) after those pushed before; resolves once they are queued. */
  push(pcm: Int16Array, sampleRate: number): Promise<void>;
  /** Drops everything queued and not yet played, including pushes still waiting to be queued. */
  clear(): void;
  /** Unpublishes the track (the persona leaves the media room). */
  close(): Promise<void>;
}

export interface MediaRoom {
  /**
   * Joins the media room; rejects when it cannot. Participants already there are reported through
   * `onParticipant` (and their microphones through `onHumanTrack`) as if they had just arrived.
   * Called again after `onDisconnect` to rejoin.
   */
  connect(): Promise<void>;
  /** A remote participant's microphone: PCM16 mono frames at 16 kHz, ending when the track does. */
  onHumanTrack(callback: (identity: string, frames: AsyncIterable<Int16Array>) => void): void;
  /** A remote participant arrived (true) or left (false). Never the media room's own identities. */
  onParticipant(callback: (identity: string, present: boolean) => void): void;
  /** The connection was lost (not after `close`); persona tracks are gone with it. */
  onDisconnect(callback: (reason: string) => void): void;
  /** Publishes a persona's voice as its own participant `identity` (one connection each). */
  publishPersona(identity: string, sampleRate: number): Promise<PersonaTrack>;
  /** Sends one message to everyone in the room on `topic`. */
  sendData(topic: Topic, payload: string, reliable: boolean): Promise<void>;
  /** Leaves the room, with every persona. */
  close(): Promise<void>;
}
