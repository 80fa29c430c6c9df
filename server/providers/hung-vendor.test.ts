/**
 * A vendor that hangs, behind the limits the server runs with (the environment's defaults), on
 * fake time: a connection open with no bytes, or a stream that stalls mid-way, is cut, and the
 * fallback answers within the whole call's budget; a vendor that keeps hanging trips its circuit,
 * so the next turns go to the fallback at once without calling it; after the cooldown one call
 * probes it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startFakeElevenLabs, type FakeElevenLabs } from '../../tests/fakes/elevenlabs-server';
import { startFakeOpenAI, type FakeOpenAI } from '../../tests/fakes/openai-server';
import { moderatorCue } from '../../tests/fakes/cue';
import type { GenerateRequest } from '../engine/requests';
import { generatorLimitsFrom } from './generator';
import { createOpenAIGenerator } from './generator/openai';
import type { Generator } from './generator/port';
import { createScriptedGenerator } from './generator/scripted';
import type { Notice } from './notice';
import { createBreaker, resilientGenerator, resilientSynthesizer, type ResilienceOptions } from './resilience';
import { synthesisLimitsFrom } from './synthesis';
import { createElevenLabsSynthesizer } from './synthesis/elevenlabs';
import type { SpeechChunk, Synthesizer } from './synthesis/port';

const cue = moderatorCue;
const request: GenerateRequest = { purpose: 'utterance', system: '', prompt: 'Open the meeting.', temperature: 0.7, json: false, maxTokens: 60, cue };

/** Long enough to be "never" on the fake clock. */
const FOREVER_MS = 600_000;
const defaults = generatorLimitsFrom({});
const scriptedLine = async () => {
  let text = '';
  for await (const delta of createScriptedGenerator().stream(request)) text += delta;
  return text;
};

/** Moves the fake clock from timer to timer until `work` settles; returns how long it took on that clock. */
const elapse = async (work: Promise<unknown>): Promise<number> => {
  const start = Date.now();
  let settled = false;
  void work.then(
    () => (settled = true),
    () => (settled = true),
  );
  await vi.advanceTimersByTimeAsync(0);
  while (!settled) await vi.advanceTimersToNextTimerAsync();
  return Date.now() - start;
};

