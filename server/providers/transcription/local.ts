/**
 * The in-process transcriber: whisper.cpp through `@fugood/whisper.node` (prebuilt, no server to
 * run, no key) with a ggml model file (`ggml-base.en-q5_1.bin` and the like).
 *
 * ```ts
 * const local = createLocalTranscriber({ modelPath: 'data/models/ggml-base.en-q5_1.bin' });
 * await local.ready; // loads the model once for the process
 * const { text } = await local.transcribe({ pcm, sampleRate: 16_000, language: 'en', hints: ['Nora', 'Omar'] });
 * ```
 *
 * One model in memory per process, whatever number of rooms: every transcriber of the same file
 * shares its context, and calls take turns in one queue, first come first served (whisper.cpp
 * holds one lock per context, and two transcriptions at once on two cores would only make both
 * late). A call aborted while it waits leaves the queue without costing anything; one aborted
 * while it runs is answered at once, and its native pass, which whisper.cpp cannot interrupt,
 * finishes before the next call starts.
 *
 * Speed, for the partial transcripts endpointing asks for at every pause (conversation/listen.ts).
 * Measured in CPU-seconds per second of audio, one thread, base.en's shape with random weights, a
 * 4.5 s utterance, on the 2-core Xeon of our machines (`npm run bench -- asr`):
 *
 * | runtime                                              | base.en | tiny.en |
 * | ---------------------------------------------------- | ------- | ------- |
 * | prebuilt @fugood/node-whisper-linux-x64 (no AVX)     | 5.9     | 2.6     |
 * | built here (whisper-build.ts), AVX-512 kernels       | 0.94    | 0.42    |
 * | built here, encoder fitted to the utterance          | 0.16    | 0.08    |
 *
 * So on Linux the recogniser is whisper.cpp built once on this machine (whisper-build.ts); calls
 * wait for the build (past their time limit, their speaker types), and the prebuilt binary is what
 * runs where it cannot be built (no compiler, another platform). `whisperBuildStatus()` says where
 * the build stands, for /api/health. The built one also
 * takes `audio_ctx`: whisper.cpp's encoder otherwise reads a 30 s window whatever the audio's
 * length, so a 1 s partial costs as much as a 30 s turn. It gets the utterance's length plus 128
 * positions (2.6 s), as measured by whisper.cpp issue #1855 with base.en on Common Voice (~3x
 * faster, no loss of words reported); much shorter windows make the decoder repeat itself.
 * What else cuts the time: one decoding pass, greedy, without whisper.cpp's temperature fallback
 * (which re-decodes up to five times with five decoders on unclear audio: a pause's partial is
 * better late by nothing than right by seconds); the listener reusing a pause's transcript as
 * the final one when nobody spoke after it; and the queue, so the machine's cores go to one
 * call at a time. `npm run bench -- asr` measures the rest.
 *
 * Whisper's prompt is text it takes as already said, so the scene's hints (participants' names)
 * go there as a list, as for the Whisper servers (openai.ts).
 */
import { open } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import type { TranscribeOptions, WhisperContext } from '@fugood/whisper.node';
import { TranscriptionError } from '../errors';
import type { Transcriber, TranscriptionRequest } from './port';
import { buildWhisperAddon, loadWhisperAddon, type WhisperModule } from './whisper-build';
import type { RuntimeBuild } from '../../../shared/models';

export interface LocalTranscriberOptions {
  /**
   * A whisper.cpp ggml model file, or how to get one (the model store: fetched once, verified). While
   * it is being fetched a call waits within its time limit, so a turn meanwhile falls back to typing.
   */
  modelPath: string | (() => Promise<string>);
  /** Threads per transcription; default: the machine's cores, at most 4. */
  threads?: number;
  /**
   * Where whisper.cpp built for this CPU is kept (whisper-build.ts); default `.runtime` beside the
   * model file (MODELS_DIR/.runtime). `false`: the prebuilt binary only.
   */
  build?: string | false;
  /**
   * Fetch the model and build or load whisper.cpp now, not at the first utterance (the server's
   * start: a build takes about a CPU-minute). A failure here is only reported; calls meet it again.
   */
  preload?: boolean;
  log?: (line: string) => void;
}

/** A whisper.cpp binding: the prebuilt one, or the one built here (which reads `audioCtx`). */
interface Binding {
  module: WhisperModule;
  fitsAudio: boolean;
}

const prebuilt = async (): Promise<Binding> => ({ module: await (await import('@fugood/whisper.node')).loadWhisperModule(), fitsAudio: false });

/** A build under way or done, as /api/health shows it (`whisperBuildStatus`). */
interface BuildState {
  startedAt: number;
  step: string | null;
  outcome: { state: 'ready' | 'failed'; reason?: string; elapsedMs: number } | null;
}

