/**
 * The response gap as the trainee experiences it (issue 15): from the end of what they said to
 * the first sound of a persona's answer. Humans leave about 200 ms between turns (Stivers et al.
 * 2009); GPT-4o's voice mode answers in 232-320 ms.
 *
 * - `response_gap.typed_p50_ms`, `_p90_ms`: a typed line to the first audible sample of the reply,
 *   in the trainee's browser. The server is built as `npm start` builds it on its embedded
 *   defaults (scripted generator, eSpeak voices), in this process; the room page runs in headless
 *   Chromium with `?test=1`. In three scenes where personas question the trainee, whenever the
 *   room waits for the trainee and nothing plays, the page says a question to a persona by name
 *   and times, on its own clock, from the send to the moment the reply's first sample reaches the
 *   ears by the AudioContext clock (the voice output's position in the reply, which counts the
 *   output latency). `typed_server_p50_ms`: the server's share, from the line committed to the
 *   reply's first audio broadcast.
 * - `response_gap.voice_p50_ms`, `_p90_ms`: the finished turns of tests/fixtures/pauses.json,
 *   said by eSpeak and played into the server's listener (listen.ts: Silero VAD, the partial
 *   transcript at a pause, endpointing) in real time, 32 ms frames, with a fake transcriber that
 *   answers after {@link TRANSCRIBER_LATENCY_MS}; from the turn's last voiced sample to the
 *   persona's first audio chunk, in a realtime conversation on the embedded defaults.
 * - `response_gap.thinking_pause_ms`: what the pacing slept on purpose between the end of the
 *   trainee's spoken turn and the reply's first audio (median over the voice trials); it is taken
 *   out of the voice gap and reported here instead.
 * - `response_gap.false_cutoff_rate`: the mid-turn pauses of tests/fixtures/pauses.json, said with
 *   their pause and their continuation, through the listener on the stream's clock (the fake
 *   transcriber answers after the same latency, in stream time): the share of turns the listener
 *   ended in the pause, so that a persona would have started talking over the trainee.
 *   `finished_wait_p50_ms`: for the finished turns, from the last voiced sample to the end of the
 *   turn with its transcript in hand, the same way.
 *
 * `RESPONSE_GAP_TRIALS` sets the typed trials per scene (default 6); there are as many spoken turns.
 * `RESPONSE_GAP_SCENES` (comma-separated scene ids) replaces the three scenes.
 * `RESPONSE_GAP_PAUSES` takes only the first so many mid-turn and finished turns of pauses.json
 * for the endpointing figures (default all; the test of the runner takes a few).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { errors, type Page } from 'playwright-core';

import { createApp } from '../server/api/app';
import { staticFiles } from '../server/api/static';
import { createTokens } from '../server/auth/tokens';
import { loadConfig } from '../server/config';
import { openConversation } from '../server/conversation/conversation';
import { createListener } from '../server/conversation/listen';
import { createSileroVad, vadFrameSamples, vadSampleRate } from '../server/media/vad';
import { createGenerator } from '../server/providers/generator';
import { createEspeakSynthesizer, type EspeakSynthesizer } from '../server/providers/synthesis/espeak';
import type { Transcriber } from '../server/providers/transcription/port';
import { createRooms } from '../server/rooms/rooms';
import { loadScenes } from '../server/scene/load';
import { shortNameOf } from '../shared/scene/schema';
import { openStore } from '../server/store/store';
import { buildClient, launchBrowser } from '../tests/client/browser';
import { tempDir } from '../tests/server/helpers';
import { percentile, round, type BenchResult } from './timing';
import { voiceBenchScene } from './voice-scene';

/**
 * The fake transcriber's answer time. A local Whisper server (faster-whisper, the `openai`
 * transcriber) takes about 150-300 ms for a few seconds of speech on a GPU, a streaming vendor's
 * final about as long; cloud batch transcription is slower.
 */
