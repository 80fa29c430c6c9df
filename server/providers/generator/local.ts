/**
 * A language model in the server process: a GGUF file run by llama.cpp through `node-llama-cpp`,
 * on the CPU. One model serves every room of the process, one turn at a time, in arrival order.
 *
 * ```ts
 * const local = createLocalGenerator({ model: '/models/qwen2.5-1.5b-instruct-q4_k_m.gguf' });
 * for await (const delta of local.stream(request, signal, onNotice)) show(delta);
 * await local.close();
 * ```
 *
 * A persona keeps its own chat session (a context sequence): its system prompt, and the start of
 * its prompt that does not change from turn to turn (the scene, the people, the material), stay in
 * the KV cache, so a turn evaluates only what is new. Evaluating a prompt is the cost on a CPU: a
 * 1.5B model reads ~24 prompt tokens/s on one core, so a cold 400-token prompt takes ~17 s and a
 * cached persona's 40 new tokens ~2 s (issue 27's measurements). A fixed number of sessions is kept;
 * a new persona takes the least recently used one.
 *
 * The model is loaded on the first turn (or `load()`): the configuration check builds a generator
 * and must not load anything. A missing, unreadable or corrupt file fails every turn with a clear
 * GeneratorError (and the next turn tries again: the file may have been fetched since), so the
 * resilient wrapper lets the scripted generator write it. JSON answers (the selector, bids) are
 * constrained by a JSON-schema grammar, so they always parse. The caller's abort (barge-in) stops
 * the generation at once. A turn that cannot get the model within `maxWaitMs` (other rooms' turns
 * ahead of it, or the model still loading) is late: it says so (`generator-busy`) and fails, and
 * the scripted generator writes it.
 */
import { access, constants, open, stat } from 'node:fs/promises';
import { getLlama, GgufInsights, LlamaChatSession, LlamaLogLevel, readGgufFileInfo, resolveChatWrapper, type ChatWrapper, type GbnfJsonObjectSchema, type Llama, type LlamaContext, type LlamaGrammar, type LlamaModel } from 'node-llama-cpp';
import type { GenerateRequest } from '../../engine/requests';
import { GeneratorError } from '../errors';
import type { OnNotice } from '../notice';
import type { Generator } from './port';

export interface LocalOptions {
  /** The GGUF file, or how to get it (a fetcher that resolves a hub id and verifies the download). */
  model: string | (() => Promise<string>);
  /** Personas whose prompts stay cached (context sequences). Default 4. */
  sessions?: number;
  /** Tokens each session holds. Default 4096: a turn's prompt with its history is 1-2k. */
  contextSize?: number;
  /**
   * CPU threads for evaluation. Default 1: on a shared 2-core machine llama.cpp's threads spin
   * waiting for each other, and two made a 20-token reply take 38 s instead of 54 ms here.
   */
  threads?: number;
  /** Longest a turn waits for the model (loading, or busy with other turns) before it is late. Default 2000 ms. */
  maxWaitMs?: number;
  /** The server's log: the model loaded, or why not. Default: standard error. */
  log?: (line: string) => void;
  /** Called after each turn the model wrote, with its figures (tests, the bench, metrics). */
  onTurn?: (turn: TurnFigures) => void;
}

/** What one turn cost. Token counts are the model's; times are wall-clock ms. */
export interface TurnFigures {
  /** The session it ran in: the purpose and the first line of the system prompt (the persona). */
  session: string;
  /** Tokens of the prompt (system and user parts, as the chat template writes them). */
  promptTokens: number;
  /** Of those, tokens evaluated now; the rest were in the session's cache. */
  evaluatedTokens: number;
  generatedTokens: number;
  /** Time waiting for the model (loading, other turns). */
  waitedMs: number;
  /** From the model's turn to its first text. */
  firstTokenMs: number | null;
  /** From the model's turn to its last token. */
  ms: number;
}

export type ModelStatus = { state: 'idle' } | { state: 'loading' } | { state: 'ready'; loadMs: number } | { state: 'failed'; reason: string };

