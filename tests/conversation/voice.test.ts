/**
 * Voice in a conversation, with the embedded eSpeak NG synthesizer: replies spoken clause by clause,
 * the first audio before the generation ends, real audio lengths in the log, and barge-in by a
 * human voice (polite and persistent personas, and a sound that held no words).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../until';
import { openConversation, type ConversationOptions } from '../../server/conversation/conversation';
import { clausesOf } from '../../server/conversation/clauses';
import { createSpokenReply, type AudioPiece } from '../../server/conversation/speech';
import { voicesOf } from '../../server/conversation/voices';
import type { SessionEvent } from '../../shared/events';
import type { Generator } from '../../server/providers/generator/port';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { createEspeakSynthesizer } from '../../server/providers/synthesis/espeak';
import { reportOf } from '../../server/review/report';
import { ai, human, makeScene } from '../engine/harness';

const espeak = createEspeakSynthesizer();
afterAll(() => espeak.close?.());

const scene = makeScene({
  participants: [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), human('tara', 'Tara Quinn')],
  turnTaking: { policy: 'round-robin' },
  snippets: [{ id: 'a', initiator: 'ada', turns: 4 }],
});

/** The scene with Ada opening on the authored `lines`. */
const withLines = (lines: { speaker: string; text: string; to?: string }[]) =>
  makeScene({
    participants: [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), human('tara', 'Tara Quinn')],
    turnTaking: { policy: 'round-robin' },
    snippets: [{ id: 'a', initiator: 'ada', turns: 4, lines }],
  });

const durationOf = (piece: AudioPiece) => (piece.pcm.length / piece.sampleRate) * 1000;


/** The first reply says `first`, then waits for `release()` before saying `rest`; later replies are scripted. */
const heldReply = (first: string, rest: string) => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let calls = 0;
  const scripted = createScriptedGenerator();
  const generator: Generator = {
    name: 'held',
    async *stream(request, signal) {
      if (request.purpose !== 'utterance' || calls++ > 0) {
        yield* scripted.stream(request, signal);
        return;
      }
      yield first;
      await released;
      if (signal?.aborted) return;
      yield rest;
    },
  };
  return { generator, release, calls: () => calls };
};

interface Voiced {
  audio: (AudioPiece & { speaker: string; draft: string })[];
  stops: { speaker: string; draft: string; atMs: number; reason: string }[];
  events: SessionEvent[];
}

const openVoiced = (options: Partial<ConversationOptions> & Pick<ConversationOptions, 'generator'>, sceneToUse = scene) => {
  const heard: Voiced = { audio: [], stops: [], events: [] };
  const conversation = openConversation(sceneToUse, {
    seed: 1,
    synthesizer: espeak,
    present: ['tara'],
    onAudio: (piece) => heard.audio.push(piece),
    onAudioStop: (stop) => heard.stops.push(stop),
    onEvent: (event) => heard.events.push(event),
    ...options,
  });
  return { conversation, heard };
};

