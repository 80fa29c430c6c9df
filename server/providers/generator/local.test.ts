import { writeFile, readFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyModel } from '../../../tests/fixtures/models/gguf';
import { moderatorCue } from '../../../tests/fakes/cue';
import { deltasOf } from '../../../tests/providers/scaffold';
import { parseBid, parseSelection } from '../../engine/policies';
import type { GenerateRequest } from '../../engine/requests';
import { GeneratorError } from '../errors';
import type { Notice } from '../notice';
import { resilientGenerator } from '../resilience';
import { createModelJudge } from '../../metrics/judge';
import { lineMaker } from '../../../tests/fakes/utterances';
import { createGenerator } from './index';
import { createLocalGenerator, type LocalGenerator, type LocalOptions, type TurnFigures } from './local';
import { complete } from './port';
import { createScriptedGenerator } from './scripted';

const hugo: GenerateRequest = {
  purpose: 'utterance',
  system: 'You are Hugo Laurent, moderator.\nYou chair a meeting about the remote work policy. Keep it short and kind.',
  prompt: 'Open the meeting.',
  temperature: 0.7,
  json: false,
  maxTokens: 24,
  cue: moderatorCue,
};

/** A persona with a long system prompt, so a cached prefix is most of the turn. */
const persona = (name: string): string =>
  [`You are ${name}, who works on the remote work policy.`, ...Array.from({ length: 12 }, (_, i) => `Fact ${i + 1}: the team agreed to meet every week and review the budget for the next quarter.`)].join('\n');