export interface LocalGenerator extends Generator {
  /** Loads the model now (else the first turn does); rejects with the reason it cannot. */
  load(): Promise<void>;
  readonly status: ModelStatus;
  /** Turns waiting for the model, not counting the one it is writing. */
  readonly waiting: number;
  /** Turns that were late (`generator-busy`) since the process started: the scripted generator wrote them. */
  readonly lateTurns: number;
  /** Frees the model and its sessions; turns under way are stopped. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------- the runtime

/** llama.cpp's own words about the last failure, which `loadModel`'s error ("Failed to load model") leaves out. */
let llamaErrors: string[] = [];

/** One llama.cpp binding per process, prebuilt for the CPU: never built, never a GPU probe. */
let runtime: Promise<Llama> | undefined;
const llamaRuntime = (): Promise<Llama> =>
  (runtime ??= getLlama({
    gpu: false,
    build: 'never',
    logLevel: LlamaLogLevel.error,
    logger: (level, message) => {
      if (level === LlamaLogLevel.error || level === LlamaLogLevel.fatal) llamaErrors = [...llamaErrors.slice(-4), message.trim()];
    },
  }));

/**
 * Each model file's chat format (its template, matched against the formats node-llama-cpp knows), by
 * path, size and time: matching took 4 s on a busy 2-core machine, for every model loaded.
 */
const chatFormats = new Map<string, ChatWrapper>();

/** Refuses a file that is not there, cannot be read or is not GGUF, with what to do about it; returns its identity. */
const checkFile = async (path: string): Promise<string> => {
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) throw new GeneratorError(`no model file at ${path}: set LOCAL_LLM_MODEL to a GGUF file`);
  await access(path, constants.R_OK).catch(() => {
    throw new GeneratorError(`the model file ${path} cannot be read: check its permissions`);
  });
  const magic = Buffer.alloc(4);
  const file = await open(path, 'r');
  try {
    await file.read(magic, 0, 4, 0);
  } finally {
    await file.close();
  }
  if (magic.toString('latin1') !== 'GGUF') throw new GeneratorError(`the model file ${path} is not a GGUF model (it starts with ${JSON.stringify(magic.toString('latin1'))}): fetch it again`);
  // A download cut short has a whole header and too few weights: llama.cpp would say so only in its own log.
  const gguf = await readGgufFileInfo(path, { logWarnings: false }).catch((error: unknown) => {
    throw new GeneratorError(`the model file ${path} has a broken header (${(error as Error).message}): fetch it again`, { cause: error });
  });
  const dataStart = Math.min(...(gguf.tensorInfo ?? []).map((t) => Number(t.fileOffset)));
  const needed = dataStart + (await GgufInsights.from(gguf)).modelSize;
  if (info.size < needed) throw new GeneratorError(`the model file ${path} is incomplete (${info.size} of ${needed} bytes): fetch it again`);
  return `${path}:${info.size}:${info.mtimeMs}`;
};

// ---------------------------------------------------------------- grammars

/** The JSON a request must answer with: the selector's names, a bid's fields, else any object. */
const schemaOf = (request: GenerateRequest): GbnfJsonObjectSchema | null => {
  const { candidates } = request.cue;
  // MPOD §3.1: {"next": "<candidate name>"}; the judge also asks with purpose 'select', but names no candidates.
  if (request.purpose === 'select' && candidates?.length) {
    return { type: 'object', properties: { next: { enum: candidates } }, required: ['next'] } as const;
  }
  // MMAgents §3.2.1 think(); a bounded thought, so the answer closes within the request's tokens.
  if (request.purpose === 'think') {
    return {
      type: 'object',
      properties: {
        thought: { type: 'string', maxLength: 200 },
        action: { enum: ['speak', 'listen'] },
        importance: { enum: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] },
      },
      required: ['thought', 'action', 'importance'],
    } as const;
  }
  return null;
};

// ---------------------------------------------------------------- a turn's deltas

/** Deltas written by the model's callback, read by the port's stream, which may read slower. */
class Deltas {
  private items: string[] = [];
  private ended = false;
  private failure: unknown;
  private wake: (() => void) | undefined;

  push(text: string) {
    this.items.push(text);
    this.wake?.();
  }
  end(failure?: unknown) {
    this.ended = true;
    this.failure = failure;
    this.wake?.();
  }
  /** The next delta, or undefined at the end; rejects with the model's failure or the signal's reason. */
  async next(signal: AbortSignal): Promise<string | undefined> {
    for (;;) {
      signal.throwIfAborted();
      if (this.items.length > 0) return this.items.shift();
      if (this.ended) {
        if (this.failure !== undefined) throw this.failure;
        return undefined;
      }
      const woken = new AbortController();
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        signal.addEventListener('abort', () => resolve(), { once: true, signal: woken.signal });
      });
      woken.abort();
      this.wake = undefined;
    }
  }
}

// ---------------------------------------------------------------- the generator

interface Session {
  key: string;
  chat: LlamaChatSession;
  usedAt: number;
}