describe('spoken replies', () => {
  it('speak every reply: pieces in order without gaps, cues inside the audio, and the logged duration is the audio length', async () => {
    const { conversation, heard } = openVoiced({ generator: createScriptedGenerator(), present: [] });
    const log = await conversation.ended;
    const utterances = log.filter((e) => e.type === 'utterance');
    expect(utterances.length).toBe(4);
    for (const u of utterances) {
      const pieces = heard.audio.filter((a) => a.draft === u.draft);
      expect(pieces.length, `audio for "${u.text}"`).toBeGreaterThan(0);
      expect(pieces.every((p) => p.speaker === u.speaker)).toBe(true);
      let end = 0;
      pieces.forEach((piece, i) => {
        expect(piece.seq).toBe(i);
        expect(piece.offsetMs).toBeCloseTo(end, 0);
        end = piece.offsetMs + durationOf(piece);
        for (const cue of piece.cues) expect(cue.t).toBeGreaterThanOrEqual(piece.offsetMs - 1);
      });
      expect(u.durationMs).toBe(Math.round(end));
      const cues = pieces.flatMap((p) => p.cues.map((c) => c.t));
      expect(cues).toEqual([...cues].sort((a, b) => a - b));
      expect(cues.at(-1)!).toBeLessThanOrEqual(end + 1);
    }
    // Each persona has a voice of their own.
    const voices = voicesOf(scene);
    expect(voices.get('ada')!.espeak).not.toBe(voices.get('ben')!.espeak);
  });

  it('start speaking after the first clause, before the generation is complete', async () => {
    const held = heldReply('Good morning everyone, and thank you for coming in today. ', 'Let us look at the plan.');
    const { conversation, heard } = openVoiced({ generator: held.generator, present: [] });
    await until(() => heard.audio.length > 0, 'the first audio');
    expect(heard.events.some((e) => e.type === 'utterance')).toBe(false);
    const first = heard.audio[0]!;
    expect(first).toMatchObject({ speaker: 'ada', offsetMs: 0 });
    expect(first.words.map((w) => w.word)).toContain('Good');
    held.release();
    const log = await conversation.ended;
    const u = log.find((e) => e.type === 'utterance')!;
    expect(u).toMatchObject({ speaker: 'ada', text: expect.stringContaining('Let us look at the plan.'), draft: first.draft });
  });
});

