/**
 * Resilience for every vendor call, in one place: the generator's, the synthesizer's and the
 * transcriber's, and every retry there is (a model's answer that cannot be read is asked for
 * again by `askUntilRead`, the judge's and the review's one loop). A time limit, retries with
 * exponential backoff and jitter (a vendor's Retry-After honoured, capped), a circuit breaker
 * that stops calling a vendor that keeps failing, and a fallback: a room never stalls on a
 * flaky, slow or rate-limited vendor, and never hammers one that is down.
 *
 * ```ts
 * const breaker = createBreaker(); // one per vendor, shared by every room
 * const generator = resilientGenerator(gemini, scripted, { timeoutMs: 4000, budgetMs: 6000, breaker, log, secrets });
 * for await (const delta of generator.stream(request, signal, (notice) => log(notice))) show(delta);
 * ```
 *
 * Time: each attempt waits at most `firstItemMs` for its first item (a connection open with no
 * bytes) and `timeoutMs` between items (a stream that stalls mid-way); the whole call, every
 * attempt and backoff together, waits at most `budgetMs` for its first item, then the fallback
 * answers. Without a budget a hung vendor cost attempts x limit + backoff: 3 x 20 s + 0.75 s for
 * a turn with the old 20 s generator limit, before the scripted line was even started.
 *
 * What a stream gave is never repeated. A generator that fails after its first delta ends with
 * what it said (`generator-truncated`); speech that breaks after some audio ends there
 * (`synthesis-cut`). Only a call that gave nothing is retried, then handed to the fallback
 * (`generator-fallback`, `synthesis-fallback`); a transcription, which has no fallback, throws one
 * error naming the vendor, the reason and the attempts. A reply with no text at all goes to the
 * fallback at once. A 4xx other than 408 and 429 means the request itself is wrong (a bad model):
 * it is not retried, nor counted against the vendor. A 401 or 403 means the vendor refuses the key,
 * which no retry and no wait mends: the circuit opens at once, and the log line and the notices name
 * the variable to check (`credential`: GEMINI_API_KEY, ELEVENLABS_API_KEY, ...).
 *
 * The breaker (Nygard, "Release It!", Circuit Breaker): after `failures` failed attempts in a row
 * the circuit opens, and for `cooldownMs` calls do not reach the vendor: they go straight to the
 * fallback (`generator-circuit-open`, `synthesis-circuit-open`) or fail at once. Then one call
 * probes the vendor: an answer closes the circuit, a failure opens it for another cooldown.
 *
 * Notices go to the `onNotice` of the call they concern, so each lands in its own session's log.
 * They name the vendor and what the room does instead, never the vendor's own words: an error
 * body can echo the API key it was sent, and notices are broadcast and stored. The vendor's words
 * go to the server's log (`log`), one line per failed call and one when a circuit opens, with the
 * configured `secrets` and anything shaped like a credential blanked (providers/redact.ts).
 * Time and chance are injected (the backoff's `sleep`, `random`, the breaker's `now`) and time
 * limits run on `setTimeout`: tests run on fake time, never on the wall clock.
 */
import { complete, type Generator } from './generator/port';
import type { Notice } from './notice';
import { GeneratorError, ProviderError, SynthesisError, TranscriptionError, type ProviderErrorDetails } from './errors';
import type { Synthesizer } from './synthesis/port';
import type { Transcriber, Transcript } from './transcription/port';
import { rngFrom } from '../../shared/rng';
import { redact } from './redact';
import type { GenerateRequest } from '../engine/requests';

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

const sleepFor: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

// ---------------------------------------------------------------- time limit

export interface WithinOptions {
  /** Aborted when time runs out, so the vendor request is cancelled; its abort also ends the wait at once. */
  controller: AbortController;
  /** The error to fail with, given the limit that ran out. */
  timedOut: (ms: number) => Error;
  /** The longest wait for the first item, when it differs from the wait between items. */
  firstMs?: number;
}

/**
 * Yields `source`'s items, failing with `timedOut()` when the first item takes longer than
 * `firstMs` (default `timeoutMs`) or any later one longer than `timeoutMs` (Infinity: no limit).
 * Only the source's time counts: the clock stops while the consumer holds an item. The wait also
 * ends, with the abort's reason, as soon as `controller` aborts, even when the source never
 * answers its abort (a hung connection). The limit runs on the timers (`setTimeout`), which tests fake.
 */
