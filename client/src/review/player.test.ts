import { afterEach, describe, expect, it, vi } from 'vitest';
import { decodeWav, encodeWav } from '../../../shared/wav';
import { activeAt, createPlayer, overlapping, positionAt, startOf, type AudioLike, type Player, type Recording } from './player';

const clip = (utterance: string, participant: string, startMs: number, durationMs: number): Recording => ({
  utterance,
  seq: 0,
  participant,
  startMs,
  durationMs,
  sampleRate: 16_000,
  url: `/api/sessions/s1/recordings/${utterance}.wav`,
  cues: [
    { t: 0, viseme: 'PP' },
    { t: 100, viseme: 'aa' },
    { t: durationMs - 50, viseme: 'sil' },
  ],
  words: [],
});

describe('which recordings play when', () => {
  const recordings = [clip('u1', 'nora', 0, 2000), clip('u2', 'omar', 2500, 1000), clip('u3', 'nora', 3000, 2000)];

  it('lists the clips that sound in a window, by start', () => {
    expect(overlapping(recordings, 0, 1000).map((r) => r.utterance)).toEqual(['u1']);
    expect(overlapping(recordings, 1999, 2600).map((r) => r.utterance)).toEqual(['u1', 'u2']);
    // A clip that ended at the window's start does not sound in it.
    expect(overlapping(recordings, 2000, 2400)).toEqual([]);
    expect(overlapping(recordings, 3200, 9000).map((r) => r.utterance)).toEqual(['u2', 'u3']);
  });

  it('finds the clip sounding at a moment, the latest to start when two overlap', () => {
    expect(activeAt(recordings, 1000)?.utterance).toBe('u1');
    expect(activeAt(recordings, 2200)).toBeNull();
    expect(activeAt(recordings, 3200)?.utterance).toBe('u3');
    expect(activeAt(recordings, 3200, 'omar')?.utterance).toBe('u2');
  });

  it('runs session time at the rate from its anchor', () => {
    expect(positionAt({ at: 10, ms: 5000 }, 1, 11)).toBe(6000);
    expect(positionAt({ at: 10, ms: 5000 }, 2, 11)).toBe(7000);
  });

  it('starts a later clip at its place on the clock, sooner at 2×', () => {
    expect(startOf(8000, { at: 10, ms: 5000 }, 1, 10)).toEqual({ when: 13, offset: 0 });
    expect(startOf(8000, { at: 10, ms: 5000 }, 2, 10)).toEqual({ when: 11.5, offset: 0 });
  });

  it('starts a clip under way now, part-way into its buffer, whatever the rate', () => {
    // Seeked into the middle of a clip that began at 4 s: 1 s in.
    expect(startOf(4000, { at: 10, ms: 5000 }, 1, 10)).toEqual({ when: 10, offset: 1 });
    expect(startOf(4000, { at: 10, ms: 5000 }, 2, 10)).toEqual({ when: 10, offset: 1 });
    // Decoded late: half a second of clock at 2× is a second of session, and of buffer.
    expect(startOf(4000, { at: 10, ms: 5000 }, 2, 10.5)).toEqual({ when: 10.5, offset: 2 });
  });
});

/** Web Audio as far as the player uses it: a clock the test moves, sources that record how they were started. */
const fakeAudio = () => {
  const started: { when: number; offset: number; rate: number; duration: number; stopped: boolean }[] = [];
  const audio = {
    currentTime: 100,
    state: 'suspended',
    destination: {} as AudioNode,
    resume: async () => {
      audio.state = 'running';
    },
    close: async () => {},
    // The synthetic WAV really is read: its length gives the buffer's duration.
    decodeAudioData: async (data: ArrayBuffer) => {
      const { pcm, sampleRate } = decodeWav(Buffer.from(data));
      return { duration: pcm.length / sampleRate } as AudioBuffer;
    },
    createBufferSource: () => {
      const record = { when: 0, offset: 0, rate: 1, duration: 0, stopped: false };
      const source = {
        buffer: null as AudioBuffer | null,
        playbackRate: { value: 1 },
        onended: null,
        connect: () => {},
        disconnect: () => {},
        start(when: number, offset: number) {
          Object.assign(record, { when, offset, rate: source.playbackRate.value, duration: source.buffer!.duration });
          started.push(record);
        },
        stop: () => void (record.stopped = true),
      };
      return source as unknown as AudioBufferSourceNode;
    },
  };
  return { audio: audio as AudioLike & { currentTime: number }, started };
};

/** A second of a 220 Hz tone at 16 kHz, as the server would store it. */
const wav = () => {
  const pcm = Int16Array.from({ length: 16_000 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 220 * i) / 16_000)));
  const bytes = encodeWav(pcm, 16_000);
  return new Uint8Array(bytes).buffer;
};

