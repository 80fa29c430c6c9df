import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEspeakSynthesizer, phonemize, type EspeakSynthesizer } from './espeak';
import type { SpeechChunk, Synthesizer, VisemeCue, VoiceSpec, WordTiming } from './port';
import { phonemesToVisemes } from './visemes';
import { decodeWav, encodeWav } from '../../../shared/wav';
import { synthesizerContract } from '../../../tests/providers/contracts';

const repo = fileURLToPath(new URL('../../..', import.meta.url));

interface Speech {
  chunks: SpeechChunk[];
  pcm: Int16Array;
  sampleRate: number;
  durationMs: number;
  cues: VisemeCue[];
  words: WordTiming[];
}

const speak = async (espeak: Pick<Synthesizer, 'synthesize'>, text: string, voice: VoiceSpec = {}): Promise<Speech> => {
  const chunks: SpeechChunk[] = [];
  for await (const chunk of espeak.synthesize({ text, voice })) chunks.push(chunk);
  const pcm = new Int16Array(chunks.reduce((n, c) => n + c.pcm.length, 0));
  chunks.reduce((at, c) => (pcm.set(c.pcm, at), at + c.pcm.length), 0);
  const sampleRate = chunks[0]?.sampleRate ?? 0;
  return {
    chunks,
    pcm,
    sampleRate,
    durationMs: (pcm.length / sampleRate) * 1000,
    cues: chunks.flatMap((c) => c.cues),
    words: chunks.flatMap((c) => c.words),
  };
};

const rms = (pcm: Int16Array): number => Math.sqrt(pcm.reduce((sum, x) => sum + x * x, 0) / pcm.length);

/** The fundamental frequency of the loudest 40 ms, by autocorrelation over 60-400 Hz. */
const pitchHz = (pcm: Int16Array, sampleRate: number): number => {
  const window = Math.round(sampleRate * 0.04);
  let loudest = 0;
  let at = 0;
  for (let i = 0; i + window < pcm.length; i += window / 4) {
    let energy = 0;
    for (let k = 0; k < window; k++) energy += pcm[i + k]! ** 2;
    if (energy > loudest) [loudest, at] = [energy, i];
  }
  let bestLag = 0;
  let best = -Infinity;
  for (let lag = Math.floor(sampleRate / 400); lag <= Math.ceil(sampleRate / 60); lag++) {
    let correlation = 0;
    for (let k = 0; k < window; k++) correlation += pcm[at + k]! * (pcm[at + k + lag] ?? 0);
    if (correlation > best) [best, bestLag] = [correlation, lag];
  }
  return sampleRate / bestLag;
};

const expectTimeOrdered = (cues: VisemeCue[]) => {
  for (let i = 1; i < cues.length; i++) {
    expect(cues[i]!.t).toBeGreaterThanOrEqual(cues[i - 1]!.t);
    expect(cues[i]!.viseme).not.toBe(cues[i - 1]!.viseme);
  }
};

