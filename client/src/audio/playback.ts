/**
 * Voice output: everything the room says, through Web Audio, placed in space. Personas' replies
 * arrive as `audio` pieces (PCM16 with viseme cues) and are scheduled back to back on the audio
 * clock; other humans' microphones arrive as `voice` frames and play through a small jitter
 * buffer. Every participant has its own gain (for muting) and HRTF panner (for where they sit).
 *
 * ```ts
 * const output = createVoiceOutput(new AudioContext());
 * joinButton.onclick = () => output.resume(); // browsers start audio only after a user gesture
 * socket.onmessage = ({ data }) => {
 *   const message = ServerMessage.parse(JSON.parse(data));
 *   if (message.type === 'audio') output.play({ ...message, pcm: decodePcm16(message.pcm) });
 *   if (message.type === 'audio-stop') output.stop(message.draft, message.atMs);
 *   if (message.type === 'voice') output.voice(message.participant, decodePcm16(message.pcm), message.sampleRate);
 * };
 * output.place('nora', { x: 1, y: 1.2, z: -2 });
 * useFrame(({ camera }) => {
 *   output.listen(camera.position, forward, up);
 *   const weights = output.visemes('nora'); // null: mouth at rest
 * });
 * ```
 *
 * Times are on the audio clock (`AudioContext.currentTime`, seconds). What is audible "now"
 * (`speaking`, `visemes`) is judged at the time being heard, the clock minus the output latency,
 * so lips move with the sound rather than ahead of it. Audio that arrives while the context is
 * not running (no user gesture yet) is dropped: it would otherwise all play at once on resume.
 */
import { visemes, type Viseme, type VisemeCue } from '../../../shared/visemes';
import { closedMouth, createLipSync, type VisemeWeights } from './lipsync';

/** One piece of a persona's reply, as in the `audio` message with `pcm` decoded. */
export interface VoicePiece {
  speaker: string;
  draft: string;
  /** 0, 1, 2… within the draft. */
  seq: number;
  /** Where this piece starts, in ms from the start of the draft's speech. */
  offsetMs: number;
  sampleRate: number;
  pcm: Int16Array;
  cues: readonly VisemeCue[];
  /** Keep time and lip sync but make no sound: the voice itself arrives on a live track (LiveKit). */
  silent?: boolean;
  /** The piece's length when it comes without samples (LiveKit cue messages). */
  durationMs?: number;
}

export interface SpeechProgress {
  state: 'queued' | 'audible' | 'over';
  /** Ms from the start of the draft's speech, as heard now. */
  positionMs: number;
}

export interface Position {
  x: number;
  y: number;
  z: number;
}

export interface VoiceOutputOptions {
  /** How far ahead of now the first piece of a reply is scheduled, so it starts whole. */
  leadMs?: number;
  /** How much of a human's voice is buffered before it plays, to ride out network jitter. */
  jitterMs?: number;
  /**
   * A human's voice buffered beyond this is dropped, so a drifting clock cannot build up delay;
   * silence always, speech only past the burst allowance below.
   */
  maxVoiceBufferMs?: number;
  /**
   * The most speech buffered when a human's frames have been arriving in bursts (a busy page or
   * network handing over a second of frames at once): the buffer then holds twice the longest
   * recent gap between arrivals, up to this, so a burst is heard late rather than mostly dropped.
   */
  maxBurstBufferMs?: number;
  /** RMS (0..1) under which a human's voice counts as silence. */
  silenceLevel?: number;
  /** How far an RMS level opens the jaw: `aa = min(1, rms * jawGain)`. */
  jawGain?: number;
}

const defaults = {
  // The first piece of a reply is scheduled just past the audio clock's next render quantum
  // (2.7 ms at 48 kHz): a piece whose time has passed still plays whole, from its start, so a
  // longer lead only delays the answer (it is part of the response gap the trainee hears).
  leadMs: 15,
  jitterMs: 100,
  maxVoiceBufferMs: 400,
  maxBurstBufferMs: 2000,
  silenceLevel: 0.01,
  jawGain: 4,
} satisfies Required<VoiceOutputOptions>;