/** One binding per build folder for the process; a build that fails leaves the prebuilt one, said once. */
const bindings = new Map<string | false, Promise<Binding>>();
/** The builds this process asked for, by folder; the last one is the server's (it has one transcriber). */
const builds = new Map<string, BuildState>();

const bindingFor = (build: string | false, log: (line: string) => void): Promise<Binding> => {
  const known = bindings.get(build);
  if (known) return known;
  let binding: Promise<Binding>;
  if (build === false) binding = prebuilt();
  else {
    const state: BuildState = { startedAt: performance.now(), step: null, outcome: null };
    // Elsewhere than Linux nothing is built: the prebuilt binary is the runtime, not a fallback to report.
    if (process.platform === 'linux') builds.set(build, state);
    const elapsed = () => Math.round(performance.now() - state.startedAt);
    binding = buildWhisperAddon({ dir: build, log, onStep: (step) => (state.step = step) })
      .then((path) => {
        const loaded = { module: loadWhisperAddon(path), fitsAudio: true };
        state.outcome = { state: 'ready', elapsedMs: state.step === null ? 0 : elapsed() };
        return loaded;
      })
      .catch((error: unknown) => {
        const reason = (error as Error).message;
        state.outcome = { state: 'failed', reason, elapsedMs: state.step === null ? 0 : elapsed() };
        log(`local transcriber: using the prebuilt whisper.cpp, several times slower on this CPU: ${reason}`);
        return prebuilt();
      });
  }
  bindings.set(build, binding);
  return binding;
};

/**
 * The whisper.cpp build this process uses, for /api/health: null before it is asked for, where
 * nothing is built (LOCAL_ASR_RUNTIME=prebuilt, another platform), or while the folder is only
 * being looked at (a build found there is `ready` at once).
 */
