import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeElevenLabs, type FakeElevenLabs } from '../../tests/fakes/elevenlabs-server';
import type { GenerateRequest } from '../engine/requests';
import { moderatorCue } from '../../tests/fakes/cue';
import { GeneratorError, SynthesisError, TranscriptionError } from './errors';
import { complete, type Generator } from './generator/port';
import {
  createBreaker,
  askUntilRead,
  fallsBack,
  resilientGenerator,
  resilientSynthesizer,
  resilientTranscriber,
  within,
  type Breaker,
  type ResilienceOptions,
} from './resilience';
import type { Notice } from './notice';
import { createElevenLabsSynthesizer } from './synthesis/elevenlabs';
import { createEspeakSynthesizer, phonemize } from './synthesis/espeak';
import type { SpeechChunk, Synthesizer } from './synthesis/port';
import { phonemesToVisemes } from './synthesis/visemes';
import type { Transcriber } from './transcription/port';
import { createGenerator } from './generator';
import { openConversation } from '../conversation/conversation';
import { ai, makeScene } from '../../tests/engine/harness';

afterEach(() => {
  vi.useRealTimers();
});

const cue = moderatorCue;
const request: GenerateRequest = { purpose: 'utterance', system: '', prompt: '', temperature: 0.7, json: false, maxTokens: 60, cue };

type Step = string | Error | { wait: number };

/** A vendor whose calls follow a script: each call runs its steps (deltas, waits, a thrown error). */
const scriptedVendor = (...calls: Step[][]) => {
  const log = { calls: 0, closed: 0, signals: [] as (AbortSignal | undefined)[] };
  const generator: Generator = {
    name: 'vendor',
    async *stream(_request, signal) {
      log.signals.push(signal);
      const steps = calls[log.calls++] ?? ['ok'];
      try {
        for (const step of steps) {
          if (typeof step === 'string') yield step;
          else if (step instanceof Error) throw step;
          else await new Promise((resolve) => setTimeout(resolve, step.wait));
          signal?.throwIfAborted();
        }
      } finally {
        log.closed++;
      }
    },
  };
  return { generator, log };
};

const backup: Generator = {
  name: 'backup',
  async *stream() {
    yield 'Backup ';
    yield 'text.';
  },
};

const http = (status: number, retryAfterMs?: number) =>
  new GeneratorError(`HTTP ${status}: nope`, { status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });

/** The vendor behind the wrapper, with a sleep that only records the backoff (no breaker unless given), and the server's log. */
const setup = (vendor: Generator, options: ResilienceOptions = {}) => {
  const notices: Notice[] = [];
  const sleeps: number[] = [];
  const lines: string[] = [];
  const generator = resilientGenerator(vendor, backup, { breaker: null, sleep: async (ms) => void sleeps.push(ms), log: (line) => lines.push(line), ...options });
  const run = (signal?: AbortSignal) => complete(generator, request, signal, (n) => notices.push(n));
  return { generator, notices, sleeps, lines, run };
};

const collect = async <T>(stream: AsyncIterable<T>): Promise<T[]> => {
  const items: T[] = [];
  for await (const item of stream) items.push(item);
  return items;
};

/** Runs `work` on fake time: every timer it sets fires as soon as nothing else is left to do. */
const onFakeTime = async <T>(work: () => Promise<T>): Promise<T> => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const result = work();
  // Settled while the timers run; its outcome is the caller's.
  result.catch(() => undefined);
  await vi.runAllTimersAsync();
  return result;
};