/** Mozilla Hubs-like distance attenuation for voices. */
const pannerSettings = {
  panningModel: 'HRTF',
  distanceModel: 'inverse',
  refDistance: 1,
  maxDistance: 20,
  rolloffFactor: 1,
} satisfies Partial<PannerOptions>;

/** Drafts remembered (to refuse pieces of stopped ones); the oldest are forgotten beyond this. */
const rememberedDrafts = 64;
/** How far back a human's frame arrivals are remembered to size their buffer for bursts (s). */
const BURST_MEMORY_S = 5;
/** How long a reply may fall silent waiting for its next piece before it counts as over (s). */
const UNDERRUN_S = 0.4;

export interface VoiceOutput {
  /** Schedules a piece of a persona's reply right after the previous one and feeds its cues to lip sync. */
  play(piece: VoicePiece): void;
  /** Cuts the draft at `atMs` from its start (now, if that is past) and refuses its later pieces. */
  stop(draft: string, atMs: number): void;
  /** Plays a frame of another human's microphone, relayed by the server. */
  voice(participant: string, pcm: Int16Array, sampleRate: number): void;
  /** Who is audible right now (muted participants are not); the latest to start if several. */
  speaking(): string | null;
  /** How much of a human's relayed voice, louder than silence, has been played here so far (ms). */
  voicedMs(participant: string): number;
  /**
   * How far the draft's speech has been heard: `queued` before it starts, `audible` while it plays
   * (`positionMs` into it), `over` once it ended or was stopped; null when none of it was scheduled here.
   */
  progress(draft: string): SpeechProgress | null;
  /**
   * The participant's mouth right now: lip-sync weights for a persona, `{ aa: level }` for a human
   * (the other visemes 0); null when silent. The object is reused: read it within the frame.
   */
  visemes(participant: string): VisemeWeights | null;
  /**
   * The last samples heard of the participant's voice (a human's relayed frames or a live track),
   * for lip sync from the voice itself (voice-visemes.ts); null when nothing of theirs plays here.
   * The buffer is reused: read it within the frame.
   */
  waveform(participant: string): { samples: Float32Array; sampleRate: number } | null;
  /**
   * A live track for the participant (LiveKit: a remote microphone or a persona's track): it
   * plays through the same gain and panner, and its level drives `speaking()` and the jaw.
   */
  attach(participant: string, track: MediaStreamTrack): void;
  detach(participant: string): void;
  /** Where the participant's voice comes from, in the scene's coordinates (metres). */
  place(participant: string, position: Position): void;
  /** Where the listener is and which way it faces. */
  listen(position: Position, forward: Position, up: Position): void;
  mute(participant: string, muted: boolean): void;
  muted(participant: string): boolean;
  /** Starts the audio context; call it from a user gesture (click, tap, entering XR). */
  resume(): Promise<void>;
  /** Stops everything and closes the audio context. */
  close(): Promise<void>;
}

interface ScheduledPiece {
  source: AudioBufferSourceNode;
  start: number;
  end: number;
}

interface DraftPlayback {
  /** The audio clock time of the draft's speech at 0 ms; moves later when a piece arrives late. */
  start: number;
  /** When the last scheduled piece ends. */
  until: number;
  /** When the draft became audible. */
  since: number;
  stopAt: number;
  lastSeq: number;
  pieces: ScheduledPiece[];
}

interface VoiceChunk {
  start: number;
  end: number;
  rms: number;
  /** When the run of audible chunks this one belongs to started; -Infinity for a silent chunk. */
  loudSince: number;
}

interface HumanVoice {
  /** Where the next frame goes on the audio clock. */
  playhead: number;
  /** Chunks not yet heard in full, in order. */
  chunks: VoiceChunk[];
  /** Louder-than-silence audio played so far, ms. */
  voicedMs: number;
  /** When frames arrived (audio clock) with the gap before each, the last few seconds' worth. */
  arrivals: { at: number; gap: number }[];
}

