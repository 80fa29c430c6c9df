/**
 * The voice turn's own latency, with the providers' time taken out:
 *
 * - `reply.first_audio_overhead_p95_ms`: from the end of a human's turn (their transcript handed
 *   to the conversation) to the first audio chunk of the persona's reply, minus the fake providers'
 *   fixed latencies (the generator's time to its first clause, the synthesizer's time to its
 *   first chunk). What is left is the engine step, the clause chunker and the pipeline.
 * - `reply.first_audio_espeak_p95_ms`: the same with the embedded eSpeak NG voice (scripted
 *   generator with no latency of its own, nothing subtracted): what a user hears offline.
 * - `bargein.stop_ms`: from the true start of a human's speech (the fixture's truth) to the
 *   `audio-stop` that silences the persona, on the stream's clock: frame i is available at
 *   (i + 1) × 32 ms, plus the wall time its processing took (Silero VAD, the speech detector's
 *   128 ms minimum, the shell's cut).
 */

import { createListener } from '../server/conversation/listen';
import { openConversation } from '../server/conversation/conversation';
import { createSileroVad } from '../server/media/vad';
import type { Generator } from '../server/providers/generator/port';
import { createEspeakSynthesizer } from '../server/providers/synthesis/espeak';
import type { Synthesizer } from '../server/providers/synthesis/port';
import { loadAudioFixture } from '../tests/fixtures/audio/fixtures';
import { percentile, round, type BenchResult } from './timing';
import { voiceBenchScene } from './voice-scene';

const GENERATOR_LATENCY_MS = 40;
const SYNTHESIS_LATENCY_MS = 25;

const scene = voiceBenchScene('bench-voice', 'Voice bench');

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Replies different enough that the engine's anti-repetition (cosine > 0.5) never resamples. */
const replies = [
  'Sure, I can take that one. Budget first: we spend less on travel. Tara, does that work for you?',
  'Honestly the launch date worries me, because suppliers keep slipping. What would you cut, Tara?',
  'Hiring is going well; two engineers start in May. Tara, any concerns there?',
  'Our venue costs doubled, so let us look at smaller rooms downtown. Thoughts, Tara?',
  'Pricing should stay flat until customers see the new features. Do you agree, Tara?',
  'The pilot ran six weeks with forty schools and nobody dropped out. Tara, surprised?',
  'Support tickets fell by a third after the redesign shipped. Tara, have you seen the chart?',
  'Security review found nothing critical, only a couple of expired certificates. Tara, shall we renew them today?',
];

/** A vendor-like generator: a fixed wait, then the reply in small deltas (a question back to Tara, so the room waits for her). */
const fakeGenerator = (latencyMs: number): Generator => {
  let call = 0;
  return {
    name: 'fake',
    async *stream(_request, signal) {
      await wait(latencyMs);
      // Numbered, so no reply repeats an earlier one (the screen would draw a repeat again).
      const n = call++;
      const words = `Point ${n + 1}: ${replies[n % replies.length]!}`.split(/(?<= )/);
      for (let i = 0; i < words.length; i += 3) {
        if (signal?.aborted) return;
        yield words.slice(i, i + 3).join('');
      }
    },
  };
};

/** A vendor-like synthesizer: a fixed wait, then 200 ms of audio per clause with cues. */
const fakeSynthesizer: Synthesizer = {
  name: 'fake',
  async *synthesize() {
    await wait(SYNTHESIS_LATENCY_MS);
    yield { pcm: new Int16Array(3200), sampleRate: 16_000, offsetMs: 0, cues: [{ t: 0, viseme: 'aa' }], words: [{ word: 'sure', start: 0, end: 200 }] };
  },
};