export async function* within<T>(source: AsyncIterable<T>, timeoutMs: number, options: WithinOptions): AsyncGenerator<T> {
  const { controller, timedOut } = options;
  const iterator = source[Symbol.asyncIterator]();
  let finished = false;
  let limit = options.firstMs ?? timeoutMs;
  try {
    for (;;) {
      controller.signal.throwIfAborted();
      const timer = new AbortController();
      const next = iterator.next();
      // The losing promise of the race may still reject later; it is already handled here.
      next.catch(() => undefined);
      const ms = limit;
      const expired = Number.isFinite(ms)
        ? sleepFor(ms, timer.signal).then(() => {
            const error = timedOut(ms);
            controller.abort(error);
            throw error;
          })
        : new Promise<never>(() => undefined);
      expired.catch(() => undefined);
      const aborted = abortOf(controller.signal, timer.signal);
      aborted.catch(() => undefined);
      let result: IteratorResult<T>;
      try {
        result = await Promise.race([next, expired, aborted]);
      } finally {
        timer.abort(settled);
      }
      if (result.done) {
        finished = true;
        return;
      }
      limit = timeoutMs;
      yield result.value;
    }
  } finally {
    // Close the vendor stream without waiting for it: after a timeout it may never settle.
    if (!finished) iterator.return?.().catch(() => undefined);
  }
}

/**
 * Why an item's timer is stopped: the race is settled. Nobody reads it; shared, because an abort
 * without a reason builds a DOMException, a cost on every item of every stream.
 */
const settled = new Error('settled');

/** Rejects with `signal`'s reason once it aborts; forgets it once `until` aborts. */
const abortOf = (signal: AbortSignal, until: AbortSignal): Promise<never> =>
  new Promise((_, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true, signal: until });
  });

// ---------------------------------------------------------------- circuit breaker

export type CircuitState = 'closed' | 'open' | 'half-open';

export interface BreakerOptions {
  /** Failed attempts in a row that open the circuit. Default 5. */
  failures?: number;
  /** How long an open circuit keeps calls from the vendor before one may probe it. Default 30 s. */
  cooldownMs?: number;
  now?: () => number;
}

/** One attempt's permission to call the vendor; the first verdict counts, later ones are ignored. */
export interface Pass {
  /** The vendor answered: the circuit closes. */
  answered(): void;
  /** The vendor failed: one more in a row; a failed probe opens the circuit again. */
  failed(): void;
  /** The vendor refused the key (401, 403): the circuit opens at once, whatever the count. */
  refused(): void;
  /** No verdict (the caller left first): a probe's turn goes to the next call. */
  release(): void;
}

export interface Breaker {
  readonly state: CircuitState;
  /** Failed attempts in a row that open the circuit. */
  readonly failures: number;
  /** How long until a call may probe the vendor again, in ms (0 unless open). */
  readonly retryInMs: number;
  /** Whether the circuit was opened by a refused key (401, 403) rather than by failures in a row. */
  readonly refusedKey: boolean;
  /** A pass for one attempt; null while the circuit is open, or half-open with its probe under way. */
  admit(): Pass | null;
}

export const createBreaker = (options: BreakerOptions = {}): Breaker => {
  const { failures = 5, cooldownMs = 30_000, now = () => Date.now() } = options;
  let inARow = 0;
  let openedAt: number | null = null;
  let probing = false;
  let refusedKey = false;
  const state = (): CircuitState => (openedAt === null ? 'closed' : now() - openedAt < cooldownMs ? 'open' : 'half-open');
  const open = () => {
    openedAt = now();
    probing = false;
  };

  return {
    failures,
    get state() {
      return state();
    },
    get retryInMs() {
      return state() === 'open' ? openedAt! + cooldownMs - now() : 0;
    },
    get refusedKey() {
      return openedAt !== null && refusedKey;
    },
    admit() {
      const current = state();
      if (current === 'open' || (current === 'half-open' && probing)) return null;
      const probe = current === 'half-open';
      probing ||= probe;
      let settled = false;
      const settle = (verdict: () => void) => () => {
        if (settled) return;
        settled = true;
        verdict();
      };
      return {
        answered: settle(() => {
          inARow = 0;
          openedAt = null;
          probing = false;
          refusedKey = false;
        }),
        failed: settle(() => {
          inARow++;
          if (probe || inARow >= failures) {
            refusedKey = false;
            open();
          }
        }),
        refused: settle(() => {
          inARow++;
          refusedKey = true;
          open();
        }),
        release: settle(() => {
          if (probe) probing = false;
        }),
      };
    },
  };
};