describe('when speech was heard, in realtime', () => {
  /** A realtime conversation on a clock of its own, its replies' first audio timed on that clock. */
  const realtime = (generator: Generator, present: string[]) => {
    let clock = 1_000_000;
    const firstAudio = new Map<string, number>();
    const { conversation, heard } = openVoiced({
      generator,
      present,
      pace: 'realtime',
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
      },
      onAudio: (piece) => {
        if (!firstAudio.has(piece.draft)) firstAudio.set(piece.draft, clock - 1_000_000);
        heard.audio.push(piece);
      },
    });
    return { conversation, heard, firstAudio, advance: (ms: number) => (clock += ms), now: () => clock - 1_000_000 };
  };

  it("logs a reply as heard from its first audio, not from when its text was complete, and the report's timeline puts it there", async () => {
    const held = heldReply('Good morning everyone, and thank you for coming in today. ', 'Let us look at the plan.');
    const room = realtime(held.generator, []);
    await until(() => room.heard.audio.length > 0, 'the first audio');
    room.advance(1500); // the rest of the text comes 1.5 s after the room began to hear it
    held.release();
    await until(() => room.heard.events.some((e) => e.type === 'utterance'), 'the reply logged');
    const reply = room.heard.events.find((e) => e.type === 'utterance')!;
    if (reply.type !== 'utterance') throw new Error('expected an utterance');
    const from = room.firstAudio.get(reply.draft!)!;
    expect(reply.spoken).toEqual({ start: from, end: from + reply.durationMs });
    expect(reply.t).toBeGreaterThanOrEqual(from + 1500);
    room.conversation.send({ type: 'end' });
    const log = await room.conversation.ended;
    const origin = log.find((e) => e.type === 'session-start')!.t;
    const item = reportOf(log).timeline.find((i) => i.kind === 'utterance' && i.utterance === reply.id)!;
    expect(item).toMatchObject({ startMs: from - origin, endMs: from - origin + reply.durationMs });
  });

  it('logs the line a barge-in cut off from its first audio to where it stopped', async () => {
    const held = heldReply('Good morning everyone, and thank you for coming in today. ', 'We have a great deal to cover, so let us begin with the plan.');
    const room = realtime(held.generator, ['tara']);
    await until(() => room.heard.audio.length > 0 && room.heard.audio.at(-1)!.words.length > 0, 'the first clause');
    room.advance(700);
    room.conversation.voiceStarted('tara');
    await until(() => room.heard.stops.length > 0, 'audio-stop');
    held.release();
    const start = 1_000_000 + room.now() - 50;
    room.conversation.voiceEnded('tara', { text: 'Sorry to jump in, Ada, is the budget settled?', start, end: start + 2000 });
    await until(() => room.heard.events.some((e) => e.type === 'utterance' && e.speaker === 'tara'), "Tara's words");
    const cut = room.heard.events.find((e) => e.type === 'utterance' && e.speaker === 'ada')!;
    if (cut.type !== 'utterance') throw new Error('expected an utterance');
    const from = room.firstAudio.get(cut.draft!)!;
    expect(cut).toMatchObject({ interrupted: true, durationMs: room.heard.stops[0]!.atMs, spoken: { start: from, end: from + room.heard.stops[0]!.atMs } });
    room.conversation.send({ type: 'end' });
    await room.conversation.ended;
  });

  it("voices a scene's scripted line once the reply before it has been heard, never over it", async () => {
    const scripted = withLines([
      { speaker: 'ada', text: 'Ben, how did the pilot go last week?', to: 'ben' },
      { speaker: 'ada', text: 'Thank you, Ben. Let us move on to the budget now.' },
    ]);
    let clock = 1_000_000;
    const spans = new Map<string, { from: number; ms: number }>();
    const conversation = openConversation(scripted, {
      seed: 1,
      generator: createScriptedGenerator(),
      synthesizer: espeak,
      present: [],
      pace: 'realtime',
      now: () => clock,
      // Ten times faster than the wall clock: synthesis (real time) still ends long before its line is heard.
      sleep: async (ms) => {
        await new Promise((resolve) => setTimeout(resolve, ms / 10));
        clock += ms;
      },
      onAudio: (piece) => {
        const span = spans.get(piece.draft) ?? { from: clock, ms: 0 };
        span.ms = Math.max(span.ms, piece.offsetMs + durationOf(piece));
        spans.set(piece.draft, span);
      },
    });
    const log = await conversation.ended;
    const utterances = log.flatMap((e) => (e.type === 'utterance' ? [e] : []));
    // A scripted line (voiced under its own id) came right after a generated reply.
    const order = utterances.map((u) => u.draft ?? u.id);
    const second = utterances.findIndex((u) => u.source === 'scripted' && u.text.startsWith('Thank you'));
    expect(second).toBeGreaterThan(0);
    expect(utterances[second - 1]!.draft).toBeDefined();
    // Each voice starts once the one before it has been heard.
    const heard = order.filter((id) => spans.has(id)).map((id) => ({ id, ...spans.get(id)! }));
    expect(heard.length).toBe(utterances.length);
    for (let i = 1; i < heard.length; i++) {
      expect(heard[i]!.from, `${heard[i]!.id} starts after ${heard[i - 1]!.id} is heard`).toBeGreaterThanOrEqual(heard[i - 1]!.from + heard[i - 1]!.ms - 1);
    }
  });

  it('keeps instant sessions on simulated time: no heard times', async () => {
    const { conversation } = openVoiced({ generator: createScriptedGenerator(), present: [] });
    const log = await conversation.ended;
    const utterances = log.filter((e) => e.type === 'utterance');
    expect(utterances.length).toBeGreaterThan(0);
    for (const u of utterances) expect(u.type === 'utterance' && u.spoken).toBe(undefined);
  });
});