/** Hands Tara's turn to the conversation `turns` times; returns ms from each hand-over to Ada's first audio. */
const firstAudio = async (generator: Generator, synthesizer: Synthesizer, turns: number): Promise<number[]> => {
  let handedAt = 0;
  let firstOf = '';
  const latencies: number[] = [];
  let waitingForTara: (() => void) | null = null;
  const conversation = openConversation(scene, {
    seed: 1,
    generator,
    synthesizer,
    present: ['tara'],
    maxTurns: 1000,
    onAudio: (piece) => {
      if (piece.draft !== firstOf && handedAt) {
        firstOf = piece.draft;
        latencies.push(performance.now() - handedAt);
      }
    },
    onEvent: (event) => {
      if (event.type === 'floor' && event.speaker === 'tara') waitingForTara?.();
    },
  });
  for (let i = 0; i < turns; i++) {
    await new Promise<void>((resolve) => (waitingForTara = resolve));
    const t = Date.now();
    handedAt = performance.now();
    conversation.voiceEnded('tara', { text: `Ada, what about item ${i + 1}?`, start: t - 1500, end: t - 300 });
  }
  conversation.send({ type: 'end' });
  await conversation.ended;
  return latencies.slice(3); // the first turns warm up the JIT (and eSpeak's worker)
};

/** One barge-in over a reply that is still streaming; returns the stop latency on the stream's clock. */
const bargeIn = async (fixture: string): Promise<number> => {
  const { pcm, truth } = await loadAudioFixture(fixture);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held: Generator = {
    name: 'held',
    async *stream(_request, signal) {
      yield 'Good morning everyone, and thank you for coming in today. ';
      await released;
      if (!signal?.aborted) yield 'Let us begin.';
    },
  };
  let spoke!: () => void;
  const speaking = new Promise<void>((resolve) => (spoke = resolve));
  let stoppedAt: number | null = null;
  const conversation = openConversation(scene, {
    seed: 1,
    generator: held,
    synthesizer: fakeSynthesizer,
    present: ['tara'],
    onAudio: () => spoke(),
    onAudioStop: () => (stoppedAt ??= performance.now()),
  });
  await speaking;
  const ear = createListener({
    transcriber: { name: 'fake', transcribe: async () => ({ text: 'Sorry to interrupt.' }) },
    vad: await createSileroVad(),
    onStart: () => conversation.voiceStarted('tara'),
    onEnd: (heard) => conversation.voiceEnded('tara', heard),
  });
  const frame = 512;
  let latency = Number.NaN;
  for (let i = 0; (i + 1) * frame <= pcm.length && Number.isNaN(latency); i++) {
    const pushed = performance.now();
    await ear.push(pcm.subarray(i * frame, (i + 1) * frame));
    if (stoppedAt !== null) latency = ((i + 1) * frame) / 16 + (stoppedAt - pushed) - truth.segments[0]!.startMs;
  }
  release();
  await ear.close();
  conversation.send({ type: 'end' });
  await conversation.ended;
  return latency;
};

export default async function replyBench(): Promise<BenchResult[]> {
  const fake = await firstAudio(fakeGenerator(GENERATOR_LATENCY_MS), fakeSynthesizer, 60);
  const overhead = fake.map((ms) => ms - GENERATOR_LATENCY_MS - SYNTHESIS_LATENCY_MS);
  const espeak = createEspeakSynthesizer();
  let spoken: number[];
  try {
    spoken = await firstAudio(fakeGenerator(0), espeak, 40);
  } finally {
    await espeak.close();
  }
  const stops: number[] = [];
  for (let i = 0; i < 6; i++) stops.push(await bargeIn(i % 2 ? 'hello-pause-noisy' : 'hello-pause'));
  return [
    { name: 'reply.first_audio_overhead_p50_ms', value: round(percentile(overhead, 50), 2), unit: 'ms' },
    { name: 'reply.first_audio_overhead_p95_ms', value: round(percentile(overhead, 95), 2), unit: 'ms' },
    { name: 'reply.first_audio_espeak_p95_ms', value: round(percentile(spoken, 95), 1), unit: 'ms' },
    { name: 'bargein.stop_ms', value: round(percentile(stops, 50), 1), unit: 'ms' },
    { name: 'bargein.stop_max_ms', value: round(Math.max(...stops), 1), unit: 'ms' },
  ];
}
