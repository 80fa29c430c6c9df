/**
 * whisper.cpp built here against node-llama-cpp's ggml, then the local transcriber on it (the
 * prebuilt binary it falls back to: whisper-prebuilt.test.ts, a process of its own, as a server
 * loads one binding or the other). The build (a few CPU-minutes) happens once per machine,
 * in the folder the tests share (tests/fixtures/models/whisper-runtime.ts).
 */
import { describe, expect, it } from 'vitest';
import { createLocalTranscriber, whisperBuildStatus } from './local';
import { buildWhisperAddon, loadWhisperAddon, whisperSources } from './whisper-build';
import { noraSaid, scriptedWhisper, whisperBuildDir } from '../../../tests/fixtures/models/whisper-runtime';

const said = noraSaid;
const fixture = scriptedWhisper('whisper-build-test-');

// Elsewhere than Linux there is nothing to build: the transcriber says so and uses the prebuilt binary.
if (process.platform !== 'linux') {
  describe('whisper.cpp on a platform it is not built for', () => {
    it('says why it is not built, and refuses to build', async () => {
      expect(whisperSources()).toBe(`no build for ${process.platform}: its prebuilt whisper.cpp is used`);
      await expect(buildWhisperAddon({ dir: whisperBuildDir })).rejects.toThrow(/no build for/);
    });
  });
} else {
  describe('whisper.cpp built for this CPU', { timeout: 900_000 }, () => {
  it('builds once from the installed sources, and finds the build the next time', async () => {
    expect(whisperSources()).toMatchObject({ key: expect.stringMatching(/^whisper-[\d.]+-llama-v[\d.]+-linux-/) });
    const path = await buildWhisperAddon({ dir: whisperBuildDir });
    const said: string[] = [];
    expect(await buildWhisperAddon({ dir: whisperBuildDir, log: (line) => said.push(line) })).toBe(path);
    expect(said).toEqual([]);
    expect(typeof loadWhisperAddon(path).WhisperContext).toBe('function');
  });

  it('transcribes through the built binding, the encoder fitted to the utterance', async () => {
    const lines: string[] = [];
    const local = createLocalTranscriber({ modelPath: fixture.modelPath, threads: 1, build: whisperBuildDir, log: (line) => lines.push(line) });
    await local.ready;
    expect(await local.transcribe(fixture.utterance)).toEqual({ text: said, language: 'en' });
    // The first pause's partial: a shorter window than the model's, same words from the scripted decoder.
    expect((await local.transcribe({ ...fixture.utterance, pcm: fixture.utterance.pcm.subarray(0, 16_000) })).text).toBe(said);
    expect(lines.filter((line) => line.includes('prebuilt'))).toEqual([]);
    // Found built: ready at once, as /api/health says it.
    expect(whisperBuildStatus()).toEqual({ state: 'ready', elapsedMs: 0, using: 'built' });
  });
});
}
