import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeWav } from '../../shared/wav';
import { startS3Server, type FakeS3 } from '../../tests/fakes/s3-server';
import { until } from '../../tests/until';
import { RecordingsUnavailable } from './bucket';
import type { Recording } from './recorder';
import { openRecordings, openRecordingsAt, type RecordingsOptions, type RecordingStore } from './store';

const tempDir = () => mkdtempSync(join(tmpdir(), 'recordings-'));
const recording = (utterance: string, samples = 2400): Recording => ({
  utterance,
  participant: 'ada',
  sampleRate: 24_000,
  pcm: Int16Array.from({ length: samples }, (_, i) => i % 100),
  cues: [{ t: 0, viseme: 'aa' }],
  words: [{ word: 'hello', start: 0, end: 90 }],
});
const quiet: RecordingsOptions = { log: () => {}, retryMs: 50 };

/** One place recordings are held, as the suite below uses it. */
interface Backend {
  open(options?: RecordingsOptions): RecordingStore;
  /** Deletes an utterance's WAV behind the store's back, as an operator (or a lifecycle rule) would. */
  deleteWav(session: string, utterance: string): void;
  /** Whether anything of the session is still held. */
  holds(session: string): boolean;
}

let s3: FakeS3;
beforeAll(async () => {
  s3 = await startS3Server({ bucket: 'rehearsal', pageSize: 3 });
});
afterAll(() => s3.close());

let prefixes = 0;
const bucketAt = (prefix: string, options: RecordingsOptions = {}) =>
  openRecordingsAt({ kind: 's3', bucket: 'rehearsal', prefix, endpoint: s3.endpoint, region: 'us-east-1', credentials: s3.credentials }, { ...quiet, ...options });

const backends: Record<string, () => Backend> = {
  directory: () => {
    const dir = tempDir();
    return {
      open: (options) => openRecordings(dir, { ...quiet, ...options }),
      deleteWav: (session, utterance) => rmSync(join(dir, 'recordings', session, `${utterance}.wav`)),
      holds: (session) => existsSync(join(dir, 'recordings', session)),
    };
  },
  'S3 bucket': () => {
    // Each test its own prefix in the one fake bucket, as several deployments may share a bucket.
    const prefix = `deployment-${++prefixes}/recordings/`;
    return {
      open: (options) => bucketAt(prefix, options),
      deleteWav: (session, utterance) => void s3.objects.delete(`${prefix}${session}/${utterance}.wav`),
      holds: (session) => [...s3.objects.keys()].some((key) => key.startsWith(`${prefix}${session}/`)),
    };
  },
};

describe.each(Object.keys(backends))('the recordings, in a %s', (name) => {
  const backend = backends[name]!;

  it('writes a WAV and its sidecar per utterance and reads them back', async () => {
    const place = backend();
    const files = place.open();
    await files.write('s1', recording('u1'));
    const listed = await files.list('s1');
    expect([...listed.keys()]).toEqual(['u1']);
    expect(listed.get('u1')).toEqual({ sidecar: { sampleRate: 24_000, durationMs: 100, cues: [{ t: 0, viseme: 'aa' }], words: [{ word: 'hello', start: 0, end: 90 }] }, audio: true });
    const { pcm, sampleRate } = decodeWav((await files.wav('s1', 'u1'))!);
    expect(sampleRate).toBe(24_000);
    expect(pcm).toEqual(recording('u1').pcm);
    expect(await files.wav('s1', 'u9')).toBeNull();
    expect((await files.list('s-none')).size).toBe(0);
  });

  it('lists every recording of a long session', async () => {
    const files = backend().open();
    const utterances = Array.from({ length: 8 }, (_, i) => `u${i + 1}`);
    for (const utterance of utterances) void files.write('s1', recording(utterance, 240));
    await files.write('s1', recording('u9', 240));
    expect([...(await files.list('s1')).keys()].sort()).toEqual([...utterances, 'u9'].sort());
  });

  it('writes one session in order: a recording written again (truncated) ends as the last write says', async () => {
    const files = backend().open();
    void files.write('s1', recording('u1', 4800));
    await files.write('s1', recording('u1', 1200));
    expect((await files.list('s1')).get('u1')?.sidecar.durationMs).toBe(50);
    expect(decodeWav((await files.wav('s1', 'u1'))!).pcm.length).toBe(1200);
  });

  it('tells a sidecar whose WAV is gone, and has no WAV for it', async () => {
    const place = backend();
    const files = place.open();
    await files.write('s1', recording('u1'));
    place.deleteWav('s1', 'u1');
    expect((await files.list('s1')).get('u1')?.audio).toBe(false);
    expect(await files.wav('s1', 'u1')).toBeNull();
  });

  it('never lets ids that are not ids become paths or keys', async () => {
    const lines: string[] = [];
    const files = backend().open({ log: (line) => lines.push(line) });
    await files.write('s1', recording('../escape'));
    await files.write('../s1', recording('u1'));
    expect(lines).toHaveLength(2);
    expect(lines.every((line) => /not written: not an id$/.test(line))).toBe(true);
    expect(await files.wav('s1', '../../rehearsal')).toBeNull();
    expect((await files.list('..')).size).toBe(0);
  });

  it("removes a session's recordings after the writes under way, and writes none for it after", async () => {
    const place = backend();
    const files = place.open();
    await files.write('s2', recording('u1'));
    void files.write('s1', recording('u1'));
    await files.remove('s1');
    await files.write('s1', recording('u2'));
    expect(place.holds('s1')).toBe(false);
    expect((await files.list('s1')).size).toBe(0);
    expect((await files.list('s2')).size).toBe(1);
  });
});