describe('resilientGenerator', () => {
  it('passes a healthy stream through untouched, under the vendor name', async () => {
    const { generator: vendor } = scriptedVendor(['Hello ', 'there.']);
    const { generator, notices } = setup(vendor);
    expect(generator.name).toBe('vendor');
    expect(await collect(generator.stream(request, undefined, (n) => notices.push(n)))).toEqual(['Hello ', 'there.']);
    expect(notices).toEqual([]);
  });

  it('retries 429 and 5xx, then succeeds without a notice', async () => {
    const { generator: vendor, log } = scriptedVendor([http(503)], [http(429)], ['Made it.']);
    const { run, notices, sleeps } = setup(vendor);
    expect(await run()).toBe('Made it.');
    expect(log.calls).toBe(3);
    expect(sleeps).toHaveLength(2);
    expect(notices).toEqual([]);
  });

  it('backs off exponentially with jitter, within [ceiling/2, ceiling] and capped', async () => {
    const { generator: vendor } = scriptedVendor(...Array.from({ length: 6 }, () => [http(500)]));
    const { run, sleeps } = setup(vendor, { retries: 5, baseDelayMs: 100, maxDelayMs: 1000 });
    await run();
    const ceilings = [100, 200, 400, 800, 1000];
    expect(sleeps).toHaveLength(5);
    sleeps.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual(ceilings[i]! / 2);
      expect(ms).toBeLessThanOrEqual(ceilings[i]!);
    });
  });

  it('draws the same jitter for the same turn', async () => {
    const draw = async () => {
      const { generator: vendor } = scriptedVendor([http(500)], [http(500)], [http(500)]);
      const { run, sleeps } = setup(vendor);
      await run();
      return sleeps;
    };
    expect(await draw()).toEqual(await draw());
  });

  it('takes its jitter from an injected source', async () => {
    const { generator: vendor } = scriptedVendor([http(500)], [http(500)], [http(500)]);
    const { run, sleeps } = setup(vendor, { random: () => 0.5 });
    await run();
    // Equal jitter with random() = 0.5: 3/4 of 250 ms, then of 500 ms.
    expect(sleeps).toEqual([188, 375]);
  });

  it("honours a 429's Retry-After, capped at maxDelayMs", async () => {
    const { generator: vendor } = scriptedVendor([http(429, 1500)], [http(429, 60_000)], ['ok']);
    const { run, sleeps } = setup(vendor, { maxDelayMs: 4000 });
    await run();
    expect(sleeps).toEqual([1500, 4000]);
  });

  it('does not wait out a Retry-After beyond maxRetryAfterMs: the fallback answers at once', async () => {
    const { generator: vendor, log } = scriptedVendor([http(429, 30_000)]);
    const { run, sleeps, notices } = setup(vendor, { maxRetryAfterMs: 1000 });
    expect(await run()).toBe('Backup text.');
    expect(log.calls).toBe(1);
    expect(sleeps).toEqual([]);
    expect(notices.map((n) => n.code)).toEqual(['generator-fallback']);
  });

  it('retries network errors that carry no status', async () => {
    const { generator: vendor, log } = scriptedVendor([new TypeError('fetch failed')], ['ok']);
    const { run } = setup(vendor);
    expect(await run()).toBe('ok');
    expect(log.calls).toBe(2);
  });

  it('falls back after the retries: the room hears the vendor and the fallback, the log the error and the attempts', async () => {
    const { generator: vendor, log } = scriptedVendor([http(500)], [http(500)], [http(500)]);
    const { run, notices, lines } = setup(vendor);
    expect(await run()).toBe('Backup text.');
    expect(log.calls).toBe(3);
    expect(notices).toEqual([{ code: 'generator-fallback', message: 'vendor failed; the backup generator wrote this turn.' }]);
    expect(lines).toEqual(['vendor vendor (generator) failed: HTTP 500: nope (3 attempts); the backup generator wrote this turn']);
  });

  it.each([400, 401, 403, 404])('falls back at once on HTTP %i', async (status) => {
    const { generator: vendor, log } = scriptedVendor([http(status)]);
    const { run, notices, sleeps } = setup(vendor);
    expect(await run()).toBe('Backup text.');
    expect(log.calls).toBe(1);
    expect(sleeps).toEqual([]);
    expect(notices[0]!.message).toBe('vendor failed; the backup generator wrote this turn.');
  });

  it('falls back at once when the vendor ends its reply without any text', async () => {
    const { generator: vendor, log } = scriptedVendor([]);
    const { run, notices, lines } = setup(vendor);
    expect(await run()).toBe('Backup text.');
    expect(log.calls).toBe(1);
    expect(notices).toEqual([{ code: 'generator-fallback', message: 'vendor failed; the backup generator wrote this turn.' }]);
    expect(lines).toEqual(['vendor vendor (generator) failed: returned no text; the backup generator wrote this turn']);
  });

  it('does not call the vendor when the caller has already aborted', async () => {
    const { generator: vendor, log } = scriptedVendor(['never']);
    const { run } = setup(vendor);
    await expect(run(AbortSignal.abort())).rejects.toThrow();
    expect(log.calls).toBe(0);
  });

  it('with retries: 0, falls back after the first failure', async () => {
    const { generator: vendor, log } = scriptedVendor([http(500)]);
    const { run } = setup(vendor, { retries: 0 });
    expect(await run()).toBe('Backup text.');
    expect(log.calls).toBe(1);
  });

  it('times out a vendor that sends nothing, and cancels it', async () => {
    const { generator: vendor, log } = scriptedVendor([{ wait: 500 }, 'late'], [{ wait: 500 }, 'late'], [{ wait: 500 }, 'late']);
    const { run, lines } = setup(vendor, { timeoutMs: 40 });
    expect(await onFakeTime(() => run())).toBe('Backup text.');
    expect(log.calls).toBe(3);
    expect(log.signals.every((signal) => signal?.aborted)).toBe(true);
    expect(lines).toEqual(['vendor vendor (generator) failed: timed out after 40 ms (3 attempts); the backup generator wrote this turn']);
  });

  it('ends the turn with the partial text when the vendor fails mid-stream, never adding the fallback', async () => {
    const { generator: vendor, log } = scriptedVendor(['First part, ', 'second part', new TypeError('terminated')]);
    const { generator, notices, lines } = setup(vendor);
    expect(await collect(generator.stream(request, undefined, (n) => notices.push(n)))).toEqual(['First part, ', 'second part']);
    expect(log.calls).toBe(1);
    expect(notices).toEqual([{ code: 'generator-truncated', message: 'vendor stopped mid-reply; the partial text stands for this turn.' }]);
    expect(lines).toEqual(['vendor vendor (generator) stopped mid-way: terminated; kept the partial text']);
  });

  it('treats a stall after the first delta as a truncation too', async () => {
    const { generator: vendor } = scriptedVendor(['Only this', { wait: 500 }, ' and more']);
    const { run, notices } = setup(vendor, { timeoutMs: 40 });
    expect(await onFakeTime(() => run())).toBe('Only this');
    expect(notices.map((n) => n.code)).toEqual(['generator-truncated']);
  });

  it('stops without falling back when the caller aborts', async () => {
    const { generator: vendor } = scriptedVendor([{ wait: 50 }, 'never'], ['never']);
    const { run, notices } = setup(vendor);
    const stopped = onFakeTime(() => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 10);
      return run(controller.signal);
    });
    await expect(stopped).rejects.toThrow();
    expect(notices).toEqual([]);
  });

  it('closes the vendor stream when the consumer stops early', async () => {
    const { generator: vendor, log } = scriptedVendor(['one ', 'two ', 'three']);
    const { generator } = setup(vendor);
    for await (const delta of generator.stream(request)) {
      expect(delta).toBe('one ');
      break;
    }
    expect(log.closed).toBe(1);
  });
});

