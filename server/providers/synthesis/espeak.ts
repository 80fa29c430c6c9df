/**
 * eSpeak NG, embedded: the synthesizer that needs no key and no network. eSpeak NG (GPL-3.0,
 * compiled to JavaScript by emscripten) runs in its own process, espeak-worker.ts, kept warm and
 * fed one request at a time; if it dies, a new one takes over.
 *
 * ```ts
 * const espeak = createEspeakSynthesizer();
 * for await (const chunk of espeak.synthesize({ text: 'Hello there. How are you?', voice: { espeak: 'en-us+f3' } })) {
 *   play(chunk.pcm, chunk.sampleRate, chunk.offsetMs, chunk.cues); // one chunk per sentence, 22050 Hz
 * }
 * await espeak.close();
 * ```
 *
 * `phonemize` gives eSpeak's phonemes per word without a synthesizer, to put visemes under
 * another vendor's audio (ElevenLabs character timestamps):
 *
 * ```ts
 * await phonemize('Hello, 42 apples');
 * // [{ word: 'Hello', phonemes: ['h', 'ə', 'l', 'oʊ'] }, { word: '42', phonemes: ['f', 'ɔːɹ', 'ɾ', 'i', 't', 'uː'] }, ...]
 * ```
 */
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { WorkerReply, WorkerRequest, PhonemizedWord } from './espeak-worker';
import { SynthesisError } from '../errors';
import type { SpeechChunk, SynthesisRequest, Synthesizer } from './port';
import { visemeCuesFrom, type PhonemeTiming } from './visemes';

export type { PhonemizedWord } from './espeak-worker';

export interface EspeakOptions {
  /** The voice of a request that names none: a voice or language, with an optional variant ("en-gb+f3"). */
  voice?: string;
  /** eSpeak pitch 0-99 of a request that gives none. */
  pitch?: number;
  /** Words per minute (80-450) of a request that gives none. */
  rate?: number;
  /** A request the worker has not answered by then fails, and the worker is replaced. */
  timeoutMs?: number;
  /**
   * eSpeak processes sharing the requests of every session, soonest needed first. Default: one
   * per core (`os.availableParallelism()`), at most 8; `ESPEAK_WORKERS` sets it for the server.
   */
  workers?: number;
}

const defaults = { voice: 'en-us', pitch: 50, rate: 175, timeoutMs: 30_000, workers: Math.min(8, availableParallelism()) } satisfies Required<EspeakOptions>;

export interface EspeakSynthesizer extends Synthesizer {
  readonly name: 'espeak';
  /** The process of the pool's first worker, or undefined while none runs. */
  readonly workerPid: number | undefined;
  /** Every worker's process (undefined for one not running). */
  readonly workerPids: (number | undefined)[];
  /** eSpeak's phonemes for each word of `text` (see `phonemize`). */
  phonemize(text: string, voice?: string): Promise<PhonemizedWord[]>;
  close(): Promise<void>;
}

const clamp = (value: number | undefined, min: number, max: number, fallback: number): number =>
  value === undefined || !Number.isFinite(value) ? fallback : Math.min(max, Math.max(min, Math.round(value)));

/** Creates the synthesizer and starts its worker, so the first request finds eSpeak loaded. */
export const createEspeakSynthesizer = (options?: EspeakOptions): EspeakSynthesizer => {
  const settings = { ...defaults, ...options } satisfies Required<EspeakOptions>;
  const worker = new EspeakPool(settings.timeoutMs, Math.max(1, Math.round(options?.workers ?? defaults.workers)));
  worker.warm();
  return {
    name: 'espeak',
    get workerPid() {
      return worker.pids[0];
    },
    get workerPids() {
      return worker.pids;
    },
    async *synthesize({ text, voice, language, neededAt }: SynthesisRequest, signal?: AbortSignal): AsyncGenerator<SpeechChunk> {
      signal?.throwIfAborted();
      if (!text.trim()) return;
      const reply = await worker.request(
        {
          type: 'synthesize',
          text,
          // Without a persona voice, eSpeak's voice for the language ("en" is British English).
          voice: voice.espeak ?? language ?? settings.voice,
          pitch: clamp(voice.pitch ?? settings.pitch, 0, 99, defaults.pitch),
          rate: clamp(voice.rate ?? settings.rate, 80, 450, defaults.rate),
        },
        signal,
        neededAt,
      );
      if (reply.type !== 'speech') throw new Error(`eSpeak worker answered ${reply.type} to a synthesis request`);
      for (const chunk of sentenceChunks(reply)) {
        signal?.throwIfAborted();
        yield chunk;
      }
    },
    phonemize: (text, voice = settings.voice) => phonemizeWith(worker, text, voice),
    close: () => worker.close(),
  };
};

let shared: EspeakPool | undefined;

