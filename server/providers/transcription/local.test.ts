/**
 * The in-process transcriber through the real whisper.cpp runtime (built for this CPU, in the
 * folder the tests share: whisper-build.test.ts), with a tiny model written for the test (tests/fixtures/models/ggml-whisper.ts): noise in the encoder, a decoder that says
 * a known script, so what comes back can be stated.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TranscriptionError } from '../errors';
import { createLocalTranscriber } from './local';
import { noraSaid, scriptedWhisper, whisperBuildDir } from '../../../tests/fixtures/models/whisper-runtime';

const said = noraSaid;
const fixture = scriptedWhisper('local-asr-test-');

// Real transcriptions on a shared two-core machine: room for the queue test's four in a row.
describe('createLocalTranscriber (whisper.cpp in process)', { timeout: 90_000 }, () => {
  it('transcribes a recorded utterance through the model', async () => {
    const local = createLocalTranscriber({ modelPath: fixture.modelPath, threads: 1, build: whisperBuildDir });
    expect(local.name).toBe('local');
    await local.ready;
    expect(await local.transcribe(fixture.utterance)).toEqual({ text: said, language: 'en' });
  });

  it("gives whisper the scene's hints as its prompt (text it takes as already said)", async () => {
    const local = createLocalTranscriber({ modelPath: fixture.modelPath, threads: 1, build: whisperBuildDir });
    const { text } = await local.transcribe({ ...fixture.utterance, hints: ['Omar'] });
    // The prompt's tokens come first, so the scripted decoder starts further along: a shorter tail.
    expect(text.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThan(said.length);
    expect(said.endsWith(text)).toBe(true);
  });

  it('serves every transcriber of one model from one queue, in the order asked', async () => {
    const [a, b] = [createLocalTranscriber({ modelPath: fixture.modelPath, threads: 1, build: whisperBuildDir }), createLocalTranscriber({ modelPath: fixture.modelPath, threads: 1, build: whisperBuildDir })];
    const finished: number[] = [];
    const calls = [a, b, a, b].map((local, i) => local.transcribe(fixture.utterance).then((t) => (finished.push(i), t.text)));
    expect(await Promise.all(calls)).toEqual([said, said, said, said]);
    expect(finished).toEqual([0, 1, 2, 3]);
  });

  it('drops a call whose caller gives up while it waits, and answers the rest', async () => {
    const local = createLocalTranscriber({ modelPath: fixture.modelPath, threads: 1, build: whisperBuildDir });
    await local.ready;
    const first = local.transcribe(fixture.utterance);
    const giveUp = new AbortController();
    const second = local.transcribe(fixture.utterance, giveUp.signal);
    giveUp.abort(new Error('the speaker went on'));
    await expect(second).rejects.toThrow('the speaker went on');
    expect((await first).text).toBe(said);
    expect((await local.transcribe(fixture.utterance)).text).toBe(said);
  });

  it('answers an aborted call at once, even mid-transcription, and goes on with the next', async () => {
    const local = createLocalTranscriber({ modelPath: fixture.modelPath, threads: 1, build: whisperBuildDir });
    await local.ready;
    const stop = new AbortController();
    const running = local.transcribe(fixture.utterance, stop.signal);
    await new Promise((resolve) => setTimeout(resolve, 5));
    stop.abort(new Error('barge-in'));
    await expect(running).rejects.toThrow('barge-in');
    await expect(local.transcribe(fixture.utterance, AbortSignal.abort(new Error('already gone')))).rejects.toThrow('already gone');
    expect((await local.transcribe(fixture.utterance)).text).toBe(said);
  });

  it('says which file is missing or damaged, and never hands a damaged one to whisper.cpp', async () => {
    const whole = readFileSync(fixture.modelPath);
    const cases: [string, Buffer | null, RegExp][] = [
      ['missing.bin', null, /^no model file at .*missing\.bin$/],
      ['notes.bin', Buffer.from('not a model at all'), /notes\.bin is not a whisper\.cpp ggml model \(it does not start with "ggml"\)$/],
      ['half.bin', whole.subarray(0, whole.length >> 1), /half\.bin is cut short or damaged$/],
      // An unknown weight type stops the process inside whisper.cpp (GGML_ASSERT) if it gets that far.
      ['ftype.bin', Buffer.concat([whole.subarray(0, 44), Buffer.from(new Int32Array([99]).buffer), whole.subarray(48)]), /ftype\.bin is cut short or damaged: its header is not a whisper model's$/],
    ];
    for (const [name, bytes, message] of cases) {
      const path = join(fixture.dir, name);
      if (bytes) writeFileSync(path, bytes);
      const local = createLocalTranscriber({ modelPath: path, build: whisperBuildDir });
      await expect(local.ready).rejects.toThrow(message);
      const failed = await local.transcribe(fixture.utterance).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(TranscriptionError);
      expect((failed as Error).message).toMatch(message);
    }
  });

  it('hears 16 kHz audio only, and says so', async () => {
    const local = createLocalTranscriber({ modelPath: fixture.modelPath, build: whisperBuildDir });
    await expect(local.transcribe({ ...fixture.utterance, sampleRate: 48_000 })).rejects.toThrow('the local transcriber hears 16000 Hz audio, got 48000 Hz');
  });
});