// ---------------------------------------------------------------- retries

export interface ResilienceOptions {
  /** Retries after the first attempt, for retryable failures (network, timeout, 408, 429, 5xx). */
  retries?: number;
  /** The first backoff's ceiling; each retry doubles it. Default 250 ms. */
  baseDelayMs?: number;
  /** Caps both the exponential backoff and a vendor's Retry-After. Default 4000 ms. */
  maxDelayMs?: number;
  /** A longer Retry-After is not waited out: the call goes to the fallback at once. Default: none. */
  maxRetryAfterMs?: number;
  /** Longest wait for each item after an attempt's first (and for the first, unless `firstItemMs`; see `within`). Default: none. */
  timeoutMs?: number;
  /** Longest wait for an attempt's first item (a connection open with no bytes). Default: `timeoutMs`. */
  firstItemMs?: number;
  /**
   * The whole call's time until its first item: every attempt and every wait between them. When
   * it runs out the attempt under way is cancelled and the fallback answers. Default: none.
   */
  budgetMs?: number;
  /** The vendor's breaker, shared by every call to it; null: never stop calling. Default: one of its own. */
  breaker?: Breaker | null;
  /** The wait between attempts. */
  sleep?: Sleep;
  /** Jitter source, uniform in [0, 1). */
  random?: () => number;
  /** The server's log: one line per call the vendor failed, and when its circuit opens. Default: standard error. */
  log?: (line: string) => void;
  /** Values blanked from those lines (the configured keys), besides anything shaped like a credential. */
  secrets?: readonly string[];
  /** The environment variable holding the vendor's key (GEMINI_API_KEY): named when the vendor refuses it (401, 403). */
  credential?: string;
}

/** How a call the vendor did not serve ended. */
type Shortfall =
  /** It failed after yielding: what it gave stands. */
  | { kind: 'cut'; error: unknown }
  /** It gave nothing, after `attempts` attempts. */
  | { kind: 'failed'; error: unknown; attempts: number }
  /** The circuit is open: the vendor was not called. */
  | { kind: 'refused'; breaker: Breaker };

interface Policy {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
  timeoutMs: number | undefined;
  firstItemMs: number | undefined;
  budgetMs: number | undefined;
  breaker: Breaker | null;
  sleep: Sleep;
  random: () => number;
  timedOut: (ms: number) => ProviderError;
  /** A complete stream that yielded nothing is a failure, with this error. */
  empty?: () => ProviderError;
  /** Writes one line to the server's log, secrets blanked. */
  log: (line: string) => void;
  secrets: readonly string[];
  credential: string | undefined;
  /** "gemini (generator)": who failed, in the log. */
  who: string;
}

const policyOf = (options: ResilienceOptions, defaults: { retries: number; maxRetryAfterMs?: number }) => ({
  retries: options.retries ?? defaults.retries,
  baseDelayMs: options.baseDelayMs ?? 250,
  maxDelayMs: options.maxDelayMs ?? 4000,
  maxRetryAfterMs: options.maxRetryAfterMs ?? defaults.maxRetryAfterMs ?? Number.POSITIVE_INFINITY,
  timeoutMs: options.timeoutMs,
  firstItemMs: options.firstItemMs,
  budgetMs: options.budgetMs,
  breaker: options.breaker === undefined ? createBreaker() : options.breaker,
  sleep: options.sleep ?? sleepFor,
  log: (line: string) => (options.log ?? ((text: string) => process.stderr.write(`${text}\n`)))(redact(line, options.secrets)),
  secrets: options.secrets ?? [],
  credential: options.credential,
});