describe('the circuit breaker', () => {
  /** A breaker on a clock the test moves, and a generator behind it that fails while `down`. */
  const flaky = (options: { failures?: number; cooldownMs?: number } = {}) => {
    let clock = 0;
    const breaker = createBreaker({ failures: 3, cooldownMs: 10_000, ...options, now: () => clock });
    const vendor = { calls: 0, down: true, gate: null as Promise<void> | null };
    const generator: Generator = {
      name: 'vendor',
      async *stream() {
        vendor.calls++;
        await vendor.gate;
        if (vendor.down) throw http(503);
        yield 'Vendor text.';
      },
    };
    const wrapped = setup(generator, { breaker, retries: 0 });
    return { ...wrapped, breaker, vendor, advance: (ms: number) => (clock += ms) };
  };

  it('opens after N failed attempts in a row, and then answers with the fallback without calling the vendor', async () => {
    const { run, notices, vendor, breaker } = flaky();
    for (let turn = 0; turn < 3; turn++) expect(await run()).toBe('Backup text.');
    expect(breaker.state).toBe('open');
    expect(await run()).toBe('Backup text.');
    expect(vendor.calls).toBe(3);
    expect(notices.map((n) => n.code)).toEqual(['generator-fallback', 'generator-fallback', 'generator-fallback', 'generator-circuit-open']);
    expect(notices.at(-1)!.message).toBe('vendor keeps failing and is not called for now (next try in 10 s); the backup generator wrote this turn.');
  });

  it('counts each attempt, and stops retrying once the circuit opens', async () => {
    const { generator: vendor, log } = scriptedVendor([http(500)], [http(500)], [http(500)]);
    const breaker = createBreaker({ failures: 2, now: () => 0 });
    const { run, lines } = setup(vendor, { breaker, retries: 2 });
    expect(await run()).toBe('Backup text.');
    expect(log.calls).toBe(2);
    expect(breaker.state).toBe('open');
    expect(lines).toEqual([
      'vendor vendor (generator) circuit open after 2 failures in a row: not called for 30 s',
      'vendor vendor (generator) failed: HTTP 500: nope (2 attempts); the backup generator wrote this turn',
    ]);
  });

  it('closes again when the vendor answers: only failures in a row count', async () => {
    const { run, vendor, breaker } = flaky();
    await run();
    await run();
    vendor.down = false;
    expect(await run()).toBe('Vendor text.');
    vendor.down = true;
    await run();
    await run();
    expect(breaker.state).toBe('closed');
  });

  it('does not count a wrong request (a 4xx other than a refused key) against the vendor', async () => {
    const { generator: vendor } = scriptedVendor(...Array.from({ length: 5 }, (_, i) => [http(i % 2 ? 404 : 400)]));
    const breaker = createBreaker({ failures: 3, now: () => 0 });
    const { run } = setup(vendor, { breaker });
    for (let turn = 0; turn < 5; turn++) await run();
    expect(breaker.state).toBe('closed');
  });

  it('after the cooldown, lets one probe through; an answer closes the circuit', async () => {
    const { run, notices, vendor, breaker, advance } = flaky();
    for (let turn = 0; turn < 3; turn++) await run();
    advance(9_999);
    expect(breaker.state).toBe('open');
    expect(breaker.retryInMs).toBe(1);
    advance(1);
    expect(breaker.state).toBe('half-open');
    vendor.down = false;
    expect(await run()).toBe('Vendor text.');
    expect(breaker.state).toBe('closed');
    expect(vendor.calls).toBe(4);
    expect(notices.map((n) => n.code)).toEqual(['generator-fallback', 'generator-fallback', 'generator-fallback']);
  });

  it('a failed probe opens the circuit for another cooldown', async () => {
    const { run, notices, vendor, breaker, advance } = flaky();
    for (let turn = 0; turn < 3; turn++) await run();
    advance(10_000);
    expect(await run()).toBe('Backup text.');
    expect(vendor.calls).toBe(4);
    expect(breaker.state).toBe('open');
    expect(breaker.retryInMs).toBe(10_000);
    await run();
    expect(vendor.calls).toBe(4);
    expect(notices.map((n) => n.code).slice(3)).toEqual(['generator-fallback', 'generator-circuit-open']);
  });

  it('lets only one probe through at a time', async () => {
    const { run, notices, vendor, advance } = flaky();
    for (let turn = 0; turn < 3; turn++) await run();
    advance(10_000);
    let release!: () => void;
    vendor.gate = new Promise((resolve) => (release = resolve));
    vendor.down = false;
    const probe = run();
    expect(await run()).toBe('Backup text.');
    expect(notices.at(-1)).toEqual({
      code: 'generator-circuit-open',
      message: 'vendor keeps failing and is not called for now (one call is trying it now); the backup generator wrote this turn.',
    });
    release();
    expect(await probe).toBe('Vendor text.');
    expect(vendor.calls).toBe(4);
  });

  it('frees the probe for the next call when its caller leaves before the vendor answered', async () => {
    let clock = 0;
    const breaker = createBreaker({ failures: 1, cooldownMs: 1000, now: () => clock });
    let calls = 0;
    const vendor: Generator = {
      name: 'vendor',
      // eslint-disable-next-line require-yield
      async *stream(_request, signal) {
        if (++calls === 1) throw http(503);
        // Slow to answer, and quiet when the caller gives up.
        await new Promise((resolve) => signal?.addEventListener('abort', resolve));
      },
    };
    const { run } = setup(vendor, { breaker, retries: 0 });
    await run();
    clock += 1000;
    const controller = new AbortController();
    const probe = run(controller.signal);
    await new Promise((resolve) => setImmediate(resolve));
    expect(breaker.admit()).toBeNull();
    controller.abort();
    await expect(probe).rejects.toThrow();
    expect(breaker.state).toBe('half-open');
    expect(breaker.admit()).not.toBeNull();
  });

  it('is shared: one breaker stops every room calling the vendor', async () => {
    const breaker: Breaker = createBreaker({ failures: 2, now: () => 0 });
    const { generator: down } = scriptedVendor([http(500)], [http(500)], ['never asked']);
    const rooms = [setup(down, { breaker, retries: 0 }), setup(down, { breaker, retries: 0 })];
    await rooms[0]!.run();
    await rooms[1]!.run();
    expect(await rooms[0]!.run()).toBe('Backup text.');
    expect(rooms[0]!.notices.map((n) => n.code)).toEqual(['generator-fallback', 'generator-circuit-open']);
  });
});

