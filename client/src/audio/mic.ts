/**
 * The microphone: 20 ms frames of PCM16 at 16 kHz mono, the format the server transcribes
 * (protocol: binary WebSocket frames). An AudioWorklet downsamples the context's rate off the
 * main thread; its code is built here from a string, so nothing is fetched from elsewhere.
 *
 * ```ts
 * try {
 *   const mic = await openMicrophone({ mode: 'push-to-talk', onFrame: (pcm16) => socket.send(pcm16) });
 *   talkButton.onpointerdown = () => mic.setTalking(true);
 *   talkButton.onpointerup = () => mic.setTalking(false);
 *   useFrame(() => meter.scale.setX(mic.level()));
 * } catch (error) {
 *   // error.name: 'NotAllowedError' (permission denied), 'NotFoundError' (no microphone), ...
 * }
 * ```
 *
 * `open` mode sends every frame (the server's voice activity detection decides what is speech);
 * `push-to-talk` sends only while talking. The level is measured either way, for a meter and a
 * local speaking indicator.
 */

export type MicrophoneMode = 'open' | 'push-to-talk';

export interface MicrophoneOptions {
  /** Receives each 20 ms frame (320 samples) that is to be sent. */
  onFrame(pcm16: Int16Array): void;
  mode: MicrophoneMode;
  /** The context to capture in (the voice output's, to use one); otherwise one of its own, closed with the microphone. */
  context?: AudioContext;
}

export interface Microphone {
  /** RMS of the latest frame, 0..1; 0 when no frame came for a while (a meter shows `meterLevel` of it). */
  level(): number;
  /** Push-to-talk: frames are sent only while talking. Ignored in open mode. */
  setTalking(on: boolean): void;
  setMode(mode: MicrophoneMode): void;
  /** Releases the microphone (the browser's recording indicator goes off). */
  close(): Promise<void>;
}

/** Carried from one block of input to the next, so blocks join without seams. */
export interface DownsampleState {
  /** Weighted sum of the input so far toward the next output sample. */
  sum: number;
  /** How much input (in input samples, fractional) that sum covers. */
  filled: number;
}

export const createDownsampleState = (): DownsampleState => ({ sum: 0, filled: 0 });

/**
 * Resamples mono float audio to 16 kHz PCM16. Each output sample is the mean of the input over
 * its span (input samples count in part at the span's edges), a box filter that keeps most
 * aliasing out of speech; values beyond ±1 are clipped. Blocks of any size may follow each
 * other through the same `state`.
 *
 * It runs inside the AudioWorklet through its source text, so it must stay self-contained: no
 * references to anything outside the function.
 */
export const downsampleTo16k = (input: Float32Array, inputRate: number, state: DownsampleState): Int16Array => {
  const span = inputRate / 16000;
  const output = new Int16Array(Math.ceil((state.filled + input.length) / span) + 1);
  let count = 0;
  for (let i = 0; i < input.length; i++) {
    const sample = Math.max(-1, Math.min(1, input[i] as number));
    let left = 1;
    while (state.filled + left >= span) {
      const part = span - state.filled;
      const mean = (state.sum + sample * part) / span;
      output[count++] = Math.round(mean < 0 ? mean * 32768 : mean * 32767);
      state.sum = 0;
      state.filled = 0;
      left -= part;
    }
    state.sum += sample * left;
    state.filled += left;
  }
  return output.subarray(0, count);
};

/** 20 ms at 16 kHz. */
const frameSamples = 320;
const processorName = 'microphone-frames';

/**
 * The worklet: mixes the input to mono, downsamples it and posts 320-sample PCM16 frames
 * (transferred, not copied). Exported for the tests, which run it in Node with a fake scope.
 */
export const microphoneWorkletSource = `
const downsampleTo16k = ${downsampleTo16k.toString()};

class MicrophoneFrames extends AudioWorkletProcessor {
  constructor() {
    super();
    this.state = { sum: 0, filled: 0 };
    this.mono = new Float32Array(128);
    this.frame = new Int16Array(${frameSamples});
    this.length = 0;
  }

  process(inputs) {
    const channels = inputs[0];
    if (!channels || channels.length === 0) return true;
    let mono = channels[0];
    if (channels.length > 1) {
      if (this.mono.length !== mono.length) this.mono = new Float32Array(mono.length);
      for (let i = 0; i < mono.length; i++) {
        let sum = 0;
        for (const channel of channels) sum += channel[i];
        this.mono[i] = sum / channels.length;
      }
      mono = this.mono;
    }
    for (const sample of downsampleTo16k(mono, sampleRate, this.state)) {
      this.frame[this.length++] = sample;
      if (this.length === this.frame.length) {
        this.port.postMessage(this.frame, [this.frame.buffer]);
        this.frame = new Int16Array(${frameSamples});
        this.length = 0;
      }
    }
    return true;
  }
}

registerProcessor('${processorName}', MicrophoneFrames);
`;