const TRANSCRIBER_LATENCY_MS = 200;
const TRIALS_PER_SCENE = Number(process.env.RESPONSE_GAP_TRIALS ?? 6);
/** Scenes whose personas question the one trainee, so the room keeps coming back to them. */
const SCENES = process.env.RESPONSE_GAP_SCENES?.split(',').filter(Boolean) ?? ['job-interview', 'poster-session', 'conference-qa'];
const PAUSES = Number(process.env.RESPONSE_GAP_PAUSES ?? Number.POSITIVE_INFINITY);
const QUESTIONS = [
  'what would you change first?',
  'why do you think that happened?',
  'can you give me an example?',
  'how would you measure success here?',
  'what worries you most about this?',
  'what would you do differently next time?',
];

const frameMs = (vadFrameSamples / vadSampleRate) * 1000;
/** eSpeak writes exact zeros around speech: louder than -60 dBFS is the voice (as in tests/fixtures/audio). */
const SILENCE_BELOW = 0.001 * 32768;

const verbose = (line: string) => process.env.BENCH_VERBOSE && process.stderr.write(`response-gap: ${line}\n`);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Polls `check` every 20 ms; fails naming `what` after `timeoutMs`. */
const until = async (check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> => {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`response-gap: timed out waiting for ${what}`);
    await sleep(20);
  }
};

interface Fixtures {
  midTurn: { said: string; pauseMs: number; then: string; cue: string }[];
  finished: { said: string; cue: string }[];
}
const fixtures = JSON.parse(readFileSync(new URL('../tests/fixtures/pauses.json', import.meta.url), 'utf8')) as Fixtures;

// ---------------------------------------------------------------- the trainee's speech

/** A turn as the microphone hears it, 16 kHz, with each word's start (ms from the turn's first sample). */
interface SpokenTurn {
  pcm: Int16Array;
  words: { text: string; startMs: number }[];
  /** After the last sample louder than silence. */
  voicedEndMs: number;
}

/** eSpeak's 22,050 Hz output at 16 kHz, by linear interpolation (the VAD hears nothing above 4 kHz that matters). */
const to16k = (pcm: Int16Array, rate: number): Int16Array => {
  const step = rate / vadSampleRate;
  const out = new Int16Array(Math.floor(pcm.length / step));
  for (let i = 0; i < out.length; i++) {
    const x = i * step;
    const k = Math.floor(x);
    out[i] = Math.round(pcm[k]! + (x - k) * ((pcm[k + 1] ?? pcm[k]!) - pcm[k]!));
  }
  return out;
};