const detailsOf = (error: unknown): ProviderErrorDetails => {
  const { details, status } = (error ?? {}) as { details?: ProviderErrorDetails; status?: unknown };
  return { ...details, ...(details?.status === undefined && typeof status === 'number' ? { status } : {}) };
};

/** A 401 or 403: the vendor refuses the key, and will until someone changes it. */
const isRefusal = (error: unknown): boolean => {
  const { status } = detailsOf(error);
  return status === 401 || status === 403;
};

/** "check GEMINI_API_KEY": what to do about a refused key, for the log and the room. */
const checkKey = (policy: Pick<Policy, 'credential'>): string => `check ${policy.credential ?? "the vendor's key"}`;

/**
 * Why the vendor gave nothing, for a notice: "refused the key (HTTP 401): check GEMINI_API_KEY"
 * when it refused a key the configuration names, else "failed".
 */
const failedBecause = (error: unknown, policy: Pick<Policy, 'credential'>): string =>
  policy.credential && isRefusal(error) ? `refused the key (HTTP ${detailsOf(error).status}): ${checkKey(policy)}` : 'failed';

const isRetryable = (error: unknown): boolean => {
  const { status } = detailsOf(error);
  return status === undefined || status === 408 || status === 429 || status >= 500;
};

/**
 * The vendor's reason, for the server's log only: on one line, secrets blanked before it is cut
 * short (a key cut in half would escape the blanking). Clients never see it: a vendor's text can
 * echo the key it was sent.
 */
const reasonOf = (error: unknown, secrets: readonly string[]): string => {
  const message = error instanceof Error ? error.message : String(error);
  const { status } = detailsOf(error);
  const text = redact(status !== undefined && !message.startsWith(`HTTP ${status}`) ? `HTTP ${status}: ${message}` : message, secrets).replace(/\s+/g, ' ');
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
};

/** The log line of a call the vendor did not serve. */
const logShortfall = (policy: Policy, shortfall: Shortfall, outcome: string): void => {
  if (shortfall.kind === 'refused') return; // the circuit's opening was logged; each refusal is the room's notice
  const tries = shortfall.kind === 'failed' && shortfall.attempts > 1 ? ` (${shortfall.attempts} attempts)` : '';
  const how = shortfall.kind === 'cut' ? 'stopped mid-way' : 'failed';
  const check = policy.credential && isRefusal(shortfall.error) ? `; ${checkKey(policy)}` : '';
  policy.log(`vendor ${policy.who} ${how}: ${reasonOf(shortfall.error, policy.secrets)}${tries}${check}; ${outcome}`);
};

/**
 * "keeps failing and is not called for now (next try in 28 s)", or "refused the key and is not
 * called for now (check GEMINI_API_KEY; next try in 28 s)": for the room, no vendor text in it.
 */
const refusal = (breaker: Breaker, policy: Pick<Policy, 'credential'>): string => {
  const next = breaker.state === 'open' ? `next try in ${Math.ceil(breaker.retryInMs / 1000)} s` : 'one call is trying it now';
  return breaker.refusedKey ? `refused the key and is not called for now (${checkKey(policy)}; ${next})` : `keeps failing and is not called for now (${next})`;
};

/** The wait before retry `attempt`, or null when the vendor asked for longer than the policy waits. */
const delayBefore = (attempt: number, error: unknown, policy: Policy): number | null => {
  const { retryAfterMs } = detailsOf(error);
  if (retryAfterMs !== undefined) return retryAfterMs > policy.maxRetryAfterMs ? null : Math.min(retryAfterMs, policy.maxDelayMs);
  // Exponential backoff with "equal jitter": half fixed, half random.
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (policy.random() * ceiling) / 2);
};

const unguarded: Pass = { answered: () => undefined, failed: () => undefined, refused: () => undefined, release: () => undefined };

/**
 * Yields what `call` yields, retrying an attempt that failed before yielding anything; returns
 * null when the vendor served the call, else how it fell short. The caller's abort stops it with
 * the signal's reason. The budget, when set, bounds everything before the first item.
 */
