/**
 * The listener ends a spoken turn by what the speaker has said so far: the partial transcript at
 * a pause sets the silence that ends it (media/endpointing.ts). A stand-in VAD hears a voice in
 * any frame that is not digital silence; the stand-in transcriber answers at once. Positions are
 * counted in 32 ms frames of the stream, not measured.
 */
import { describe, expect, it } from 'vitest';
import { createListener, type Heard } from '../../server/conversation/listen';
import { silenceNeeded } from '../../server/media/endpointing';
import { vadFrameSamples, type Vad } from '../../server/media/vad';

const frameMs = 32;
const voiced = (frames: number) => new Int16Array(frames * vadFrameSamples).fill(3000);
const silent = (frames: number) => new Int16Array(frames * vadFrameSamples);

const standInVad = (): Vad => ({
  frame: async (samples) => (samples.some((s) => s !== 0) ? 0.95 : 0.02),
  reset: () => {},
  close: async () => {},
});

/** Pushes `parts` frame by frame; returns each turn heard, with how many silent frames had been pushed when it ended. */
const listen = async (parts: Int16Array[], answers: string[]) => {
  let calls = 0;
  const turns: { heard: Heard | null; afterSilentFrames: number }[] = [];
  let silentFrames = 0;
  const ear = createListener({
    transcriber: { name: 'stand-in', transcribe: async () => ({ text: answers[Math.min(calls++, answers.length - 1)]! }) },
    vad: standInVad(),
    onStart: () => {},
    onEnd: (heard) => turns.push({ heard, afterSilentFrames: silentFrames }),
  });
  for (const part of parts) {
    for (let i = 0; i < part.length; i += vadFrameSamples) {
      const frame = part.subarray(i, i + vadFrameSamples);
      silentFrames = frame.some((s) => s !== 0) ? 0 : silentFrames + 1;
      await ear.push(frame);
      // The transcript of a pause comes back before the next frame, as from a fast transcriber.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  await ear.close();
  return turns;
};

describe('createListener: the end of a spoken turn', () => {
  it("ends a question's turn after the question's short silence, not the default one", async () => {
    const turns = await listen([silent(5), voiced(30), silent(40)], ['Where did you put the keys?']);
    expect(turns.map((t) => t.heard?.text)).toEqual(['Where did you put the keys?']);
    expect(turns[0]!.afterSilentFrames * frameMs).toBeGreaterThanOrEqual(silenceNeeded.afterQuestion);
    expect(turns[0]!.afterSilentFrames * frameMs).toBeLessThan(silenceNeeded.byDefault);
  });

  it('keeps the turn open over an 800 ms pause after a phrase left open, and hears it whole', async () => {
    const turns = await listen([silent(5), voiced(30), silent(25), voiced(30), silent(50)], ['Can you help me with', 'Can you help me with the quarterly report?']);
    expect(turns.map((t) => t.heard?.text)).toEqual(['Can you help me with the quarterly report?']);
  });
});