describe('the recordings directory', () => {
  it('is private to the server', async () => {
    const dir = tempDir();
    const files = openRecordings(dir, quiet);
    await files.write('s1', recording('u1'));
    const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
    expect([mode(join(dir, 'recordings')), mode(join(dir, 'recordings', 's1')), mode(join(dir, 'recordings', 's1', 'u1.wav')), mode(join(dir, 'recordings', 's1', 'u1.json'))]).toEqual(['700', '700', '600', '600']);
  });

  it('logs a write that fails, goes on, and writes it once the directory takes it', async () => {
    const dir = tempDir();
    // A file where the recordings directory should be.
    writeFileSync(join(dir, 'recordings'), '');
    const lines: string[] = [];
    const files = openRecordings(dir, { ...quiet, log: (line) => lines.push(line) });
    await expect(files.write('s1', recording('u1'))).resolves.toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^session s1: recording of utterance u1 not written \(.*\); held, tried again in 0 s$/);
    rmSync(join(dir, 'recordings'));
    await until(async () => (await files.list('s1')).get('u1')?.audio === true, 'the held recording written');
    expect(lines[1]).toBe(`session s1: recording of utterance u1 written to ${join(dir, 'recordings')} after 2 tries`);
  });
});

describe('the recordings bucket', () => {
  it('chooses the bucket by RECORDINGS_URL, keys under its prefix, signed with the configured key', async () => {
    const files = bucketAt('team-a/');
    await files.write('s1', recording('u1'));
    expect([...s3.objects.keys()].filter((key) => key.startsWith('team-a/')).sort()).toEqual(['team-a/s1/u1.json', 'team-a/s1/u1.wav']);
    expect(s3.objects.get('team-a/s1/u1.wav')?.contentType).toBe('audio/wav');
  });

  it('reads a sidecar once while it does not change', async () => {
    const files = bucketAt('cached/');
    await files.write('s1', recording('u1'));
    await files.list('s1');
    const before = s3.requests.length;
    await files.list('s1');
    expect(s3.requests.slice(before).map((r) => r.method)).toEqual(['GET']);
    expect(s3.requests.at(-1)?.query['list-type']).toBe('2');
    await files.write('s1', recording('u1', 480));
    expect((await files.list('s1')).get('u1')?.sidecar.durationMs).toBe(20);
  });

  it('retries through server errors, and nothing is lost', async () => {
    const lines: string[] = [];
    const files = bucketAt('flaky/', { log: (line) => lines.push(line) });
    s3.failNext(2, 500);
    await files.write('s1', recording('u1'));
    s3.failNext(1, 503);
    expect((await files.list('s1')).get('u1')?.audio).toBe(true);
    expect(lines).toEqual([]);
  });

  it('says clearly when the bucket keeps failing, after its retries', async () => {
    const files = bucketAt('broken/');
    s3.failNext(3, 500);
    const before = s3.requests.length;
    const failure = await files.list('s1').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RecordingsUnavailable);
    expect((failure as Error).message).toBe('recordings bucket s3://rehearsal/broken/: listing session s1 failed: 500 InternalError (Fault injected by the test (500).)');
    expect(s3.requests.length - before).toBe(3);
  });

  it('holds the recordings written while the bucket is down, and writes them when it is back', async () => {
    const lines: string[] = [];
    const files = bucketAt('outage/', { log: (line) => lines.push(line) });
    await s3.stop();
    try {
      await files.write('s1', recording('u1'));
      await files.write('s1', recording('u2'));
      expect(lines[0]).toMatch(/^session s1: recording of utterance u1 not written \(recordings bucket s3:\/\/rehearsal\/outage\/: writing s1\/u1\.json failed: ECONNREFUSED/);
      const reading = await files.wav('s1', 'u1').catch((error: unknown) => error);
      expect(reading).toBeInstanceOf(RecordingsUnavailable);
      expect((reading as Error).message).toMatch(/^recordings bucket s3:\/\/rehearsal\/outage\/: reading s1\/u1\.wav failed: ECONNREFUSED/);
    } finally {
      await s3.restart();
    }
    await until(() => s3.objects.has('outage/s1/u1.wav') && s3.objects.has('outage/s1/u2.wav'), 'the held recordings written');
    expect(decodeWav((await files.wav('s1', 'u2'))!).pcm).toEqual(recording('u2').pcm);
    expect(lines.filter((line) => / written to s3:\/\/rehearsal\/outage\/ after \d+ tries$/.test(line))).toHaveLength(2);
  });

  it('drops the oldest held recording past its memory bound, and says so', async () => {
    const lines: string[] = [];
    const files = bucketAt('bounded/', { log: (line) => lines.push(line), maxHeldBytes: 6000, retryMs: 60_000 });
    await s3.stop();
    try {
      await files.write('s1', recording('u1')); // 4800 bytes of PCM
      await files.write('s1', recording('u2'));
    } finally {
      await s3.restart();
    }
    expect(lines.at(-1)).toBe('session s1: recording of utterance u1 dropped: 0 MB of recordings wait to be written to s3://rehearsal/bounded/');
  });

  it('names a key the bucket refuses', async () => {
    const files = openRecordingsAt({ kind: 's3', bucket: 'rehearsal', prefix: '', endpoint: s3.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'AKIAWRONG', secretAccessKey: 'nope' } }, quiet);
    await expect(files.list('s1')).rejects.toThrow(/^recordings bucket s3:\/\/rehearsal\/: listing session s1 failed: 403 InvalidAccessKeyId/);
  });
});