describe('within: the time limit between items', () => {
  const slowSource = async function* (gapsMs: number[]) {
    for (const [i, gap] of gapsMs.entries()) {
      await new Promise((resolve) => setTimeout(resolve, gap));
      yield i;
    }
  };

  it('fails and aborts the source when an item takes too long', async () => {
    const controller = new AbortController();
    const items: number[] = [];
    const error = await onFakeTime(async () => {
      try {
        for await (const item of within(slowSource([10, 10, 500]), 100, { controller, timedOut: () => new Error('too slow') })) items.push(item);
      } catch (failure) {
        return failure;
      }
    });
    expect(items).toEqual([0, 1]);
    expect(error).toEqual(new Error('too slow'));
    expect(controller.signal.reason).toEqual(new Error('too slow'));
  });

  it('does not count the time the consumer holds an item', async () => {
    const controller = new AbortController();
    const items = await onFakeTime(async () => {
      const seen: number[] = [];
      for await (const item of within(slowSource([50, 50, 50]), 100, { controller, timedOut: () => new Error('too slow') })) {
        seen.push(item);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      return seen;
    });
    expect(items).toEqual([0, 1, 2]);
    expect(controller.signal.aborted).toBe(false);
  });

  it('waits `firstMs` for the first item and `timeoutMs` between the others', async () => {
    const patient = await onFakeTime(async () => {
      const seen: number[] = [];
      for await (const item of within(slowSource([300, 50]), 100, { controller: new AbortController(), firstMs: 400, timedOut: (ms) => new Error(`${ms}`) })) seen.push(item);
      return seen;
    });
    expect(patient).toEqual([0, 1]);
    const stalled = onFakeTime(async () => {
      for await (const item of within(slowSource([10, 300]), 100, { controller: new AbortController(), firstMs: 400, timedOut: (ms) => new Error(`no item for ${ms} ms`) })) void item;
    });
    await expect(stalled).rejects.toThrow('no item for 100 ms');
  });

  it('stops waiting as soon as its controller aborts, even for a source that never answers its abort', async () => {
    const controller = new AbortController();
    const deaf = { [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<number>>(() => undefined) }) };
    const waiting = (async () => {
      for await (const item of within(deaf, Number.POSITIVE_INFINITY, { controller, timedOut: () => new Error('never') })) void item;
    })();
    controller.abort(new Error('budget spent'));
    await expect(waiting).rejects.toThrow('budget spent');
  });
});

