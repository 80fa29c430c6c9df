/**
 * A room's ears: each participant's microphone frames through a listener of their own
 * (conversation/listen.ts: VAD, endpointing, transcription) into the conversation. Speech start
 * is a barge-in at once; the transcript, checked and cleaned as a typed line is (the protocol's
 * LineText), is the participant's utterance. A participant's listener is made on their first frame and closed with
 * their last connection, so a turn in progress ends where it stopped. Without a transcriber
 * nothing is heard (humans type), and with `recording` off a human's audio is never kept.
 *
 * ```ts
 * const voice = createVoiceInput({ scene, transcriber, vad, conversation, speaking: (p, active) => broadcast.send({ type: 'speech', participant: p, active }) });
 * voice.hear('jordan', frame); // 20-40 ms of PCM16 at 16 kHz
 * voice.stop('jordan'); // their microphone is gone
 * ```
 */
import type { Conversation } from '../conversation/conversation';
import { createListener, type Listener } from '../conversation/listen';
import type { Vad } from '../media/vad';
import { LineText, MAX_LINE_CHARS, MIC_SAMPLE_RATE } from '../../shared/protocol/messages';
import type { Transcriber } from '../providers/transcription/port';
import type { Recorder } from '../recordings/recorder';
import type { LoadedScene } from '../../shared/scene/schema';

export interface VoiceInputOptions {
  scene: LoadedScene;
  /** Null: nothing is heard. */
  transcriber: Transcriber | null;
  /** A fresh VAD for one microphone stream; made on its first frame. */
  vad: () => Promise<Vad>;
  conversation: Pick<Conversation, 'send' | 'voiceStarted' | 'voiceEnded'>;
  /** A participant began (true) or finished (false) speaking: everyone is told. */
  speaking(participant: string, active: boolean): void;
  /** Participants' microphones are recorded (they were told so at join); needs `recorder`. */
  recording?: boolean;
  recorder?: Recorder | null;
  now?: () => number;
}

export interface VoiceInput {
  /** A participant's microphone frame (PCM16, 16 kHz, mono), heard as theirs. */
  hear(participant: string, pcm: Int16Array): void;
  /** The participant's microphone is gone: what they were saying ends there. */
  stop(participant: string): void;
  /** The session ended: every listener is closed and nothing more is heard. */
  close(): void;
}

/** How to turn voice input on, for clients of a server without a transcriber. */
export const voiceInputHint =
  'Voice input is off on this server: it has no transcriber. Type instead, or ask the operator to set TRANSCRIBER (local for Whisper inside the server, gemini, elevenlabs, or openai for a Whisper server; see README, "Voice").';

/** A VAD that loads on first use, so frames can be pushed at once. */
const lazyVad = (create: () => Promise<Vad>): Vad => {
  let vad: Promise<Vad> | null = null;
  const get = () => (vad ??= create());
  return {
    frame: async (samples) => (await get()).frame(samples),
    reset: () => void vad?.then((v) => v.reset()),
    close: async () => {
      if (vad) await (await vad).close();
    },
  };
};

export const createVoiceInput = (options: VoiceInputOptions): VoiceInput => {
  const { scene, transcriber, conversation, speaking, recording = false, recorder = null } = options;
  const now = options.now ?? (() => Date.now());
  const hints = scene.participants.flatMap((p) => [p.name, ...(p.shortName ? [p.shortName] : [])]);
  const ears = new Map<string, Listener>();
  let closed = false;

  /** The participant's listener: their microphone, heard, into the conversation. */
  const earOf = (participant: string): Listener | null => {
    if (!transcriber || closed) return null;
    let ear = ears.get(participant);
    if (!ear) {
      ear = createListener({
        transcriber,
        vad: lazyVad(options.vad),
        hints,
        now,
        onStart: () => {
          speaking(participant, true);
          if (!closed) conversation.voiceStarted(participant);
        },
        onEnd: (heard) => {
          speaking(participant, false);
          // Speech is a line from a person too: the protocol's LineText, as a typed line is (an overlong transcript is cut, not refused).
          const line = heard ? LineText.safeParse(heard.text.slice(0, MAX_LINE_CHARS)) : null;
          const text = line?.success ? line.data : '';
          // Kept only when the session records and the participant was told so at join.
          if (recording && heard?.audio && text) recorder?.heard(participant, { pcm: heard.audio, sampleRate: MIC_SAMPLE_RATE, durationMs: Math.max(0, Math.round(heard.end - heard.start)) });
          if (!closed) conversation.voiceEnded(participant, heard && text ? { ...heard, text } : null);
        },
        onError: (error) => {
          const who = scene.participants.find((p) => p.id === participant)?.name ?? participant;
          if (!closed) conversation.send({ type: 'notice', level: 'warn', code: 'transcription-failed', message: `${who}'s speech could not be transcribed (${error.message}); they can type it instead.`, participant });
        },
      });
      ears.set(participant, ear);
    }
    return ear;
  };

  return {
    hear(participant, pcm) {
      void earOf(participant)?.push(pcm);
    },
    stop(participant) {
      void ears.get(participant)?.close();
      ears.delete(participant);
    },
    close() {
      closed = true;
      for (const ear of ears.values()) void ear.close();
      ears.clear();
    },
  };
};
