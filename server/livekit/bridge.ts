/**
 * The bridge between one live room (rooms/rooms.ts) and its session's LiveKit room: the same
 * spoken turn as over the socket (ARCHITECTURE.md, "A spoken turn"), carried by LiveKit.
 *
 * ```ts
 * const bridge = createBridge({ room, media: createRtcMediaRoom({ url, token, personaToken }), onError: (e) => log(e.message) });
 * await bridge.close(); // also done by itself when the session ends
 * ```
 *
 * - In: each human's microphone track is heard as theirs (`room.hear(identity, pcm)`, as a
 *   socket's binary frames are): the track's owner is the speaker. Identities that are not a human
 *   seat of the scene (personas, the server, observers, strangers) are never listened to. Who is in
 *   the media room is who is present (`room.presence`).
 * - Out: each persona speaks on its own track, published as `persona:<id>` on its first audio at
 *   that audio's rate. `audio-stop` cuts the persona's queued audio where the room says it stops
 *   (now for a barge-in; at the end of the clause or the interrupted word when that is ahead).
 *   Events, deltas, cues and controls go out as data on the topics of media.ts.
 * - LiveKit down: the room goes on (sockets are unaffected); the bridge retries with exponential
 *   backoff and reports each failure to `onError`. While it is away, presence through it is
 *   withdrawn and messages are dropped; after it is back, only new messages are sent, and clients
 *   read missed events from the log by seq (media.ts).
 */
import type { Room } from '../rooms/rooms';
import type { ServerMessage } from '../../shared/protocol/messages';
import { topicOf, type CueMessage } from '../../shared/protocol/media';
import { type MediaRoom, type PersonaTrack } from './media';
import { isReservedIdentity, personaIdentity } from './tokens';

/** What the bridge uses of a room. */
export type BridgedRoom = Pick<Room, 'id' | 'scene' | 'hear' | 'presence' | 'subscribe'>;

export interface BridgeOptions {
  room: BridgedRoom;
  media: MediaRoom;
  /** A failure worth a line in the server's log (a failed connect, a lost connection, a message not sent); the bridge carries on. */
  onError?: (error: Error) => void;
  /** Reconnect backoff: the first wait, doubled after each failure up to `maxMs`. */
  retry?: { initialMs: number; maxMs: number };
  now?: () => number;
}

export interface Bridge {
  /** True while the bridge is in the media room. */
  readonly connected: boolean;
  /** Leaves the media room for good: presence through it withdrawn, personas unpublished. */
  close(): Promise<void>;
}

/** A cut less than one audio frame ahead is made at once. */
const FRAME_MS = 20;

const defaults = { retry: { initialMs: 1000, maxMs: 30_000 }, now: () => Date.now() };

type AudioMessage = Extract<ServerMessage, { type: 'audio' }>;
type StopMessage = Extract<ServerMessage, { type: 'audio-stop' }>;

/** One persona's track and where its speech is, on the wall clock. */
interface Voice {
  speaker: string;
  track: Promise<PersonaTrack>;
  /** The draft being played, and when its offset 0 plays. */
  draft: string | null;
  startsAt: number;
  /** When everything queued has played. */
  endsAt: number;
  /** Where `draft` stops (ms from its start), once an audio-stop said so. */
  stopAtMs: number | null;
  /** A stop ahead of the playhead, waiting for its moment. */
  cut: ReturnType<typeof setTimeout> | null;
}

/** An `audio` message as `rehearsal.cues` carries it: the samples are on the persona's track. */
const cuesOf = ({ pcm: _samples, ...cues }: AudioMessage): CueMessage => cues;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Copied out of the decoded bytes, which may sit at an odd offset of a shared pool. */
const samplesOf = (base64: string): Int16Array => {
  const bytes = Buffer.from(base64, 'base64');
  return new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.byteLength & ~1)));
};

