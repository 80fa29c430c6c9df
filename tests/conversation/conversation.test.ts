import { describe, expect, it } from 'vitest';
import { openConversation } from '../../server/conversation/conversation';
import type { SessionEvent } from '../../shared/events';
import type { Generator } from '../../server/providers/generator/port';
import type { GenerateRequest } from '../../server/engine/requests';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { ai, human, makeScene } from '../engine/harness';

const scene = makeScene({
  participants: [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), human('tara', 'Tara Quinn')],
  turnTaking: { policy: 'round-robin' },
  snippets: [{ id: 'a', initiator: 'ada', turns: 4 }],
});

const utterancesOf = (events: SessionEvent[]) => events.filter((e) => e.type === 'utterance');

/** A generator whose replies the test releases one by one. */
const gated = () => {
  const waiting: { request: GenerateRequest; release: (text: string) => void }[] = [];
  const generator: Generator = {
    name: 'gated',
    async *stream(request) {
      yield await new Promise<string>((release) => waiting.push({ request, release }));
    },
  };
  return { generator, waiting };
};

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** The scripted conversation in realtime at double speed, on a test clock its waits move at once; `waiting` sees each wait first. */
const onTestClock = (waiting: (ms: number) => void) => {
  let clock = 1_000_000;
  return openConversation(scene, {
    seed: 1,
    generator: createScriptedGenerator(),
    pace: 'realtime',
    speed: 2,
    now: () => clock,
    sleep: async (ms) => {
      waiting(ms);
      clock += ms;
    },
  });
};