async function* attempts<T>(call: (signal: AbortSignal) => AsyncIterable<T>, signal: AbortSignal | undefined, policy: Policy): AsyncGenerator<T, Shortfall | null> {
  let lastError: unknown;
  let made = 0;
  const budget = new AbortController();
  const { budgetMs } = policy;
  const spend = budgetMs === undefined ? undefined : setTimeout(() => budget.abort(policy.timedOut(budgetMs)), budgetMs);
  // Built at the first retry: most calls never wait, and AbortSignal.any is not free.
  let waiting: AbortSignal | undefined;
  try {
    for (let attempt = 0; attempt <= policy.retries; attempt++) {
      if (budget.signal.aborted) break;
      if (attempt > 0) {
        const wait = delayBefore(attempt, lastError, policy);
        if (wait === null) break;
        try {
          waiting ??= signal ? AbortSignal.any([signal, budget.signal]) : budget.signal;
          await policy.sleep(wait, waiting);
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          // The budget ran out while waiting: the fallback answers now.
          lastError = budget.signal.reason ?? error;
          break;
        }
      }
      signal?.throwIfAborted();
      const { breaker } = policy;
      const pass = breaker ? breaker.admit() : unguarded;
      if (!pass) {
        // Opened by this call's own failures (or others'): no more retries, the fallback answers.
        if (made > 0 || !breaker) break;
        return { kind: 'refused', breaker };
      }
      made++;
      const controller = new AbortController();
      const forwardAbort = () => controller.abort(signal?.reason);
      const spent = () => controller.abort(budget.signal.reason);
      signal?.addEventListener('abort', forwardAbort, { once: true });
      budget.signal.addEventListener('abort', spent, { once: true });
      let yielded = false;
      try {
        const source = call(controller.signal);
        const limited = within(source, policy.timeoutMs ?? Number.POSITIVE_INFINITY, {
          controller,
          timedOut: policy.timedOut,
          ...(policy.firstItemMs !== undefined ? { firstMs: policy.firstItemMs } : {}),
        });
        for await (const item of limited) {
          if (!yielded) {
            clearTimeout(spend);
            budget.signal.removeEventListener('abort', spent);
          }
          yielded = true;
          yield item;
        }
        // A vendor may end quietly when aborted: that is no answer.
        signal?.throwIfAborted();
        pass.answered();
        if (yielded || !policy.empty) return null;
        // An empty reply (a safety block, a token budget spent on thinking) is no utterance.
        lastError = policy.empty();
        break;
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        // A wrong request (a bad model) is not the vendor being unwell; a refused key is not mended by waiting.
        const retryable = isRetryable(error);
        if (isRefusal(error)) {
          const before = breaker?.state;
          pass.refused();
          if (breaker && before !== 'open' && breaker.state === 'open') {
            const { status } = detailsOf(error);
            policy.log(`vendor ${policy.who} refused the key (HTTP ${status}): circuit open at once, not called for ${Math.ceil(breaker.retryInMs / 1000)} s; ${checkKey(policy)}`);
          }
        } else if (retryable) {
          const before = breaker?.state;
          pass.failed();
          if (breaker && before !== 'open' && breaker.state === 'open') {
            policy.log(`vendor ${policy.who} circuit open after ${breaker.failures} failures in a row: not called for ${Math.ceil(breaker.retryInMs / 1000)} s`);
          }
        } else pass.answered();
        if (yielded) return { kind: 'cut', error };
        lastError = error;
        if (!retryable) break;
      } finally {
        signal?.removeEventListener('abort', forwardAbort);
        budget.signal.removeEventListener('abort', spent);
        // The consumer stopped early: a vendor that was yielding had answered.
        if (yielded) pass.answered();
        else pass.release();
      }
    }
  } finally {
    clearTimeout(spend);
  }
  return { kind: 'failed', error: lastError, attempts: made };
}

// ---------------------------------------------------------------- the ports

/** The request's variant seeds the jitter: deterministic per turn, yet spread across concurrent turns. */
const jitterOf = (request: GenerateRequest): (() => number) => {
  const { variant } = request.cue;
  const rng = rngFrom(Number.isInteger(variant) ? variant : Math.floor(variant * 2 ** 32));
  return () => rng.next();
};

/** Every generator `resilientGenerator` made: it falls back already, so nothing wraps it again (`fallsBack`). */
const fallingBack = new WeakSet<Generator>();

/**
 * Whether `generator` already has a fallback (made by `resilientGenerator`): a turn passes the
 * wrapper once. The conversation wraps only a generator that has none (createGenerator wraps vendors).
 */