describe('speech the engine cuts or writes itself', () => {
  it("voices a scene's scripted lines too, under the utterance's own id", async () => {
    const scripted = makeScene({
      participants: [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), human('tara', 'Tara Quinn')],
      turnTaking: { policy: 'round-robin' },
      snippets: [{ id: 'a', initiator: 'ada', turns: 2, lines: [{ speaker: 'ada', text: 'Welcome, both of you, to the planning meeting.' }] }],
    });
    const { conversation, heard } = openVoiced({ generator: createScriptedGenerator(), present: [] }, scripted);
    const log = await conversation.ended;
    const line = log.find((e) => e.type === 'utterance' && e.source === 'scripted')!;
    expect(line).toMatchObject({ speaker: 'ada', text: 'Welcome, both of you, to the planning meeting.' });
    await until(() => heard.audio.some((a) => a.draft === (line.type === 'utterance' && line.id)), 'the line spoken');
    const words = heard.audio.filter((a) => line.type === 'utterance' && a.draft === line.id).flatMap((a) => a.words.map((w) => w.word));
    expect(words.slice(0, 2)).toEqual(['Welcome', 'both']);
  });

  it("stops a voice where the scene's interruption rule cut it, and logs the part that was said", async () => {
    const rude = makeScene({
      participants: [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), human('tara', 'Tara Quinn')],
      turnTaking: { policy: 'round-robin' },
      // Five turns: Ada speaks before the closing line, which no rule cuts.
      snippets: [{ id: 'a', initiator: 'ada', turns: 5, interruptions: [{ from: 'ben', to: 'ada', probability: 1, vibe: 'eager' }] }],
    });
    const { conversation, heard } = openVoiced({ generator: createScriptedGenerator(), present: [] }, rude);
    const log = await conversation.ended;
    const cut = log.find((e) => e.type === 'utterance' && e.interrupted)!;
    if (cut.type !== 'utterance') throw new Error('expected an interrupted utterance');
    const stop = heard.stops.find((s) => s.draft === cut.draft)!;
    expect(stop).toMatchObject({ speaker: 'ada', reason: 'interrupted' });
    const pieces = heard.audio.filter((a) => a.draft === cut.draft);
    const words = pieces.flatMap((p) => p.words);
    const said = cut.text.replace(/—$/, '').split(/\s+/).length;
    expect(stop.atMs).toBe(words[said]!.start);
    const whole = Math.max(...pieces.map((p) => p.offsetMs + durationOf(p)));
    expect(cut.durationMs).toBeLessThan(whole);
    expect(cut.durationMs).toBeGreaterThan(0);
  });
});

describe('a reply that repeats the session', () => {
  it('is stopped at its first clause and drawn again, never heard and then withdrawn', async () => {
    // Ada says the same thing every time: the screen rejects each repeat before it is voiced.
    const parrot: Generator = {
      name: 'parrot',
      async *stream() {
        yield 'I think we should ship the roadmap in March, ';
        yield 'as planned.';
      },
    };
    const { conversation, heard } = openVoiced({ generator: parrot, present: [], maxTurns: 3 });
    const log = await conversation.ended;
    const utterances = log.flatMap((e) => (e.type === 'utterance' ? [e] : []));
    const accepted = new Set(utterances.flatMap((e) => (e.draft ? [e.draft] : [])));
    const voiced = new Set(heard.audio.map((a) => a.draft));
    // Repeats were drawn again (up to five times), yet every draft that was heard is one the log kept.
    expect(utterances.some((u) => (u.resamples ?? 0) > 0)).toBe(true);
    expect([...voiced].filter((draft) => !accepted.has(draft))).toEqual([]);
    expect(heard.stops.filter((s) => s.reason === 'rejected')).toEqual([]);
  });
});

