/**
 * The local transcriber where whisper.cpp cannot be built: the package's prebuilt binary, and a
 * line in the log saying why. A file of its own (a process of its own), as a server loads one
 * binding or the other.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAudioFixture } from '../../../tests/fixtures/audio/fixtures';
import { tinyWhisper, writeWhisperModel } from '../../../tests/fixtures/models/ggml-whisper';
import { createLocalTranscriber } from './local';
import type { TranscriptionRequest } from './port';

const script = { words: [' Hello', ' Nora', ',', ' the', ' budget', ' is', ' ready', '.'], endAt: 12 };
const said = 'Nora, the budget is ready. Hello Nora, the';

let dir: string;
let modelPath: string;
let utterance: TranscriptionRequest;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'whisper-build-test-'));
  modelPath = await writeWhisperModel(join(dir, 'ggml-tiny-test.bin'), tinyWhisper, script);
  const { pcm } = await loadAudioFixture('hello-pause');
  utterance = { pcm, sampleRate: 16_000, language: 'en' };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the prebuilt whisper.cpp', { timeout: 120_000 }, () => {
  it('falls back to the prebuilt binary, saying why, when it cannot build', async () => {
    const copy = join(dir, 'ggml-tiny-copy.bin');
    copyFileSync(modelPath, copy);
    const lines: string[] = [];
    const local = createLocalTranscriber({ modelPath: copy, threads: 1, build: join(copy, 'runtime'), log: (line) => lines.push(line) });
    expect((await local.transcribe(utterance)).text).toBe(said);
    expect(lines).toEqual([expect.stringMatching(/^local transcriber: using the prebuilt whisper\.cpp, several times slower on this CPU: ENOTDIR: not a directory/)]);
  });
});