describe('the budget of a whole call', () => {
  it('cuts the wait between attempts too: a long Retry-After is not waited out past it', async () => {
    const { generator: vendor, log } = scriptedVendor([http(503, 4000)], ['too late']);
    const { run, notices, lines } = setup(vendor, { budgetMs: 1000, sleep: undefined });
    expect(await onFakeTime(() => run())).toBe('Backup text.');
    expect(log.calls).toBe(1);
    expect(notices.map((n) => n.code)).toEqual(['generator-fallback']);
    expect(lines).toEqual(['vendor vendor (generator) failed: timed out after 1000 ms; the backup generator wrote this turn']);
  });

  it('no longer applies once the first item is out: a long reply is not cut by it', async () => {
    const { generator: vendor } = scriptedVendor(['One, ', { wait: 600 }, 'two, ', { wait: 600 }, 'three.']);
    const { run, notices } = setup(vendor, { budgetMs: 1000, timeoutMs: 700 });
    expect(await onFakeTime(() => run())).toBe('One, two, three.');
    expect(notices).toEqual([]);
  });
});

const chunk = (marker: number): SpeechChunk => ({ pcm: new Int16Array([marker]), sampleRate: 16_000, offsetMs: 0, cues: [], words: [] });

/** A synthesizer that fails with `failures` in turn (then succeeds), yielding `before` chunks first. */
const flakyVoice = (failures: (SynthesisError | null)[], before = 0) => {
  let calls = 0;
  const synthesizer: Synthesizer = {
    name: 'vendor',
    async *synthesize() {
      const failure = failures[calls++] ?? null;
      for (let i = 0; i < before; i++) yield chunk(1);
      if (failure) throw failure;
      yield chunk(1);
    },
  };
  return { synthesizer, calls: () => calls };
};

const espeakStandIn: Synthesizer = {
  name: 'espeak',
  async *synthesize() {
    yield chunk(2);
  },
};

const markers = async (synthesizer: Synthesizer, onNotice?: (notice: Notice) => void) => {
  const heard: number[] = [];
  for await (const c of synthesizer.synthesize({ text: 'Hello.', voice: { espeak: 'en-us', elevenlabs: 'voice' } }, undefined, onNotice)) heard.push(c.pcm[0]!);
  return heard;
};