describe('the eSpeak NG synthesizer', () => {
  let espeak: EspeakSynthesizer;
  beforeAll(() => {
    espeak = createEspeakSynthesizer();
  });
  afterAll(() => espeak.close());

  it('speaks audible 22050 Hz audio whose cue timeline ends with the audio', async () => {
    const speech = await speak(espeak, 'Hello there. How are you today?');
    expect(speech.sampleRate).toBe(22050);
    expect(speech.durationMs).toBeGreaterThan(1000);
    expect(rms(speech.pcm)).toBeGreaterThan(500);
    for (const chunk of speech.chunks) expectTimeOrdered(chunk.cues);
    const last = speech.cues.at(-1)!;
    expect(last.viseme).toBe('sil');
    expect(Math.abs(last.t - speech.durationMs)).toBeLessThanOrEqual(50);
  });

  it('yields a chunk per sentence, each placed after the audio before it', async () => {
    const speech = await speak(espeak, 'Hello there. How are you today? Fine!');
    expect(speech.chunks).toHaveLength(3);
    let offset = 0;
    for (const chunk of speech.chunks) {
      const duration = (chunk.pcm.length / chunk.sampleRate) * 1000;
      expect(chunk.offsetMs).toBeCloseTo(offset, 6);
      for (const cue of chunk.cues) {
        expect(cue.t).toBeGreaterThanOrEqual(chunk.offsetMs);
        expect(cue.t).toBeLessThanOrEqual(chunk.offsetMs + duration + 1);
      }
      expect(chunk.cues.at(-1)?.viseme).toBe('sil');
      offset += duration;
    }
    expect(speech.words.map((w) => w.word)).toEqual(['Hello', 'there', 'How', 'are', 'you', 'today', 'Fine']);
    for (const [i, word] of speech.words.entries()) {
      expect(word.end).toBeGreaterThan(word.start);
      expect(word.start).toBeGreaterThanOrEqual(speech.words[i - 1]?.end ?? 0);
    }
  });

  it.each([
    ['papa', 'PP'],
    ['fee', 'FF'],
    ['think', 'TH'],
    ['see', 'SS'],
  ])('opens "%s" with %s', async (text, viseme) => {
    const { cues } = await speak(espeak, text);
    const opening = cues[0]?.viseme === 'sil' ? cues[1] : cues[0];
    expect(opening?.viseme).toBe(viseme);
  });

  it('speaks higher with a higher pitch and with a female variant', async () => {
    const text = 'Ah, the mama saw a llama.';
    const low = await speak(espeak, text, { pitch: 10 });
    const high = await speak(espeak, text, { pitch: 90 });
    const female = await speak(espeak, text, { espeak: 'en-us+f3' });
    const plain = await speak(espeak, text, { espeak: 'en-us' });
    expect(pitchHz(high.pcm, high.sampleRate)).toBeGreaterThan(pitchHz(low.pcm, low.sampleRate) * 1.5);
    expect(pitchHz(female.pcm, female.sampleRate)).toBeGreaterThan(pitchHz(plain.pcm, plain.sampleRate) * 1.5);
  });

  it('speaks faster at a higher rate', async () => {
    const text = 'One two three four five six seven eight nine ten.';
    const slow = await speak(espeak, text, { rate: 120 });
    const fast = await speak(espeak, text, { rate: 300 });
    expect(fast.durationMs).toBeLessThan(slow.durationMs * 0.6);
  });

  it('names an unknown voice or variant and keeps working', async () => {
    const pid = espeak.workerPid;
    await expect(speak(espeak, 'Hello', { espeak: 'xx-nowhere' })).rejects.toThrow(/unknown voice "xx-nowhere"/);
    await expect(speak(espeak, 'Hello', { espeak: 'en-us+nobody' })).rejects.toThrow(/unknown voice variant "nobody"/);
    expect((await speak(espeak, 'Hello', { espeak: 'en-gb+m3' })).durationMs).toBeGreaterThan(200);
    expect(espeak.workerPid).toBe(pid);
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    const speech = espeak.synthesize({ text: 'You will not hear this.', voice: {} }, controller.signal)[Symbol.asyncIterator]();
    const first = speech.next();
    controller.abort(new Error('barge-in'));
    await expect(first).rejects.toThrow('barge-in');
    expect((await speak(espeak, 'But this.')).durationMs).toBeGreaterThan(200);
  });

  it('runs eSpeak in another process and replaces one that was killed', async () => {
    // A pool of its own, with one worker that has loaded: the shared one's workers may have just
    // been replaced by an earlier test, and a worker killed while still loading is replaced only
    // when a request needs it (so a broken install cannot spin).
    const pool = createEspeakSynthesizer({ workers: 1 });
    try {
      expect(rms((await speak(pool, 'Ready.')).pcm)).toBeGreaterThan(500);
      const pid = pool.workerPid;
      expect(pid).toBeDefined();
      expect(pid).not.toBe(process.pid);
      process.kill(pid!, 'SIGKILL');
      const speech = await speak(pool, 'Still here.');
      expect(rms(speech.pcm)).toBeGreaterThan(500);
      expect(pool.workerPid).toBeDefined();
      expect(pool.workerPid).not.toBe(pid);
    } finally {
      await pool.close();
    }
  });

  it('shares a pool of processes between requests', async () => {
    const pool = createEspeakSynthesizer({ workers: 2 });
    try {
      expect(pool.workerPids).toHaveLength(2);
      expect(new Set(pool.workerPids).size).toBe(2);
      const [a, b] = await Promise.all([speak(pool, 'One for the first.'), speak(pool, 'One for the second.')]);
      expect(rms(a.pcm)).toBeGreaterThan(500);
      expect(rms(b.pcm)).toBeGreaterThan(500);
    } finally {
      await pool.close();
    }
  });

  it('serves the soonest needed request first', async () => {
    // One worker, so answers come in the order they were served: the worker busy with a long text,
    // then clauses needed in 10 s, then one needed now, which is served before them.
    const pool = createEspeakSynthesizer({ workers: 1 });
    try {
      const long = 'This sentence is long enough to keep a worker busy for a little while, and then some more words. '.repeat(6);
      const order: string[] = [];
      const say = (label: string, text: string, neededAt?: number) =>
        speak({ synthesize: (request, signal) => pool.synthesize({ ...request, ...(neededAt !== undefined ? { neededAt } : {}) }, signal) }, text).then(() => order.push(label));
      const later = performance.now() + 10_000;
      await Promise.all([say('busy', long), say('later-1', 'Later one.', later), say('later-2', 'Later two.', later), say('now', 'Now, please.')]);
      // Equal deadlines keep their order.
      expect(order).toEqual(['busy', 'now', 'later-1', 'later-2']);
    } finally {
      await pool.close();
    }
  });

  it('retries a request whose worker was killed on another worker of the pool', async () => {
    const pool = createEspeakSynthesizer({ workers: 2 });
    try {
      await speak(pool, 'Warm.');
      const [first] = pool.workerPids;
      const speech = speak(pool, 'Said once the worker is gone.');
      process.kill(first!, 'SIGKILL');
      expect(rms((await speech).pcm)).toBeGreaterThan(500);
      expect(pool.workerPids.every((pid) => pid !== first)).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it('stops its worker on close', async () => {
    const own = createEspeakSynthesizer();
    await speak(own, 'Hi.');
    const pid = own.workerPid!;
    await own.close();
    expect(own.workerPid).toBeUndefined();
    expect(() => process.kill(pid, 0)).toThrow();
    await expect(speak(own, 'Hi.')).rejects.toThrow(/closed/);
  });
});

describe('phonemize', () => {
  it("gives eSpeak's phonemes for each word of the text, numbers and abbreviations whole", async () => {
    const words = await phonemize('Hello, 42 apples from the U.S.A.');
    expect(words.map((w) => w.word)).toEqual(['Hello', '42', 'apples', 'from', 'the', 'U.S.A']);
    expect(words[0]!.phonemes).toEqual(['h', 'ə', 'l', 'oʊ']);
    expect(words[1]!.phonemes).toEqual(['f', 'ɔːɹ', 'ɾ', 'i', 't', 'uː']);
  });

  it('separates the short words eSpeak joins to the word before', async () => {
    const words = await phonemize('Some of the people were in the house.');
    expect(words.map((w) => [w.word, w.phonemes.join('')])).toEqual([
      ['Some', 'sʌm'],
      ['of', 'ʌv'],
      ['the', 'ðə'],
      ['people', 'piːpəl'],
      ['were', 'wɜːɹ'],
      ['in', 'ɪn'],
      ['the', 'ðə'],
      ['house', 'haʊs'],
    ]);
  });

  it('reads markup characters as text', async () => {
    const words = await phonemize('Tom & Jerry <b>[[x]]</b>');
    expect(words.map((w) => w.word)).toEqual(['Tom', '&', 'Jerry', '<b>[[x]]</b>']);
    expect(words[1]!.phonemes.join('')).toBe('ænd');
  });

  it('follows the voice', async () => {
    const [british] = await phonemize('Hello', 'en-gb');
    expect(british!.phonemes).toEqual(['h', 'ə', 'l', 'əʊ']);
  });

  it('gives only phonemes the viseme mapping knows', async () => {
    const text = 'Jack, your wise quiz judge, thought that the yellow zebra would measure pure beer in church gardens, honestly.';
    for (const voice of ['en-us', 'en-gb', 'en-gb-scotland']) {
      for (const { word, phonemes } of await phonemize(text, voice)) {
        for (const [i, shapes] of phonemesToVisemes(phonemes).entries()) {
          expect(shapes, `${voice} ${word} /${phonemes[i]}/`).not.toContain('sil');
        }
      }
    }
  });
});

describe('wav', () => {
  it('round-trips PCM16 mono', () => {
    const pcm = Int16Array.from([0, 1, -1, 32767, -32768, 1234]);
    const wav = encodeWav(pcm, 22050);
    expect(wav.length).toBe(44 + pcm.length * 2);
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(decodeWav(wav)).toEqual({ pcm, sampleRate: 22050 });
  });

  it('says what is wrong with a file it cannot read', () => {
    expect(() => decodeWav(Buffer.from('not a wav file at all'))).toThrow(/not a WAV file/);
    const stereo = encodeWav(new Int16Array(4), 16000);
    stereo.writeUInt16LE(2, 22);
    expect(() => decodeWav(stereo)).toThrow(/2 channel/);
  });
});

describe('npm run tts', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tts-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes a WAV file and its cues', async () => {
    const out = join(dir, 'hello.wav');
    const cuesFile = join(dir, 'hello.json');
    const args = ['--text', 'Hello there. How are you?', '--voice', 'en-us+f3', '--out', out, '--cues', cuesFile, '--rate', '160'];
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/tts.ts', ...args], { cwd: repo, stdio: 'ignore' });
      child.on('error', reject);
      child.on('close', resolve);
    });
    expect(code).toBe(0);
    const { pcm, sampleRate } = decodeWav(await readFile(out));
    expect(sampleRate).toBe(22050);
    expect(rms(pcm)).toBeGreaterThan(500);
    const timeline = JSON.parse(await readFile(cuesFile, 'utf8')) as { sampleRate: number; durationMs: number; cues: VisemeCue[]; words: WordTiming[] };
    expect(timeline.sampleRate).toBe(22050);
    expect(timeline.durationMs).toBeCloseTo((pcm.length / sampleRate) * 1000, 6);
    expectTimeOrdered(timeline.cues);
    expect(Math.abs(timeline.cues.at(-1)!.t - timeline.durationMs)).toBeLessThanOrEqual(50);
    expect(timeline.words.map((w) => w.word)).toEqual(['Hello', 'there', 'How', 'are', 'you']);
  });
});

