import { beforeEach, describe, expect, it } from 'vitest';
import type { VisemeCue } from '../../../shared/visemes';
import { createVoiceOutput, decodePcm16, type VoiceOutput, type VoicePiece } from './playback';

/** Just enough of Web Audio to watch what gets scheduled, on a clock the test moves. */
class FakeParam {
  /** Automation events scheduled so far. */
  events = 0;
  constructor(public value = 0) {}
  setValueAtTime(value: number) {
    this.value = value;
    this.events++;
    return this;
  }
  setTargetAtTime(value: number) {
    this.value = value;
    return this;
  }
}

class FakeNode {
  outputs: FakeNode[] = [];
  connect<T extends FakeNode>(node: T): T {
    this.outputs.push(node);
    return node;
  }
  disconnect() {
    this.outputs = [];
  }
}

class FakeBuffer {
  readonly data: Float32Array;
  constructor(
    readonly length: number,
    readonly sampleRate: number,
  ) {
    if (length === 0) throw new Error('NotSupportedError: a buffer needs at least one sample');
    this.data = new Float32Array(length);
  }
  get duration() {
    return this.length / this.sampleRate;
  }
  getChannelData() {
    return this.data;
  }
}

class FakeSource extends FakeNode {
  buffer: FakeBuffer | null = null;
  startedAt: number | undefined;
  stoppedAt: number | undefined;
  onended: (() => void) | null = null;
  constructor(private readonly context: FakeContext) {
    super();
  }
  start(when = 0) {
    this.startedAt = when;
  }
  stop(when = 0) {
    this.stoppedAt = Math.max(when, this.context.currentTime);
  }
  /** When sound from this source is heard until, as Web Audio would play it. */
  get audibleUntil() {
    const end = this.startedAt! + this.buffer!.duration;
    return this.stoppedAt === undefined ? end : Math.min(end, this.stoppedAt);
  }
}

class FakeGain extends FakeNode {
  gain = new FakeParam(1);
}

class FakePanner extends FakeNode {
  panningModel = 'equalpower';
  distanceModel = 'exponential';
  refDistance = 0;
  maxDistance = 0;
  rolloffFactor = 0;
  positionX = new FakeParam();
  positionY = new FakeParam();
  positionZ = new FakeParam();
}

class FakeContext {
  currentTime = 10;
  baseLatency = 0;
  outputLatency = 0;
  state: AudioContextState = 'running';
  destination = new FakeNode();
  listener = Object.fromEntries(
    ['positionX', 'positionY', 'positionZ', 'forwardX', 'forwardY', 'forwardZ', 'upX', 'upY', 'upZ'].map((name) => [name, new FakeParam()]),
  );
  sources: FakeSource[] = [];
  panners: FakePanner[] = [];
  createBuffer(_channels: number, length: number, sampleRate: number) {
    return new FakeBuffer(length, sampleRate);
  }
  createBufferSource() {
    const source = new FakeSource(this);
    this.sources.push(source);
    return source;
  }
  createGain() {
    return new FakeGain();
  }
  createPanner() {
    const panner = new FakePanner();
    this.panners.push(panner);
    return panner;
  }
  async resume() {
    this.state = 'running';
  }
  async close() {
    this.state = 'closed';
  }
}

const rate = 24_000;

/** `ms` of a constant tone; the pieces of a draft follow each other. */
const piece = (draft: string, seq: number, offsetMs: number, ms: number, cues: VisemeCue[] = [], speaker = 'nora'): VoicePiece => ({
  speaker,
  draft,
  seq,
  offsetMs,
  sampleRate: rate,
  pcm: new Int16Array((rate * ms) / 1000).fill(8000),
  cues,
});

/** `ms` of a human's voice at 16 kHz. */
const frame = (ms: number, amplitude = 8000) => new Int16Array(16 * ms).fill(amplitude);