export const createBridge = (options: BridgeOptions): Bridge => {
  const { room, media } = options;
  const { retry, now } = { ...defaults, ...options };
  const report = (error: Error) => options.onError?.(error);
  const where = `the LiveKit room of session ${room.id}`;
  const seats = new Set(room.scene.participants.filter((p) => p.kind === 'human').map((p) => p.id));
  const hearable = (identity: string) => !isReservedIdentity(identity) && seats.has(identity);

  let state: 'connecting' | 'connected' | 'waiting' | 'closed' = 'connecting';
  /** Read through a call: `close()` may have run during an await. */
  const closed = () => state === 'closed';
  let reconnect: ReturnType<typeof setTimeout> | null = null;
  /** Humans this bridge made present. */
  const present = new Set<string>();
  const voices = new Map<string, Voice>();
  let sending: Promise<void> = Promise.resolve();

  /** The connection is gone: nobody is heard through it, and its persona tracks went with it. */
  const forget = () => {
    for (const identity of present) room.presence(identity, false);
    present.clear();
    for (const voice of voices.values()) if (voice.cut) clearTimeout(voice.cut);
    voices.clear();
  };

  const connect = async (attempt: number): Promise<void> => {
    if (closed()) return;
    state = 'connecting';
    try {
      await media.connect();
    } catch (error) {
      if (closed()) return;
      const waitMs = Math.min(retry.maxMs, retry.initialMs * 2 ** attempt);
      report(new Error(`could not join ${where} (${messageOf(error)}); retrying in ${waitMs} ms`));
      state = 'waiting';
      reconnect = setTimeout(() => void connect(attempt + 1), waitMs);
      return;
    }
    if (closed()) return void media.close().catch(report);
    state = 'connected';
  };

  media.onDisconnect((reason) => {
    if (state !== 'connected') return;
    report(new Error(`lost ${where} (${reason}); reconnecting`));
    forget();
    void connect(0);
  });

  media.onParticipant((identity, here) => {
    if (closed() || !hearable(identity)) return;
    if (here) present.add(identity);
    else present.delete(identity);
    room.presence(identity, here);
  });

  media.onHumanTrack((identity, frames) => {
    if (closed() || !hearable(identity)) return;
    void (async () => {
      try {
        for await (const pcm of frames) {
          if (closed()) return;
          room.hear(identity, pcm);
        }
      } catch (error) {
        report(new Error(`${identity}'s microphone in ${where} failed (${messageOf(error)})`));
      }
    })();
  });

  const send = (message: ServerMessage): void => {
    const topic = topicOf(message);
    // Away: dropped, not queued; clients catch up from the log by seq (media.ts).
    if (!topic || state !== 'connected') return;
    const payload = JSON.stringify(message.type === 'audio' ? cuesOf(message) : message);
    sending = sending.then(() => media.sendData(topic, payload, true).catch((error) => report(new Error(`could not send ${message.type} on ${topic} in ${where} (${messageOf(error)})`))));
  };

  const voiceOf = (speaker: string, sampleRate: number): Voice => {
    const known = voices.get(speaker);
    if (known) return known;
    const voice: Voice = { speaker, track: media.publishPersona(personaIdentity(speaker), sampleRate), draft: null, startsAt: 0, endsAt: 0, stopAtMs: null, cut: null };
    voices.set(speaker, voice);
    voice.track.catch((error) => lost(speaker, voice, `could not publish ${speaker}'s voice`, error));
    return voice;
  };

  /** A track that failed is forgotten: the persona's next audio publishes a new one. */
  const lost = (speaker: string, voice: Voice, what: string, error: unknown) => {
    if (voices.get(speaker) !== voice) return;
    voices.delete(speaker);
    if (voice.cut) clearTimeout(voice.cut);
    report(new Error(`${what} in ${where} (${messageOf(error)}); a new track is published with their next audio`));
  };

  const play = ({ speaker, draft, offsetMs, sampleRate, pcm: base64 }: AudioMessage): void => {
    const voice = voiceOf(speaker, sampleRate);
    const t = now();
    if (voice.draft !== draft) {
      // A cut still pending in the previous reply is made now: the new one does not wait behind it.
      if (voice.cut) {
        clearTimeout(voice.cut);
        silence(voice);
      }
      Object.assign(voice, { draft, stopAtMs: null, startsAt: Math.max(t, voice.endsAt) - offsetMs });
    }
    let pcm = samplesOf(base64);
    if (voice.stopAtMs !== null) {
      // Synthesized past its stop (a persistent persona's clause end): only the part before it plays.
      pcm = pcm.subarray(0, Math.max(0, Math.round(((voice.stopAtMs - offsetMs) * sampleRate) / 1000)));
      if (pcm.length === 0) return;
    }
    voice.endsAt = Math.max(t, voice.endsAt) + (pcm.length / sampleRate) * 1000;
    // The failure of the publish itself was reported by voiceOf.
    void voice.track.then(
      (track) => track.push(pcm, sampleRate).catch((error) => lost(speaker, voice, `${speaker}'s voice stopped`, error)),
      () => undefined,
    );
  };

  const silence = (voice: Voice): void => {
    voice.cut = null;
    voice.endsAt = now();
    void voice.track
      .then((track) => track.clear(), () => undefined) // a failed publish was reported by voiceOf
      .catch((error) => report(new Error(`could not stop ${voice.speaker}'s voice in ${where} (${messageOf(error)})`)));
  };

  const stop = ({ speaker, draft, atMs }: StopMessage): void => {
    const voice = voices.get(speaker);
    // Nothing of that draft went out through this bridge: nothing to cut.
    if (!voice || voice.draft !== draft) return;
    voice.stopAtMs = Math.min(voice.stopAtMs ?? Infinity, atMs);
    if (voice.cut) clearTimeout(voice.cut);
    voice.cut = null;
    const stopsAt = voice.startsAt + voice.stopAtMs;
    if (stopsAt >= voice.endsAt) return; // what is queued ends before the stop; later pieces are cut in play()
    const t = now();
    if (stopsAt - t < FRAME_MS) silence(voice);
    else voice.cut = setTimeout(() => silence(voice), stopsAt - t);
  };

  const unsubscribe = room.subscribe((message) => {
    if (state === 'connected' && message.type === 'audio') play(message);
    if (message.type === 'audio-stop') stop(message);
    send(message);
    if (message.type === 'event' && message.event.type === 'end') void bridge.close();
  });

  const bridge: Bridge = {
    get connected() {
      return state === 'connected';
    },
    async close() {
      if (closed()) return;
      state = 'closed';
      unsubscribe();
      if (reconnect) clearTimeout(reconnect);
      forget();
      await sending;
      await media.close().catch(report);
    },
  };
  void connect(0);
  return bridge;
};
