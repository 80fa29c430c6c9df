/**
 * The speech synthesis port: text in, audio and a viseme timeline out (DESIGN §4). Every vendor
 * (eSpeak NG embedded, ElevenLabs) implements it; the reply pipeline only knows the port.
 *
 * Times are milliseconds from the start of the synthesized audio of this request. The 15 Oculus
 * visemes are the avatars' morph targets `viseme_<name>` (Ready Player Me convention).
 */
import type { VisemeCue } from '../../../shared/visemes';
import type { OnNotice } from '../notice';

export type { Viseme, VisemeCue } from '../../../shared/visemes';

export interface WordTiming {
  word: string;
  start: number;
  end: number;
}

/** One piece of synthesized speech: PCM16 mono samples and the cues that fall inside it. */
export interface SpeechChunk {
  pcm: Int16Array;
  sampleRate: number;
  /** Where this chunk starts, in ms from the start of the request's audio. */
  offsetMs: number;
  cues: VisemeCue[];
  words: WordTiming[];
}

/** A persona's voice: a vendor voice id or eSpeak voice name, with optional pitch and rate. */
export interface VoiceSpec {
  espeak?: string;
  elevenlabs?: string;
  /** eSpeak pitch 0-99. */
  pitch?: number;
  /** Words per minute. */
  rate?: number;
}

export interface SynthesisRequest {
  text: string;
  voice: VoiceSpec;
  language?: string;
  /**
   * When the listener will need this audio (`performance.now()` ms): now for the first clause of
   * a reply, later for a clause queued behind audio still playing. A synthesizer that shares its
   * capacity between sessions (eSpeak's pool) serves the soonest needed first; absent: now.
   */
  neededAt?: number;
}

export interface Synthesizer {
  /** Provider name as reported by /api/health: "espeak", "elevenlabs". */
  readonly name: string;
  /**
   * Streams the speech for `text` in order. A vendor throws on failure; a resilient synthesizer
   * (providers/resilience.ts) retries and falls back instead, and tells `onNotice` so.
   */
  synthesize(request: SynthesisRequest, signal?: AbortSignal, onNotice?: OnNotice): AsyncIterable<SpeechChunk>;
  close?(): Promise<void>;
  /** Settles once the vendor's SDK is loaded: loading is not the vendor's time, so time limits start after it. */
  readonly ready?: Promise<void>;
}