interface Channel {
  gain: GainNode;
  panner: PannerNode;
  muted: boolean;
  /** The persona's latest reply. */
  draft: { id: string; playback: DraftPlayback } | undefined;
  voice: HumanVoice | undefined;
  /** A live track (LiveKit), with an analyser for its level. */
  stream: { source: MediaStreamAudioSourceNode; analyser: AnalyserNode; samples: Float32Array<ArrayBuffer> } | undefined;
  jaw: Record<Viseme, number>;
  /** What waveform() reads a human's relayed voice through: made on its first call, fed every frame scheduled after. */
  tap: { analyser: AnalyserNode; samples: Float32Array<ArrayBuffer> } | undefined;
}

/** Decodes a protocol `pcm` field: base64 of PCM16 little-endian samples. */
export const decodePcm16 = (base64: string): Int16Array => {
  const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  const view = new DataView(bytes.buffer);
  const samples = new Int16Array(bytes.length >> 1);
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
  return samples;
};

const rootMeanSquare = (pcm: Int16Array): number => {
  let sum = 0;
  for (const sample of pcm) sum += sample * sample;
  return pcm.length === 0 ? 0 : Math.sqrt(sum / pcm.length) / 32768;
};

const setParam = (param: AudioParam, value: number, time: number) => param.setValueAtTime(value, time);

const samePosition = (a: Position, b: Position): boolean => a.x === b.x && a.y === b.y && a.z === b.z;
const copyPosition = (to: Position, from: Position): void => {
  to.x = from.x;
  to.y = from.y;
  to.z = from.z;
};

/** A PCM16 sample to a float sample (x / 32768, exactly: a power of two). */
const fromPcm16 = 1 / 32768;

