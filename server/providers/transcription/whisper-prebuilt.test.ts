/**
 * The local transcriber where whisper.cpp cannot be built: the package's prebuilt binary, and a
 * line in the log saying why. A file of its own (a process of its own), as a server loads one
 * binding or the other.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLocalTranscriber } from './local';
import { noraSaid, scriptedWhisper } from '../../../tests/fixtures/models/whisper-runtime';

const said = noraSaid;
const fixture = scriptedWhisper('whisper-build-test-');

describe('the prebuilt whisper.cpp', { timeout: 120_000 }, () => {
  it('falls back to the prebuilt binary, saying why, when it cannot build', async () => {
    const copy = join(fixture.dir, 'ggml-tiny-copy.bin');
    copyFileSync(fixture.modelPath, copy);
    const lines: string[] = [];
    const local = createLocalTranscriber({ modelPath: copy, threads: 1, build: join(copy, 'runtime'), log: (line) => lines.push(line) });
    expect((await local.transcribe(fixture.utterance)).text).toBe(said);
    expect(lines).toEqual([expect.stringMatching(/^local transcriber: using the prebuilt whisper\.cpp, several times slower on this CPU: ENOTDIR: not a directory/)]);
  });
});
