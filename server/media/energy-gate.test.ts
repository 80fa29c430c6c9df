import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rngFrom } from '../../shared/rng';
import { loadAudioFixture } from '../../tests/fixtures/audio/fixtures';
import { withEnergyGate } from './energy-gate';
import { createSpeechDetector, type SpeechEvent } from './speech-detector';
import { createSileroVad, vadFrameSamples, type Vad } from './vad';

const frameMs = 32;
const rate = 16_000;

/** Gaussian room noise at `rmsDbfs`, seeded. */
const noise = (ms: number, rmsDbfs: number, seed: number): Float64Array => {
  const rng = rngFrom(seed);
  return Float64Array.from({ length: (ms * rate) / 1000 }, () => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next()) * 10 ** (rmsDbfs / 20) * 32768);
};

/** Parts laid end to end, then `over` added sample by sample, as PCM16. */
const mix = (parts: ArrayLike<number>[], over?: ArrayLike<number>): Int16Array => {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) out[at + i] = Math.max(-32768, Math.min(32767, Math.round(part[i]! + (over?.[at + i] ?? 0))));
    at += part.length;
  }
  return out;
};

/** The VAD, with how many frames it was asked about. */
const counted = (vad: Vad): Vad & { calls: number } => {
  const wrapper = {
    calls: 0,
    frame: (samples: Float32Array) => {
      wrapper.calls++;
      return vad.frame(samples);
    },
    reset: () => vad.reset(),
    close: async () => undefined,
  };
  return wrapper;
};

const detect = async (pcm: Int16Array, vad: Vad): Promise<SpeechEvent[]> => {
  vad.reset();
  const detector = createSpeechDetector({ vad });
  const events: SpeechEvent[] = [];
  for (let at = 0; at < pcm.length; at += vadFrameSamples) events.push(...(await detector.push(pcm.subarray(at, at + vadFrameSamples))));
  return [...events, ...(await detector.end())];
};

const timesOf = (events: SpeechEvent[]) => events.map((e) => [e.type, e.atMs] as const);

let silero: Vad;
beforeAll(async () => {
  silero = await createSileroVad();
});
afterAll(() => silero.close());

/** Events with and without the gate, and the share of frames the gate let through to Silero. */
const compare = async (pcm: Int16Array) => {
  const ungated = await detect(pcm, silero);
  const inner = counted(silero);
  const gated = await detect(pcm, withEnergyGate(inner));
  return { ungated, gated, asked: inner.calls / Math.floor(pcm.length / vadFrameSamples) };
};

const expectSameWithinAFrame = (gated: SpeechEvent[], ungated: SpeechEvent[]) => {
  expect(gated.map((e) => e.type)).toEqual(ungated.map((e) => e.type));
  gated.forEach((event, i) => expect(Math.abs(event.atMs - ungated[i]!.atMs), `${event.type} #${i}`).toBeLessThanOrEqual(frameMs));
};

describe('the energy gate in front of Silero', () => {
  it('finds speech after 10 s of room noise where Silero alone does, asking Silero about a fraction of the frames', async () => {
    const { pcm: speech } = await loadAudioFixture('hello-pause');
    const room = noise(10_000 + (speech.length * 1000) / rate, -50, 3);
    const { ungated, gated, asked } = await compare(mix([new Int16Array(10 * rate), speech], room));
    expect(timesOf(ungated)).toHaveLength(4);
    expectSameWithinAFrame(gated, ungated);
    // 10 s of noise of the 14.5 s: Silero hears the speech, its pauses and little else.
    expect(asked).toBeLessThan(0.5);
  });

  it('finds speech after 10 s of digital silence, and says nothing in it', async () => {
    const { pcm: speech } = await loadAudioFixture('hello-pause');
    const { ungated, gated, asked } = await compare(mix([new Int16Array(10 * rate), speech]));
    expect(timesOf(ungated)).toHaveLength(4);
    expectSameWithinAFrame(gated, ungated);
    expect(asked).toBeLessThan(0.5);
  });

  it('keeps a short pause inside the utterance, as Silero alone does', async () => {
    const { pcm: speech } = await loadAudioFixture('short-pause');
    const room = noise(5_000 + (speech.length * 1000) / rate, -45, 5);
    const { ungated, gated } = await compare(mix([new Int16Array(5 * rate), speech], room));
    expect(ungated.map((e) => e.type)).toEqual(['speech-start', 'speech-end']);
    expectSameWithinAFrame(gated, ungated);
  });

  it('follows a fan that starts: the floor rises to the new noise, the gate closes again, and speech over it is found', async () => {
    const { pcm: speech } = await loadAudioFixture('hello-pause');
    const quiet = noise(4_000, -65, 7);
    const fan = noise(8_000 + (speech.length * 1000) / rate, -40, 8);
    const pcm = mix([quiet, new Int16Array(8 * rate), speech], [...new Array<number>(quiet.length).fill(0), ...fan]);
    const { ungated, gated } = await compare(pcm);
    expect(ungated).toHaveLength(4);
    expectSameWithinAFrame(gated, ungated);

    // The fan's last 5 s alone: once the floor has followed it, Silero is hardly asked.
    const inner = counted(silero);
    inner.reset();
    const gate = withEnergyGate(inner);
    const fanOnly = mix([quiet, new Int16Array(8 * rate)], [...new Array<number>(quiet.length).fill(0), ...fan]);
    const frames = Math.floor(fanOnly.length / vadFrameSamples);
    const toFloat = (at: number) => Float32Array.from(fanOnly.subarray(at, at + vadFrameSamples), (s) => s / 32768);
    let askedInLastFiveSeconds = 0;
    for (let f = 0; f < frames; f++) {
      const before = inner.calls;
      await gate.frame(toFloat(f * vadFrameSamples));
      if (f >= frames - (5000 / frameMs)) askedInLastFiveSeconds += inner.calls - before;
    }
    expect(askedInLastFiveSeconds).toBeLessThan(5);
  });

  it('answers 0 for the frames it keeps from Silero, and the detector hears no speech in them', async () => {
    const inner = counted(silero);
    const gate = withEnergyGate(inner);
    const room = mix([noise(3_000, -50, 9)]);
    const answers: number[] = [];
    for (let at = 0; at + vadFrameSamples <= room.length; at += vadFrameSamples) {
      answers.push(await gate.frame(Float32Array.from(room.subarray(at, at + vadFrameSamples), (s) => s / 32768)));
    }
    expect(inner.calls).toBeLessThan(answers.length);
    expect(answers.slice(inner.calls)).toEqual(new Array(answers.length - inner.calls).fill(0));
    expect(await detect(room, withEnergyGate(silero))).toEqual([]);
  });
});