const bare = (word: string) => word.toLowerCase().replace(/[^a-z']/g, '');

/**
 * Says `text`; the words keep the text's spelling and punctuation, which the fake transcriber
 * gives back. eSpeak times a word it runs into the next ("for the") as one: the second starts
 * with the first.
 */
const say = async (espeak: EspeakSynthesizer, text: string): Promise<{ pcm: Int16Array; words: { text: string; startMs: number }[] }> => {
  const pieces: { pcm: Int16Array; offsetMs: number }[] = [];
  const timed: { word: string; start: number }[] = [];
  for await (const chunk of espeak.synthesize({ text, voice: { espeak: 'en-us' } })) {
    pieces.push({ pcm: to16k(chunk.pcm, chunk.sampleRate), offsetMs: chunk.offsetMs });
    timed.push(...chunk.words);
  }
  let next = 0;
  const words: { text: string; startMs: number }[] = [];
  for (const token of text.split(/\s+/).filter(Boolean)) {
    const timedHere = bare(token) === bare(timed[next]?.word ?? '');
    const previous = words.at(-1);
    if (!timedHere && !previous) throw new Error(`response-gap: eSpeak's first word in "${text}" is "${timed[0]?.word}"`);
    words.push({ text: token, startMs: timedHere ? timed[next++]!.start : previous!.startMs });
  }
  if (next !== timed.length) throw new Error(`response-gap: eSpeak timed words of "${text}" that are not in it: ${timed.slice(next).map((w) => w.word).join(' ')}`);
  const last = pieces.at(-1)!;
  const pcm = new Int16Array(Math.round(last.offsetMs * 16) + last.pcm.length);
  for (const piece of pieces) pcm.set(piece.pcm, Math.round(piece.offsetMs * 16));
  return { pcm, words };
};

const voicedEnd = (pcm: Int16Array): number => {
  let end = pcm.length;
  while (end > 0 && Math.abs(pcm[end - 1]!) <= SILENCE_BELOW) end--;
  return end / 16;
};

const silence = (ms: number) => new Int16Array(Math.round(ms * 16));

const join = (...parts: Int16Array[]): Int16Array => {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

/** `said`, then (mid-turn) `pauseMs` of silence and `then`, with `leadMs` and `tailMs` of silence around. */
const spokenTurn = async (espeak: EspeakSynthesizer, item: { said: string; pauseMs?: number; then?: string }, leadMs: number, tailMs: number): Promise<SpokenTurn> => {
  const first = await say(espeak, item.said);
  const firstEnd = voicedEnd(first.pcm);
  const shift = (words: { text: string; startMs: number }[], by: number) => words.map((w) => ({ text: w.text, startMs: w.startMs + by }));
  if (item.then === undefined || item.pauseMs === undefined) {
    const pcm = join(silence(leadMs), first.pcm.subarray(0, firstEnd * 16), silence(tailMs));
    return { pcm, words: shift(first.words, leadMs), voicedEndMs: leadMs + firstEnd };
  }
  const second = await say(espeak, item.then);
  const resumesAtMs = leadMs + firstEnd + item.pauseMs;
  const pcm = join(silence(leadMs), first.pcm.subarray(0, firstEnd * 16), silence(item.pauseMs), second.pcm, silence(tailMs));
  return { pcm, words: [...shift(first.words, leadMs), ...shift(second.words, resumesAtMs)], voicedEndMs: resumesAtMs + voicedEnd(second.pcm) };
};

/** What a transcriber makes of the turn's audio up to `ms`: the words begun by then. */
const heardBy = (turn: SpokenTurn, ms: number): string =>
  turn.words
    .filter((w) => w.startMs < ms)
    .map((w) => w.text)
    .join(' ');

// ---------------------------------------------------------------- (c) endpointing on the stream's clock

/**
 * Plays `turn` through a listener as fast as the VAD goes, on the stream's clock: the fake
 * transcriber answers once the stream has advanced by its latency. Returns where each turn the
 * listener heard was over, transcript in hand (stream ms).
 */
const endpoint = async (turn: SpokenTurn): Promise<number[]> => {
  let clock = 0;
  let pending: { at: number; answer: () => void }[] = [];
  const transcriber: Transcriber = {
    name: 'fake',
    transcribe: () =>
      new Promise((resolve) => {
        const text = heardBy(turn, clock);
        pending.push({ at: clock + TRANSCRIBER_LATENCY_MS, answer: () => resolve({ text }) });
      }),
  };
  const ends: number[] = [];
  const ear = createListener({ transcriber, vad: await createSileroVad(), onStart: () => {}, onEnd: () => ends.push(clock) });
  const answerDue = async () => {
    const due = pending.filter((p) => p.at <= clock);
    pending = pending.filter((p) => p.at > clock);
    for (const p of due) p.answer();
    // Lets the listener take each answer in before the next frame, as it would between real frames.
    await new Promise((resolve) => setImmediate(resolve));
  };
  for (let i = 0; (i + 1) * vadFrameSamples <= turn.pcm.length; i++) {
    await ear.push(turn.pcm.subarray(i * vadFrameSamples, (i + 1) * vadFrameSamples));
    clock = (i + 1) * frameMs;
    await answerDue();
  }
  clock = Number.POSITIVE_INFINITY;
  const closed = ear.close();
  await answerDue();
  await closed;
  return ends;
};

const endpointing = async (espeak: EspeakSynthesizer): Promise<{ falseCutoffs: number; finishedWaits: number[] }> => {
  const midTurn = fixtures.midTurn.slice(0, PAUSES);
  let falseCutoffs = 0;
  for (const item of midTurn) {
    const ends = await endpoint(await spokenTurn(espeak, item, 300, 2000));
    if (ends.length > 1) {
      falseCutoffs++;
      verbose(`cut off in the pause: "${item.said}" (${item.pauseMs} ms) ${item.then}`);
    }
  }
  const finishedWaits: number[] = [];
  for (const item of fixtures.finished.slice(0, PAUSES)) {
    const turn = await spokenTurn(espeak, item, 300, 2000);
    const ends = await endpoint(turn);
    if (ends.length !== 1) throw new Error(`response-gap: "${item.said}" was heard as ${ends.length} turns`);
    finishedWaits.push(ends[0]! - turn.voicedEndMs);
  }
  return { falseCutoffs: falseCutoffs / midTurn.length, finishedWaits };
};

// ---------------------------------------------------------------- (b) spoken turns, in real time

const voiceScene = voiceBenchScene('bench-response-gap', 'Response gap');

/**
 * Tara speaks each turn into an open microphone (a frame every 32 ms, silence in between) when
 * the room waits for her and Ada's last line has played; returns, per turn, ms from its last
 * voiced sample to Ada's first audio (thinking pause taken out), and the thinking pause.
 */
const voiceTrials = async (espeak: EspeakSynthesizer, turns: SpokenTurn[]): Promise<{ gaps: number[]; pauses: number[] }> => {
  let slept = 0;
  let turnOver = false;
  const pacingSleep = (ms: number) => {
    if (turnOver) slept += ms;
    return sleep(ms);
  };
  let tarasTurn = false;
  let audioUntil = 0;
  const firstAudio = new Map<string, number>();
  let onFirstAudio: ((at: number) => void) | null = null;
  const conversation = openConversation(voiceScene, {
    seed: 1,
    generator: createGenerator('scripted', {}),
    synthesizer: espeak,
    present: ['tara'],
    pace: 'realtime',
    maxTurns: 1000,
    sleep: pacingSleep,
    onAudio: (piece) => {
      const now = performance.now();
      if (!firstAudio.has(piece.draft)) {
        firstAudio.set(piece.draft, now);
        onFirstAudio?.(now);
      }
      audioUntil = Math.max(audioUntil, firstAudio.get(piece.draft)! + piece.offsetMs + (piece.pcm.length / piece.sampleRate) * 1000);
    },
    onEvent: (event) => {
      if (event.type === 'floor') tarasTurn = event.speaker === 'tara';
    },
  });

  /** The turn being said: when it started (its first sample) and the next sample the microphone takes. */
  let speaking = null as { turn: SpokenTurn; startedAt: number; next: number } | null;
  const transcriber: Transcriber = {
    name: 'fake',
    transcribe: () => {
      const text = speaking ? heardBy(speaking.turn, performance.now() - speaking.startedAt) : '';
      return sleep(TRANSCRIBER_LATENCY_MS).then(() => ({ text }));
    },
  };
  const ear = createListener({
    transcriber,
    vad: await createSileroVad(),
    onStart: () => conversation.voiceStarted('tara'),
    onEnd: (heard) => {
      turnOver = true;
      conversation.voiceEnded('tara', heard);
    },
  });

  // The microphone: frame i leaves it when its last sample has been spoken.
  const t0 = performance.now();
  let open = true;
  let frames = 0;
  const microphone = (async () => {
    while (open) {
      const frame = new Int16Array(vadFrameSamples);
      if (speaking && speaking.next < speaking.turn.pcm.length) {
        frame.set(speaking.turn.pcm.subarray(speaking.next, speaking.next + vadFrameSamples));
        speaking.next += vadFrameSamples;
      }
      frames++;
      await sleep(t0 + frames * frameMs - performance.now());
      void ear.push(frame);
    }
  })();

  const gaps: number[] = [];
  const pauses: number[] = [];
  try {
    for (const turn of turns) {
      await until(() => tarasTurn && performance.now() > audioUntil + 300, "Tara's turn in a quiet room");
      tarasTurn = false;
      const answered = new Promise<number>((resolve) => (onFirstAudio = resolve));
      // The turn starts with the next frame the microphone takes.
      const startedAt = t0 + frames * frameMs;
      speaking = { turn, startedAt, next: 0 };
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`response-gap: no reply to "${heardBy(turn, Infinity)}" within 20 s`)), 20_000)));
      const at = await Promise.race([answered, late]).finally(() => clearTimeout(timer));
      onFirstAudio = null;
      gaps.push(at - (startedAt + turn.voicedEndMs) - slept);
      verbose(`"${heardBy(turn, Infinity)}" answered after ${gaps.at(-1)!.toFixed(1)} ms (thinking pause ${slept} ms)`);
      pauses.push(slept);
      slept = 0;
      turnOver = false;
    }
  } finally {
    open = false;
    await microphone;
    await ear.close();
    conversation.send({ type: 'end' });
    await conversation.ended;
  }
  return { gaps, pauses };
};

