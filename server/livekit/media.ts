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
 * The data it carries, topic by topic, is shared/protocol/media.ts's.
 */
import type { Topic } from '../../shared/protocol/media';

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
