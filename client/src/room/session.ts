/**
 * One joined session in the browser: the connection, the room view folded from its messages, the
 * voices (persona speech with lip sync, other humans' microphones, spatial), and this person's
 * microphone (or, without a transcriber on the server, the browser's speech recognition). React
 * components subscribe to it; the 3D room reads it every frame.
 *
 * It tells the view what only this client knows: the connection's state, the microphone, and when
 * each reply's speech starts and ends being heard here (transcript lines wait for it).
 *
 * ```ts
 * const session = joinSession({ session: id, token });
 * session.subscribe(() => render(session.view));
 * session.say('Nora, what did the client say?');
 * session.visemes('nora'); // { aa: 0.7, E: 0.2 } while Nora's audio plays
 * ```
 */
import type { ClientMessage, PoseMessage, ServerMessage } from '../../../shared/protocol/messages';
import { openMicrophone, type Microphone } from '../audio/mic';
import type { VisemeWeights } from '../audio/lipsync';
import { createVoiceOutput, type VoiceOutput } from '../audio/playback';
import { startRecognition, type BrowserRecognition } from '../audio/recognition';
import { connect, readToken, type Transport } from '../net/connection';
import type { CuePiece } from '../net/media';
import type { LiveKitMedia } from '../net/livekit';
import { emptyRoom, reduceRoom, type LocalMessage, type RoomView } from '../state/room';
import { awaitingSpeech } from '../state/transcript';
import { createPoses, type Poses } from '../xr/pose';

export type MicMode = 'open' | 'push-to-talk';

export interface Session {
  readonly view: RoomView;
  subscribe(listener: () => void): () => void;
  send(message: ClientMessage): void;
  /** This wearer's pose, sent only while the connection is open (never queued: the next supersedes it). */
  sendPose(message: PoseMessage): void;
  /** Other wearers' poses as they arrive (xr/pose.ts): their avatars' heads follow them. */
  readonly poses: Poses;
  say(text: string): void;
  setHand(raised: boolean): void;
  /** Speech and lip sync. */
  readonly voices: VoiceOutput | null;
  visemes(participant: string): VisemeWeights | null;
  speaking(): string | null;
  /** Ms into the draft's speech as heard now; null when it is not playing here. */
  position(draft: string): number | null;
  /** This person's microphone, when they turned it on. */
  microphone(): Microphone | null;
  startMicrophone(mode: MicMode): Promise<void>;
  stopMicrophone(): void;
  /** The browser's speech recognition instead of the microphone (a server without a transcriber): each final result is said. */
  startRecognition(options: { lang: string; onDevice: boolean; onError(message: string): void }): void;
  stopRecognition(): void;
  leave(): void;
}

/**
 * How long a logged line waits for speech that has not started here (a synthesis failure, audio
 * that could not play) before it shows anyway. A line written without a generation is voiced
 * after it is logged; its first audio takes about a second with a vendor's voice.
 */
const SPEECH_GRACE_MS = 5000;

// A plain loop: Uint8Array.from(text, mapper) iterates the string and calls the mapper per byte,
// and was the room's costliest script while personas spoke (bench/client.bench.ts).
const decode = (base64: string): Int16Array => {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return new Int16Array(bytes.buffer, 0, bytes.byteLength >> 1);
};

/**
 * `media: 'livekit'` sends the microphone and receives every voice through LiveKit (see
 * net/livekit.ts); the socket's persona audio then only keeps lip-sync time, silently.
 */
