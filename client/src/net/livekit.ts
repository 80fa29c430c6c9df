/**
 * Media through LiveKit, when the server runs with LiveKit (README, "LiveKit"): this person's
 * microphone is published to the session's LiveKit room (echo cancellation and noise suppression
 * on), and every other voice, humans and personas (each persona is its own LiveKit participant,
 * `persona:<id>`), arrives as a track that the caller routes into the spatial audio. Events and
 * controls stay on the session socket, which also keeps lip-sync timing.
 *
 * ```ts
 * if (mediaTransport(health) === 'livekit') {
 *   const media = await joinLiveKitMedia({ session, token, onTrack: (who, track) => voices.attach(who, track), onTrackEnded: (who) => voices.detach(who) });
 *   await media.setMicrophone(true);
 * }
 * ```
 */
import { api } from './api';
import { Room, RoomEvent, Track } from 'livekit-client';
import type { ServerMessage } from '../../../shared/protocol/messages';
import { fromTopic, participantOf, type CuePiece } from './media';

export interface LiveKitMedia {
  setMicrophone(on: boolean): Promise<void>;
  close(): Promise<void>;
}

export const joinLiveKitMedia = async (options: {
  session: string;
  token: string;
  onTrack(participant: string, track: MediaStreamTrack): void;
  onTrackEnded(participant: string): void;
  /** The live stream from the data topics: events, deltas, cues (as sample-less audio) and controls. */
  onMessage?(message: ServerMessage | CuePiece): void;
  /** The LiveKit connection dropped (`reconnecting`), came back (`open`), or is gone (`closed`). */
  onStatus?(status: 'reconnecting' | 'open' | 'closed'): void;
}): Promise<LiveKitMedia> => {
  const body = await api.livekitToken(options.session, options.token).catch((error: Error) => {
    throw new Error(`no LiveKit token (${error.message})`);
  });
  if (!body.url || !body.token) throw new Error('no LiveKit token (the server gave no URL or token)');
  const room = new Room({ adaptiveStream: false, dynacast: false });
  // Chrome only starts a remote WebRTC audio track flowing into Web Audio once a media element plays it.
  const keepAlive = new Map<string, HTMLAudioElement>();
  room.on(RoomEvent.TrackSubscribed, (track, _publication, participant) => {
    const who = participantOf(participant.identity);
    if (track.kind !== Track.Kind.Audio || !who) return;
    const element = new Audio();
    element.muted = true;
    element.srcObject = new MediaStream([track.mediaStreamTrack]);
    void element.play().catch(() => undefined);
    keepAlive.set(who, element);
    options.onTrack(who, track.mediaStreamTrack);
  });
  room.on(RoomEvent.TrackUnsubscribed, (_track, _publication, participant) => {
    const who = participantOf(participant.identity);
    if (!who) return;
    keepAlive.get(who)?.pause();
    keepAlive.delete(who);
    options.onTrackEnded(who);
  });
  const decoder = new TextDecoder();
  room.on(RoomEvent.DataReceived, (payload, _participant, _kind, topic) => {
    const message = fromTopic(topic, decoder.decode(payload));
    if (message) options.onMessage?.(message);
  });
  room.on(RoomEvent.Disconnected, () => options.onStatus?.('closed'));
  room.on(RoomEvent.Reconnecting, () => options.onStatus?.('reconnecting'));
  room.on(RoomEvent.Reconnected, () => options.onStatus?.('open'));
  await room.connect(body.url, body.token);
  return {
    async setMicrophone(on) {
      await room.localParticipant.setMicrophoneEnabled(on, { echoCancellation: true, noiseSuppression: true, autoGainControl: true });
    },
    async close() {
      for (const element of keepAlive.values()) element.pause();
      await room.disconnect();
    },
  };
};
