import { describe, expect, it } from 'vitest';
import { complete, type Generator } from './port';
import type { Cue, GenerateRequest } from '../../engine/requests';
import { GeneratorError, withFallback, type FallbackOptions, type Notice } from './resilient';

const cue: Cue = {
  speaker: { id: 'hugo', name: 'Hugo Laurent', shortName: 'Hugo', role: 'moderator', mood: 'neutral', traits: [] },
  participants: [
    { id: 'hugo', name: 'Hugo Laurent', shortName: 'Hugo', kind: 'ai' },
    { id: 'iris', name: 'Iris Chen', shortName: 'Iris', kind: 'human' },
  ],
  topic: 'remote work policy',
  snippet: { id: 'open', goal: 'Hear everyone once', pattern: 'neutral' },
  act: 'moderate',
  addressee: { id: 'iris', shortName: 'Iris' },
  obligation: null,
  lastMessage: null,
  facts: [],
  goals: [],
  variant: 42,
};
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

const setup = (vendor: Generator, options: FallbackOptions = {}) => {
  const notices: Notice[] = [];
  const sleeps: number[] = [];
  const generator = withFallback(vendor, backup, {
    onNotice: (n) => notices.push(n),
    sleep: async (ms) => void sleeps.push(ms),
    ...options,
  });
  return { generator, notices, sleeps };
};

const collect = async (stream: AsyncIterable<string>): Promise<string[]> => {
  const deltas: string[] = [];
  for await (const delta of stream) deltas.push(delta);
  return deltas;
};