describe('the player', () => {
  let player: Player | null = null;
  afterEach(() => {
    player?.close();
    player = null;
  });

  const setUp = (recordings: Recording[], missing: string[] = [], durationMs = 10_000) => {
    const { audio, started } = fakeAudio();
    const asked: string[] = [];
    let page = 0;
    player = createPlayer({
      recordings: { recordings, missing },
      durationMs,
      token: 'tok en',
      audio: () => audio,
      now: () => page,
      fetch: async (url) => {
        asked.push(url);
        return url.includes('/gone.wav') ? new Response(JSON.stringify({ error: 'not-found' }), { status: 404 }) : new Response(wav());
      },
    });
    return { player, audio, started, asked, setPage: (ms: number) => (page = ms) };
  };

  it('plays a clip under the playhead from where the playhead is, with the token', async () => {
    const { player, started, asked } = setUp([clip('u1', 'nora', 1000, 1000)]);
    player.seek(1250);
    player.play();
    await vi.waitFor(() => expect(started).toHaveLength(1));
    expect(asked).toEqual(['/api/sessions/s1/recordings/u1.wav?token=tok%20en']);
    expect(started[0]).toMatchObject({ when: 100, offset: 0.25, rate: 1, duration: 1 });
    expect(player.scheduled()).toBe(1);
  });

  it('runs on the audio clock at 2× with the clips played twice as fast', async () => {
    const { player, audio, started } = setUp([clip('u1', 'nora', 3000, 1000)]);
    player.setRate(2);
    player.seek(1000);
    player.play();
    await vi.waitFor(() => expect(started).toHaveLength(1));
    // Two seconds of session ahead at 2× is one second of clock.
    expect(started[0]).toMatchObject({ when: 101, offset: 0, rate: 2 });
    audio.currentTime = 100.5;
    expect(player.position()).toBe(2000);
    player.pause();
    expect(started[0]!.stopped).toBe(true);
    audio.currentTime = 105;
    expect(player.position()).toBe(2000);
  });

  it('gives the speaker a moving mouth inside their recording while it plays and none outside it', () => {
    const { player } = setUp([clip('u1', 'nora', 1000, 1000)]);
    player.seek(1150);
    player.play();
    const weights = player.visemes('nora')!;
    expect(Math.max(...Object.values(weights))).toBeGreaterThan(0);
    expect(player.visemes('omar')).toBeNull();
    player.seek(2500);
    expect(player.visemes('nora')).toBeNull();
  });

  it('rests every mouth while paused, even mid-clip', () => {
    const { player } = setUp([clip('u1', 'nora', 1000, 1000)]);
    player.seek(1150);
    expect(player.visemes('nora')).toBeNull();
    player.play();
    expect(player.visemes('nora')).not.toBeNull();
    player.pause();
    expect(player.position()).toBeGreaterThanOrEqual(1150);
    expect(player.position()).toBeLessThan(2000);
    expect(player.visemes('nora')).toBeNull();
  });

  it('passes over a missing file in silence and says the line has no recording', async () => {
    const { player, started } = setUp([clip('gone', 'omar', 0, 1000), clip('u2', 'nora', 1200, 1000), clip('listed', 'nora', 3000, 500)], ['listed']);
    const told = vi.fn();
    player.subscribe(told);
    player.play();
    await vi.waitFor(() => expect(started).toHaveLength(1));
    await vi.waitFor(() => expect(player.unrecorded('gone')).toBe(true));
    expect(told).toHaveBeenCalled();
    expect(player.unrecorded('u2')).toBe(false);
    expect(player.unrecorded('listed')).toBe(true);
    expect(player.unrecorded('never-recorded')).toBe(true);
    expect(player.visemes('omar')).toBeNull();
    expect(started[0]).toMatchObject({ when: 101.2, offset: 0 });
    expect(player.playing()).toBe(true);
  });

  it('seeks while playing: what was scheduled stops, the new place plays', async () => {
    const { player, started } = setUp([clip('u1', 'nora', 0, 1000), clip('u2', 'omar', 6000, 1000)]);
    player.play();
    await vi.waitFor(() => expect(started).toHaveLength(1));
    player.seek(6500);
    await vi.waitFor(() => expect(started).toHaveLength(2));
    expect(started[0]!.stopped).toBe(true);
    expect(started[1]).toMatchObject({ offset: 0.5 });
  });

  it('keeps only the latest decoded clips: one sought back to is fetched again', async () => {
    const many = Array.from({ length: 40 }, (_, i) => clip(`u${i}`, 'nora', i * 1000, 100));
    const { player, started, asked } = setUp(many, [], 40_000);
    const fetched = (n: number) => asked.filter((url) => url.includes(`/u${n}.wav?`)).length;
    player.play();
    for (let i = 0; i < 40; i++) {
      player.seek(i * 1000);
      await vi.waitFor(() => expect(fetched(i)).toBe(1));
    }
    player.seek(0);
    await vi.waitFor(() => expect(fetched(0)).toBe(2));
    // The latest are still decoded: sought back to, they play without being fetched again.
    const before = started.length;
    player.seek(39_000);
    await vi.waitFor(() => expect(started.length).toBeGreaterThan(before));
    expect(fetched(39)).toBe(1);
  });

  it('keeps time on the page clock when the audio never starts, and stops at the end', () => {
    const { player, audio, setPage } = setUp([]);
    audio.resume = () => new Promise(() => {});
    player.seek(9000);
    player.play();
    setPage(500);
    expect(player.position()).toBe(9500);
    setPage(2000);
    expect(player.position()).toBe(10_000);
  });
});