describe('the local generator (a GGUF model in the process, through node-llama-cpp)', () => {
  let path: string;
  const opened: LocalGenerator[] = [];
  /** A generator over the tiny model, closed after the tests; small sessions to spare memory. */
  const local = (options: Partial<LocalOptions> = {}): LocalGenerator => {
    const generator = createLocalGenerator({ model: path, contextSize: 1024, sessions: 2, log: () => undefined, ...options });
    opened.push(generator);
    return generator;
  };

  beforeAll(async () => {
    path = await tinyModel();
  });
  afterAll(async () => {
    await Promise.all(opened.map((g) => g.close()));
  });

  it('streams a reply as deltas, one per token, from a model it loads on the first turn', async () => {
    const turns: TurnFigures[] = [];
    const generator = local({ model: async () => path, maxWaitMs: 60_000, onTurn: (t) => turns.push(t) });
    expect(generator.status.state).toBe('idle');
    const deltas = await deltasOf(generator.stream(hugo));
    expect(generator.status.state).toBe('ready');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('').trim()).not.toBe('');
    expect(turns).toHaveLength(1);
    expect(turns[0]!.generatedTokens).toBe(hugo.maxTokens);
  });

  it("stops writing when the caller aborts mid-reply (a barge-in), with the caller's reason, and frees the model", async () => {
    const turns: TurnFigures[] = [];
    const generator = local({ onTurn: (t) => turns.push(t) });
    const controller = new AbortController();
    const heard: string[] = [];
    const stopped = deltasOf(generator.stream({ ...hugo, maxTokens: 800 }, controller.signal), (delta) => {
      heard.push(delta);
      controller.abort(new Error('barge-in'));
    });
    await expect(stopped).rejects.toThrow('barge-in');
    expect(heard).toHaveLength(1);
    // The next turn gets the model: the aborted one let it go, long before its 800 tokens.
    expect((await complete(generator, hugo)).length).toBeGreaterThan(0);
    expect(turns).toHaveLength(2);
    expect(turns[0]!.generatedTokens).toBeLessThan(800);
  });

  it("answers the turn selector with JSON naming one of the candidates (MPOD §3.1), through the library's JSON-schema grammar", async () => {
    const generator = local();
    const candidates = [
      { id: 'hugo', names: ['Hugo Laurent', 'Hugo'] },
      { id: 'iris', names: ['Iris Chen', 'Iris'] },
    ];
    for (const variant of [1, 2, 3]) {
      const text = await complete(generator, {
        purpose: 'select',
        system: 'You decide who speaks next in a multi-party conversation. Answer with JSON only.',
        prompt: 'Candidates: Hugo Laurent, Iris Chen\n\nAnswer exactly: {"next": "<candidate name>"}',
        temperature: 0.2,
        json: true,
        maxTokens: 40,
        cue: { ...moderatorCue, candidates: ['Hugo Laurent', 'Iris Chen'], variant },
      });
      expect(Object.keys(JSON.parse(text) as object)).toEqual(['next']);
      expect(['hugo', 'iris']).toContain(parseSelection(text, candidates));
    }
  });

  it('answers a bid (MMAgents think()) with the JSON the engine reads', async () => {
    const text = await complete(local(), { ...hugo, purpose: 'think', json: true, maxTokens: 400, prompt: 'Do you want to speak next? Answer with JSON.' });
    const bid = parseBid('hugo', text);
    expect(bid).not.toBeNull();
    expect(['speak', 'listen']).toContain(bid!.action);
  });

  it('serves the breakdown judge as Gemini does: JSON it cannot read is asked again once, then the rules judge', async () => {
    const turns: TurnFigures[] = [];
    const generator = resilientGenerator(local({ onTurn: (t) => turns.push(t) }), createScriptedGenerator(), { retries: 0, breaker: null });
    const line = lineMaker();
    const transcript = [line('ana', 'Ben, what is the budget for the migration?', { addressee: 'ben', pair: 'question', act: 'question' }), line('ben', 'About forty thousand.')];
    const judgement = await createModelJudge(generator, { maxTokens: 60 }).judge(transcript);
    // Random weights write JSON (the grammar's), never a judgement.
    expect(turns).toHaveLength(2);
    expect(judgement.judgedBy).toEqual({ model: 0, rules: 1 });
    expect(judgement.notes).toEqual(['turns 1-2: local answered without the JSON asked for, twice; judged by the rules']);
  });

  it("keeps each persona's prompt cached in its own session: a turn evaluates only what changed since its last", async () => {
    const turns: TurnFigures[] = [];
    const generator = local({ onTurn: (t) => turns.push(t) });
    const nadia = { ...hugo, system: persona('Nadia'), prompt: 'Say hello to the group.' };
    const omar = { ...hugo, system: persona('Omar'), prompt: 'Say hello to the group.' };
    await complete(generator, nadia);
    await complete(generator, omar);
    await complete(generator, { ...nadia, prompt: 'Tell Omar what you think of the budget.' });
    const [nadia1, omar1, nadia2] = turns;
    // Cold: every prompt token evaluated.
    expect(nadia1!.evaluatedTokens).toBe(nadia1!.promptTokens);
    expect(omar1!.evaluatedTokens).toBe(omar1!.promptTokens);
    // Nadia's session kept her system prompt while Omar spoke: most of her second prompt was cached.
    expect(nadia2!.promptTokens).toBeGreaterThan(100);
    expect(nadia2!.evaluatedTokens).toBeLessThan(nadia2!.promptTokens / 4);
    expect(nadia2!.session).not.toBe(omar1!.session);
  });

  it('with one session, a persona who spoke in between evicts the cached prompt', async () => {
    const turns: TurnFigures[] = [];
    const generator = local({ sessions: 1, onTurn: (t) => turns.push(t) });
    const nadia = { ...hugo, system: persona('Nadia') };
    await complete(generator, nadia);
    await complete(generator, { ...hugo, system: 'You are Omar.' });
    await complete(generator, nadia);
    // Only the chat template's first tokens are shared with Omar's prompt.
    expect(turns[2]!.evaluatedTokens).toBeGreaterThan(turns[2]!.promptTokens / 2);
  });

  it('serves turns from several rooms one at a time, in the order they asked', async () => {
    const generator = local({ maxWaitMs: 60_000 });
    await generator.load();
    const order: string[] = [];
    const first = deltasOf(generator.stream({ ...hugo, maxTokens: 30 }), () => order.push('first'));
    const second = deltasOf(generator.stream({ ...hugo, system: 'You are Iris.', maxTokens: 30 }), () => order.push('second'));
    await Promise.all([first, second]);
    expect(order.indexOf('second')).toBeGreaterThan(order.lastIndexOf('first'));
    expect(order.lastIndexOf('first')).toBeGreaterThan(0);
    expect(generator.waiting).toBe(0);
  });

  it('says a turn is late when the model is busy past its wait, and the scripted generator writes it', async () => {
    const model = local({ maxWaitMs: 0 });
    await model.load();
    const lines: string[] = [];
    const generator = resilientGenerator(model, createScriptedGenerator(), { retries: 0, breaker: null, log: (line) => lines.push(line) });
    const busy = new AbortController();
    const writing = model.stream({ ...hugo, maxTokens: 800 }, busy.signal)[Symbol.asyncIterator]();
    await writing.next();
    const notices: Notice[] = [];
    const text = await complete(generator, hugo, undefined, (n) => notices.push(n));
    expect(text).toBe(await complete(createScriptedGenerator(), hugo));
    expect(notices.map((n) => n.code)).toEqual(['generator-busy', 'generator-fallback']);
    expect(notices[0]!.message).toBe('The local model is busy with another turn; this turn would be late.');
    expect(lines[0]).toMatch(/^vendor local \(generator\) failed: the local model was busy with another turn for 0 ms/);
    busy.abort(new Error('done'));
    await writing.next().catch(() => undefined);
  });

  it('says when the model is slower than the time limit for a turn, and the scripted generator writes it', async () => {
    const model = local({ contextSize: 4096 });
    await model.load();
    // A 1 ms limit for the first delta, and a prompt of some 3,000 tokens to read first.
    const generator = resilientGenerator(model, createScriptedGenerator(), { retries: 0, breaker: null, timeoutMs: 1, log: () => undefined });
    const long = { ...hugo, prompt: Array.from({ length: 60 }, (_, i) => `Line ${i}: the team agreed to meet every week and review the budget.`).join('\n') };
    const notices: Notice[] = [];
    expect(await complete(generator, long, undefined, (n) => notices.push(n))).toBe(await complete(createScriptedGenerator(), long));
    expect(notices.map((n) => n.code)).toEqual(['generator-slow', 'generator-fallback']);
    expect(notices[0]!.message).toMatch(/a smaller LOCAL_LLM_MODEL, or a longer GENERATOR_TIMEOUT_MS/);
  });

  it('leaves the queue at once when its caller aborts while waiting', async () => {
    const model = local({ maxWaitMs: 60_000 });
    await model.load();
    const busy = new AbortController();
    const writing = model.stream({ ...hugo, maxTokens: 800 }, busy.signal)[Symbol.asyncIterator]();
    await writing.next();
    const waiter = new AbortController();
    const waiting = complete(model, hugo, waiter.signal);
    await new Promise((resolve) => setImmediate(resolve));
    expect(model.waiting).toBe(1);
    waiter.abort(new Error('left the room'));
    await expect(waiting).rejects.toThrow('left the room');
    expect(model.waiting).toBe(0);
    busy.abort(new Error('done'));
    await writing.next().catch(() => undefined);
  });

  describe('refuses a model file it cannot use, with a reason naming the file', () => {
    let folder: string;
    beforeAll(async () => {
      folder = await mkdtemp(join(tmpdir(), 'local-llm-'));
    });

    it('a missing file', async () => {
      const generator = local({ model: join(folder, 'absent.gguf') });
      const error = await complete(generator, hugo).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GeneratorError);
      expect((error as Error).message).toBe(`no model file at ${join(folder, 'absent.gguf')}: set LOCAL_LLM_MODEL to a GGUF file`);
      expect(generator.status).toEqual({ state: 'failed', reason: (error as Error).message });
    });

    it('a file that is not GGUF', async () => {
      const file = join(folder, 'page.gguf');
      await writeFile(file, '<html>404 Not Found</html>');
      await expect(complete(local({ model: file }), hugo)).rejects.toThrow(`the model file ${file} is not a GGUF model (it starts with "<htm"): fetch it again`);
    });

    it('a download cut short', async () => {
      const file = join(folder, 'cut.gguf');
      const whole = await readFile(path);
      await writeFile(file, whole.subarray(0, Math.floor(whole.length * 0.6)));
      await expect(complete(local({ model: file }), hugo)).rejects.toThrow(new RegExp(`^the model file ${file} is incomplete \\(${Math.floor(whole.length * 0.6)} of \\d+ bytes\\): fetch it again$`));
    });

    it('a header cut short', async () => {
      const file = join(folder, 'head.gguf');
      await writeFile(file, (await readFile(path)).subarray(0, 3000));
      await expect(complete(local({ model: file }), hugo)).rejects.toThrow(new RegExp(`^the model file ${file} (has a broken header|is incomplete) \\(.+\\): fetch it again$`));
    });

    it('configured from the environment, the scripted generator writes every turn and the log says why', async () => {
      const lines: string[] = [];
      const file = join(folder, 'absent.gguf');
      const generator = createGenerator('local', { LOCAL_LLM_MODEL: file }, { log: (line) => lines.push(line), breaker: null });
      const notices: Notice[] = [];
      expect(await complete(generator, hugo, undefined, (n) => notices.push(n))).toBe(await complete(createScriptedGenerator(), hugo));
      expect(notices).toEqual([{ code: 'generator-fallback', message: 'local failed; the scripted generator wrote this turn.' }]);
      expect(lines).toEqual([
        `local model not loaded: no model file at ${file}: set LOCAL_LLM_MODEL to a GGUF file`,
        `vendor local (generator) failed: no model file at ${file}: set LOCAL_LLM_MODEL to a GGUF file; the scripted generator wrote this turn`,
      ]);
    });
  });

  it('needs LOCAL_LLM_MODEL, and says so', () => {
    expect(() => createGenerator('local', {})).toThrow(/^LOCAL_LLM_MODEL is not set: the local generator needs it/);
    expect(() => createGenerator('local', { LOCAL_LLM_MODEL: 'm.gguf', LOCAL_LLM_THREADS: 'two' })).toThrow('LOCAL_LLM_THREADS must be a whole number of threads from 1, got "two"');
  });
});