describe('eSpeak workers and their server', () => {
  /** Whether `pid` still runs: a zombie waiting for init to reap it has already exited. */
  const running = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
    } catch {
      return false;
    }
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return true; // no /proc: the signal said it runs
    }
  };

  it('die with a server that is killed mid-synthesis, without an EPIPE trace', { timeout: 60_000 }, async () => {
    const parent = spawn(process.execPath, ['--import', 'tsx', 'tests/providers/espeak-parent.ts', '2'], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    parent.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    // The workers write to the server's standard error: whatever they print after it dies lands here.
    parent.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    while (!stdout.includes('\n')) {
      if (parent.exitCode !== null) throw new Error(`the stand-in server ended: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { pids } = JSON.parse(stdout) as { pids: number[] };
    expect(pids).toHaveLength(2);
    expect(pids.every(running)).toBe(true);
    parent.kill('SIGKILL');
    // Polled, not timed: on a loaded machine a worker takes what it takes to notice.
    while (pids.some(running)) await new Promise((resolve) => setTimeout(resolve, 50));
    // Anything a dying worker would print comes through the pipe it shares with the parent: let it drain.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stderr).not.toMatch(/EPIPE|Unhandled 'error' event/);
  });
});

synthesizerContract('espeak', {
  make: () => createEspeakSynthesizer({ workers: 1 }),
  request: { text: 'Good morning. Shall we start?', voice: { espeak: 'en-gb+f3' } },
  unspeakable: { text: 'Hello.', voice: { espeak: 'xx-nowhere' } },
});