export const whisperBuildStatus = (): RuntimeBuild | null => {
  const state = [...builds.values()].at(-1);
  if (!state) return null;
  const { outcome } = state;
  if (outcome?.state === 'ready') return { state: 'ready', elapsedMs: outcome.elapsedMs, using: 'built' };
  // Anyone may read /api/health: the compiler's and the sources' folders stay in the server's log.
  if (outcome?.state === 'failed') return { state: 'failed', reason: outcome.reason!.replace(/(?:\/[^\s/:;'"]+)+\//g, ''), elapsedMs: outcome.elapsedMs, using: 'prebuilt' };
  if (state.step === null) return null;
  return { state: 'building', step: state.step, elapsedMs: Math.round(performance.now() - state.startedAt), using: 'typing' };
};

/**
 * Where whisper.cpp built for this CPU is kept for a model file: LOCAL_ASR_RUNTIME's folder, `false`
 * for `prebuilt`, else `.runtime` beside the model (MODELS_DIR/.runtime). The server and
 * `npm run models -- fetch asr` share it, so a build prepared by one is found by the other.
 */
export const runtimeDirFor = (modelPath: string, runtime?: string): string | false => {
  const chosen = runtime?.trim();
  if (chosen === 'prebuilt') return false;
  return chosen || join(dirname(modelPath), '.runtime');
};

/** whisper.cpp hears 16 kHz mono. */
const sampleRate = 16_000;
const ggmlMagic = 0x67676d6c;

/** A whisper.cpp context and the queue of calls waiting for it. */
interface Runtime {
  context: Promise<WhisperContext>;
  binding: Promise<Binding>;
  /** The model's encoder positions (1500 = 30 s): an `audio_ctx` may not ask for more. */
  audioCtx: Promise<number>;
  /** Runs `work` once the calls before it are done. */
  enqueue<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/** One runtime per model file for the whole process (every room, every transcriber). */
const runtimes = new Map<string, Runtime>();

/** The native library's error lines, kept while a model loads: its reason for refusing a file is there. */
let loadLog: string[] | null = null;
const listening = new WeakSet<WhisperModule>();

const loadContext = async (modelPath: string, header: Promise<ModelHeader>, binding: Promise<Binding>): Promise<WhisperContext> => {
  const { problem } = await header;
  if (problem) throw new TranscriptionError(problem);
  const { module } = await binding;
  if (!listening.has(module)) {
    // whisper.cpp prints a page of details on every load and call; only its errors are of use, to say why.
    module.WhisperContext.toggleNativeLog(true, (level, text) => level === 'error' && loadLog?.push(text.trim()));
    listening.add(module);
  }
  loadLog = [];
  try {
    return await (new module.WhisperContext({ filePath: modelPath, useGpu: false }) as WhisperContext | Promise<WhisperContext>);
  } catch (error) {
    // The loader's lines reach JavaScript on the next turns of the event loop.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const said = loadLog.filter(Boolean).map((line) => line.replace(/^whisper_[\w_]+: /, ''));
    throw new TranscriptionError(`${modelPath} could not be loaded as a whisper.cpp model${said.length ? `: ${said.join('; ')}` : ''}`, { cause: error });
  } finally {
    loadLog = null;
  }
};

/** ggml tensor types a whisper.cpp model file may hold: [values per block, bytes per block]. */
const tensorTypes = new Map<number, [number, number]>([
  [0, [1, 4]], [1, [1, 2]], [2, [32, 18]], [3, [32, 20]], [6, [32, 22]], [7, [32, 24]], [8, [32, 34]],
  [10, [256, 84]], [11, [256, 110]], [12, [256, 144]], [13, [256, 176]], [14, [256, 210]], [30, [1, 2]],
]);
/** Model types (`ftype`) whisper.cpp loads: F32, F16, Q4_0, Q4_1, Q8_0, Q5_0, Q5_1, Q2_K..Q6_K. */
const modelTypes = new Set([0, 1, 2, 3, 7, 8, 9, 10, 11, 12, 13, 14]);

interface ModelHeader {
  /** Why the file is not a whole whisper.cpp model, or null. */
  problem: string | null;
  /** Its encoder's positions (`n_audio_ctx`). */
  audioCtx: number;
}

/**
 * Read before the native loader sees the file: a header it cannot handle (an unknown type) stops
 * the whole process inside whisper.cpp (GGML_ASSERT), and a short file is better named here than
 * as a count of tensors.
 */
const readModelHeader = async (path: string): Promise<ModelHeader> => {
  let audioCtx = 0;
  const problem = await checkModelFile(path, (hparams) => (audioCtx = hparams[1]!));
  return { problem, audioCtx };
};

const checkModelFile = async (path: string, onHeader: (hparams: number[]) => void): Promise<string | null> => {
  let file;
  try {
    file = await open(path, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `no model file at ${path}` : `cannot read the model file ${path} (${code ?? (error as Error).message})`;
  }
  try {
    const { size } = await file.stat();
    const read = async (at: number, length: number): Promise<Buffer> => {
      const bytes = Buffer.alloc(length);
      const { bytesRead } = await file.read(bytes, 0, length, at);
      return bytes.subarray(0, bytesRead);
    };
    const head = await read(0, 4 * 12);
    if (head.length < 4 || head.readUInt32LE(0) !== ggmlMagic) return `${path} is not a whisper.cpp ggml model (it does not start with "ggml")`;
    const whole = `${path} is cut short or damaged`;
    if (head.length < 48) return whole;
    const hparams = Array.from({ length: 11 }, (_, i) => head.readInt32LE(4 + 4 * i));
    if (hparams.slice(0, 10).some((value) => value <= 0) || !modelTypes.has(hparams[10]! % 1000)) return `${whole}: its header is not a whisper model's`;
    onHeader(hparams);
    // The mel filters, then the vocabulary (a length and the bytes of each token).
    const filters = await read(48, 8);
    if (filters.length < 8) return whole;
    let at = 56 + 4 * filters.readInt32LE(0) * filters.readInt32LE(4);
    const vocabulary = await read(at, 4);
    if (vocabulary.length < 4) return whole;
    const tokens = vocabulary.readInt32LE(0);
    at += 4;
    const lengths = await read(at, Math.min(size - at, 64 * tokens + 4));
    for (let i = 0, offset = 0; i < tokens; i++) {
      if (offset + 4 > lengths.length) return whole;
      offset += 4 + lengths.readUInt32LE(offset);
      if (i === tokens - 1) at += offset;
    }
    // Each tensor: n_dims, name length, type, the dims, the name, then its data.
    while (at < size) {
      const header = await read(at, 12);
      if (header.length < 12) return whole;
      const [dims, nameLength, type] = [header.readInt32LE(0), header.readInt32LE(4), header.readInt32LE(8)];
      const layout = tensorTypes.get(type);
      if (dims < 1 || dims > 4 || nameLength < 1 || nameLength > 256 || !layout) return `${whole}: a tensor's header at byte ${at} makes no sense`;
      const shape = await read(at + 12, 4 * dims);
      if (shape.length < 4 * dims) return whole;
      const count = Array.from({ length: dims }, (_, i) => shape.readInt32LE(4 * i)).reduce((a, b) => a * b, 1);
      at += 12 + 4 * dims + nameLength + (count / layout[0]) * layout[1];
    }
    return at === size ? null : whole;
  } finally {
    await file.close();
  }
};

const createRuntime = (modelPath: string, binding: Promise<Binding>): Runtime => {
  let tail: Promise<unknown> = Promise.resolve();
  const header = readModelHeader(modelPath);
  const runtime: Runtime = {
    context: loadContext(modelPath, header, binding),
    binding,
    audioCtx: header.then((h) => h.audioCtx),
    enqueue(work, signal) {
      const turn = tail.then(() => {
        signal?.throwIfAborted();
        return work();
      });
      // The next call waits for this one's native work, whatever became of its caller.
      tail = turn.catch(() => undefined);
      if (!signal) return turn;
      // A caller that gives up is answered now; a call still waiting then never starts (above).
      return new Promise((resolve, reject) => {
        const abandon = () => reject(signal.reason);
        if (signal.aborted) return abandon();
        signal.addEventListener('abort', abandon, { once: true });
        turn.then(resolve, reject).finally(() => signal.removeEventListener('abort', abandon));
      });
    },
  };
  // A model that fails to load is tried again by the next transcriber made for it.
  runtime.context.catch(() => runtimes.get(modelPath) === runtime && runtimes.delete(modelPath));
  return runtime;
};

/** The first transcriber of a model chooses its binding; the others share the context it loaded. */
const runtimeFor = (modelPath: string, binding: () => Promise<Binding>): Runtime =>
  runtimes.get(modelPath) ?? runtimes.set(modelPath, createRuntime(modelPath, binding())).get(modelPath)!;

/** Whisper's encoder hears 50 positions a second; the margin is whisper.cpp issue #1855's (see above). */
const fittedAudioCtx = (samples: number, modelAudioCtx: number): number => Math.min(modelAudioCtx, Math.ceil((samples / sampleRate) * 50) + 128);

/** The request's audio as the binding takes it: PCM16 at 16 kHz, in an ArrayBuffer of its own. */
const audioOf = ({ pcm, sampleRate: rate }: TranscriptionRequest): ArrayBuffer => {
  if (rate !== sampleRate) throw new TranscriptionError(`the local transcriber hears ${sampleRate} Hz audio, got ${rate} Hz`);
  return pcm.slice().buffer;
};

export const createLocalTranscriber = (options: LocalTranscriberOptions): Transcriber & { readonly ready: Promise<void> } => {
  const { modelPath } = options;
  const threads = options.threads ?? Math.min(4, availableParallelism());
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const binding = (path: string) => () => bindingFor(options.build ?? runtimeDirFor(path), log);
  let resolving: Promise<string> | null = null;
  const path = (): Promise<string> =>
    (resolving ??= typeof modelPath === 'string' ? Promise.resolve(modelPath) : modelPath().catch((error: unknown) => {
      resolving = null;
      throw TranscriptionError.from(error);
    }));
  // Loaded on first use (or when `ready` is awaited), not when the configuration is checked.
  const runtime = async (): Promise<Runtime> => {
    const file = await path();
    return runtimeFor(file, binding(file));
  };

  // The model store and the runtime say what went wrong in the log and /api/health; calls meet it again.
  if (options.preload) void runtime().then((r) => r.context).catch(() => undefined);

  return {
    name: 'local',
    get ready() {
      // A file given is loaded before time limits start; a model still to fetch is the call's time.
      return typeof modelPath === 'string' ? runtime().then((r) => r.context).then(() => undefined) : Promise.resolve();
    },
    async transcribe(request, signal) {
      signal?.throwIfAborted();
      const audio = audioOf(request);
      const { context, enqueue, binding: loaded, audioCtx } = await runtime();
      const whisper = await context;
      const { fitsAudio } = await loaded;
      const settings: TranscribeOptions & { audioCtx?: number } = {
        // Whisper takes ISO 639-1, not a region: "en-GB" -> "en". English-only models ignore it.
        language: request.language?.split('-')[0]?.toLowerCase() || 'en',
        maxThreads: threads,
        temperature: 0,
        temperatureInc: 0,
        ...(request.hints?.length ? { prompt: `${request.hints.join(', ')}.` } : {}),
        ...(fitsAudio ? { audioCtx: fittedAudioCtx(request.pcm.length, await audioCtx) } : {}),
      };
      return enqueue(async () => {
        // Never `job.stop()`: whisper.cpp only looks at the flag before and after its pass, and in
        // this binding a stopped job's promise never settles (its error reaches a callback that
        // wants two arguments), which would hold the queue for good. The caller has its answer
        // from `enqueue` already; the pass finishes and its text is dropped.
        const result = await whisper.transcribeData(audio, settings).promise.catch((error: unknown) => {
          throw TranscriptionError.from(error);
        });
        return { text: result.result.trim(), ...(result.language ? { language: result.language } : {}) };
      }, signal);
    },
  };
};