// ---------------------------------------------------------------- (a) typed lines, in the browser

type RoomState = {
  connected: boolean;
  speakers: boolean;
  status: string;
  waitingFor: string | null;
  you: { participant: string | null } | null;
  transcript: { streaming: boolean }[];
  speech: Record<string, { speaker: string; state: string }>;
  participants: { id: string; name: string; kind: string }[];
};

/** The room is drawn, waits for this trainee, nothing plays and nothing is being written. */
const waitForTurn = (page: Page) =>
  page.waitForFunction(
    () => {
      const room = window.__room;
      const state = room?.state() as RoomState | undefined;
      if (!room || !state?.connected || !state.speakers || state.status !== 'live') return false;
      // Every other avatar drawn: a room still loading its avatars would hold up the page's main thread.
      return (
        room.stats().avatars === state.participants.length - 1 &&
        state.waitingFor === state.you?.participant &&
        room.speaking() === null &&
        !state.transcript.some((line) => line.streaming) &&
        Object.values(state.speech).every((speech) => speech.state === 'over')
      );
    },
    undefined,
    // Longer, and the room has moved on without the trainee: a new session is opened instead.
    { timeout: 90_000, polling: 50 },
  );

/**
 * In the page: says `text` and returns ms from the send to the reply's first audible sample.
 * `progress(draft).positionMs` is where the reply is as heard now, so now minus it is where its
 * first sample is heard, on the page's clock. The audio clock advances a buffer at a time, so a
 * reading just after it moved is the truest: the earliest over a few buffers is kept.
 */
