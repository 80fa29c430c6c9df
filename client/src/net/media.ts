/**
 * Which transport carries the voices, whose voice a LiveKit identity is, and what the microphone
 * can do here. Small on purpose: the LiveKit SDK itself (net/livekit.ts) is only loaded when
 * LiveKit is in use.
 */
import { CueMessage, topics } from '../../../shared/protocol/media';
import { ServerMessage, type VoiceOffer } from '../../../shared/protocol/messages';

export interface Health {
  providers: { transport: string };
  livekit?: { reachable?: boolean };
}

/** LiveKit carries the voices when the server is configured for it and can reach it; else the socket does. */
export const mediaTransport = (health: Health | null): 'livekit' | 'websocket' =>
  health?.providers.transport === 'livekit' && health.livekit?.reachable === true ? 'livekit' : 'websocket';

/** The scene participant a LiveKit identity stands for: `persona:nora` is Nora; the server's own identity is nobody. */
export const participantOf = (identity: string): string | null => {
  if (identity.startsWith('persona:')) return identity.slice('persona:'.length) || null;
  if (identity.includes(':')) return null;
  return identity;
};

/**
 * What the microphone control offers: the server transcribes the microphone; or, with no
 * transcriber on the server, the browser's own speech recognition (opt-in); or, with neither,
 * typing only.
 */
export type MicOffer = 'server' | 'browser' | 'typing';

export const micOffer = (voice: VoiceOffer | null, browserRecognises: boolean): MicOffer => {
  if (!voice || voice.input) return 'server';
  return browserRecognises ? 'browser' : 'typing';
};

/** The microphone control's plain words for an offer without a server transcriber. */
export const micOfferText: Record<Exclude<MicOffer, 'server'>, string> = {
  browser: "This server has no transcriber: type, or use your browser's speech recognition.",
  typing: 'This server has no transcriber and this browser has no speech recognition: type to speak.',
};

/** Where the browser's recognition sends the audio, said before it listens. */
export const recognitionPrivacy = (onDevice: boolean): string =>
  onDevice ? 'Your browser recognises speech on this device: the audio stays here.' : "Your browser's vendor may process the audio on its own servers.";

/** A cue message's piece of speech as the voices need it: no samples, its length from its cues and words. */
export type CuePiece = Extract<ServerMessage, { type: 'audio' }> & { durationMs: number };

/**
 * A LiveKit data message as the protocol message it carries (shared/protocol/media.ts documents the
 * topics), or null for other topics and anything malformed. Cue messages become `audio` messages
 * without samples: the persona's voice itself arrives on its LiveKit track.
 */
export const fromTopic = (topic: string | undefined, payload: string): ServerMessage | CuePiece | null => {
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    return null;
  }
  if (topic === topics.cues) {
    const cue = CueMessage.safeParse(json);
    if (!cue.success) return null;
    const ends = [...cue.data.words.map((w) => w.end), ...cue.data.cues.map((c) => c.t)];
    const durationMs = Math.max(0, (ends.length ? Math.max(...ends) : cue.data.offsetMs) - cue.data.offsetMs);
    return { ...cue.data, pcm: '', durationMs };
  }
  if (!(Object.values(topics) as string[]).includes(topic ?? '')) return null;
  const message = ServerMessage.safeParse(json);
  return message.success ? message.data : null;
};