export const createVoiceOutput = (context: AudioContext, options?: VoiceOutputOptions): VoiceOutput => {
  const settings = { ...defaults, ...options } satisfies Required<VoiceOutputOptions>;
  const channels = new Map<string, Channel>();
  const drafts = new Map<string, DraftPlayback>();
  const lipSync = createLipSync();
  /** Where the listener was last put: a listener that has not moved is not set again. */
  const heard = { position: { x: NaN, y: NaN, z: NaN }, forward: { x: NaN, y: NaN, z: NaN }, up: { x: NaN, y: NaN, z: NaN } };

  const running = () => context.state === 'running';
  /** The audio clock at the sample reaching the ears now (latencies are missing in some browsers). */
  const heardTime = () => context.currentTime - (context.baseLatency || 0) - (context.outputLatency || 0);

  const channelOf = (participant: string): Channel => {
    let channel = channels.get(participant);
    if (!channel) {
      const gain = context.createGain();
      const panner = context.createPanner();
      Object.assign(panner, pannerSettings);
      gain.connect(panner).connect(context.destination);
      channel = { gain, panner, muted: false, draft: undefined, voice: undefined, stream: undefined, jaw: closedMouth(), tap: undefined };
      channels.set(participant, channel);
    }
    return channel;
  };

  /** The RMS level of a live track now (0 without one). */
  const streamLevel = (channel: Channel): number => {
    if (!channel.stream) return 0;
    channel.stream.analyser.getFloatTimeDomainData(channel.stream.samples);
    let sum = 0;
    for (const sample of channel.stream.samples) sum += sample * sample;
    return Math.sqrt(sum / channel.stream.samples.length);
  };

  /** Where silent pieces go: nowhere audible, but the graph runs them on the clock. */
  let silence: GainNode | null = null;
  const silentSink = (): GainNode => {
    if (!silence) {
      silence = context.createGain();
      silence.gain.value = 0;
      silence.connect(context.destination);
    }
    return silence;
  };

  const schedule = (channel: Channel, pcm: Int16Array, sampleRate: number, at: number, silent = false): AudioBufferSourceNode => {
    const buffer = context.createBuffer(1, pcm.length, sampleRate);
    const samples = buffer.getChannelData(0);
    for (let i = 0; i < pcm.length; i++) samples[i] = pcm[i]! * fromPcm16;
    const source = context.createBufferSource();
    source.buffer = buffer;
    source.connect(silent ? silentSink() : channel.gain);
    source.onended = () => source.disconnect();
    source.start(at);
    return source;
  };

  const remember = (id: string, playback: DraftPlayback) => {
    drafts.set(id, playback);
    const current = new Set([...channels.values()].map((channel) => channel.draft?.id));
    for (const old of drafts.keys()) {
      if (drafts.size <= rememberedDrafts) break;
      if (current.has(old)) continue;
      drafts.delete(old);
      lipSync.forget(old);
    }
  };

  /** Drops the pieces heard in full by `time`. */
  const forgetHeard = ({ pieces, stopAt }: DraftPlayback, time: number) => {
    while (pieces.length > 0 && Math.min(pieces[0]!.end, stopAt) <= time) pieces.shift();
  };

  const audibleDraftSince = (channel: Channel, time: number): number | undefined => {
    const playback = channel.draft?.playback;
    if (!playback) return undefined;
    forgetHeard(playback, time);
    const first = playback.pieces[0];
    return first && first.start <= time && time < playback.stopAt ? playback.since : undefined;
  };

  /**
   * How much of a human's speech may be buffered (s): the usual maximum, or twice the longest gap
   * between their frames' arrivals in the last few seconds when they came in bursts (up to the burst
   * maximum). Gaps longer than that maximum are pauses (push-to-talk released), not jitter.
   */
  const burstAllowance = (voice: HumanVoice, now: number): number => {
    const last = voice.arrivals.at(-1);
    const gap = last === undefined ? 0 : now - last.at;
    voice.arrivals.push({ at: now, gap: gap <= settings.maxBurstBufferMs / 1000 ? gap : 0 });
    while (voice.arrivals[0]!.at < now - BURST_MEMORY_S) voice.arrivals.shift();
    let longest = 0;
    for (const arrival of voice.arrivals) longest = Math.max(longest, arrival.gap);
    return Math.max(settings.maxVoiceBufferMs / 1000, Math.min(settings.maxBurstBufferMs / 1000, 2 * longest));
  };

  /** The chunk of a human's voice being heard at `time`, if any; drops the chunks heard before. */
  const heardChunk = (voice: HumanVoice | undefined, time: number): VoiceChunk | undefined => {
    if (!voice) return undefined;
    while (voice.chunks.length > 0 && voice.chunks[0]!.end <= time) voice.chunks.shift();
    const first = voice.chunks[0];
    return first && first.start <= time ? first : undefined;
  };

  return {
    play(piece) {
      if (!running()) return;
      const now = context.currentTime;
      let playback = drafts.get(piece.draft);
      if (!playback) {
        const start = now + settings.leadMs / 1000 - piece.offsetMs / 1000;
        playback = { start, until: start, since: start + piece.offsetMs / 1000, stopAt: Infinity, lastSeq: -1, pieces: [] };
        remember(piece.draft, playback);
        channelOf(piece.speaker).draft = { id: piece.draft, playback };
      }
      if (playback.stopAt !== Infinity || piece.seq <= playback.lastSeq) return;
      playback.lastSeq = piece.seq;
      forgetHeard(playback, heardTime());

      const planned = playback.start + piece.offsetMs / 1000;
      const at = Math.max(planned, now, playback.until);
      // A late piece starts now and the rest of the draft (and its lip sync) moves with it.
      playback.start += at - planned;
      const seconds = piece.pcm.length > 0 ? piece.pcm.length / piece.sampleRate : (piece.durationMs ?? 0) / 1000;
      if (piece.pcm.length > 0) {
        const source = schedule(channelOf(piece.speaker), piece.pcm, piece.sampleRate, at, piece.silent === true);
        playback.pieces.push({ source, start: at, end: at + seconds });
      }
      playback.until = at + seconds;
      lipSync.add(piece.draft, piece.cues, piece.offsetMs + seconds * 1000);
    },

    stop(draft, atMs) {
      const now = context.currentTime;
      let playback = drafts.get(draft);
      if (!playback) {
        playback = { start: now, until: now, since: now, stopAt: Infinity, lastSeq: -1, pieces: [] };
        remember(draft, playback);
      }
      const stopAt = Math.max(playback.start + atMs / 1000, now);
      if (stopAt >= playback.stopAt) return;
      playback.stopAt = stopAt;
      playback.until = Math.min(playback.until, stopAt);
      for (const { source, start, end } of playback.pieces) {
        if (start >= stopAt) {
          source.stop();
          source.disconnect();
        } else if (end > stopAt) source.stop(stopAt);
      }
      lipSync.stop(draft, (stopAt - playback.start) * 1000);
    },

    voice(participant, pcm, sampleRate) {
      if (!running() || pcm.length === 0) return;
      const now = context.currentTime;
      const channel = channelOf(participant);
      const voice = (channel.voice ??= { playhead: 0, chunks: [], voicedMs: 0, arrivals: [] });
      heardChunk(voice, heardTime());
      const rms = rootMeanSquare(pcm);
      const allowance = burstAllowance(voice, now);
      if (voice.playhead < now) voice.playhead = now + settings.jitterMs / 1000;
      else {
        // Silence past the usual buffer is dropped, so the delay a burst built up melts away in the
        // next pause; speech is kept up to what the recent bursts call for.
        const buffered = voice.playhead - now;
        if (buffered > (rms < settings.silenceLevel ? settings.maxVoiceBufferMs / 1000 : allowance)) return;
      }

      const start = voice.playhead;
      const end = start + pcm.length / sampleRate;
      const source = schedule(channel, pcm, sampleRate, start);
      // Heard before the gain, so a voice muted here still moves its avatar's lips.
      if (channel.tap) source.connect(channel.tap.analyser);
      const previous = voice.chunks.at(-1);
      const continues = previous !== undefined && previous.end === start && previous.loudSince !== -Infinity;
      const loudSince = rms < settings.silenceLevel ? -Infinity : continues ? previous.loudSince : start;
      voice.chunks.push({ start, end, rms, loudSince });
      voice.playhead = end;
      if (loudSince !== -Infinity) voice.voicedMs += (end - start) * 1000;
    },

    voicedMs(participant) {
      return channels.get(participant)?.voice?.voicedMs ?? 0;
    },

    speaking() {
      const time = heardTime();
      let speaker: string | null = null;
      let latest = -Infinity;
      for (const [participant, channel] of channels) {
        if (channel.muted) continue;
        const live = streamLevel(channel) >= settings.silenceLevel ? time : -Infinity;
        const since = Math.max(audibleDraftSince(channel, time) ?? -Infinity, heardChunk(channel.voice, time)?.loudSince ?? -Infinity, live);
        if (since > latest) {
          latest = since;
          speaker = participant;
        }
      }
      return speaker;
    },

    progress(draft) {
      const playback = drafts.get(draft);
      if (!playback || playback.until <= playback.since) return null;
      const time = heardTime();
      const positionMs = (time - playback.start) * 1000;
      // A reply whose next piece is late is still being spoken: it is over a moment after its last
      // piece ends (or at once when stopped), so a gap between clauses does not end it.
      const end = playback.stopAt !== Infinity ? Math.min(playback.until, playback.stopAt) : playback.until + UNDERRUN_S;
      const state = time < playback.since ? 'queued' : time < end ? 'audible' : 'over';
      return { state, positionMs };
    },

    visemes(participant) {
      const channel = channels.get(participant);
      if (!channel) return null;
      const time = heardTime();
      // A persona's cues first (its LiveKit track is loud too, but the cues know the mouth shapes).
      const draft = channel.draft;
      if (draft) {
        const weights = lipSync.weightsAt(draft.id, (time - draft.playback.start) * 1000);
        for (const viseme of visemes) if ((weights[viseme] ?? 0) > 0) return weights;
      }
      const chunk = heardChunk(channel.voice, time);
      const level = Math.max(chunk?.rms ?? 0, streamLevel(channel));
      if (level >= settings.silenceLevel) {
        channel.jaw.aa = Math.min(1, level * settings.jawGain);
        return channel.jaw;
      }
      return null;
    },

    waveform(participant) {
      const channel = channels.get(participant);
      if (!channel) return null;
      if (channel.stream) {
        channel.stream.analyser.getFloatTimeDomainData(channel.stream.samples);
        return { samples: channel.stream.samples, sampleRate: context.sampleRate };
      }
      if (!channel.voice) return null;
      if (!channel.tap) {
        const analyser = context.createAnalyser();
        analyser.fftSize = 1024;
        channel.tap = { analyser, samples: new Float32Array(analyser.fftSize) };
      }
      channel.tap.analyser.getFloatTimeDomainData(channel.tap.samples);
      return { samples: channel.tap.samples, sampleRate: context.sampleRate };
    },

    attach(participant, track) {
      const channel = channelOf(participant);
      channel.stream?.source.disconnect();
      const source = context.createMediaStreamSource(new MediaStream([track]));
      const analyser = context.createAnalyser();
      analyser.fftSize = 512;
      source.connect(analyser);
      source.connect(channel.gain);
      channel.stream = { source, analyser, samples: new Float32Array(analyser.fftSize) };
    },
    detach(participant) {
      const channel = channels.get(participant);
      channel?.stream?.source.disconnect();
      if (channel) channel.stream = undefined;
    },
    place(participant, { x, y, z }) {
      const { panner } = channelOf(participant);
      const time = context.currentTime;
      // Firefox has no AudioParams on panners and listeners, only the older setters.
      if (panner.positionX) {
        setParam(panner.positionX, x, time);
        setParam(panner.positionY, y, time);
        setParam(panner.positionZ, z, time);
      } else panner.setPosition(x, y, z);
    },

    listen(position, forward, up) {
      // Called every frame; while the viewer keeps still (a desktop view most of the time) each call
      // would add nine automation events that change nothing.
      if (samePosition(heard.position, position) && samePosition(heard.forward, forward) && samePosition(heard.up, up)) return;
      copyPosition(heard.position, position);
      copyPosition(heard.forward, forward);
      copyPosition(heard.up, up);
      const { listener } = context;
      const time = context.currentTime;
      if (listener.positionX) {
        setParam(listener.positionX, position.x, time);
        setParam(listener.positionY, position.y, time);
        setParam(listener.positionZ, position.z, time);
        setParam(listener.forwardX, forward.x, time);
        setParam(listener.forwardY, forward.y, time);
        setParam(listener.forwardZ, forward.z, time);
        setParam(listener.upX, up.x, time);
        setParam(listener.upY, up.y, time);
        setParam(listener.upZ, up.z, time);
      } else {
        listener.setPosition(position.x, position.y, position.z);
        listener.setOrientation(forward.x, forward.y, forward.z, up.x, up.y, up.z);
      }
    },

    mute(participant, muted) {
      const channel = channelOf(participant);
      channel.muted = muted;
      // A short glide instead of a jump, which would click.
      channel.gain.gain.setTargetAtTime(muted ? 0 : 1, context.currentTime, 0.015);
    },

    muted(participant) {
      return channels.get(participant)?.muted ?? false;
    },

    resume() {
      return context.resume();
    },

    async close() {
      for (const channel of channels.values()) {
        channel.gain.disconnect();
        channel.panner.disconnect();
      }
      channels.clear();
      drafts.clear();
      if (context.state !== 'closed') await context.close();
    },
  };
};