describe('resilientSynthesizer', () => {
  const noWait = { breaker: null, sleep: async () => undefined, log: () => undefined };

  it('retries a server error once, after a backoff, and keeps the vendor when the retry works', async () => {
    const vendor = flakyVoice([new SynthesisError('HTTP 500', { status: 500 })]);
    const notices: string[] = [];
    const sleeps: number[] = [];
    const voiced = resilientSynthesizer(vendor.synthesizer, espeakStandIn, { breaker: null, sleep: async (ms) => void sleeps.push(ms) });
    expect(await markers(voiced, (n) => notices.push(n.code))).toEqual([1]);
    expect(vendor.calls()).toBe(2);
    expect(sleeps).toHaveLength(1);
    expect(notices).toEqual([]);
  });

  it('falls back to eSpeak after a second failure, and says so', async () => {
    const vendor = flakyVoice([new SynthesisError('HTTP 503', { status: 503 }), new SynthesisError('timed out', { timeout: true })]);
    const notices: Notice[] = [];
    const lines: string[] = [];
    expect(await markers(resilientSynthesizer(vendor.synthesizer, espeakStandIn, { ...noWait, log: (line) => lines.push(line) }), (n) => notices.push(n))).toEqual([2]);
    expect(notices).toEqual([{ code: 'synthesis-fallback', message: 'The vendor voice failed; espeak spoke instead.' }]);
    expect(lines).toEqual(['vendor vendor (synthesis) failed: timed out (2 attempts); espeak spoke instead']);
  });

  it('does not retry what cannot succeed (a bad key), nor wait out a long Retry-After', async () => {
    const badKey = flakyVoice([new SynthesisError('HTTP 401: invalid_api_key', { status: 401 })]);
    expect(await markers(resilientSynthesizer(badKey.synthesizer, espeakStandIn, noWait))).toEqual([2]);
    expect(badKey.calls()).toBe(1);
    const slow = flakyVoice([new SynthesisError('HTTP 429', { status: 429, retryAfterMs: 30_000 })]);
    expect(await markers(resilientSynthesizer(slow.synthesizer, espeakStandIn, noWait))).toEqual([2]);
    expect(slow.calls()).toBe(1);
  });

  it('keeps the audio of a stream that broke mid-way, without repeating it', async () => {
    const vendor = flakyVoice([new SynthesisError('stream broke after 2 chunks')], 2);
    const notices: string[] = [];
    expect(await markers(resilientSynthesizer(vendor.synthesizer, espeakStandIn, noWait), (n) => notices.push(n.code))).toEqual([1, 1]);
    expect(notices).toEqual(['synthesis-cut']);
  });

  it('throws an error naming the vendor, with its status, when there is no fallback', async () => {
    const vendor = flakyVoice([new SynthesisError('HTTP 400: bad voice', { status: 400 })]);
    const thrown = markers(resilientSynthesizer(vendor.synthesizer, null, noWait));
    await expect(thrown).rejects.toMatchObject({ name: 'SynthesisError', message: 'the vendor voice failed', details: { status: 400 } });
  });

  it('speaks with the fallback without calling the vendor while its circuit is open', async () => {
    const vendor = flakyVoice(Array.from({ length: 4 }, () => new SynthesisError('HTTP 500', { status: 500 })));
    const breaker = createBreaker({ failures: 2, cooldownMs: 20_000, now: () => 0 });
    const notices: Notice[] = [];
    const voiced = resilientSynthesizer(vendor.synthesizer, espeakStandIn, { breaker, sleep: async () => undefined, log: () => undefined });
    expect(await markers(voiced, (n) => notices.push(n))).toEqual([2]);
    expect(await markers(voiced, (n) => notices.push(n))).toEqual([2]);
    expect(vendor.calls()).toBe(2);
    expect(notices.map((n) => n.code)).toEqual(['synthesis-fallback', 'synthesis-circuit-open']);
    expect(notices[1]!.message).toBe('The vendor voice keeps failing and is not called for now (next try in 20 s); espeak spoke instead.');
    await expect(markers(resilientSynthesizer(vendor.synthesizer, null, { breaker }))).rejects.toThrow(/^the vendor voice keeps failing and is not called for now/);
  });
});

describe("a vendor's SDK loading", () => {
  it("is not counted against the synthesizer's time limit or budget", async () => {
    let loaded!: () => void;
    const ready = new Promise<void>((resolve) => (loaded = resolve));
    const vendor: Synthesizer = {
      name: 'vendor',
      ready,
      async *synthesize() {
        await ready;
        yield { pcm: new Int16Array(4), sampleRate: 16_000, offsetMs: 0, cues: [], words: [] };
      },
    };
    const voiced = resilientSynthesizer(vendor, null, { timeoutMs: 30, budgetMs: 30, retries: 0, breaker: null, log: () => undefined });
    setTimeout(loaded, 120);
    const chunks: SpeechChunk[] = [];
    for await (const c of voiced.synthesize({ text: 'Hi.', voice: { espeak: 'en-us' } })) chunks.push(c);
    expect(chunks).toHaveLength(1);
  });
});

describe('ElevenLabs falling back to the embedded voice', () => {
  let fake: FakeElevenLabs;
  const espeak = createEspeakSynthesizer();
  beforeAll(async () => {
    fake = await startFakeElevenLabs();
  });
  afterAll(async () => {
    await fake.close();
    await espeak.close();
  });

  it('speaks with eSpeak, visemes and all, when the ElevenLabs server keeps failing', async () => {
    fake.script({ status: 500 }, { status: 500 });
    const elevenlabs = createElevenLabsSynthesizer({
      apiKey: 'test-key',
      baseUrl: fake.baseUrl,
      phonemize: (text) => phonemize(text),
      phonemeToViseme: (p) => phonemesToVisemes([p])[0] ?? [],
    });
    const notices: string[] = [];
    const chunks: SpeechChunk[] = [];
    const lines: string[] = [];
    const voiced = resilientSynthesizer(elevenlabs, espeak, { sleep: async () => undefined, log: (line) => lines.push(line) });
    const speech = voiced.synthesize({ text: 'Papa is here.', voice: { espeak: 'en-us', elevenlabs: 'JBFqnCBsd6RMkjVDRZzb' } }, undefined, (n) => notices.push(n.message));
    for await (const c of speech) chunks.push(c);
    expect(fake.requests.length).toBe(2);
    expect(notices).toEqual(['The elevenlabs voice failed; espeak spoke instead.']);
    expect(lines).toEqual([expect.stringMatching(/^vendor elevenlabs \(synthesis\) failed: HTTP 500: .* \(2 attempts\); espeak spoke instead$/)]);
    expect(chunks[0]!.sampleRate).toBe(22_050);
    expect(chunks.flatMap((c) => c.cues).find((c) => c.viseme !== 'sil')?.viseme).toBe('PP');
  });
});

