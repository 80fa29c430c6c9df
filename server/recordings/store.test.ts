import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeWav } from '../../shared/wav';
import type { Recording } from './recorder';
import { openRecordings } from './store';

const tempDir = () => mkdtempSync(join(tmpdir(), 'recordings-'));
const recording = (utterance: string, samples = 2400): Recording => ({
  utterance,
  participant: 'ada',
  sampleRate: 24_000,
  pcm: Int16Array.from({ length: samples }, (_, i) => i % 100),
  cues: [{ t: 0, viseme: 'aa' }],
  words: [{ word: 'hello', start: 0, end: 90 }],
});

describe('the recording files', () => {
  it('writes a WAV and its sidecar per utterance, private to the server, and reads them back', async () => {
    const dir = tempDir();
    const files = openRecordings(dir, { log: () => {} });
    await files.write('s1', recording('u1'));
    const listed = files.list('s1');
    expect([...listed.keys()]).toEqual(['u1']);
    expect(listed.get('u1')).toEqual({ sidecar: { sampleRate: 24_000, durationMs: 100, cues: [{ t: 0, viseme: 'aa' }], words: [{ word: 'hello', start: 0, end: 90 }] }, audio: true });
    const { pcm, sampleRate } = decodeWav(files.wav('s1', 'u1')!);
    expect(sampleRate).toBe(24_000);
    expect(pcm).toEqual(recording('u1').pcm);
    const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
    expect([mode(join(dir, 'recordings')), mode(join(dir, 'recordings', 's1')), mode(join(dir, 'recordings', 's1', 'u1.wav')), mode(join(dir, 'recordings', 's1', 'u1.json'))]).toEqual(['700', '700', '600', '600']);
  });

  it('writes one session in order: a recording written again (truncated) ends as the last write says', async () => {
    const files = openRecordings(tempDir(), { log: () => {} });
    void files.write('s1', recording('u1', 4800));
    await files.write('s1', recording('u1', 1200));
    expect(files.list('s1').get('u1')?.sidecar.durationMs).toBe(50);
    expect(decodeWav(files.wav('s1', 'u1')!).pcm.length).toBe(1200);
  });

  it('tells a sidecar whose WAV is gone, and has no WAV for it', async () => {
    const dir = tempDir();
    const files = openRecordings(dir, { log: () => {} });
    await files.write('s1', recording('u1'));
    rmSync(join(dir, 'recordings', 's1', 'u1.wav'));
    expect(files.list('s1').get('u1')?.audio).toBe(false);
    expect(files.wav('s1', 'u1')).toBeNull();
  });

  it('logs a write that fails and goes on; ids that are not ids never become paths', async () => {
    const dir = tempDir();
    // A file where the recordings directory should be.
    writeFileSync(join(dir, 'recordings'), '');
    const lines: string[] = [];
    const files = openRecordings(dir, { log: (line) => lines.push(line) });
    await expect(files.write('s1', recording('u1'))).resolves.toBeUndefined();
    await files.write('s1', recording('../escape'));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^session s1: recording of utterance u1 not written \(/);
    expect(lines[1]).toMatch(/not an id/);
    expect(existsSync(join(dir, 'escape.wav'))).toBe(false);
    expect(files.wav('s1', '../../rehearsal')).toBeNull();
    expect(files.list('..').size).toBe(0);
  });

  it("removes a session's recordings after the writes under way, and writes none for it after", async () => {
    const dir = tempDir();
    const files = openRecordings(dir, { log: () => {} });
    await files.write('s2', recording('u1'));
    void files.write('s1', recording('u1'));
    await files.remove('s1');
    await files.write('s1', recording('u2'));
    expect(existsSync(join(dir, 'recordings', 's1'))).toBe(false);
    expect(files.list('s2').size).toBe(1);
  });
});
