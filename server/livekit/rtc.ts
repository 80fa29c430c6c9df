/**
 * The media port (media.ts) on `@livekit/rtc-node`. One connection is the bridge's own (identity
 * `server:<session>`): it subscribes to humans' microphones, sees who comes and goes, and sends the
 * data. A LiveKit connection has one identity, so each persona speaks through a connection of its
 * own (`persona:<id>`), opened on its first audio, publishing one microphone track.
 *
 * ```ts
 * const media = createRtcMediaRoom({
 *   url: livekit.url,
 *   token: () => mintServerToken(livekit, session),
 *   personaToken: (identity) => mintPersonaToken(livekit, { session, participant, name, avatar }),
 * });
 * ```
 *
 * Tokens are asked for at every connect, so a reconnect a day later still gets a valid one.
 */
import {
  AudioFrame,
  AudioResampler,
  AudioSource,
  AudioStream,
  DisconnectReason,
  LocalAudioTrack,
  Room,
  RoomEvent,
  TrackKind,
  TrackPublishOptions,
  TrackSource,
  type RemoteTrack,
  type RemoteTrackPublication,
} from '@livekit/rtc-node';
import { MIC_SAMPLE_RATE } from '../../shared/protocol/messages';
import type { MediaRoom, PersonaTrack } from './media';

export interface RtcMediaOptions {
  /** ws:// or wss:// */
  url: string;
  /** A token for the bridge's own connection. */
  token: () => Promise<string>;
  /** A token for the connection that publishes persona `identity`. */
  personaToken: (identity: string) => Promise<string>;
}

/** Humans' audio arrives in 20 ms frames, as browsers' microphones send it. */
const MIC_FRAME_MS = 20;
/** Personas' audio is handed to the source in 100 ms frames (its queue holds 1 s). */
const VOICE_FRAME_MS = 100;

/** Never subscribed to anything: the bridge's connections only listen where it asks. */
const connectOptions = { autoSubscribe: false, dynacast: false };

const isMicrophone = (publication: RemoteTrackPublication) => publication.kind === TrackKind.KIND_AUDIO && publication.source === TrackSource.SOURCE_MICROPHONE;

/** A subscribed track as 16 kHz mono PCM16 frames; nothing is decoded until someone reads. */
async function* framesOf(track: RemoteTrack): AsyncGenerator<Int16Array> {
  const stream = new AudioStream(track, { sampleRate: MIC_SAMPLE_RATE, numChannels: 1, frameSizeMs: MIC_FRAME_MS });
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value.data;
    }
  } finally {
    // The reader stopped early (the bridge closed): the native stream is released.
    await reader.cancel();
  }
}

/** `pcm` at `rate` as frames of the track's `sampleRate`. */
const voiceFrames = (pcm: Int16Array, rate: number, sampleRate: number): AudioFrame[] => {
  let samples = pcm;
  if (rate !== sampleRate) {
    // A fallback voice (e.g. eSpeak after ElevenLabs) may speak at another rate than the track's.
    const resampler = new AudioResampler(rate, sampleRate, 1);
    const out = [...resampler.push(new AudioFrame(pcm, rate, 1, pcm.length)), ...resampler.flush()];
    resampler.close();
    samples = new Int16Array(out.reduce((n, frame) => n + frame.data.length, 0));
    out.reduce((at, frame) => (samples.set(frame.data, at), at + frame.data.length), 0);
  }
  const size = Math.round((sampleRate * VOICE_FRAME_MS) / 1000);
  const frames: AudioFrame[] = [];
  for (let at = 0; at < samples.length; at += size) {
    const part = samples.slice(at, at + size);
    frames.push(new AudioFrame(part, sampleRate, 1, part.length));
  }
  return frames;
};