describe('voice output', () => {
  let context: FakeContext;
  let output: VoiceOutput;
  beforeEach(() => {
    context = new FakeContext();
    output = createVoiceOutput(context as unknown as AudioContext, { leadMs: 40 });
  });
  const starts = () => context.sources.map((source) => source.startedAt);

  it('starts a reply 40 ms ahead and plays its pieces back to back', () => {
    output.play(piece('d1', 0, 0, 100));
    context.currentTime = 10.05;
    output.play(piece('d1', 1, 100, 200));
    output.play(piece('d1', 2, 300, 100));
    expect(starts()[0]).toBeCloseTo(10.04, 9);
    expect(starts()[1]).toBeCloseTo(10.14, 9);
    expect(starts()[2]).toBeCloseTo(10.34, 9);
    expect(context.sources[0]!.buffer!.data[0]).toBeCloseTo(8000 / 32768);
  });

  it('starts a late piece now and moves the rest of the reply with it, without overlap', () => {
    output.play(piece('d1', 0, 0, 100));
    context.currentTime = 10.3; // the second piece was due at 10.14
    output.play(piece('d1', 1, 100, 100));
    output.play(piece('d1', 2, 200, 100));
    expect(starts()[1]).toBeCloseTo(10.3, 9);
    expect(starts()[2]).toBeCloseTo(10.4, 9);
  });

  it('stops a reply at atMs from its start and refuses its later pieces', () => {
    output.play(piece('d1', 0, 0, 100));
    output.play(piece('d1', 1, 100, 100));
    output.play(piece('d1', 2, 200, 100));
    context.currentTime = 10.05;
    output.stop('d1', 150);
    output.play(piece('d1', 3, 300, 100));
    expect(context.sources).toHaveLength(3);
    const [first, second, third] = context.sources;
    expect(first!.audibleUntil).toBeCloseTo(10.14, 9);
    expect(second!.audibleUntil).toBeCloseTo(10.19, 9);
    expect(third!.stoppedAt).toBeLessThanOrEqual(third!.startedAt!);
  });

  it('stops at once when atMs is already past', () => {
    output.play(piece('d1', 0, 0, 500));
    context.currentTime = 10.3;
    output.stop('d1', 100);
    expect(context.sources[0]!.stoppedAt).toBe(10.3);
  });

  it('tells how far a reply has been heard: queued, audible at a position, over', () => {
    expect(output.progress('d1')).toBeNull();
    output.play(piece('d1', 0, 0, 100));
    output.play(piece('d1', 1, 100, 200));
    expect(output.progress('d1')).toMatchObject({ state: 'queued' });
    context.currentTime = 10.19; // 150 ms into the speech, which started at 10.04
    expect(output.progress('d1')!.state).toBe('audible');
    expect(output.progress('d1')!.positionMs).toBeCloseTo(150, 6);
    // Its pieces have all played; the next may only be late (a gap between clauses), so not yet over.
    context.currentTime = 10.35;
    expect(output.progress('d1')!.state).toBe('audible');
    context.currentTime = 10.75;
    expect(output.progress('d1')!.state).toBe('over');
  });

  it('carries on a reply whose next piece came late', () => {
    output.play(piece('d1', 0, 0, 100));
    context.currentTime = 10.3; // its first piece ended at 10.14
    output.play(piece('d1', 1, 100, 200));
    context.currentTime = 10.35;
    expect(output.progress('d1')!.state).toBe('audible');
  });

  it('says a stopped reply is over from where it stopped', () => {
    output.play(piece('d1', 0, 0, 500));
    context.currentTime = 10.1;
    output.stop('d1', 100);
    context.currentTime = 10.15;
    expect(output.progress('d1')!.state).toBe('over');
  });

  it('refuses the pieces of a reply stopped before any of it arrived', () => {
    output.stop('d1', 0);
    output.play(piece('d1', 0, 0, 100));
    expect(context.sources).toHaveLength(0);
  });

  it('ignores a piece it has already played', () => {
    output.play(piece('d1', 0, 0, 100));
    output.play(piece('d1', 0, 0, 100));
    expect(context.sources).toHaveLength(1);
  });

  it('takes an empty piece for its cues without scheduling a sound', () => {
    output.play(piece('d1', 0, 0, 100));
    expect(() => output.play({ ...piece('d1', 1, 100, 0), cues: [{ t: 100, viseme: 'O' }] })).not.toThrow();
    expect(context.sources).toHaveLength(1);
  });

  it('says who is audible, the latest to start if several, and nobody in silence', () => {
    output.play(piece('d1', 0, 0, 300));
    expect(output.speaking()).toBeNull(); // still in the 40 ms lead
    context.currentTime = 10.1;
    expect(output.speaking()).toBe('nora');
    output.play(piece('d2', 0, 0, 300, [], 'omar'));
    context.currentTime = 10.2;
    expect(output.speaking()).toBe('omar');
    output.stop('d2', 0);
    expect(output.speaking()).toBe('nora');
    context.currentTime = 10.35;
    expect(output.speaking()).toBeNull();
  });

  it('judges what is audible at the time being heard, behind the output latency', () => {
    context.outputLatency = 0.1;
    output.play(piece('d1', 0, 0, 100));
    context.currentTime = 10.1;
    expect(output.speaking()).toBeNull();
    context.currentTime = 10.15;
    expect(output.speaking()).toBe('nora');
  });

  it('moves the lips with the audio clock', () => {
    const cues: VisemeCue[] = [
      { t: 0, viseme: 'PP' },
      { t: 100, viseme: 'O' },
      { t: 200, viseme: 'sil' },
    ];
    expect(output.visemes('nora')).toBeNull();
    output.play(piece('d1', 0, 0, 250, cues));
    // The lips start to move 60 ms ahead of the first cue, heard at 10.04.
    expect(output.visemes('nora')).toMatchObject({ PP: expect.closeTo(1 / 3, 9) });
    context.currentTime = 10.04;
    expect(output.visemes('nora')).toMatchObject({ PP: expect.closeTo(1, 9), O: 0 });
    context.currentTime = 10.14;
    expect(output.visemes('nora')).toMatchObject({ PP: expect.closeTo(0, 9), O: expect.closeTo(1, 9) });
    context.currentTime = 10.3;
    expect(output.visemes('nora')).toBeNull();
    expect(output.visemes('nobody')).toBeNull();
  });

  it('keeps the lips on a late piece', () => {
    output.play(piece('d1', 0, 0, 100, [{ t: 0, viseme: 'aa' }]));
    context.currentTime = 10.5;
    output.play(piece('d1', 1, 100, 100, [{ t: 100, viseme: 'U' }]));
    expect(output.visemes('nora')).toMatchObject({ U: expect.closeTo(1, 9) });
  });

  it('closes the lips after a stop', () => {
    output.play(piece('d1', 0, 0, 1000, [{ t: 0, viseme: 'aa' }]));
    context.currentTime = 10.2;
    output.stop('d1', 0);
    expect(output.visemes('nora')).toMatchObject({ aa: expect.closeTo(1, 9) });
    context.currentTime = 10.3;
    expect(output.visemes('nora')).toBeNull();
  });

  it("buffers a human's voice 100 ms and plays its frames back to back", () => {
    output.voice('ines', frame(20), 16_000);
    output.voice('ines', frame(20), 16_000);
    expect(starts()[0]).toBeCloseTo(10.1, 9);
    expect(starts()[1]).toBeCloseTo(10.12, 9);
    context.currentTime = 10.5; // the frames ran out: buffer again
    output.voice('ines', frame(20), 16_000);
    expect(starts()[2]).toBeCloseTo(10.6, 9);
  });

  it("drops a human's frames once too much is buffered", () => {
    for (let i = 0; i < 40; i++) output.voice('ines', frame(20), 16_000);
    expect(context.sources.length).toBeLessThan(40);
    expect(context.sources.at(-1)!.audibleUntil - context.currentTime).toBeLessThanOrEqual(0.42 + 1e-9);
  });

  it("keeps a human's speech that arrives in bursts (a busy page), heard late rather than dropped", () => {
    // 20 ms frames made each second, handed over as one burst of 50 a second later.
    const burst = (second: number) => {
      context.currentTime = 10 + second;
      for (let i = 0; i < 50; i++) output.voice('ines', frame(20), 16_000);
    };
    burst(0); // no history yet: capped as usual
    const first = output.voicedMs('ines');
    expect(first).toBeLessThanOrEqual(420 + 1e-6);
    for (let second = 1; second <= 5; second++) burst(second);
    // Every later burst is kept whole: 5 × 1000 ms.
    expect(output.voicedMs('ines') - first).toBeCloseTo(5000, 6);
    // ... and the delay stays within the burst allowance (2 s).
    expect(context.sources.at(-1)!.audibleUntil - context.currentTime).toBeLessThanOrEqual(2 + 1e-9);
  });

  it("drops silence past the usual buffer so a burst's delay melts away in the next pause", () => {
    context.currentTime = 10;
    output.voice('ines', frame(20), 16_000);
    context.currentTime = 11; // a second-long stall, then speech and silence at once
    for (let i = 0; i < 40; i++) output.voice('ines', frame(20), 16_000);
    const buffered = () => context.sources.at(-1)!.audibleUntil - context.currentTime;
    expect(buffered()).toBeGreaterThan(0.7);
    const scheduled = context.sources.length;
    for (let i = 0; i < 40; i++) output.voice('ines', frame(20, 0), 16_000);
    expect(context.sources.length).toBe(scheduled);
    // Frames arriving on time again: the buffer drains to the usual size, silence dropped meanwhile.
    for (let step = 0; step < 100; step++) {
      context.currentTime += 0.02;
      output.voice('ines', frame(20, 0), 16_000);
    }
    expect(buffered()).toBeLessThanOrEqual(0.42 + 1e-9);
  });

  it("opens a human's jaw with the level of the voice heard, and not in silence", () => {
    output.voice('ines', frame(20, 8000), 16_000);
    output.voice('ines', frame(20, 0), 16_000);
    context.currentTime = 10.11;
    expect(output.speaking()).toBe('ines');
    expect(output.visemes('ines')).toMatchObject({ aa: Math.min(1, (8000 / 32768) * 4), O: 0 });
    context.currentTime = 10.13;
    expect(output.speaking()).toBeNull();
    expect(output.visemes('ines')).toBeNull();
  });

  it("counts how much of a human's voice played, silence left out", () => {
    output.voice('ines', frame(20, 8000), 16_000);
    output.voice('ines', frame(20, 0), 16_000);
    output.voice('ines', frame(20, 8000), 16_000);
    expect(output.voicedMs('ines')).toBeCloseTo(40, 6);
    expect(output.voicedMs('nobody')).toBe(0);
  });

  it('puts a human who starts talking over a persona first', () => {
    output.play(piece('d1', 0, 0, 1000));
    context.currentTime = 10.3;
    output.voice('ines', frame(20), 16_000);
    context.currentTime = 10.41;
    expect(output.speaking()).toBe('ines');
  });

  it('routes each participant through its own gain and an HRTF panner with Hubs-like distances', () => {
    output.place('nora', { x: 1, y: 1.5, z: -2 });
    output.play(piece('d1', 0, 0, 100));
    output.voice('ines', frame(20), 16_000);
    expect(context.panners).toHaveLength(2);
    const [panner] = context.panners;
    expect(panner).toMatchObject({ panningModel: 'HRTF', distanceModel: 'inverse', refDistance: 1, maxDistance: 20, rolloffFactor: 1 });
    expect([panner!.positionX.value, panner!.positionY.value, panner!.positionZ.value]).toEqual([1, 1.5, -2]);
    const gain = context.sources[0]!.outputs[0] as FakeGain;
    expect(gain).toBeInstanceOf(FakeGain);
    expect(gain.outputs).toEqual([panner]);
    expect(panner!.outputs).toEqual([context.destination]);
    expect(context.sources[1]!.outputs[0]).not.toBe(gain);
  });

  it('places the listener', () => {
    output.listen({ x: 1, y: 2, z: 3 }, { x: 0, y: 0, z: -1 }, { x: 0, y: 1, z: 0 });
    const values = Object.fromEntries(Object.entries(context.listener).map(([name, param]) => [name, param.value]));
    expect(values).toEqual({ positionX: 1, positionY: 2, positionZ: 3, forwardX: 0, forwardY: 0, forwardZ: -1, upX: 0, upY: 1, upZ: 0 });
  });

  it('sets the listener again only when the viewer moves or turns (it is called every frame)', () => {
    const events = () => Object.values(context.listener).reduce((sum, param) => sum + param.events, 0);
    output.listen({ x: 1, y: 2, z: 3 }, { x: 0, y: 0, z: -1 }, { x: 0, y: 1, z: 0 });
    const once = events();
    output.listen({ x: 1, y: 2, z: 3 }, { x: 0, y: 0, z: -1 }, { x: 0, y: 1, z: 0 });
    expect(events()).toBe(once);
    output.listen({ x: 1, y: 2, z: 3 }, { x: 0.6, y: 0, z: -0.8 }, { x: 0, y: 1, z: 0 });
    expect(events()).toBeGreaterThan(once);
    expect(context.listener.forwardX!.value).toBe(0.6);
    expect(context.listener.forwardZ!.value).toBe(-0.8);
  });

  it('mutes a participant, who then does not count as speaking', () => {
    output.play(piece('d1', 0, 0, 300));
    output.mute('nora', true);
    const gain = context.sources[0]!.outputs[0] as FakeGain;
    expect(gain.gain.value).toBe(0);
    expect(output.muted('nora')).toBe(true);
    expect(output.muted('omar')).toBe(false);
    context.currentTime = 10.1;
    expect(output.speaking()).toBeNull();
    output.mute('nora', false);
    expect(gain.gain.value).toBe(1);
    expect(output.speaking()).toBe('nora');
  });

  it('drops audio while the context waits for a user gesture', async () => {
    context.state = 'suspended';
    output.play(piece('d1', 0, 0, 100));
    output.voice('ines', frame(20), 16_000);
    expect(context.sources).toHaveLength(0);
    await output.resume();
    output.play(piece('d1', 1, 100, 100));
    expect(context.sources).toHaveLength(1);
  });

  it('closes the context', async () => {
    await output.close();
    expect(context.state).toBe('closed');
  });
});

describe('decodePcm16', () => {
  it('reads base64 PCM16 little-endian', () => {
    const bytes = Uint8Array.from([0x01, 0x00, 0xff, 0x7f, 0x00, 0x80, 0xfe, 0xff]);
    expect([...decodePcm16(Buffer.from(bytes).toString('base64'))]).toEqual([1, 32767, -32768, -2]);
  });
});