let openai: FakeOpenAI;
beforeEach(async () => {
  openai = await startFakeOpenAI();
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(async () => {
  vi.useRealTimers();
  await openai.close();
});

/** The OpenAI-compatible generator against the fake, counting the calls that reach it, behind the server's limits. */
const hungGenerator = (options: ResilienceOptions = {}) => {
  const vendor = createOpenAIGenerator({ apiKey: 'none', baseUrl: openai.baseUrl, model: 'llama3.2' });
  const calls = { count: 0 };
  const counted: Generator = {
    name: vendor.name,
    stream: (...args) => {
      calls.count++;
      return vendor.stream(...args);
    },
  };
  const notices: Notice[] = [];
  const lines: string[] = [];
  const generator = resilientGenerator(counted, createScriptedGenerator(), { ...defaults, breaker: null, log: (line) => lines.push(line), ...options });
  const turn = async () => {
    let text = '';
    for await (const delta of generator.stream(request, undefined, (n) => notices.push(n))) text += delta;
    return text;
  };
  return { generator, turn, calls, notices, lines };
};

describe('a generator that hangs', () => {
  it('has the scripted generator write the turn within the budget when the connection stays open with no bytes', async () => {
    openai.setDefault({ delayMs: FOREVER_MS });
    const { turn, calls, notices, lines } = hungGenerator();
    const answer = turn();
    const took = await elapse(answer);
    expect(await answer).toBe(await scriptedLine());
    expect(took).toBeLessThanOrEqual(defaults.budgetMs!);
    // The first attempt ran out of its time, the retry out of the budget.
    expect(calls.count).toBe(2);
    expect(notices.map((n) => n.code)).toEqual(['generator-fallback']);
    expect(lines).toEqual([`vendor openai (generator) failed: timed out after ${defaults.budgetMs} ms (2 attempts); the scripted generator wrote this turn`]);
  });

  it('cuts a stream that stalls mid-way after the gap limit, keeping what it said', async () => {
    openai.setDefault({ chunks: ['Good morning, ', 'everyone.'], chunkDelayMs: FOREVER_MS });
    const { generator, notices } = hungGenerator();
    const deltas: string[] = [];
    const answer = (async () => {
      for await (const delta of generator.stream(request, undefined, (n) => notices.push(n))) deltas.push(delta);
    })();
    // The first delta comes over the network, on real time; then the stream stalls.
    while (deltas.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const took = await elapse(answer);
    expect(deltas).toEqual(['Good morning, ']);
    expect(took).toBeLessThanOrEqual(defaults.timeoutMs!);
    expect(notices.map((n) => n.code)).toEqual(['generator-truncated']);
  });

  it('trips its circuit: later turns go to the scripted generator at once, without calling it, and one call probes it after the cooldown', async () => {
    openai.setDefault({ delayMs: FOREVER_MS });
    let clock = 0;
    const breaker = createBreaker({ now: () => clock }); // the server's: 5 failures in a row, 30 s
    const { turn, calls, notices } = hungGenerator({ breaker });
    // Each hung turn costs two failed attempts: the circuit opens in the third.
    for (let i = 0; i < 3; i++) await elapse(turn());
    expect(calls.count).toBe(5);
    expect(breaker.state).toBe('open');

    for (let i = 0; i < 3; i++) {
      const answer = turn();
      expect(await elapse(answer)).toBe(0);
      expect(await answer).toBe(await scriptedLine());
    }
    expect(calls.count).toBe(5);
    expect(notices.slice(3).map((n) => n.code)).toEqual(['generator-circuit-open', 'generator-circuit-open', 'generator-circuit-open']);

    clock += 30_000;
    openai.setDefault({ chunks: ['We are back.'] });
    const probe = turn();
    // Another turn while the probe is out does not call the vendor either.
    const meanwhile = turn();
    expect(await meanwhile).toBe(await scriptedLine());
    vi.useRealTimers();
    expect(await probe).toBe('We are back.');
    expect(calls.count).toBe(6);
    expect(breaker.state).toBe('closed');
  });
});

describe('a voice that hangs', () => {
  let elevenlabs: FakeElevenLabs;
  beforeEach(async () => {
    elevenlabs = await startFakeElevenLabs();
  });
  afterEach(async () => {
    await elevenlabs.close();
  });

  const standIn: Synthesizer = {
    name: 'espeak',
    async *synthesize() {
      yield { pcm: new Int16Array([7]), sampleRate: 22_050, offsetMs: 0, cues: [], words: [] };
    },
  };

  it('has eSpeak speak the clause within the budget', async () => {
    elevenlabs.setDefault({ delayMs: FOREVER_MS });
    const vendor = createElevenLabsSynthesizer({ apiKey: 'test-key', baseUrl: elevenlabs.baseUrl, phonemize: async () => [], phonemeToViseme: () => [] });
    // The SDK loads in real time, which the fake clock below would race past: the budget is on the vendor's time.
    await vendor.ready;
    const limits = synthesisLimitsFrom({});
    const notices: Notice[] = [];
    const voiced = resilientSynthesizer(vendor, standIn, { ...limits, breaker: null, log: () => undefined });
    const chunks: SpeechChunk[] = [];
    const spoken = (async () => {
      for await (const chunk of voiced.synthesize({ text: 'Hello.', voice: { espeak: 'en-us', elevenlabs: 'voice' } }, undefined, (n) => notices.push(n))) chunks.push(chunk);
    })();
    const took = await elapse(spoken);
    expect(took).toBeLessThanOrEqual(limits.budgetMs!);
    expect(chunks.map((c) => c.pcm[0])).toEqual([7]);
    expect(notices.map((n) => n.code)).toEqual(['synthesis-fallback']);
  });
});
