/**
 * One joined session in the browser: the connection, the room view folded from its messages, the
 * voices (persona speech with lip sync, other humans' microphones, spatial), and this person's
 * microphone. React components subscribe to it; the 3D room reads it every frame.
 *
 * ```ts
 * const session = joinSession({ session: id, token });
 * session.subscribe(() => render(session.view));
 * session.say('Nora, what did the client say?');
 * session.visemes('nora'); // { aa: 0.7, E: 0.2 } while Nora's audio plays
 * ```
 */
import type { ClientMessage, ServerMessage } from '../../../server/protocol/messages';
import { openMicrophone, type Microphone } from '../audio/mic';
import type { VisemeWeights } from '../audio/lipsync';
import { createVoiceOutput, type VoiceOutput } from '../audio/playback';
import { connect, readToken, type Transport } from '../net/connection';
import type { CuePiece } from '../net/media';
import type { LiveKitMedia } from '../net/livekit';
import { emptyRoom, reduceRoom, type RoomView } from '../state/room';

export type MicMode = 'open' | 'push-to-talk';

export interface Session {
  readonly view: RoomView;
  readonly status: string;
  subscribe(listener: () => void): () => void;
  send(message: ClientMessage): void;
  say(text: string): void;
  setHand(raised: boolean): void;
  /** Speech and lip sync. */
  readonly voices: VoiceOutput | null;
  visemes(participant: string): VisemeWeights | null;
  speaking(): string | null;
  /** This person's microphone, when they turned it on. */
  microphone(): Microphone | null;
  startMicrophone(mode: MicMode): Promise<void>;
  stopMicrophone(): void;
  leave(): void;
}

const decode = (base64: string): Int16Array => {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return new Int16Array(bytes.buffer, 0, bytes.byteLength >> 1);
};

/**
 * `media: 'livekit'` sends the microphone and receives every voice through LiveKit (see
 * net/livekit.ts); the socket's persona audio then only keeps lip-sync time, silently.
 */
export const joinSession = (options: { session: string; token: string; audio?: AudioContext | null; media?: 'livekit' | 'websocket' }): Session => {
  let view = emptyRoom();
  let status = 'connecting';
  const listeners = new Set<() => void>();
  // Renders are batched to one per animation frame: audio messages arrive many times a second.
  let scheduled = false;
  const changed = () => {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      for (const listener of listeners) listener();
    });
  };
  const voices = options.audio ? createVoiceOutput(options.audio) : null;
  let mic: Microphone | null = null;
  let livekit: LiveKitMedia | null = null;

  const handle = (message: ServerMessage | CuePiece): void => {
    if (message.type === 'audio') {
      const durationMs = 'durationMs' in message ? message.durationMs : undefined;
      voices?.play({ ...message, pcm: decode(message.pcm), silent: livekit !== null, ...(durationMs !== undefined ? { durationMs } : {}) });
      return;
    }
    if (message.type === 'audio-stop') {
      voices?.stop(message.draft, message.atMs);
      return;
    }
    if (message.type === 'voice') {
      if (!livekit) voices?.voice(message.participant, decode(message.pcm), message.sampleRate);
      return;
    }
    const next = reduceRoom(view, message);
    if (next !== view) {
      view = next;
      changed();
    }
  };

  // The socket: everything, or (a participant on LiveKit) the welcome, the backlog and errors.
  let transport: Transport | null = null;
  const outbox: ClientMessage[] = [];
  const open = (stream: 'socket' | 'livekit') => {
    transport = connect({
      session: options.session,
      token: options.token,
      stream,
      lastSeq: () => view.lastSeq,
      onStatus: (s, detail) => {
        status = detail ? `${s}: ${detail}` : s;
        if (s !== 'open') view = { ...view, connected: false };
        changed();
      },
      onMessage: handle,
    });
    for (const message of outbox.splice(0)) transport.send(message);
  };
  const send = (message: ClientMessage) => (transport ? transport.send(message) : outbox.push(message));

  if (options.media === 'livekit' && voices) {
    const participant = readToken(options.token)?.role === 'participant';
    import('../net/livekit')
      .then(({ joinLiveKitMedia }) =>
        joinLiveKitMedia({
          session: options.session,
          token: options.token,
          onTrack: (who, track) => voices.attach(who, track),
          onTrackEnded: (who) => voices.detach(who),
          onMessage: (message) => {
            // A gap in the data stream (events lost while LiveKit reconnected): the socket refills it.
            if (message.type === 'event' && view.lastSeq > 0 && message.event.seq > view.lastSeq + 1) transport?.resync();
            handle(message);
          },
          onStatus: (s) => {
            status = s;
            changed();
          },
        }),
      )
      .then(
        (media) => {
          livekit = media;
          open(participant ? 'livekit' : 'socket');
        },
        (error: Error) => {
          // The embedded transport carries everything instead.
          status = `LiveKit unavailable (${error.message}); voices go through the server`;
          changed();
          open('socket');
        },
      );
  } else open('socket');

  return {
    get view() {
      return view;
    },
    get status() {
      return status;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    send,
    say(text) {
      const trimmed = text.trim();
      if (trimmed) send({ type: 'say', text: trimmed });
    },
    setHand: (raised) => send({ type: raised ? 'raise-hand' : 'lower-hand' }),
    voices,
    visemes: (participant) => voices?.visemes(participant) ?? null,
    speaking: () => voices?.speaking() ?? null,
    microphone: () => mic,
    async startMicrophone(mode) {
      void mic?.close();
      mic = livekit ? liveKitMicrophone(livekit, mode) : await openMicrophone({ mode, onFrame: (pcm) => transport?.sendAudio(pcm) });
      if (livekit && mode === 'open') await livekit.setMicrophone(true);
      changed();
    },
    stopMicrophone() {
      mic?.close();
      mic = null;
      changed();
    },
    leave() {
      void mic?.close();
      void livekit?.close();
      transport?.close();
      void voices?.close();
    },
  };
};

/** The microphone as LiveKit publishes it: open, or unmuted only while talking (push-to-talk). */
const liveKitMicrophone = (media: LiveKitMedia, initial: MicMode): Microphone => {
  let mode = initial;
  return {
    level: () => 0,
    setTalking: (on) => {
      if (mode === 'push-to-talk') void media.setMicrophone(on);
    },
    setMode: (next) => {
      mode = next;
      void media.setMicrophone(next === 'open');
    },
    close: () => media.setMicrophone(false),
  };
};
