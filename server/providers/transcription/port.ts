/**
 * The transcription port: one speaker's endpointed utterance (PCM16 mono) in, text out.
 * Vendors: Gemini (audio as inline data), ElevenLabs speech-to-text, any OpenAI-compatible
 * `/v1/audio/transcriptions` (local Whisper servers). Without one configured, humans type.
 */
export interface TranscriptionRequest {
  pcm: Int16Array;
  sampleRate: number;
  /** BCP-47, e.g. "en". */
  language?: string;
  /** Names and terms likely to be said (participants' names), to bias recognition. */
  hints?: string[];
}

export interface Transcript {
  text: string;
  /** Language the vendor detected, when it says. */
  language?: string;
}

export interface Transcriber {
  /** Provider name as reported by /api/health: "gemini", "elevenlabs", "openai". */
  readonly name: string;
  transcribe(request: TranscriptionRequest, signal?: AbortSignal): Promise<Transcript>;
  /** Settles once the vendor's SDK is loaded: loading is not the vendor's time, so time limits start after it. */
  readonly ready?: Promise<void>;
}
