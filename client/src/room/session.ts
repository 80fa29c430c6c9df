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
import type { ClientMessage } from '../../../server/protocol/messages';
import { openMicrophone, type Microphone } from '../audio/mic';
import { createVoiceOutput, type VoiceOutput } from '../audio/playback';
import { connect, type Transport } from '../net/connection';
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
  visemes(participant: string): Partial<Record<string, number>> | null;
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

export const joinSession = (options: { session: string; token: string; audio?: AudioContext | null }): Session => {
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

  const transport: Transport = connect({
    session: options.session,
    token: options.token,
    lastSeq: () => view.lastSeq,
    onStatus: (s, detail) => {
      status = detail ? `${s}: ${detail}` : s;
      if (s !== 'open') view = { ...view, connected: false };
      changed();
    },
    onMessage: (message) => {
      if (message.type === 'audio') {
        voices?.play({ ...message, pcm: decode(message.pcm) });
        return;
      }
      if (message.type === 'audio-stop') {
        voices?.stop(message.draft, message.atMs);
        return;
      }
      if (message.type === 'voice') {
        voices?.voice(message.participant, decode(message.pcm), message.sampleRate);
        return;
      }
      const next = reduceRoom(view, message);
      if (next !== view) {
        view = next;
        changed();
      }
    },
  });

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
    send: (message) => transport.send(message),
    say(text) {
      const trimmed = text.trim();
      if (trimmed) transport.send({ type: 'say', text: trimmed });
    },
    setHand: (raised) => transport.send({ type: raised ? 'raise-hand' : 'lower-hand' }),
    voices,
    visemes: (participant) => voices?.visemes(participant) ?? null,
    speaking: () => voices?.speaking() ?? null,
    microphone: () => mic,
    async startMicrophone(mode) {
      mic?.close();
      mic = await openMicrophone({ mode, onFrame: (pcm) => transport.sendAudio(pcm) });
      changed();
    },
    stopMicrophone() {
      mic?.close();
      mic = null;
      changed();
    },
    leave() {
      mic?.close();
      transport.close();
      void voices?.close();
    },
  };
};