describe('resilientTranscriber', () => {
  const failing = (): Transcriber & { calls: number } => {
    const transcriber = {
      name: 'scribe',
      calls: 0,
      async transcribe() {
        transcriber.calls++;
        throw new TranscriptionError('HTTP 502: bad gateway', { status: 502 });
      },
    };
    return transcriber;
  };
  const utterance = { pcm: new Int16Array(160), sampleRate: 16_000 };

  it("starts its time limit once the vendor's SDK is loaded: loading is not the vendor being slow", async () => {
    let loaded!: () => void;
    const ready = new Promise<void>((resolve) => (loaded = resolve));
    // Like the ElevenLabs client: a call waits for the SDK, then answers at once.
    const vendor: Transcriber = { name: 'scribe', ready, transcribe: async () => (await ready, { text: 'hello' }) };
    const transcriber = resilientTranscriber(vendor, { timeoutMs: 30, retries: 0, breaker: null, log: () => undefined });
    const heard = transcriber.transcribe(utterance);
    setTimeout(loaded, 120);
    await expect(heard).resolves.toEqual({ text: 'hello' });
  });

  it('fails at once, without calling the vendor, while its circuit is open', async () => {
    const vendor = failing();
    const breaker = createBreaker({ failures: 3, cooldownMs: 5000, now: () => 0 });
    const lines: string[] = [];
    const transcriber = resilientTranscriber(vendor, { breaker, sleep: async () => undefined, log: (line) => lines.push(line) });
    await expect(transcriber.transcribe(utterance)).rejects.toMatchObject({ message: 'scribe could not transcribe the utterance', details: { status: 502 } });
    await expect(transcriber.transcribe(utterance)).rejects.toThrow(
      'scribe could not transcribe the utterance (it keeps failing and is not called for now (next try in 5 s))',
    );
    expect(vendor.calls).toBe(3);
    expect(lines).toEqual([
      'vendor scribe (transcription) circuit open after 3 failures in a row: not called for 5 s',
      'vendor scribe (transcription) failed: HTTP 502: bad gateway (3 attempts); the utterance was not transcribed',
    ]);
  });

  it('times out an attempt that takes too long', async () => {
    const hung: Transcriber = { name: 'scribe', transcribe: () => new Promise(() => undefined) };
    const lines: string[] = [];
    const transcriber = resilientTranscriber(hung, { breaker: null, retries: 0, timeoutMs: 100, log: (line) => lines.push(line) });
    const error = onFakeTime(() => transcriber.transcribe(utterance));
    await expect(error).rejects.toBeInstanceOf(TranscriptionError);
    await expect(error).rejects.toMatchObject({ message: 'scribe could not transcribe the utterance in time', details: { timeout: true } });
    expect(lines).toEqual(['vendor scribe (transcription) failed: timed out after 100 ms; the utterance was not transcribed']);
  });
});