describe('barge-in by voice', () => {
  /** Runs the held first reply, lets `heardMs` of its audio play, then has Tara's voice start. */
  const bargeIn = async (sceneToUse = scene, heardMs = 700) => {
    let clock = 1_000_000;
    const held = heldReply('Good morning everyone, and thank you for coming in today. ', 'We have a great deal to cover, so let us begin with the plan.');
    const { conversation, heard } = openVoiced({ generator: held.generator, now: () => clock }, sceneToUse);
    await until(() => heard.audio.length > 0 && heard.audio.at(-1)!.words.length > 0, 'the first clause');
    clock += heardMs;
    conversation.voiceStarted('tara');
    return { conversation, heard, held, advance: (ms: number) => (clock += ms), clock: () => clock };
  };

  it('stops a polite persona where the listener is, and logs what was heard, the interruption with its offset, then the human', async () => {
    const { conversation, heard, held } = await bargeIn();
    await until(() => heard.stops.length > 0, 'audio-stop');
    expect(heard.stops[0]).toMatchObject({ speaker: 'ada', reason: 'barge-in', atMs: 700 });
    const audioBefore = heard.audio.length;
    held.release(); // the generator's rest is never spoken
    conversation.voiceEnded('tara', { text: 'Sorry to jump in, Ada, is the budget settled?', start: 1_000_650, end: 1_002_650 });
    await until(() => heard.events.some((e) => e.type === 'utterance' && e.speaker === 'tara'), "Tara's words");
    expect(heard.audio.filter((a) => a.draft === heard.stops[0]!.draft).length).toBe(audioBefore);
    const utterances = heard.events.filter((e) => e.type === 'utterance');
    const cutOff = utterances[0]!;
    expect(cutOff).toMatchObject({ speaker: 'ada', interrupted: true, durationMs: 700, text: expect.stringMatching(/^Good morning.*—$/) });
    expect(cutOff.type === 'utterance' && cutOff.text.includes('plan')).toBe(false);
    expect(heard.events.find((e) => e.type === 'interruption')).toMatchObject({ by: 'tara', of: 'ada', vibe: 'barge-in', atMs: 700 });
    expect(utterances[1]).toMatchObject({ speaker: 'tara', source: 'human', durationMs: 2000, spoken: { start: expect.any(Number), end: expect.any(Number) } });
    const tara = utterances[1]!;
    if (tara.type === 'utterance') expect(tara.spoken!.end - tara.spoken!.start).toBe(2000);
    conversation.send({ type: 'end' });
    await conversation.ended;
  });

  it('lets a persistent persona finish its clause', async () => {
    const stubborn = makeScene({
      participants: [ai('ada', 'Ada Park', { persona: { backstory: 'A manager.', bargeIn: 'persistent' } }), ai('ben', 'Ben Osei'), human('tara', 'Tara Quinn')],
      turnTaking: { policy: 'round-robin' },
      snippets: [{ id: 'a', initiator: 'ada', turns: 4 }],
    });
    const { conversation, heard, held } = await bargeIn(stubborn, 300);
    await until(() => heard.stops.length > 0, 'audio-stop');
    // The clause being heard when the barge-in came (300 ms in): more may have been synthesized after it.
    const pieces = heard.audio.filter((a) => a.draft === heard.stops[0]!.draft);
    const clause = pieces.find((p) => p.offsetMs <= 300 && p.offsetMs + durationOf(p) > 300)!;
    const clauseEnd = clause.offsetMs + durationOf(clause);
    expect(heard.stops[0]!.atMs).toBeGreaterThan(300);
    expect(heard.stops[0]!.atMs).toBeCloseTo(clauseEnd, 0);
    held.release();
    conversation.voiceEnded('tara', { text: 'Could we start with the budget?', start: 1_000_300, end: 1_001_300 });
    await until(() => heard.events.some((e) => e.type === 'interruption'), 'the interruption');
    // The clause being heard at 300 ms is the reply's first, which speech cuts short at its comma.
    expect(heard.events.find((e) => e.type === 'utterance')).toMatchObject({ speaker: 'ada', text: expect.stringMatching(/^Good morning everyone,?—$/) });
    conversation.send({ type: 'end' });
    await conversation.ended;
  });

  it('a sound with no words stops the persona, who then takes the turn again', async () => {
    const { conversation, heard, held } = await bargeIn();
    await until(() => heard.stops.length > 0, 'audio-stop');
    held.release();
    conversation.voiceEnded('tara', null);
    await until(() => heard.events.some((e) => e.type === 'utterance'), "Ada's turn, again");
    conversation.send({ type: 'end' });
    const log = await conversation.ended;
    expect(log.find((e) => e.type === 'system' && e.code === 'barge-in-without-words')).toBeTruthy();
    expect(held.calls()).toBeGreaterThan(1);
    const first = log.find((e) => e.type === 'utterance')!;
    // The turn was generated again, by the scripted generator this time, and spoken whole.
    expect(first).toMatchObject({ speaker: 'ada' });
    expect(first.type === 'utterance' && first.interrupted).toBeFalsy();
    expect(log.filter((e) => e.type === 'interruption')).toHaveLength(0);
  });
});

