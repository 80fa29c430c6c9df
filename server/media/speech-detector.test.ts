import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rngFrom } from '../../shared/rng';
import { loadAudioFixture, type AudioFixture } from '../../tests/fixtures/audio/fixtures';
import { createSpeechDetector, type SpeechDetectorOptions, type SpeechEvent } from './speech-detector';
import { createSileroVad, vadFrameSamples, type Vad } from './vad';

const frameMs = 32;

/** A VAD that answers from a script, one probability per frame (0 once the script runs out). */
const scriptedVad = (probabilities: number[]): Vad => {
  let frame = 0;
  return {
    frame: async () => probabilities[frame++] ?? 0,
    reset: () => void (frame = 0),
    close: async () => undefined,
  };
};

/** `ms` of a probability, as whole frames. */
const hold = (p: number, ms: number): number[] => Array<number>(Math.round(ms / frameMs)).fill(p);

/** Samples whose value is their frame's index, so a cut can be read off the audio. */
const numberedFrames = (count: number): Int16Array =>
  Int16Array.from({ length: count * vadFrameSamples }, (_, i) => Math.floor(i / vadFrameSamples));

const detect = async (pcm: Int16Array, options: SpeechDetectorOptions, chunk = 512): Promise<SpeechEvent[]> => {
  const detector = createSpeechDetector(options);
  const events: SpeechEvent[] = [];
  for (let at = 0; at < pcm.length; at += chunk) events.push(...(await detector.push(pcm.subarray(at, at + chunk))));
  events.push(...(await detector.end()));
  return events;
};

/** Utterances as [start, end] in ms. */
const spans = (events: SpeechEvent[]): [number, number][] => {
  const out: [number, number][] = [];
  for (const event of events) {
    if (event.type === 'speech-start') out.push([event.atMs, NaN]);
    else out[out.length - 1]![1] = event.atMs;
  }
  return out;
};

describe('the speech detector rules', () => {
  const run = (probabilities: number[], options: Partial<SpeechDetectorOptions> = {}) =>
    detect(numberedFrames(probabilities.length + 40), { vad: scriptedVad(probabilities), ...options });

  it('starts an utterance where the run of frames above the offset threshold began', async () => {
    const events = await run([...hold(0, 320), 0.4, 0.4, ...hold(0.9, 640), ...hold(0, 1000)]);
    expect(spans(events)).toEqual([[320, 320 + 64 + 640]]);
  });

  it('needs the onset threshold to start: a murmur at 0.45 is not speech', async () => {
    expect(await run([...hold(0.45, 2000)])).toEqual([]);
  });

  it('does not count a blip shorter than minSpeechMs', async () => {
    expect(await run([...hold(0, 320), ...hold(0.95, 192), ...hold(0, 1000)])).toEqual([]);
    expect(spans(await run([...hold(0, 320), ...hold(0.95, 256), ...hold(0, 1000)]))).toEqual([[320, 576]]);
  });

  it('emits speech-start once minSpeechMs have passed, dated back to the start', async () => {
    const detector = createSpeechDetector({ vad: scriptedVad([...hold(0, 320), ...hold(0.9, 1000)]) });
    const firstHalf = await detector.push(numberedFrames(10 + 7));
    const then = await detector.push(numberedFrames(1));
    expect(firstHalf).toEqual([]);
    expect(then).toEqual([{ type: 'speech-start', atMs: 320 }]);
  });

  it('keeps a pause shorter than minSilenceMs inside the utterance, and ends at a longer one', async () => {
    const speech = hold(0.9, 640);
    const events = await run([...speech, ...hold(0, 640), ...speech, ...hold(0, 704), ...speech], { minSilenceMs: 700 });
    expect(spans(events)).toEqual([
      [0, 1920],
      [2624, 3264],
    ]);
  });

  it('does not resume on a frame between the thresholds while a pause is running', async () => {
    const events = await run([...hold(0.9, 640), ...hold(0, 320), ...hold(0.4, 320), ...hold(0, 320)], { minSilenceMs: 700 });
    expect(spans(events)).toEqual([[0, 640]]);
  });

  it('asks the endpointing rule again at every silent frame', async () => {
    let needed = 2000;
    const detector = createSpeechDetector({ vad: scriptedVad([...hold(0.9, 640)]), minSilenceMs: () => needed });
    expect(await detector.push(numberedFrames(20 + 15))).toEqual([{ type: 'speech-start', atMs: 0 }]);
    needed = 350;
    const [ended] = await detector.push(numberedFrames(1));
    expect(ended).toMatchObject({ type: 'speech-end', atMs: 640 });
  });

  it('hands over the utterance with 200 ms before its start and 100 ms after its end', async () => {
    const events = await run([...hold(0, 640), ...hold(0.9, 640), ...hold(0, 1000)]);
    const ended = events.find((e) => e.type === 'speech-end');
    // Frames 20-39 are speech; the pre-roll reaches 200 ms (6.25 frames) back, the post-roll 100 ms on.
    expect(ended?.audio.length).toBe((640 + 200 + 100) * 16);
    expect(ended?.audio[0]).toBe(13);
    expect(ended?.audio.at(-1)).toBe(43);
  });

  it('ends an open utterance when the stream ends, where the voice stopped', async () => {
    const detector = createSpeechDetector({ vad: scriptedVad([...hold(0.9, 640), ...hold(0, 320)]) });
    await detector.push(numberedFrames(30));
    const [ended] = await detector.end();
    expect(ended).toMatchObject({ type: 'speech-end', atMs: 640 });
    expect(await detector.end()).toEqual([]);
  });

  it('reports a pause once, with the utterance so far, before the silence ends it', async () => {
    // 640 ms of speech, a 256 ms pause, 320 ms more, then silence until the end.
    const probabilities = [...hold(0.9, 640), ...hold(0, 256), ...hold(0.9, 320), ...hold(0, 1000)];
    const pcm = numberedFrames(probabilities.length);
    const events = await detect(pcm, { vad: scriptedVad(probabilities), pauseMs: 200, preRollMs: 0, postRollMs: 0 });
    expect(events.map((e) => [e.type, e.atMs])).toEqual([
      ['speech-start', 0],
      ['speech-pause', 640],
      ['speech-pause', 1216],
      ['speech-end', 1216],
    ]);
    const pause = events[1] as Extract<SpeechEvent, { type: 'speech-pause' }>;
    expect(pause.audio.length).toBe(640 * 16);
    expect(Array.from(pause.audio.subarray(0, 512 * 2))).toEqual(Array.from(pcm.subarray(0, 512 * 2)));
  });

  it('refuses an offset threshold above the onset threshold', () => {
    expect(() => createSpeechDetector({ vad: scriptedVad([]), onsetThreshold: 0.3 })).toThrow(
      'offsetThreshold (0.35) must not be above onsetThreshold (0.3)',
    );
  });

  it('handles pushes that overlap in the order they were made', async () => {
    const probabilities = [...hold(0, 320), ...hold(0.9, 640), ...hold(0, 1000)];
    const pcm = numberedFrames(probabilities.length);
    const detector = createSpeechDetector({ vad: scriptedVad(probabilities) });
    const pushes = [];
    for (let at = 0; at < pcm.length; at += 700) pushes.push(detector.push(pcm.subarray(at, at + 700)));
    const events = (await Promise.all(pushes)).flat();
    expect(events).toEqual(await detect(pcm, { vad: scriptedVad(probabilities) }));
  });
});