describe('withFallback', () => {
  it('passes a healthy stream through untouched, under the vendor name', async () => {
    const { generator: vendor } = scriptedVendor(['Hello ', 'there.']);
    const { generator, notices } = setup(vendor);
    expect(generator.name).toBe('vendor');
    expect(await collect(generator.stream(request))).toEqual(['Hello ', 'there.']);
    expect(notices).toEqual([]);
  });

  it('retries 429 and 5xx, then succeeds without a notice', async () => {
    const { generator: vendor, log } = scriptedVendor([http(503)], [http(429)], ['Made it.']);
    const { generator, notices, sleeps } = setup(vendor);
    expect(await complete(generator, request)).toBe('Made it.');
    expect(log.calls).toBe(3);
    expect(sleeps).toHaveLength(2);
    expect(notices).toEqual([]);
  });

  it('backs off exponentially with jitter, within [ceiling/2, ceiling] and capped', async () => {
    const { generator: vendor } = scriptedVendor(...Array.from({ length: 6 }, () => [http(500)]));
    const { generator, sleeps } = setup(vendor, { retries: 5, baseDelayMs: 100, maxDelayMs: 1000 });
    await complete(generator, request);
    const ceilings = [100, 200, 400, 800, 1000];
    expect(sleeps).toHaveLength(5);
    sleeps.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual(ceilings[i]! / 2);
      expect(ms).toBeLessThanOrEqual(ceilings[i]!);
    });
  });

  it('draws the same jitter for the same turn', async () => {
    const run = async () => {
      const { generator: vendor } = scriptedVendor([http(500)], [http(500)], [http(500)]);
      const { generator, sleeps } = setup(vendor);
      await complete(generator, request);
      return sleeps;
    };
    expect(await run()).toEqual(await run());
  });

  it("honours a 429's Retry-After, capped at maxDelayMs", async () => {
    const { generator: vendor } = scriptedVendor([http(429, 1500)], [http(429, 60_000)], ['ok']);
    const { generator, sleeps } = setup(vendor, { maxDelayMs: 4000 });
    await complete(generator, request);
    expect(sleeps).toEqual([1500, 4000]);
  });

  it('retries network errors that carry no status', async () => {
    const { generator: vendor, log } = scriptedVendor([new TypeError('fetch failed')], ['ok']);
    const { generator } = setup(vendor);
    expect(await complete(generator, request)).toBe('ok');
    expect(log.calls).toBe(2);
  });

  it('falls back after the retries, naming the vendor, the error and the fallback', async () => {
    const { generator: vendor, log } = scriptedVendor([http(500)], [http(500)], [http(500)]);
    const { generator, notices } = setup(vendor);
    expect(await complete(generator, request)).toBe('Backup text.');
    expect(log.calls).toBe(3);
    expect(notices).toEqual([
      { code: 'generator-fallback', message: 'vendor failed (HTTP 500: nope) after 3 attempts; used backup for this turn' },
    ]);
  });

  it.each([400, 401, 403, 404])('falls back at once on HTTP %i', async (status) => {
    const { generator: vendor, log } = scriptedVendor([http(status)]);
    const { generator, notices, sleeps } = setup(vendor);
    expect(await complete(generator, request)).toBe('Backup text.');
    expect(log.calls).toBe(1);
    expect(sleeps).toEqual([]);
    expect(notices[0]!.message).toBe(`vendor failed (HTTP ${status}: nope); used backup for this turn`);
  });

  it('falls back at once when the vendor ends its reply without any text', async () => {
    const { generator: vendor, log } = scriptedVendor([]);
    const { generator, notices } = setup(vendor);
    expect(await complete(generator, request)).toBe('Backup text.');
    expect(log.calls).toBe(1);
    expect(notices).toEqual([{ code: 'generator-fallback', message: 'vendor failed (returned no text); used backup for this turn' }]);
  });

  it('does not call the vendor when the caller has already aborted', async () => {
    const { generator: vendor, log } = scriptedVendor(['never']);
    const { generator } = setup(vendor);
    await expect(complete(generator, request, AbortSignal.abort())).rejects.toThrow();
    expect(log.calls).toBe(0);
  });

  it('with retries: 0, falls back after the first failure', async () => {
    const { generator: vendor, log } = scriptedVendor([http(500)]);
    const { generator } = setup(vendor, { retries: 0 });
    expect(await complete(generator, request)).toBe('Backup text.');
    expect(log.calls).toBe(1);
  });

  it('times out a vendor that sends nothing, and cancels it', async () => {
    const { generator: vendor, log } = scriptedVendor([{ wait: 500 }, 'late'], [{ wait: 500 }, 'late'], [{ wait: 500 }, 'late']);
    const { generator, notices } = setup(vendor, { timeoutMs: 40 });
    expect(await complete(generator, request)).toBe('Backup text.');
    expect(log.calls).toBe(3);
    expect(log.signals.every((signal) => signal?.aborted)).toBe(true);
    expect(notices[0]!.message).toBe('vendor failed (timed out after 40 ms) after 3 attempts; used backup for this turn');
  });

  it('ends the turn with the partial text when the vendor fails mid-stream, never adding the fallback', async () => {
    const { generator: vendor, log } = scriptedVendor(['First part, ', 'second part', new TypeError('terminated')]);
    const { generator, notices } = setup(vendor);
    expect(await collect(generator.stream(request))).toEqual(['First part, ', 'second part']);
    expect(log.calls).toBe(1);
    expect(notices).toEqual([
      { code: 'generator-truncated', message: 'vendor stopped mid-reply (terminated); kept the partial text for this turn' },
    ]);
  });

  it('treats a stall after the first delta as a truncation too', async () => {
    const { generator: vendor } = scriptedVendor(['Only this', { wait: 500 }, ' and more']);
    const { generator, notices } = setup(vendor, { timeoutMs: 40 });
    expect(await complete(generator, request)).toBe('Only this');
    expect(notices.map((n) => n.code)).toEqual(['generator-truncated']);
  });

  it('stops without falling back when the caller aborts', async () => {
    const { generator: vendor } = scriptedVendor([{ wait: 50 }, 'never'], ['never']);
    const { generator, notices } = setup(vendor);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);
    await expect(complete(generator, request, controller.signal)).rejects.toThrow();
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