export const fallsBack = (generator: Generator): boolean => fallingBack.has(generator);

/**
 * A generator that retries `vendor` and, when retrying cannot help or its circuit is open, lets
 * `fallback` write the turn. It reports the vendor's name. Defaults: 2 retries, no time limit.
 */
export const resilientGenerator = (vendor: Generator, fallback: Generator, options: ResilienceOptions = {}): Generator => {
  const policy = policyOf(options, { retries: 2 });
  const generator: Generator = {
    name: vendor.name,
    async *stream(request, signal, onNotice) {
      const rules: Policy = {
        ...policy,
        random: options.random ?? jitterOf(request),
        timedOut: (ms) => new GeneratorError(`timed out after ${ms} ms`, { timeout: true }),
        empty: () => new GeneratorError('returned no text'),
        who: `${vendor.name} (generator)`,
      };
      const shortfall = yield* attempts((attempt) => vendor.stream(request, attempt, onNotice), signal, rules);
      if (!shortfall) return;
      const instead = `the ${fallback.name} generator wrote this turn`;
      logShortfall(rules, shortfall, shortfall.kind === 'cut' ? 'kept the partial text' : instead);
      if (shortfall.kind === 'cut') {
        onNotice?.({ code: 'generator-truncated', message: `${vendor.name} stopped mid-reply; the partial text stands for this turn.` });
        return;
      }
      onNotice?.(
        shortfall.kind === 'refused'
          ? { code: 'generator-circuit-open', message: `${vendor.name} ${refusal(shortfall.breaker, rules)}; ${instead}.` }
          : { code: 'generator-fallback', message: `${vendor.name} ${failedBecause(shortfall.error, rules)}; ${instead}.` },
      );
      yield* fallback.stream(request, signal, onNotice);
    },
  };
  fallingBack.add(generator);
  return generator;
};

/**
 * A synthesizer that retries `vendor` once and then speaks with `fallback` (embedded eSpeak), or
 * throws without one. Speech is latency-bound: a Retry-After over a second is not waited out.
 */
export const resilientSynthesizer = (vendor: Synthesizer, fallback: Synthesizer | null, options: ResilienceOptions = {}): Synthesizer => {
  const policy = policyOf(options, { retries: 1, maxRetryAfterMs: 1000 });
  const rules: Policy = {
    ...policy,
    random: options.random ?? Math.random,
    timedOut: (ms) => new SynthesisError(`timed out: no audio for ${ms} ms`, { timeout: true }),
    who: `${vendor.name} (synthesis)`,
  };
  return {
    name: vendor.name,
    async *synthesize(request, signal, onNotice) {
      await vendor.ready;
      const shortfall = yield* attempts((attempt) => vendor.synthesize(request, attempt, onNotice), signal, rules);
      if (!shortfall) return;
      const instead = fallback ? `${fallback.name} spoke instead` : 'no voice for this clause';
      logShortfall(rules, shortfall, shortfall.kind === 'cut' ? 'the reply goes on with its next clause' : instead);
      if (shortfall.kind === 'cut') {
        onNotice?.({ code: 'synthesis-cut', message: `The ${vendor.name} voice stopped mid-way; the reply goes on with its next clause.` });
        return;
      }
      if (!fallback) {
        if (shortfall.kind === 'refused') throw new SynthesisError(`the ${vendor.name} voice ${refusal(shortfall.breaker, rules)}`);
        throw new SynthesisError(`the ${vendor.name} voice ${failedBecause(shortfall.error, rules)}`, { ...detailsOf(shortfall.error), cause: shortfall.error });
      }
      onNotice?.(
        shortfall.kind === 'refused'
          ? { code: 'synthesis-circuit-open', message: `The ${vendor.name} voice ${refusal(shortfall.breaker, rules)}; ${instead}.` }
          : { code: 'synthesis-fallback', message: `The ${vendor.name} voice ${failedBecause(shortfall.error, rules)}; ${instead}.` },
      );
      yield* fallback.synthesize(request, signal, onNotice);
    },
    async close() {
      await vendor.close?.();
    },
  };
};