describe('a running conversation', () => {
  it('runs a whole session at instant pace', async () => {
    const conversation = openConversation(scene, { seed: 1, generator: createScriptedGenerator() });
    const log = await conversation.ended;
    expect(utterancesOf(log)).toHaveLength(4);
    expect(log.at(-1)).toMatchObject({ type: 'end', reason: 'snippets-done' });
  });

  it('in realtime, holds each reply until the previous speaker has finished, and stamps wall-clock time', async () => {
    const slept: number[] = [];
    const conversation = onTestClock((ms) => slept.push(ms));
    const u = utterancesOf(await conversation.ended);
    expect(slept.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < u.length; i++) {
      const previous = u[i - 1]!;
      if (previous.type !== 'utterance') continue;
      expect(u[i]!.t).toBeGreaterThanOrEqual(previous.t + previous.durationMs / 2);
    }
  });

  it('in realtime, announces the end once the last line has been heard, not over it', async () => {
    let clock = 1_000_000;
    const ended: number[] = [];
    const lastHeard: number[] = [];
    const conversation = openConversation(scene, {
      seed: 1,
      generator: createScriptedGenerator(),
      pace: 'realtime',
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
      },
      onEvent: (event) => {
        if (event.type === 'utterance') lastHeard.push(clock + event.durationMs);
        if (event.type === 'end') ended.push(clock);
      },
    });
    const log = await conversation.ended;
    expect(log.at(-1)).toMatchObject({ type: 'end', reason: 'snippets-done' });
    // The goodbye was logged as it began; the end waited for its speech (a second or more).
    expect(ended[0]).toBeGreaterThanOrEqual(lastHeard.at(-1)!);
  });

  it('ends at once when the instructor ends it while the goodbye is heard', async () => {
    let clock = 1_000_000;
    let said = 0;
    let closing = false;
    const conversation = openConversation(scene, {
      seed: 1,
      generator: createScriptedGenerator(),
      pace: 'realtime',
      now: () => clock,
      // Once the last line (the snippet's fourth, a goodbye) is said, time stands still: only the instructor's end can end the session.
      sleep: (ms) => (closing ? new Promise<void>(() => {}) : Promise.resolve(void (clock += ms))),
      onEvent: (event) => {
        if (event.type === 'utterance') closing = ++said >= 4;
      },
    });
    for (let i = 0; i < 200 && !closing; i++) await tick();
    expect(closing).toBe(true);
    await tick();
    conversation.send({ type: 'end' });
    const log = await conversation.ended;
    expect(log.at(-1)).toMatchObject({ type: 'end' });
    expect(utterancesOf(log)).toHaveLength(said);
  });

  it('falls back to the scripted generator when the vendor throws, and says so in the log', async () => {
    const broken: Generator = {
      name: 'gemini',
      // eslint-disable-next-line require-yield
      async *stream() {
        throw new Error('HTTP 500');
      },
    };
    const log = await openConversation(scene, { seed: 2, generator: broken }).ended;
    const u = utterancesOf(log);
    expect(u.length).toBeGreaterThanOrEqual(4);
    const notices = log.filter((e) => e.type === 'system' && e.code === 'generator-fallback');
    expect(notices.length).toBe(u.length);
    expect(notices[0]).toMatchObject({ message: 'gemini failed; the scripted generator wrote this turn.' });
  });

  it('streams replies as deltas, and a human who speaks mid-stream cuts the reply off there', async () => {
    const chunks: ((text: string | null) => void)[] = [];
    const slow: Generator = {
      name: 'slow',
      async *stream(_request, signal) {
        for (;;) {
          const next = await new Promise<string | null>((resolve) => chunks.push(resolve));
          if (next === null || signal?.aborted) return;
          yield next;
        }
      },
    };
    const events: SessionEvent[] = [];
    const deltas: { speaker: string; text: string }[] = [];
    const conversation = openConversation(scene, { seed: 3, generator: slow, present: ['tara'], onEvent: (e) => events.push(e), onDelta: (d) => deltas.push(d) });
    await tick();
    chunks.shift()!('Good morning, ');
    await tick();
    chunks.shift()!('everyone. Today we');
    await tick();
    expect(deltas.map((d) => d.text).join('')).toBe('Good morning, everyone. Today we');
    expect(deltas.every((d) => d.speaker === 'ada')).toBe(true);
    conversation.send({ type: 'say', participant: 'tara', text: 'Sorry, Ben, is the budget final?' });
    const u = utterancesOf(events);
    expect(u[0]).toMatchObject({ speaker: 'ada', text: 'Good morning, everyone. Today we—', interrupted: true });
    expect(events.find((e) => e.type === 'interruption')).toMatchObject({ by: 'tara', of: 'ada', vibe: 'barge-in' });
    expect(u[1]).toMatchObject({ speaker: 'tara', addressee: 'ben' });
    conversation.send({ type: 'end' });
    chunks.forEach((resolve) => resolve(null));
  });

  it('goes on when carrying out a request fails for a reason of its own: the turn is answered empty and the log says so', async () => {
    let failures = 0;
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (written.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      // The first wait for the floor breaks (a fault of the shell, not a vendor's).
      const conversation = onTestClock(() => {
        if (failures++ === 0) throw new Error('the clock broke');
      });
      const log = await conversation.ended;
      expect(log).toContainEqual(expect.objectContaining({ type: 'system', level: 'error', code: 'request-failed' }));
      expect(log.at(-1)).toMatchObject({ type: 'end', reason: 'snippets-done' });
      expect(utterancesOf(log).length).toBeGreaterThan(0);
      expect(written.join('')).toMatch(/conversation: generate request \S+ failed: the clock broke/);
    } finally {
      process.stderr.write = write;
    }
  });

  it('holds the next AI reply while a present human is typing', async () => {
    const { generator, waiting } = gated();
    let clock = 0;
    const sleeps: number[] = [];
    const conversation = openConversation(scene, {
      seed: 3,
      generator,
      present: ['tara'],
      typingHoldMs: 5000,
      now: () => clock,
      sleep: async (ms) => {
        sleeps.push(ms);
        clock += ms;
        await tick();
      },
    });
    conversation.typing('tara', true);
    for (let i = 0; i < 200 && waiting.length === 0; i++) await tick();
    // The greeting was held until the typing signal lapsed (5 s of fake time), then requested.
    expect(waiting).toHaveLength(1);
    expect(clock).toBeGreaterThanOrEqual(5000);
    expect(sleeps.every((ms) => ms <= 250)).toBe(true);
    conversation.send({ type: 'end' });
  });

  it('waits for a present human, and lets them barge in over a reply being generated', async () => {
    const { generator, waiting } = gated();
    const events: SessionEvent[] = [];
    const conversation = openConversation(scene, { seed: 3, generator, present: ['tara'], onEvent: (e) => events.push(e) });
    await tick();
    expect(waiting).toHaveLength(1); // Ada's greeting is being generated
    conversation.send({ type: 'say', participant: 'tara', text: 'Sorry, before we start: Ben, is the budget final?' });
    waiting[0]!.release('Hello everyone, welcome.'); // too late: dropped
    await tick();
    const u = utterancesOf(events);
    expect(u).toHaveLength(1);
    expect(u[0]).toMatchObject({ speaker: 'tara', source: 'human', addressee: 'ben', pair: 'question' });
    expect(waiting.at(-1)!.request.cue).toMatchObject({ speaker: { id: 'ben' }, act: 'answer' });
    waiting.at(-1)!.release('Yes, it was signed off on Monday. Tara, does that work for you?');
    // The reply travels through a few timer turns on a loaded machine; wait for the room to settle, not one tick.
    for (let i = 0; i < 200 && events.at(-1)?.type !== 'human-input-required'; i++) await tick();
    expect(events.at(-1)).toMatchObject({ type: 'human-input-required', participant: 'tara', addressedBy: 'ben' });
    expect(conversation.state.awaiting?.speaker).toBe('tara');
    conversation.send({ type: 'end' });
    expect((await conversation.ended).at(-1)).toMatchObject({ type: 'end', reason: 'ended' });
  });
});