describe('a generator in a conversation', () => {
  const scene = makeScene({
    participants: [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei')],
    turnTaking: { policy: 'round-robin' },
    snippets: [{ id: 'a', initiator: 'ada', turns: 3 }],
  });

  it('knows which generators fall back already', () => {
    const vendor = scriptedVendor().generator;
    expect(fallsBack(resilientGenerator(vendor, backup))).toBe(true);
    expect(fallsBack(vendor)).toBe(false);
    expect(fallsBack(createGenerator('openai', { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_MODEL: 'm' }))).toBe(true);
  });

  it('passes each turn through the wrapper once: one notice per failed call, however the fallback answers', async () => {
    let calls = 0;
    const down: Generator = {
      name: 'vendor',
      // eslint-disable-next-line require-yield
      async *stream() {
        calls++;
        throw http(503);
      },
    };
    // A fallback that writes nothing: a second wrapper would count that as a failure too, and say so again.
    const mute: Generator = { name: 'mute', async *stream() {} };
    const generator = resilientGenerator(down, mute, { retries: 0, breaker: null, log: () => undefined });
    const log = await openConversation(scene, { seed: 1, generator, maxTurns: 3 }).ended;
    const notices = log.filter((e) => e.type === 'system' && e.code === 'generator-fallback');
    expect(calls).toBeGreaterThan(0);
    expect(notices).toHaveLength(calls);
    expect(notices[0]).toMatchObject({ message: 'vendor failed; the mute generator wrote this turn.' });
  });

  it('gives a generator without a fallback the scripted one', async () => {
    const down: Generator = {
      name: 'vendor',
      // eslint-disable-next-line require-yield
      async *stream() {
        throw http(500);
      },
    };
    const log = await openConversation(scene, { seed: 1, generator: down, maxTurns: 3 }).ended;
    const notices = log.filter((e) => e.type === 'system' && e.code === 'generator-fallback');
    expect(notices.length).toBeGreaterThan(0);
    expect(notices[0]).toMatchObject({ message: 'vendor failed; the scripted generator wrote this turn.' });
  });
});

describe('askUntilRead, the one loop that asks a model again', () => {
  const number = (text: string) => (/^\d+$/.test(text) ? Number(text) : null);

  it('asks again once when the answer cannot be read, and takes the second', async () => {
    const { generator, log } = scriptedVendor(['many'], ['42']);
    expect(await askUntilRead(setup(generator).generator, request, number)).toEqual({ ok: true, value: 42 });
    expect(log.calls).toBe(2);
  });

  it('gives up after the attempts asked for, and says how often', async () => {
    const { generator, log } = scriptedVendor(['many'], ['lots'], ['heaps']);
    expect(await askUntilRead(setup(generator).generator, request, number)).toEqual({ ok: false, why: 'vendor answered without the JSON asked for, twice' });
    expect(log.calls).toBe(2);
    expect(await askUntilRead(scriptedVendor(['x'], ['y'], ['z']).generator, request, number, undefined, 3)).toMatchObject({ why: expect.stringMatching(/3 times$/) });
  });

  it('does not ask a vendor again whose fallback answered, nor one that threw', async () => {
    const down = scriptedVendor([http(503)], ['7']);
    expect(await askUntilRead(setup(down.generator, { retries: 0 }).generator, request, number)).toEqual({ ok: false, why: 'vendor did not answer (generator-fallback)' });
    expect(down.log.calls).toBe(1);
    const bare = scriptedVendor([new Error('socket hang up')], ['7']);
    expect(await askUntilRead(bare.generator, request, number)).toEqual({ ok: false, why: 'vendor failed: socket hang up' });
    expect(bare.log.calls).toBe(1);
  });

  it('throws when the caller aborts', async () => {
    const controller = new AbortController();
    controller.abort(new Error('left'));
    await expect(askUntilRead(scriptedVendor(['1']).generator, request, number, controller.signal)).rejects.toThrow('left');
  });
});

describe('a refused key (401, 403)', () => {
  it.each([401, 403])('opens the circuit at once on HTTP %i, says which variable to check, and a later answer closes it', async (status) => {
    let clock = 0;
    const breaker = createBreaker({ failures: 5, cooldownMs: 10_000, now: () => clock });
    const { generator: vendor, log } = scriptedVendor([http(status)], ['Vendor text.']);
    const { run, notices, lines, sleeps } = setup(vendor, { breaker, credential: 'GEMINI_API_KEY' });
    expect(await run()).toBe('Backup text.');
    expect(log.calls).toBe(1);
    expect(sleeps).toEqual([]);
    expect(breaker.state).toBe('open');
    expect(breaker.refusedKey).toBe(true);
    expect(await run()).toBe('Backup text.');
    expect(log.calls).toBe(1);
    expect(notices).toEqual([
      { code: 'generator-fallback', message: `vendor refused the key (HTTP ${status}): check GEMINI_API_KEY; the backup generator wrote this turn.` },
      { code: 'generator-circuit-open', message: 'vendor refused the key and is not called for now (check GEMINI_API_KEY; next try in 10 s); the backup generator wrote this turn.' },
    ]);
    expect(lines).toEqual([
      `vendor vendor (generator) refused the key (HTTP ${status}): circuit open at once, not called for 10 s; check GEMINI_API_KEY`,
      `vendor vendor (generator) failed: HTTP ${status}: nope; check GEMINI_API_KEY; the backup generator wrote this turn`,
    ]);
    clock += 10_000;
    expect(await run()).toBe('Vendor text.');
    expect(breaker.state).toBe('closed');
    expect(breaker.refusedKey).toBe(false);
  });

  it('names the variable in a transcription error too', async () => {
    const refused: Transcriber = {
      name: 'whisper',
      transcribe: async () => {
        throw new TranscriptionError('HTTP 401: Incorrect API key provided', { status: 401 });
      },
    };
    const breaker = createBreaker({ now: () => 0 });
    const transcriber = resilientTranscriber(refused, { breaker, credential: 'WHISPER_API_KEY', log: () => undefined, sleep: async () => undefined });
    const audio = { pcm: new Int16Array(160), sampleRate: 16_000 };
    await expect(transcriber.transcribe(audio)).rejects.toThrow('whisper could not transcribe the utterance (it refused the key (HTTP 401): check WHISPER_API_KEY)');
    await expect(transcriber.transcribe(audio)).rejects.toThrow(/^whisper could not transcribe the utterance \(it refused the key and is not called for now \(check WHISPER_API_KEY; next try in 30 s\)\)$/);
    expect(breaker.state).toBe('open');
  });
});
