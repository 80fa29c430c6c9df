/**
 * Recordings in an S3-compatible bucket (RECORDINGS_URL=s3://…), through the real server: a
 * session's speech lands in the bucket, GET .../recordings lists it and serves its WAVs from
 * there, a bucket that is down is a 503 that names no bucket or key (the cause goes to the
 * server's log), and DELETE ?purge=true empties the session's prefix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events';
import { decodeWav } from '../../shared/wav';
import { RecordingList } from '../../server/recordings/list';
import { createEspeakSynthesizer } from '../../server/providers/synthesis/espeak';
import { startS3Server, type FakeS3 } from '../fakes/s3-server';
import { ai, makeScene } from '../engine/harness';
import { api, createSession, logOf, startServer, until, type InProcessServer } from './helpers';

const duet = makeScene({ participants: [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei')], turnTaking: { policy: 'round-robin' }, snippets: [{ id: 'a', initiator: 'ada', turns: 3 }] }, 'duet');

const espeak = createEspeakSynthesizer();
let s3: FakeS3;
let server: InProcessServer;

beforeAll(async () => {
  s3 = await startS3Server({ bucket: 'rehearsal' });
  server = await startServer({
    scenes: (scenes) => [...scenes, duet],
    synthesizer: () => espeak,
    env: { SYNTHESIZER: 'espeak', RECORDINGS_URL: 's3://rehearsal/node-recordings', S3_ENDPOINT: s3.endpoint, ...{ AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey } },
  });
});
afterAll(async () => {
  await server?.close();
  await espeak.close?.();
  await s3?.close();
});

const keysOf = (session: string) => [...s3.objects.keys()].filter((key) => key.startsWith(`node-recordings/${session}/`)).sort();

describe('recordings in an S3 bucket', () => {
  it('are written to the bucket, listed and served from it; a bucket down is a 503 that leaks nothing; purge empties it', async () => {
    const created = await createSession(server, 'duet', 'instant');
    await until(() => server.store.session(created.id)?.endedAt != null, 'the duet to end', 30_000);
    const utterances = (await logOf(server, created.id)).filter((e): e is Extract<SessionEvent, { type: 'utterance' }> => e.type === 'utterance');
    const expected = utterances.flatMap((u) => [`node-recordings/${created.id}/${u.id}.json`, `node-recordings/${created.id}/${u.id}.wav`]).sort();
    await until(() => keysOf(created.id).length === expected.length, 'every recording in the bucket', 15_000, () => keysOf(created.id).join(', '));
    expect(keysOf(created.id)).toEqual(expected);

    const listed = await api(server, `/api/sessions/${created.id}/recordings`);
    expect(listed.status).toBe(200);
    const list = RecordingList.parse(await listed.json());
    expect(list.recordings.map((r) => r.utterance)).toEqual(utterances.map((u) => u.id));
    expect(list.missing).toEqual([]);
    const wav = await api(server, list.recordings[0]!.url);
    expect(wav.status).toBe(200);
    const served = Buffer.from(await wav.arrayBuffer());
    expect(served.equals(s3.objects.get(`node-recordings/${created.id}/${list.recordings[0]!.utterance}.wav`)!.body)).toBe(true);
    expect(Math.abs((decodeWav(served).pcm.length / list.recordings[0]!.sampleRate) * 1000 - list.recordings[0]!.durationMs)).toBeLessThanOrEqual(1);

    await s3.stop();
    try {
      for (const path of [`/api/sessions/${created.id}/recordings`, list.recordings[0]!.url]) {
        const down = await api(server, path);
        expect(down.status).toBe(503);
        const body = (await down.json()) as { error: string; message: string };
        expect(body.error).toBe('recordings-unavailable');
        expect(body.message).not.toMatch(/rehearsal|s3:|127\.0\.0\.1|AKIA/);
      }
    } finally {
      await s3.restart();
    }

    expect((await api(server, `/api/sessions/${created.id}?purge=true`, { method: 'DELETE' })).status).toBe(200);
    expect(keysOf(created.id)).toEqual([]);
  });
});
