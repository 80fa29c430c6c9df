import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events';
import { createRecorder, type Recording, type SpeechPiece } from './recorder';

const RATE = 1000; // one sample a millisecond: lengths read as ms

/** `ms` of audio at `offsetMs`, every sample `value`, with one cue and one word at its start. */
const piece = (draft: string, offsetMs: number, ms: number, value: number, word = `w${offsetMs}`): SpeechPiece => ({
  speaker: 'ada',
  draft,
  offsetMs,
  sampleRate: RATE,
  pcm: new Int16Array(ms).fill(value),
  cues: [{ t: offsetMs, viseme: 'aa' }],
  words: [{ word, start: offsetMs, end: offsetMs + ms }],
});

let seq = 0;
const utterance = (id: string, extra: Partial<Extract<SessionEvent, { type: 'utterance' }>> = {}): SessionEvent => ({
  seq: ++seq,
  t: 0,
  type: 'utterance',
  id,
  speaker: 'ada',
  text: 'Hello there.',
  addressee: null,
  pair: 'none',
  act: 'statement',
  snippet: 'a',
  source: 'ai',
  durationMs: 0,
  ...extra,
});
const end: SessionEvent = { seq: 999, t: 0, type: 'end', reason: 'ended', turns: 1 };

const recorder = () => {
  const written: Recording[] = [];
  return { written, recorder: createRecorder({ write: (r) => written.push(r) }) };
};

describe('the recorder', () => {
  it("writes a reply's audio once its utterance is stored, when the audio ended before", () => {
    const { written, recorder: r } = recorder();
    r.audio(piece('d1', 0, 100, 1));
    r.audio(piece('d1', 100, 50, 2));
    r.audioEnd({ draft: 'd1' });
    expect(written).toEqual([]);
    r.committed(utterance('u1', { draft: 'd1' }));
    expect(written).toHaveLength(1);
    const [rec] = written;
    expect(rec).toMatchObject({ utterance: 'u1', participant: 'ada', sampleRate: RATE });
    expect(rec!.pcm.length).toBe(150);
    expect(rec!.pcm[99]).toBe(1);
    expect(rec!.pcm[100]).toBe(2);
    expect(rec!.words.map((w) => w.word)).toEqual(['w0', 'w100']);
  });

  it('waits for the end of the audio when the utterance is stored first (a line voiced after it was logged)', () => {
    const { written, recorder: r } = recorder();
    // A scripted line: no draft; its audio is named by the utterance's id.
    r.committed(utterance('u2'));
    r.audio(piece('u2', 0, 80, 3));
    expect(written).toEqual([]);
    r.audio(piece('u2', 80, 20, 4));
    r.audioEnd({ draft: 'u2' });
    expect(written.map((w) => [w.utterance, w.pcm.length])).toEqual([['u2', 100]]);
  });

  it('truncates at the audio stop, with the cues and words heard before it', () => {
    const { written, recorder: r } = recorder();
    r.audio(piece('d3', 0, 100, 1));
    r.audio(piece('d3', 100, 100, 2));
    r.audioStop({ draft: 'd3', atMs: 130, reason: 'barge-in' });
    // Audio that still arrives after the stop is past it.
    r.audio(piece('d3', 200, 100, 5));
    r.committed(utterance('u3', { draft: 'd3' }));
    const [rec] = written;
    expect(rec!.pcm.length).toBe(130);
    expect(rec!.cues.map((c) => c.t)).toEqual([0, 100]);
    expect(rec!.words).toEqual([
      { word: 'w0', start: 0, end: 100 },
      { word: 'w100', start: 100, end: 130 },
    ]);
  });

  it('writes again, shorter, when a stop comes after the recording was written (a barge-in while it is heard)', () => {
    const { written, recorder: r } = recorder();
    r.audio(piece('d4', 0, 300, 1));
    r.audioEnd({ draft: 'd4' });
    r.committed(utterance('u4', { draft: 'd4' }));
    r.audioStop({ draft: 'd4', atMs: 120, reason: 'barge-in' });
    // A later stop further on changes nothing.
    r.audioStop({ draft: 'd4', atMs: 250, reason: 'ended' });
    expect(written.map((w) => [w.utterance, w.pcm.length])).toEqual([
      ['u4', 300],
      ['u4', 120],
    ]);
  });

  it('drops a rejected resample and never writes audio nobody logged', () => {
    const { written, recorder: r } = recorder();
    r.audio(piece('rejected', 0, 100, 1));
    r.audioStop({ draft: 'rejected', atMs: 50, reason: 'rejected' });
    r.audio(piece('never', 0, 100, 1));
    r.audioEnd({ draft: 'never' });
    r.committed(utterance('u5', { draft: 'other' }));
    r.committed(end);
    expect(written).toEqual([]);
  });

  it('holds a bounded number of unlogged replies, each at most maxMs long', () => {
    const written: Recording[] = [];
    const r = createRecorder({ write: (w) => written.push(w), maxDrafts: 2, maxMs: 150 });
    for (const draft of ['a', 'b', 'c']) r.audio(piece(draft, 0, 100, 1));
    r.audio(piece('c', 100, 100, 1));
    r.audio(piece('c', 200, 100, 1));
    for (const draft of ['a', 'b', 'c']) {
      r.audioEnd({ draft });
      r.committed(utterance(`u-${draft}`, { draft }));
    }
    // The oldest was dropped to make room; the long one stops at 150 ms.
    expect(written.map((w) => [w.utterance, w.pcm.length])).toEqual([
      ['u-b', 100],
      ['u-c', 150],
    ]);
  });

  it("resamples a clause spoken at another rate (a fallback voice) to the reply's rate", () => {
    const { written, recorder: r } = recorder();
    r.audio(piece('d6', 0, 100, 1));
    r.audio({ ...piece('d6', 100, 0, 0), pcm: new Int16Array(200).fill(7), sampleRate: 2 * RATE });
    r.audioEnd({ draft: 'd6' });
    r.committed(utterance('u6', { draft: 'd6' }));
    expect(written[0]!.pcm.length).toBe(200);
    expect(written[0]!.pcm[150]).toBe(7);
  });

  it("at the end, writes what a logged utterance's audio reached and then takes nothing more", () => {
    const { written, recorder: r } = recorder();
    r.committed(utterance('u7'));
    r.audio(piece('u7', 0, 60, 1));
    r.committed(end);
    r.audio(piece('late', 0, 60, 1));
    r.audioEnd({ draft: 'late' });
    expect(written.map((w) => [w.utterance, w.pcm.length])).toEqual([['u7', 60]]);
  });

  it("keeps a human's microphone audio for their next spoken utterance of the length heard", () => {
    const { written, recorder: r } = recorder();
    const mic = new Int16Array(16_000).fill(9);
    r.heard('tara', { pcm: new Int16Array(10), sampleRate: 16_000, durationMs: 400 }); // a turn the log never took
    r.heard('tara', { pcm: mic, sampleRate: 16_000, durationMs: 900 });
    // A typed line has no audio.
    r.committed(utterance('typed', { speaker: 'tara', source: 'human', durationMs: 900 }));
    r.committed(utterance('spoken', { speaker: 'tara', source: 'human', durationMs: 900, spoken: { start: 100, end: 1000 } }));
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ utterance: 'spoken', participant: 'tara', sampleRate: 16_000, cues: [], words: [] });
    expect(written[0]!.pcm).toBe(mic);
  });
});