/**
 * A transcriber that retries `vendor`; when that cannot help, or its circuit is open, it throws a
 * `TranscriptionError` naming the vendor (never quoting it: its reason goes to the server's log),
 * with the last failure's details (status, timeout) and the failure as `cause`. There is no
 * offline fallback: the caller tells the room and the human types instead. Defaults: 2 retries,
 * no time limit.
 */
export const resilientTranscriber = (vendor: Transcriber, options: ResilienceOptions = {}): Transcriber => {
  const policy = policyOf(options, { retries: 2 });
  const rules: Policy = {
    ...policy,
    random: options.random ?? Math.random,
    timedOut: (ms) => new TranscriptionError(`timed out after ${ms} ms`, { timeout: true }),
    who: `${vendor.name} (transcription)`,
  };
  return {
    name: vendor.name,
    async transcribe(request, signal) {
      await vendor.ready;
      const once = async function* (attempt: AbortSignal): AsyncGenerator<Transcript> {
        yield await vendor.transcribe(request, attempt);
      };
      const run = attempts(once, signal, rules);
      let transcript: Transcript | undefined;
      let step = await run.next();
      for (; !step.done; step = await run.next()) transcript = step.value;
      const shortfall = step.value;
      if (!shortfall) return transcript!;
      logShortfall(rules, shortfall, 'the utterance was not transcribed');
      const prefix = `${vendor.name} could not transcribe the utterance`;
      if (shortfall.kind === 'refused') throw new TranscriptionError(`${prefix} (it ${refusal(shortfall.breaker, rules)})`);
      const { error } = shortfall;
      const { timeout } = detailsOf(error);
      const refused = failedBecause(error, rules);
      throw new TranscriptionError(`${prefix}${timeout ? ' in time' : ''}${refused === 'failed' ? '' : ` (it ${refused})`}`, { ...detailsOf(error), cause: error });
    },
  };
};

// ---------------------------------------------------------------- answers read

/** Notices after which a generator's text is not the vendor's: its fallback wrote it. (A truncated answer is read, and asked again.) */
export const substituted: ReadonlySet<string> = new Set(['generator-fallback', 'generator-circuit-open']);

/** What asking for an answer gave: the value read from it, or why there is none. */
export type Asked<T> = { ok: true; value: T } | { ok: false; why: string };

/**
 * Asks `generator` (a vendor behind `resilientGenerator`, which already retried its failures) for
 * an answer `read` understands (null: not what was asked for), asking again up to `attempts` times
 * in all, default 2: a model's bad JSON is often right the second time. A vendor that did not
 * answer (its fallback wrote instead, or it threw) is not asked again. Throws only when `signal` aborts.
 *
 * ```ts
 * const asked = await askUntilRead(generator, request, (text) => parseVerdict(text));
 * if (!asked.ok) log(`judged by the rules: ${asked.why}`);
 * ```
 */
export const askUntilRead = async <T>(
  generator: Generator,
  request: GenerateRequest,
  read: (text: string) => T | null,
  signal?: AbortSignal,
  attempts = 2,
): Promise<Asked<T>> => {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const notices: Notice[] = [];
    let text: string | undefined;
    let error: unknown;
    try {
      text = await complete(generator, request, signal, (n) => notices.push(n));
    } catch (thrown) {
      if (signal?.aborted) throw thrown;
      error = thrown;
    }
    const replaced = notices.find((n) => substituted.has(n.code));
    if (replaced) return { ok: false, why: `${generator.name} did not answer (${replaced.code})` };
    if (text === undefined) return { ok: false, why: `${generator.name} failed: ${(error as Error).message}` };
    const value = read(text);
    if (value !== null) return { ok: true, value };
  }
  return { ok: false, why: `${generator.name} answered without the JSON asked for, ${attempts === 1 ? 'once' : attempts === 2 ? 'twice' : `${attempts} times`}` };
};

/** A time limit from the environment (`GENERATOR_BUDGET_MS=6000`): a positive whole number of ms, else `fallback`. */
export const limitFrom = (env: Record<string, string | undefined>, variable: string, fallback: number): number => {
  const raw = env[variable]?.trim();
  if (!raw) return fallback;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms <= 0) throw new Error(`${variable} must be a positive number of milliseconds, got "${raw}"`);
  return ms;
};