/**
 * eSpeak's phonemes (IPA, no stress marks) for each whitespace-separated word of `text`, in order;
 * words eSpeak does not pronounce (a lone dash) are left out. Runs in a worker of its own, started
 * on first use; an idle worker does not keep the process alive.
 */
export const phonemize = (text: string, voice = defaults.voice): Promise<PhonemizedWord[]> =>
  phonemizeWith((shared ??= new EspeakPool(defaults.timeoutMs, 1)), text, voice);

const phonemizeWith = async (worker: EspeakPool, text: string, voice: string): Promise<PhonemizedWord[]> => {
  if (!text.trim()) return [];
  const reply = await worker.request({ type: 'phonemize', text, voice });
  if (reply.type !== 'phonemes') throw new Error(`eSpeak worker answered ${reply.type} to a phonemize request`);
  return reply.words;
};

/**
 * One chunk per sentence; times stay relative to the start of the request's audio. A chunk starts
 * on a whole sample, so its span in ms can differ from eSpeak's sentence times by a fraction of
 * a millisecond: its phonemes and words are clipped to the chunk, so every cue falls inside its audio.
 */
const sentenceChunks = ({ sampleRate, pcm, sentences, phonemes, words }: Extract<WorkerReply, { type: 'speech' }>): SpeechChunk[] =>
  sentences.map(({ start, end }, i) => {
    const from = Math.round((start * sampleRate) / 1000);
    const to = i === sentences.length - 1 ? pcm.length : Math.round((end * sampleRate) / 1000);
    const [offsetMs, endMs] = [(from * 1000) / sampleRate, (to * 1000) / sampleRate];
    const own: PhonemeTiming[] = phonemes
      .filter((p) => p.start >= start && p.start < end)
      .map((p) => ({ ...p, start: Math.max(p.start, offsetMs), end: Math.min(p.end, endMs) }));
    // A sentence that starts in silence starts with its mouth closed.
    const first = own[0]?.start ?? endMs;
    if (first > offsetMs) own.unshift({ phoneme: '_', start: offsetMs, end: first });
    return {
      // A copy: a chunk's buffer is its own, to transfer or keep without holding the whole reply.
      pcm: pcm.slice(from, to),
      sampleRate,
      offsetMs,
      cues: visemeCuesFrom(own),
      words: words.filter((w) => w.start >= start && w.start < end).map((w) => ({ ...w, start: Math.max(w.start, offsetMs) })),
    };
  });

// ------------------------------------------------------------------ the worker process

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type Request = WithoutId<WorkerRequest>;
type Answer = Exclude<WorkerReply, { type: 'ready' } | { type: 'error' }>;
type Outcome = { reply: Answer } | { error: unknown };

interface Job {
  id: number;
  request: Request;
  /** When its answer is needed (performance.now() ms): the pool serves the soonest first. */
  neededAt: number;
  /** Times it was sent to a worker that then died without answering. */
  lost: number;
  /** The caller has its answer, or gave up (aborted, timed out): a late reply is dropped. */
  settled: boolean;
  /** Answers the caller, once, and takes the job out of the backlog. */
  settle(outcome: Outcome): void;
}

const workerPath = fileURLToPath(new URL('./espeak-worker.ts', import.meta.url));
/**
 * The emscripten module, for the worker to load before tsx is registered: tsx would rewrite its
 * 840 kB of generated JavaScript on the way in and keep about 100 MB more per worker.
 */
const espeakModule = pathToFileURL(createRequire(import.meta.url).resolve('@echogarden/espeak-ng-emscripten')).href;

/**
 * eSpeak processes and one backlog of requests, soonest needed first (first come among equals):
 * the first clause of a reply, which someone is waiting for, goes ahead of clauses queued behind
 * audio still playing, whichever session they belong to. Requests wait here rather than in a
 * worker, so a crash only touches the request in flight, which is tried once more (first in
 * line) and then fails.
 */
class EspeakPool {
  private readonly backlog: Job[] = [];
  private readonly workers: EspeakWorker[];
  private closed = false;
  private nextId = 1;

  constructor(timeoutMs: number, size: number) {
    this.workers = Array.from({ length: size }, () => new EspeakWorker(timeoutMs, this));
  }

  get pids(): (number | undefined)[] {
    return this.workers.map((worker) => worker.pid);
  }

  warm(): void {
    for (const worker of this.workers) worker.warm();
  }