const timeTyped = (page: Page, text: string) =>
  // No named functions in here: the bundler would wrap them in a helper the page does not have.
  page.evaluate(async (line) => {
    const room = window.__room!;
    const known = new Set(Object.keys((room.state() as RoomState).speech));
    const sent = performance.now();
    room.say(line);
    let draft: string | undefined;
    while (!(draft = Object.keys((room.state() as RoomState).speech).find((d) => !known.has(d)))) {
      if (performance.now() - sent > 20_000) return null;
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    let audible = Number.POSITIVE_INFINITY;
    for (const stop = performance.now() + 60; performance.now() < stop; await new Promise((resolve) => setTimeout(resolve, 0))) {
      const progress = room.progress(draft);
      if (progress) audible = Math.min(audible, performance.now() - progress.positionMs);
    }
    return Number.isFinite(audible) ? { gapMs: audible - sent, speaker: (room.state() as RoomState).speech[draft]!.speaker } : null;
  }, text);

const typedTrials = async (): Promise<{ gaps: number[]; server: number[] }> => {
  await buildClient();
  const dataDir = tempDir();
  // The embedded defaults: no vendor variables, so the scripted generator and eSpeak.
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_TOKEN: 'bench-admin-token-0123456789', LOG_LEVEL: 'silent' });
  const scenes = new Map((await loadScenes(new URL('../scenes', import.meta.url).pathname)).filter((s) => SCENES.includes(s.id)).map((s) => [s.id, s]));
  const store = openStore(dataDir);
  const generator = createGenerator(config.generator, {});
  const espeak = createEspeakSynthesizer();
  const rooms = createRooms({ store, scenes, generator: () => generator, synthesizer: () => espeak });
  const tokens = createTokens(randomBytes(32).toString('base64url'));
  const { app, injectWebSocket } = createApp({ config, rooms, store, tokens, version: 'bench', scenes: [...scenes.values()] });
  app.route('/', staticFiles().app);
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  injectWebSocket(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  const browser = await launchBrowser();
  const gaps: number[] = [];
  const serverGaps: number[] = [];
  try {
    /** One session of the scene, the trainee's page in it: trials until `wanted`, or until the room stops coming back to the trainee. */
    const trialsIn = async (sceneId: string, wanted: number): Promise<number> => {
      const room = rooms.create(sceneId, { pace: 'realtime' });
      const trainee = room.scene.participants.find((p) => p.kind === 'human')!;
      const personas = room.scene.participants.filter((p) => p.kind === 'ai');
      let lineAt: number | null = null;
      const unsubscribe = room.subscribe((message) => {
        if (message.type === 'event' && message.event.type === 'utterance' && message.event.speaker === trainee.id) lineAt = performance.now();
        else if (message.type === 'audio' && message.seq === 0 && lineAt !== null) {
          serverGaps.push(performance.now() - lineAt);
          lineAt = null;
        }
      });
      const token = tokens.sign({ session: room.id, participant: trainee.id, role: 'participant' }, 3_600_000, Date.now());
      // Small, so that software rendering takes less of the page's main thread than it would at full size.
      const page = await browser.newPage({ viewport: { width: 480, height: 270 } });
      let done = 0;
      try {
        await page.goto(`http://localhost:${port}/room/${room.id}?token=${encodeURIComponent(token)}&test=1`);
        for (; done < wanted; done++) {
          try {
            await waitForTurn(page);
          } catch (error) {
            if (error instanceof errors.TimeoutError) break;
            throw error;
          }
          const persona = personas[gaps.length % personas.length]!;
          const result = await timeTyped(page, `${shortNameOf(persona)}, ${QUESTIONS[gaps.length % QUESTIONS.length]}`);
          if (!result) throw new Error(`response-gap: ${sceneId}: no audible reply to the trainee's line`);
          gaps.push(result.gapMs);
          verbose(`${sceneId}: ${persona.id} asked, ${result.speaker} heard after ${result.gapMs.toFixed(1)} ms (server ${serverGaps.at(-1)?.toFixed(1)} ms)`);
        }
      } finally {
        unsubscribe();
        await page.close();
        room.conversation.send({ type: 'end' });
      }
      return done;
    };
    for (const sceneId of SCENES) {
      let done = 0;
      for (let sessions = 1; done < TRIALS_PER_SCENE; sessions++) {
        if (sessions > 3) throw new Error(`response-gap: ${sceneId}: the room waited for the trainee only ${done} times in 3 sessions`);
        done += await trialsIn(sceneId, TRIALS_PER_SCENE - done);
      }
    }
  } finally {
    await browser.close();
    for (const room of rooms.list()) if (!room.ended()) room.conversation.send({ type: 'end' });
    await Promise.all(rooms.list().map((room) => room.conversation.ended));
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    store.close();
    await espeak.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return { gaps, server: serverGaps };
};

export default async function responseGapBench(): Promise<BenchResult[]> {
  const typed = await typedTrials();
  const espeak = createEspeakSynthesizer();
  try {
    // As many spoken turns as typed lines, spread over the finished turns (questions first, then statements).
    const { finished } = fixtures;
    const count = TRIALS_PER_SCENE * SCENES.length;
    const turns = await Promise.all(Array.from({ length: count }, (_, i) => spokenTurn(espeak, finished[Math.floor((i * finished.length) / count)]!, 0, 0)));
    const voice = await voiceTrials(espeak, turns);
    const { falseCutoffs, finishedWaits } = await endpointing(espeak);
    return [
      { name: 'response_gap.typed_p50_ms', value: round(percentile(typed.gaps, 50), 1), unit: 'ms' },
      { name: 'response_gap.typed_p90_ms', value: round(percentile(typed.gaps, 90), 1), unit: 'ms' },
      { name: 'response_gap.typed_server_p50_ms', value: round(percentile(typed.server, 50), 1), unit: 'ms' },
      { name: 'response_gap.voice_p50_ms', value: round(percentile(voice.gaps, 50), 1), unit: 'ms' },
      { name: 'response_gap.voice_p90_ms', value: round(percentile(voice.gaps, 90), 1), unit: 'ms' },
      { name: 'response_gap.thinking_pause_ms', value: round(percentile(voice.pauses, 50), 1), unit: 'ms' },
      { name: 'response_gap.false_cutoff_rate', value: round(falseCutoffs, 3), unit: 'ratio' },
      { name: 'response_gap.finished_wait_p50_ms', value: round(percentile(finishedWaits, 50), 1), unit: 'ms' },
    ];
  } finally {
    await espeak.close();
  }
}