describe('the speech detector on speech (Silero VAD, eSpeak NG fixtures)', () => {
  let vad: Vad;
  beforeAll(async () => {
    vad = await createSileroVad();
  });
  afterAll(() => vad.close());

  const detectSpeech = async (pcm: Int16Array, chunk = 512, options: Partial<SpeechDetectorOptions> = {}) => {
    vad.reset();
    return detect(pcm, { vad, ...options }, chunk);
  };

  const expectWithin100Ms = (events: SpeechEvent[], truth: AudioFixture) => {
    const found = spans(events);
    expect(found).toHaveLength(truth.segments.length);
    truth.segments.forEach((segment, i) => {
      const [start, end] = found[i]!;
      expect(Math.abs(start - segment.startMs), `start of "${segment.text}"`).toBeLessThanOrEqual(100);
      expect(Math.abs(end - segment.endMs), `end of "${segment.text}"`).toBeLessThanOrEqual(100);
    });
  };

  it.each(['hello-pause', 'hello-pause-noisy'])('finds where each sentence starts and ends within 100 ms (%s)', async (name) => {
    const { pcm, truth } = await loadAudioFixture(name);
    expectWithin100Ms(await detectSpeech(pcm), truth);
  });

  it('hears a 200 ms pause, within 100 ms, when told to end on 100 ms of silence', async () => {
    const { pcm, truth } = await loadAudioFixture('short-pause');
    expectWithin100Ms(await detectSpeech(pcm, 512, { minSilenceMs: 100 }), truth);
  });

  it('splits at a 1.5 s pause but not at a 200 ms one', async () => {
    const twoSentences = await detectSpeech((await loadAudioFixture('hello-pause')).pcm);
    const oneSentence = await detectSpeech((await loadAudioFixture('short-pause')).pcm);
    expect(twoSentences.map((e) => e.type)).toEqual(['speech-start', 'speech-end', 'speech-start', 'speech-end']);
    expect(oneSentence.map((e) => e.type)).toEqual(['speech-start', 'speech-end']);
  });

  it("hands over the stream's own samples, from 200 ms before the start to past the end of the sentence", async () => {
    const { pcm, truth } = await loadAudioFixture('hello-pause');
    const events = await detectSpeech(pcm);
    spans(events).forEach(([startMs], i) => {
      const { audio } = events[2 * i + 1] as Extract<SpeechEvent, { type: 'speech-end' }>;
      const from = (startMs - 200) * 16;
      const segment = truth.segments[i]!;
      expect(audio).toEqual(pcm.slice(from, from + audio.length));
      expect(from).toBeLessThanOrEqual(segment.startSample);
      expect(from + audio.length).toBeGreaterThanOrEqual(segment.endSample);
    });
  });

  it('gives the same events whatever the size of the pushed chunks', async () => {
    const { pcm } = await loadAudioFixture('hello-pause-noisy');
    const byFrame = await detectSpeech(pcm, 512);
    expect(byFrame).toHaveLength(4);
    expect(await detectSpeech(pcm, 160)).toEqual(byFrame);
    expect(await detectSpeech(pcm, 1000)).toEqual(byFrame);
  });

  it('hears no speech in digital silence or in low room noise', async () => {
    const seconds = 3;
    const silence = new Int16Array(seconds * 16_000);
    const rng = rngFrom(11);
    const noise = (rmsDbfs: number) =>
      Int16Array.from(silence, () => {
        const gaussian = Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
        return Math.round(gaussian * 10 ** (rmsDbfs / 20) * 32768);
      });
    expect(await detectSpeech(silence)).toEqual([]);
    expect(await detectSpeech(noise(-50))).toEqual([]);
    expect(await detectSpeech(noise(-40))).toEqual([]);
  });
});