describe('the spoken reply pipeline', () => {
  it('hears the words that started before the stop point, as written', async () => {
    const pieces: AudioPiece[] = [];
    const reply = createSpokenReply({ synthesizer: espeak, voice: { espeak: 'en-us' }, onAudio: (p) => pieces.push(p) });
    reply.push(clausesOf('Well, the numbers are in, and they look good. Revenue grew by nine percent.'));
    const { durationMs } = await reply.finish();
    expect(durationMs).toBeCloseTo(reply.producedMs, 5);
    const words = pieces.flatMap((p) => p.words);
    const fourth = words[3]!;
    expect(reply.heardBefore(fourth.start + 1)).toBe('Well, the numbers are');
    expect(reply.heardBefore(durationMs + 1)).toBe('Well, the numbers are in, and they look good. Revenue grew by nine percent.');
    expect(await reply.stop(fourth.start, 'polite')).toBe(fourth.start);
  });
});

describe('a line said before the question it would answer was heard', () => {
  it("is the human's own, and the question queued behind speech still waits for their answer", async () => {
    const scripted = withLines([
      { speaker: 'ada', text: 'Good morning. Before we start, a word on the client: they signed on Monday, they want a demo on Friday, and their IT team has asked for a security review first.' },
      { speaker: 'ada', text: 'Tara, what did the client say about the deadline?', to: 'tara' },
    ]);
    // A clock that moves only when the test says: sleepers wake once it has passed their time.
    let clock = 1_000_000;
    let sleepers: { at: number; wake: () => void }[] = [];
    const advance = async (ms: number) => {
      for (let step = 0; step < ms; step += 100) {
        clock += 100;
        const due = sleepers.filter((s) => s.at <= clock);
        sleepers = sleepers.filter((s) => s.at > clock);
        for (const s of due) s.wake();
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    };
    const events: SessionEvent[] = [];
    const conversation = openConversation(scripted, {
      seed: 1,
      generator: createScriptedGenerator(),
      present: ['tara'],
      pace: 'realtime',
      now: () => clock,
      sleep: (ms) => new Promise<void>((wake) => sleepers.push({ at: clock + ms, wake })),
      onEvent: (event) => events.push(event),
    });
    const asked = () => events.find((e): e is Extract<SessionEvent, { type: 'utterance' }> => e.type === 'utterance' && e.text.startsWith('Tara, what did'));
    await until(() => asked() !== undefined && events.some((e) => e.type === 'human-input-required' && e.participant === 'tara'), 'the question');
    // Ada's first line takes some 10 s to hear: 2 s in, her question is logged but not yet heard.
    await advance(2000);
    conversation.send({ type: 'say', participant: 'tara', text: 'Sorry, I am a few minutes late.' });
    const early = events.findLast((e) => e.type === 'utterance' && e.speaker === 'tara') as Extract<SessionEvent, { type: 'utterance' }>;
    expect(early).toMatchObject({ text: 'Sorry, I am a few minutes late.', act: 'statement' });
    expect(early.replyTo).toBeUndefined();
    expect(conversation.state.awaiting?.speaker).toBe('tara');
    // Once the question has been heard, her line answers it.
    await advance(15_000);
    conversation.send({ type: 'say', participant: 'tara', text: 'They can live with Friday if the security review starts today.' });
    const answer = events.findLast((e) => e.type === 'utterance' && e.speaker === 'tara') as Extract<SessionEvent, { type: 'utterance' }>;
    expect(answer).toMatchObject({ act: 'answer', replyTo: asked()!.id });
    conversation.send({ type: 'end' });
    await advance(1000);
  });
});