export const createRtcMediaRoom = (options: RtcMediaOptions): MediaRoom => {
  const onTrack: ((identity: string, frames: AsyncIterable<Int16Array>) => void)[] = [];
  const onParticipant: ((identity: string, present: boolean) => void)[] = [];
  const onDisconnect: ((reason: string) => void)[] = [];
  let room: Room | null = null;
  /** The persona connections, by identity: they are this media room's own, never reported. */
  const personas = new Map<string, PersonaTrack>();
  let closed = false;

  const publishPersona = async (identity: string, sampleRate: number): Promise<PersonaTrack> => {
    if (!room) throw new Error('not connected to the LiveKit room');
    // A track of theirs that failed is replaced: LiveKit would drop the older connection anyway.
    await personas.get(identity)?.close();
    const connection = new Room();
    const source = new AudioSource(sampleRate, 1);
    const track = LocalAudioTrack.createAudioTrack('voice', source);
    let queue: Promise<void> = Promise.resolve();
    /** Bumped by clear(): pushes from before it stop feeding the source. */
    let epoch = 0;
    let gone: string | null = null;
    const persona: PersonaTrack = {
      sampleRate,
      push(pcm, rate) {
        const mine = epoch;
        const run = queue.then(async () => {
          if (gone) throw new Error(gone);
          for (const frame of voiceFrames(pcm, rate, sampleRate)) {
            if (epoch !== mine) return;
            await source.captureFrame(frame);
            // A frame waiting for room in the queue when clear() came went in after it: out again.
            if (epoch !== mine && !gone) return source.clearQueue();
          }
        });
        queue = run.catch(() => undefined); // the caller has the error; the queue goes on
        return run;
      },
      clear() {
        epoch++;
        if (!gone) source.clearQueue();
      },
      async close() {
        if (personas.get(identity) !== persona) return;
        personas.delete(identity);
        epoch++;
        gone = 'the persona left the LiveKit room';
        await track.close();
        await connection.disconnect();
      },
    };
    // Registered before it joins, so the bridge's connection never reports it as a participant.
    personas.set(identity, persona);
    connection.on(RoomEvent.Disconnected, (reason) => void (gone ??= `the persona's LiveKit connection was lost (${DisconnectReason[reason]})`));
    try {
      await connection.connect(options.url, await options.personaToken(identity), connectOptions);
      await connection.localParticipant!.publishTrack(track, new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }));
    } catch (error) {
      await persona.close();
      throw error;
    }
    return persona;
  };

  return {
    async connect() {
      const next = new Room();
      const foreign = (identity: string) => !personas.has(identity);
      const presence = (identity: string, present: boolean) => {
        if (foreign(identity)) onParticipant.forEach((cb) => cb(identity, present));
      };
      next.on(RoomEvent.ParticipantConnected, (p) => presence(p.identity, true));
      next.on(RoomEvent.ParticipantDisconnected, (p) => presence(p.identity, false));
      next.on(RoomEvent.TrackPublished, (publication, p) => {
        if (foreign(p.identity) && isMicrophone(publication)) publication.setSubscribed(true);
      });
      next.on(RoomEvent.TrackSubscribed, (track, _publication, p) => {
        if (track.kind === TrackKind.KIND_AUDIO && foreign(p.identity)) onTrack.forEach((cb) => cb(p.identity, framesOf(track)));
      });
      next.on(RoomEvent.Disconnected, (reason) => {
        if (room !== next || closed) return;
        room = null;
        // Their connections may be gone too; whatever closing them says, the bridge republishes them.
        void Promise.allSettled([...personas.values()].map((persona) => persona.close()));
        onDisconnect.forEach((cb) => cb(DisconnectReason[reason] ?? String(reason)));
      });
      await next.connect(options.url, await options.token(), connectOptions);
      if (closed) return void (await next.disconnect());
      room = next;
      // Those already here are reported as arriving; their microphones follow as TrackSubscribed.
      for (const p of next.remoteParticipants.values()) {
        if (!foreign(p.identity)) continue;
        onParticipant.forEach((cb) => cb(p.identity, true));
        for (const publication of p.trackPublications.values()) if (isMicrophone(publication)) publication.setSubscribed(true);
      }
    },
    onHumanTrack: (callback) => void onTrack.push(callback),
    onParticipant: (callback) => void onParticipant.push(callback),
    onDisconnect: (callback) => void onDisconnect.push(callback),
    publishPersona,
    async sendData(topic, payload, reliable) {
      const participant = room?.localParticipant;
      if (!participant) throw new Error('not connected to the LiveKit room');
      await participant.publishData(new TextEncoder().encode(payload), { reliable, topic });
    },
    async close() {
      closed = true;
      await Promise.all([...personas.values()].map((persona) => persona.close()));
      const current = room;
      room = null;
      await current?.disconnect();
    },
  };
};