/** A frame older than this means the microphone went quiet (muted track, suspended context). */
const staleLevelMs = 200;

const errorMessages: Record<string, string> = {
  NotAllowedError: 'Microphone access was denied. Allow it in the browser’s site settings and try again.',
  NotFoundError: 'No microphone was found. Connect one and try again.',
  NotReadableError: 'The microphone is in use by another application or could not be started.',
  NotSupportedError: 'This page cannot use a microphone here: it needs https (or localhost).',
};

/** An Error keeping the DOMException's `name`, with a message a lobby can show. */
const microphoneError = (cause: unknown): Error => {
  const name = cause instanceof Error ? cause.name : 'Error';
  const error = new Error(errorMessages[name] ?? `The microphone could not be opened: ${String(cause)}`, { cause });
  error.name = name;
  return error;
};

/** Contexts that have the worklet module already: registering a processor twice fails. */
const contextsWithWorklet = new WeakSet<BaseAudioContext>();

/** The RMS level of a frame, 0..1 of full scale. */
export const rootMeanSquare = (pcm: Int16Array): number => {
  let sum = 0;
  for (const sample of pcm) sum += sample * sample;
  return pcm.length === 0 ? 0 : Math.sqrt(sum / pcm.length) / 32768;
};

/** The meter's range in dB below full scale: a quiet room reads 0, shouting reads full. */
const METER_FLOOR_DBFS = -60;
const METER_CEILING_DBFS = -10;

/**
 * What a level meter shows (0..1) for an RMS level: its decibels below full scale, from -60 dBFS
 * (0) to -10 dBFS (1). Conversational speech after the browser's automatic gain control is about
 * -40..-25 dBFS RMS, so it reads 40-70 %; on a linear RMS scale it hardly moved the needle
 * (-30 dBFS is 3 % of full scale). Loudness is heard on a log scale, and so it is shown.
 */
export const meterLevel = (rms: number): number => {
  if (!(rms > 0)) return 0;
  const dbfs = 20 * Math.log10(rms);
  return Math.min(1, Math.max(0, (dbfs - METER_FLOOR_DBFS) / (METER_CEILING_DBFS - METER_FLOOR_DBFS)));
};

export const openMicrophone = async (options: MicrophoneOptions): Promise<Microphone> => {
  // mediaDevices is missing outside secure contexts, e.g. a headset opening http://192.168.x.x.
  if (!navigator.mediaDevices?.getUserMedia) throw microphoneError(new DOMException('no mediaDevices', 'NotSupportedError'));
  const ownContext = options.context === undefined;
  // Created before the permission prompt, while the user gesture that opened the microphone
  // still counts, so that the browser lets it start.
  const context = options.context ?? new AudioContext();
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true },
    });
  } catch (cause) {
    if (ownContext) await context.close();
    throw microphoneError(cause);
  }

  try {
    if (!contextsWithWorklet.has(context)) {
      const url = URL.createObjectURL(new Blob([microphoneWorkletSource], { type: 'text/javascript' }));
      try {
        await context.audioWorklet.addModule(url);
      } finally {
        URL.revokeObjectURL(url);
      }
      contextsWithWorklet.add(context);
    }
    const source = context.createMediaStreamSource(stream);
    const frames = new AudioWorkletNode(context, processorName, { numberOfInputs: 1, numberOfOutputs: 1, outputChannelCount: [1] });
    // Some browsers pull only nodes that reach the destination; a silent gain keeps it quiet.
    const sink = context.createGain();
    sink.gain.value = 0;
    source.connect(frames).connect(sink).connect(context.destination);

    let mode = options.mode;
    let talking = false;
    let level = 0;
    let levelAt = 0;
    frames.port.onmessage = ({ data }: MessageEvent<Int16Array>) => {
      level = rootMeanSquare(data);
      levelAt = performance.now();
      if (mode === 'open' || talking) options.onFrame(data);
    };
    // A shared context is the voice output's to start (VoiceOutput.resume, from a user gesture).
    if (ownContext) void context.resume();

    return {
      level: () => (performance.now() - levelAt > staleLevelMs ? 0 : level),
      setTalking(on) {
        talking = on;
      },
      setMode(next) {
        mode = next;
      },
      async close() {
        frames.port.onmessage = null;
        source.disconnect();
        frames.disconnect();
        sink.disconnect();
        for (const track of stream.getTracks()) track.stop();
        if (ownContext) await context.close();
      },
    };
  } catch (cause) {
    for (const track of stream.getTracks()) track.stop();
    if (ownContext) await context.close();
    throw cause;
  }
};