export const joinSession = (options: { session: string; token: string; audio?: AudioContext | null; media?: 'livekit' | 'websocket' }): Session => {
  let view = emptyRoom();
  const listeners = new Set<() => void>();
  const voices = options.audio ? createVoiceOutput(options.audio) : null;
  let mic: Microphone | null = null;
  let recognition: BrowserRecognition | null = null;
  let livekit: LiveKitMedia | null = null;
  const poses = createPoses();

  // Renders are batched to one per animation frame (audio messages arrive many times a second);
  // while speech is pending the same frames follow it, so lines appear as it is heard.
  let frame = 0;
  let dirty = false;
  const tick = () => {
    const pending = followSpeech();
    frame = 0;
    if (dirty) {
      dirty = false;
      for (const listener of listeners) listener();
    }
    if (pending) frame ||= requestAnimationFrame(tick);
  };
  const changed = () => {
    dirty = true;
    frame ||= requestAnimationFrame(tick);
  };
  const apply = (message: ServerMessage | LocalMessage) => {
    const next = reduceRoom(view, message, performance.now());
    if (next !== view) {
      view = next;
      changed();
    }
  };
  apply({ type: 'speakers', on: voices !== null });

  /** When a logged line that waits for its speech was first seen without it, by draft. */
  const waitingSince = new Map<string, number>();
  /**
   * The drafts whose speech is not over yet, and those of them whose line is complete, as of one
   * view: found again only when the view changes (the whole transcript is read to find them), not
   * at every frame that follows the speech.
   */
  let unheard: { of: RoomView; drafts: string[]; logged: Set<string> } | null = null;
  const unheardOf = (current: RoomView) => {
    if (unheard?.of === current) return unheard;
    const drafts = new Set(Object.keys(current.speech).filter((draft) => current.speech[draft]!.state !== 'over'));
    for (const line of current.transcript) if (awaitingSpeech(current, line)) drafts.add(line.audio);
    const logged = new Set(current.transcript.filter((l) => !l.streaming && drafts.has(l.audio)).map((l) => l.audio));
    return (unheard = { of: current, drafts: [...drafts], logged });
  };
  /** Tells the view which drafts' speech is heard now and which is over; true while any is pending. */
  const followSpeech = (): boolean => {
    if (!view.speakers || !view.voice?.output) return false;
    const now = performance.now();
    let pending = false;
    const { drafts, logged } = unheardOf(view);
    // A line logged while someone is still being heard is voiced after them (a scene's scripted
    // line waits for the floor): its grace starts once the room is quiet.
    const heardNow = drafts.some((draft) => voices?.progress(draft)?.state === 'audible');
    for (const draft of drafts) {
      const progress = voices?.progress(draft) ?? null;
      const state = view.speech[draft]?.state;
      if (progress && progress.state !== 'queued') {
        waitingSince.delete(draft);
        if (progress.state !== state) apply({ type: 'playback', draft, state: progress.state });
        if (progress.state === 'audible') pending = true;
        continue;
      }
      pending = true;
      if (progress || !logged.has(draft)) continue;
      if (heardNow) {
        waitingSince.delete(draft);
        continue;
      }
      const since = waitingSince.get(draft) ?? now;
      waitingSince.set(draft, since);
      if (now - since > SPEECH_GRACE_MS) {
        waitingSince.delete(draft);
        apply({ type: 'playback', draft, state: 'over' });
      }
    }
    return pending;
  };

  const handle = (message: ServerMessage | CuePiece): void => {
    if (message.type === 'audio') {
      const durationMs = 'durationMs' in message ? message.durationMs : undefined;
      voices?.play({ ...message, pcm: decode(message.pcm), silent: livekit !== null, ...(durationMs !== undefined ? { durationMs } : {}) });
    }
    if (message.type === 'audio-stop') voices?.stop(message.draft, message.atMs);
    // Presence, not the room's state: kept apart, so 12 poses a second re-render nothing.
    if (message.type === 'pose') return poses.receive(message, performance.now());
    if (message.type === 'voice') {
      if (!livekit) voices?.voice(message.participant, decode(message.pcm), message.sampleRate);
      return;
    }
    apply(message);
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
      onStatus: (state, detail) => apply({ type: 'connection', state, ...(detail ? { detail } : {}) }),
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
            // (Events not for this viewer come as a `seq` marker, so they leave no gap.)
            const seq = message.type === 'event' ? message.event.seq : message.type === 'seq' ? message.seq : null;
            if (seq !== null && view.lastSeq > 0 && seq > view.lastSeq + 1) transport?.resync();
            handle(message);
          },
          // With the live stream on LiveKit, a dropped LiveKit connection is a dropped room.
          onStatus: (state) => apply({ type: 'connection', state, ...(state === 'reconnecting' ? { detail: 'voice link' } : {}) }),
        }),
      )
      .then(
        (media) => {
          livekit = media;
          open(participant ? 'livekit' : 'socket');
        },
        (error: Error) => {
          // The embedded transport carries everything instead.
          console.warn(`LiveKit unavailable (${error.message}); voices go through the server`);
          open('socket');
        },
      );
  } else open('socket');

  return {
    get view() {
      return view;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    send,
    sendPose(message) {
      if (transport?.open) transport.send(message);
    },
    poses,
    say(text) {
      const trimmed = text.trim();
      if (trimmed) send({ type: 'say', text: trimmed });
    },
    setHand: (raised) => send({ type: raised ? 'raise-hand' : 'lower-hand' }),
    voices,
    visemes: (participant) => voices?.visemes(participant) ?? null,
    speaking: () => voices?.speaking() ?? null,
    position: (draft) => {
      const progress = voices?.progress(draft);
      return progress?.state === 'audible' ? progress.positionMs : null;
    },
    microphone: () => mic,
    async startMicrophone(mode) {
      void mic?.close();
      recognition?.stop();
      recognition = null;
      mic = livekit ? liveKitMicrophone(livekit, mode) : await openMicrophone({ mode, onFrame: (pcm) => transport?.sendAudio(pcm) });
      if (livekit && mode === 'open') await livekit.setMicrophone(true);
      apply({ type: 'mic', state: mode });
    },
    stopMicrophone() {
      void mic?.close();
      mic = null;
      apply({ type: 'mic', state: 'off' });
    },
    startRecognition({ lang, onDevice, onError }) {
      void mic?.close();
      mic = null;
      recognition?.stop();
      // Said like typed text: the server attributes and logs it the same way.
      recognition = startRecognition({
        lang,
        onDevice,
        onFinal: (text) => send({ type: 'say', text }),
        onError: (message) => {
          recognition = null;
          apply({ type: 'mic', state: 'off' });
          onError(message);
        },
      });
      apply({ type: 'mic', state: 'browser' });
    },
    stopRecognition() {
      recognition?.stop();
      recognition = null;
      apply({ type: 'mic', state: 'off' });
    },
    leave() {
      if (frame) cancelAnimationFrame(frame);
      recognition?.stop();
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