interface Loaded {
  model: LlamaModel;
  context: LlamaContext;
  /** The model's chat format, shared by its sessions (chatFormats). */
  chatWrapper: ChatWrapper;
  sessions: Session[];
}

export const createLocalGenerator = (options: LocalOptions): LocalGenerator => {
  const { sessions: sessionCount = 4, contextSize = 4096, threads = 1, maxWaitMs = 2000, onTurn } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let status: ModelStatus = { state: 'idle' };
  let loading: Promise<Loaded> | undefined;
  let closed = false;
  /** Turns under way or waiting, in order; each resolves when it leaves the model. */
  let queue: Promise<void> = Promise.resolve();
  let waiting = 0;
  let lateTurns = 0;
  /** Whether a turn has the model now. */
  let running = false;
  let clock = 0;
  const grammars = new Map<string, Promise<LlamaGrammar>>();

  const loadOnce = async (): Promise<Loaded> => {
    const started = performance.now();
    status = { state: 'loading' };
    try {
      const path = typeof options.model === 'string' ? options.model : await options.model();
      const identity = await checkFile(path);
      const llama = await llamaRuntime();
      llamaErrors = [];
      const model = await llama.loadModel({ modelPath: path }).catch((error: unknown) => {
        const said = llamaErrors.find((line) => /error loading model/.test(line))?.replace(/^.*error loading model:\s*/, '');
        throw new GeneratorError(`the model file ${path} could not be loaded: ${said ?? (error as Error).message}${said ? ': fetch it again' : ''}`, { cause: error });
      });
      const context = await model.createContext({ contextSize, sequences: sessionCount, threads }).catch(async (error: unknown) => {
        await model.dispose();
        throw GeneratorError.from(error);
      });
      const chatWrapper = chatFormats.get(identity) ?? resolveChatWrapper(model);
      chatFormats.set(identity, chatWrapper);
      const loadMs = Math.round(performance.now() - started);
      status = { state: 'ready', loadMs };
      log(`local model ${path} loaded in ${loadMs} ms (${sessionCount} sessions of ${context.contextSize} tokens, ${threads} thread${threads === 1 ? '' : 's'}, ${chatWrapper.wrapperName} chat format)`);
      return { model, context, chatWrapper, sessions: [] };
    } catch (error) {
      const failure = GeneratorError.from(error);
      status = { state: 'failed', reason: failure.message };
      log(`local model not loaded: ${failure.message}`);
      // The next turn tries again: the file may have been fetched or mended since.
      loading = undefined;
      throw failure;
    }
  };
  const load = () => (loading ??= loadOnce());

  /** The persona's session: the one that last ran this key, else the least recently used. */
  const sessionFor = (loaded: Loaded, key: string): Session => {
    const own = loaded.sessions.find((s) => s.key === key);
    const session =
      own ??
      (loaded.context.sequencesLeft > 0
        ? (() => {
            const made: Session = { key, chat: new LlamaChatSession({ contextSequence: loaded.context.getSequence(), chatWrapper: loaded.chatWrapper }), usedAt: 0 };
            loaded.sessions.push(made);
            return made;
          })()
        : loaded.sessions.reduce((a, b) => (a.usedAt <= b.usedAt ? a : b)));
    session.key = key;
    session.usedAt = ++clock;
    return session;
  };

  const grammarFor = (request: GenerateRequest): Promise<LlamaGrammar> | undefined => {
    if (!request.json) return undefined;
    const schema = schemaOf(request);
    const id = schema ? JSON.stringify(schema) : 'json';
    let grammar = grammars.get(id);
    if (!grammar) {
      grammar = llamaRuntime().then((llama) => (schema ? llama.createGrammarForJsonSchema(schema) : llama.getGrammarFor('json')));
      grammars.set(id, grammar);
    }
    return grammar;
  };

  /** Waits for the model's turn, at most `maxWaitMs`; resolves with the release, or rejects as late. */
  const takeTurn = (signal: AbortSignal, onNotice: OnNotice | undefined): Promise<() => void> => {
    const ahead = queue;
    let leave!: () => void;
    const done = new Promise<void>((resolve) => (leave = resolve));
    let left = false;
    const release = () => {
      if (left) return;
      left = true;
      running = false;
      leave();
    };
    // The next turn waits for this one to leave, however it leaves.
    queue = ahead.then(() => done);
    const turnsAhead = waiting + (running ? 1 : 0);
    waiting++;
    return new Promise<() => void>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        waiting--;
        clearTimeout(timer);
        signal.removeEventListener('abort', aborted);
        outcome();
      };
      const late = () =>
        settle(() => {
          lateTurns++;
          const why = status.state === 'ready' ? `busy with ${turnsAhead <= 1 ? 'another turn' : `${turnsAhead} turns ahead of this one`}` : 'still loading';
          onNotice?.({ code: 'generator-busy', message: `The local model is ${why}; this turn would be late.` });
          leave();
          reject(new GeneratorError(`the local model was ${why} for ${maxWaitMs} ms (GENERATOR_TIMEOUT_MS/2)`));
        });
      const aborted = () =>
        settle(() => {
          leave();
          reject(signal.reason);
        });
      const timer = setTimeout(late, maxWaitMs);
      signal.addEventListener('abort', aborted, { once: true });
      void Promise.all([ahead, load()]).then(
        () =>
          settle(() => {
            running = true;
            resolve(release);
          }),
        (error: unknown) =>
          settle(() => {
            leave();
            reject(error);
          }),
      );
    });
  };

  const generator: LocalGenerator = {
    name: 'local',
    get status() {
      return status;
    },
    get lateTurns() {
      return lateTurns;
    },
    get waiting() {
      return waiting;
    },
    async load() {
      await load();
    },
    async *stream(request, signal, onNotice) {
      if (closed) throw new GeneratorError('the local model is closed');
      const stop = new AbortController();
      const forward = () => stop.abort(signal?.reason);
      signal?.addEventListener('abort', forward, { once: true });
      const asked = performance.now();
      let release: (() => void) | undefined;
      try {
        const turn = await takeTurn(stop.signal, onNotice);
        release = turn;
        const loaded = await load();
        const grammar = await grammarFor(request);
        // A persona's utterances and its bids are different prompts: each keeps its own cached prefix.
        const key = `${request.purpose}:${request.system.split('\n', 1)[0]}`;
        const { chat } = sessionFor(loaded, key);
        const sequence = chat.sequence;
        const before = { input: sequence.tokenMeter.usedInputTokens, output: sequence.tokenMeter.usedOutputTokens };
        const started = performance.now();
        let firstTokenMs: number | null = null;
        const deltas = new Deltas();
        chat.setChatHistory([{ type: 'system', text: request.system }]);
        const variant = request.cue.variant;
        const written = chat
          .prompt(request.prompt, {
            maxTokens: request.maxTokens,
            temperature: request.temperature,
            // The turn's own seeded chance, as the scripted generator's: a session replays the same.
            seed: Number.isInteger(variant) ? variant : Math.floor(variant * 2 ** 32),
            ...(grammar ? { grammar } : {}),
            signal: stop.signal,
            onTextChunk: (text) => {
              firstTokenMs ??= performance.now() - started;
              deltas.push(text);
            },
          })
          .then(
            () => deltas.end(),
            (error: unknown) => deltas.end(stop.signal.aborted ? stop.signal.reason : GeneratorError.from(error)),
          )
          .finally(() => {
            const generated = sequence.tokenMeter.usedOutputTokens - before.output;
            const evaluated = sequence.tokenMeter.usedInputTokens - before.input;
            onTurn?.({
              session: key,
              promptTokens: Math.max(evaluated, sequence.nextTokenIndex - generated),
              evaluatedTokens: evaluated,
              generatedTokens: generated,
              waitedMs: Math.round(started - asked),
              firstTokenMs: firstTokenMs === null ? null : Math.round(firstTokenMs),
              ms: Math.round(performance.now() - started),
            });
            // The model is free once it stops writing, whether or not the caller read it all.
            turn();
          });
        // The turn holds the model until `written` settles, even when the caller leaves early.
        release = undefined;
        void written;
        for (let text = await deltas.next(stop.signal); text !== undefined; text = await deltas.next(stop.signal)) yield text;
      } catch (error) {
        if (signal?.aborted) {
          const reason: unknown = signal.reason;
          if (reason instanceof GeneratorError && reason.details.timeout) {
            onNotice?.({ code: 'generator-slow', message: 'The local model was slower than the time limit for this turn: a smaller LOCAL_LLM_MODEL, or a longer GENERATOR_TIMEOUT_MS, avoids it.' });
          }
          throw reason;
        }
        throw GeneratorError.from(error);
      } finally {
        release?.();
        signal?.removeEventListener('abort', forward);
        // The caller stopped reading (or failed): the model stops writing.
        stop.abort(new Error('the caller stopped reading'));
      }
    },
    async close() {
      closed = true;
      const loaded = await loading?.catch(() => undefined);
      loading = undefined;
      if (!loaded) return;
      await loaded.context.dispose();
      await loaded.model.dispose();
      status = { state: 'idle' };
    },
  };
  return generator;
};