  request(request: Request, signal?: AbortSignal, neededAt = performance.now()): Promise<Answer> {
    if (this.closed) return Promise.reject(new Error('the eSpeak synthesizer is closed'));
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      const job: Job = {
        id: this.nextId++,
        request,
        neededAt,
        lost: 0,
        settled: false,
        settle: (outcome) => {
          if (job.settled) return;
          job.settled = true;
          signal?.removeEventListener('abort', abort);
          const queued = this.backlog.indexOf(job);
          if (queued >= 0) this.backlog.splice(queued, 1);
          if ('reply' in outcome) resolve(outcome.reply);
          else reject(outcome.error);
        },
      };
      const abort = () => job.settle({ error: signal?.reason });
      signal?.addEventListener('abort', abort, { once: true });
      this.enqueue(job);
    });
  }

  /** A job to run, or again after its worker died (first in line, since it was already due). */
  enqueue(job: Job, again = false): void {
    if (again) this.backlog.unshift(job);
    else {
      // After the last job needed no later than this one: equal times keep their order.
      let at = this.backlog.length;
      while (at > 0 && this.backlog[at - 1]!.neededAt > job.neededAt) at--;
      this.backlog.splice(at, 0, job);
    }
    this.dispatch();
  }

  /** Hands waiting jobs to idle workers (a live one first, so a dead one is not respawned needlessly). */
  dispatch(): void {
    if (this.closed) return;
    const idle = this.workers.filter((worker) => worker.idle).sort((a, b) => Number(b.running) - Number(a.running));
    for (const worker of idle) {
      const job = this.backlog.shift();
      if (!job) break;
      worker.run(job);
    }
    for (const worker of this.workers) worker.hold(!worker.idle);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of [...this.backlog]) job.settle({ error: new Error('the eSpeak synthesizer was closed') });
    await Promise.all(this.workers.map((worker) => worker.close()));
  }
}

/**
 * One eSpeak process, running one job at a time for its pool. While it has no job the process
 * and its channel are unref'd, so an idle worker never keeps the server (or a CLI) from exiting.
 */
class EspeakWorker {
  private child: ChildProcess | undefined;
  private current: Job | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly pool: EspeakPool,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get idle(): boolean {
    return this.current === undefined;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  warm(): void {
    this.spawn();
    this.hold(this.current !== undefined);
  }

  run(job: Job): void {
    const child = this.child ?? this.spawn();
    this.current = job;
    this.timer = setTimeout(() => {
      job.settle({ error: new Error(`eSpeak did not answer within ${this.timeoutMs} ms`) });
      child.kill('SIGKILL');
    }, this.timeoutMs);
    child.send({ ...job.request, id: job.id } satisfies WorkerRequest, (error) => {
      if (error) child.kill('SIGKILL');
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // An idle worker is unref'd: without this the process could exit before the worker is reaped.
    this.hold(true);
    child.kill();
    await exited;
  }

  private finish(outcome: Outcome): void {
    clearTimeout(this.timer);
    this.current?.settle(outcome);
    this.current = undefined;
    this.pool.dispatch();
  }

  private spawn(): ChildProcess {
    // tsx runs the worker's TypeScript, resolved from the worker's folder whatever the server's cwd.
    const child = fork(workerPath, [], {
      execArgv: ['--import', espeakModule, '--import', 'tsx'],
      cwd: dirname(workerPath),
      serialization: 'advanced',
      stdio: ['ignore', 2, 2, 'ipc'],
    });
    this.child = child;
    let loaded = false;
    let gone = false;
    child.on('message', (reply: WorkerReply) => {
      if (reply.type === 'ready') loaded = true;
      else if (this.current && reply.id === this.current.id) {
        this.finish(reply.type === 'error' ? { error: new SynthesisError(`eSpeak: ${reply.message}`) } : { reply });
      }
    });
    const lose = (reason: string) => {
      if (gone) return;
      gone = true;
      if (this.child === child) this.child = undefined;
      const job = this.current;
      if (job) {
        clearTimeout(this.timer);
        this.current = undefined;
        // The request may have reached the worker only after it died: it is tried once more. One
        // that kills a second worker too fails, like one that timed out (already settled).
        if (!this.pool.isClosed && !job.settled && job.lost++ === 0) this.pool.enqueue(job, true);
        else job.settle({ error: new Error(`the eSpeak worker ${reason} during a request`) });
      }
      // A worker that had loaded is replaced at once to stay warm; one that died loading is
      // replaced only for a waiting request, so a broken install cannot spin.
      if (!this.pool.isClosed && loaded && !this.child) this.warm();
      this.pool.dispatch();
    };
    child.on('exit', (code, signal) => lose(`exited (${signal ?? `code ${code}`})`));
    // Only a failed spawn, kill or send: a worker that cannot be reached is as good as gone.
    child.on('error', (error) => {
      lose(`failed (${error.message})`);
      child.kill('SIGKILL');
    });
    return child;
  }

  /** Keeps the process alive while there is work, and lets it exit when idle. */
  hold(busy: boolean): void {
    const child = this.child;
    if (!child) return;
    if (busy) {
      child.ref();
      child.channel?.ref();
    } else {
      child.unref();
      child.channel?.unref();
    }
  }
}
