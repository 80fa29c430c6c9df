/**
 * Issue 17, part 4, over the API: the audio of every utterance is stored with the session and
 * deleted with it. Personas' speech (the embedded eSpeak voice, scripted lines at instant pace) is
 * listed by GET .../recordings on the report's clock and served as WAV files; a human's microphone
 * (binary frames through the socket, a VAD that hears loudness and a transcriber that always
 * hears the same words) is stored only when the session records; each role sees what its report
 * shows; a file that is gone is `missing` and a 404, one that cannot be written stops nothing;
 * DELETE ?purge=true leaves nothing behind.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events';
import { decodeWav } from '../../shared/wav';
import type { Vad } from '../../server/media/vad';
import { createEspeakSynthesizer } from '../../server/providers/synthesis/espeak';
import type { Transcriber } from '../../server/providers/transcription/port';
import { RecordingList } from '../../server/recordings/list';
import { Report } from '../../shared/review/report';
import { ai, human, makeScene } from '../engine/harness';
import { Client, api, closeClients, createSession, logOf, startServer, until, type Created, type InProcessServer } from './helpers';

/** Two personas, three short turns, then the end. */
const duet = makeScene({ participants: [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei')], turnTaking: { policy: 'round-robin' }, snippets: [{ id: 'a', initiator: 'ada', turns: 3 }] }, 'duet');
/** Ada opens, then the room waits for Tara. */
const interview = makeScene(
  { participants: [ai('ada', 'Ada Park'), human('tara', 'Tara Quinn')], turnTaking: { policy: 'round-robin' }, snippets: [{ id: 'a', initiator: 'ada', turns: 4 }] },
  'interview',
);

/** Speech wherever the samples are loud. */
const loudnessVad = (): Promise<Vad> => Promise.resolve({ frame: async (samples) => (samples.some((x) => Math.abs(x) > 0.1) ? 0.99 : 0.01), reset: () => {}, close: async () => {} });
const hearsHello: Transcriber = { name: 'fake', transcribe: async () => ({ text: 'Hello there, Ada.' }) };

const espeak = createEspeakSynthesizer();
let server: InProcessServer;

beforeAll(async () => {
  server = await startServer({ scenes: (scenes) => [...scenes, duet, interview], synthesizer: () => espeak, transcriber: hearsHello, vad: loudnessVad, env: { SYNTHESIZER: 'espeak' } });
});
afterEach(() => closeClients());
afterAll(async () => {
  await server?.close();
  await espeak.close?.();
});

const recordingsDir = (session: string) => join(server.dataDir, 'recordings', session);
const filesOf = (session: string): string[] => (existsSync(recordingsDir(session)) ? readdirSync(recordingsDir(session)).sort() : []);

const listOf = async (session: string, token?: string): Promise<RecordingList> => {
  const res = await api(server, `/api/sessions/${session}/recordings`, { token: token ?? server.admin });
  expect(res.status).toBe(200);
  return RecordingList.parse(await res.json());
};

const utterancesOf = (log: SessionEvent[]) => log.filter((e): e is Extract<SessionEvent, { type: 'utterance' }> => e.type === 'utterance');

/** A duet run to its end, with a recording of each of its utterances on disk. */
const finishedDuet = async (): Promise<{ created: Created; log: SessionEvent[] }> => {
  const created = await createSession(server, 'duet', 'instant');
  await until(() => server.store.session(created.id)?.endedAt != null, 'the duet to end', 30_000);
  const log = await logOf(server, created.id);
  const ids = utterancesOf(log).map((u) => u.id);
  await until(() => ids.every((id) => filesOf(created.id).includes(`${id}.wav`)), 'a WAV for every utterance', 15_000, () => filesOf(created.id).join(', '));
  return { created, log };
};

/** 16 kHz mono: `ms` of a loud tone. */
const tone = (ms: number): Int16Array => Int16Array.from({ length: ms * 16 }, (_, i) => Math.round(8000 * Math.sin(i / 5)));

/** Tara says something into her microphone (64 ms frames), then is silent long enough to end her turn. */
const speak = (tara: Client) => {
  const pcm = new Int16Array(16 * 2600);
  pcm.set(tone(600), 0);
  for (let at = 0; at < pcm.length; at += 1024) {
    const frame = pcm.slice(at, at + 1024);
    tara.send(new Uint8Array(frame.buffer));
  }
};

/** An interview where Tara speaks once; `recording`: the session's choice (absent: the scene's). */
const interviewWithTara = async (recording?: boolean) => {
  const res = await api(server, '/api/sessions', { method: 'POST', body: { scene: 'interview', pace: 'instant', ...(recording !== undefined ? { recording } : {}) } });
  expect(res.status).toBe(201);
  const created = (await res.json()) as Created & { recording: boolean };
  const tara = await Client.connect(server, created.id, created.tokens.tara!);
  await tara.waitForEvent((e) => e.type === 'floor' && e.speaker === 'tara', 'the room waiting for Tara');
  speak(tara);
  const said = await tara.waitForEvent((e) => e.type === 'utterance' && e.speaker === 'tara', "Tara's spoken turn");
  // The persona's answer after her: once its recording is written, hers (written before it, in order) would be too.
  const answer = await tara.waitForEvent((e) => e.type === 'utterance' && e.seq > said.seq, 'the answer to Tara');
  if (answer.type !== 'utterance' || said.type !== 'utterance') throw new Error('expected utterances');
  await until(() => filesOf(created.id).includes(`${answer.id}.wav`), "the answer's recording", 15_000, () => filesOf(created.id).join(', '));
  return { created, tara, said, answer };
};

describe("personas' speech", () => {
  it('is listed on the report timeline\'s clock, each a WAV of its listed length and sample rate, files 0600 in a 0700 directory', async () => {
    const { created, log } = await finishedDuet();
    const list = await listOf(created.id);
    const report = Report.parse(await (await api(server, `/api/sessions/${created.id}/report`)).json());
    const utterances = utterancesOf(log);
    expect(utterances.length).toBeGreaterThanOrEqual(3);
    expect(list.missing).toEqual([]);
    expect(list.recordings.map((r) => r.utterance)).toEqual(utterances.map((u) => u.id));
    for (const recording of list.recordings) {
      const event = utterances.find((u) => u.id === recording.utterance)!;
      const item = report.timeline.find((i) => i.kind === 'utterance' && i.utterance === recording.utterance)!;
      expect(recording).toMatchObject({ seq: event.seq, participant: event.speaker, startMs: item.startMs, url: `/api/sessions/${created.id}/recordings/${event.id}.wav` });
      // The log's length is the synthesized audio's.
      expect(Math.abs(recording.durationMs - event.durationMs)).toBeLessThanOrEqual(2);
      expect(recording.cues.length).toBeGreaterThan(0);
      expect(recording.words.length).toBeGreaterThan(0);
      expect(recording.words.every((w) => w.end <= recording.durationMs + 1)).toBe(true);

      // An <audio> element loads it with the token in the URL.
      const res = await fetch(`${server.base}${recording.url}?token=${encodeURIComponent(created.tokens.observer!)}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('audio/wav');
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.toString('ascii', 0, 4)).toBe('RIFF');
      const { pcm, sampleRate } = decodeWav(bytes);
      expect(sampleRate).toBe(recording.sampleRate);
      expect(Math.abs((pcm.length / sampleRate) * 1000 - recording.durationMs)).toBeLessThanOrEqual(1);
      expect(pcm.some((s) => s !== 0)).toBe(true);
    }
    const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
    expect(mode(join(server.dataDir, 'recordings'))).toBe('700');
    expect(mode(recordingsDir(created.id))).toBe('700');
    expect(new Set(filesOf(created.id).map((f) => mode(join(recordingsDir(created.id), f))))).toEqual(new Set(['600']));
  });

  it('a file that is gone is listed as missing and answers 404 with a clear message; an unknown or crafted name is a 404', async () => {
    const { created, log } = await finishedDuet();
    const [gone, ...kept] = utterancesOf(log);
    rmSync(join(recordingsDir(created.id), `${gone!.id}.wav`));
    const list = await listOf(created.id);
    expect(list.missing).toEqual([gone!.id]);
    expect(list.recordings.map((r) => r.utterance)).toEqual(kept.map((u) => u.id));

    const missing = await api(server, `/api/sessions/${created.id}/recordings/${gone!.id}.wav`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'recording-missing', message: expect.stringContaining(gone!.id) });
    for (const name of ['nobody.wav', `${kept[0]!.id}.mp3`, '..%2F..%2Frehearsal.db', `..%2F${created.id}%2F${kept[0]!.id}.wav`]) {
      const res = await api(server, `/api/sessions/${created.id}/recordings/${name}`);
      expect(res.status, name).toBe(404);
      expect(await res.json()).toMatchObject({ error: 'not-found' });
    }
  });


  it('a recording that cannot be written leaves the session running to its end', async () => {
    const created = await createSession(server, 'duet', 'instant', 'lobby');
    mkdirSync(join(server.dataDir, 'recordings'), { recursive: true, mode: 0o700 });
    // A file where the session's recordings directory would go.
    writeFileSync(recordingsDir(created.id), '');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    observer.send({ type: 'start', standIns: true });
    await observer.waitForEvent((e) => e.type === 'end', 'the end of the duet', 0, 30_000);
    expect(utterancesOf(observer.events()).length).toBeGreaterThanOrEqual(3);
    expect(await listOf(created.id)).toEqual({ recordings: [], missing: [] });
  });
});

describe('who may listen', () => {
  it("each role lists the utterances its report shows: an instructors' utterance is not a participant's; another session's token is refused", async () => {
    // A session written straight into the store: one utterance for everyone, one for the instructors.
    const id = 'hand-made';
    server.store.createSession({ id, scene: 'interview', seed: 1, pace: 'instant', createdAt: 0 });
    const line = (seq: number, uid: string, audience: SessionEvent['audience']) => ({
      seq, t: seq * 1000, type: 'utterance', id: uid, speaker: 'ada', text: 'Good morning, everyone.', addressee: null, pair: 'none', act: 'statement', snippet: 'a', source: 'ai', durationMs: 500, audience,
    });
    server.store.appendEvents(id, [
      { seq: 1, t: 0, type: 'session-start', scene: 'interview', title: 'Test scene', seed: 1, policy: 'round-robin', participants: [], audience: 'all' },
      line(2, 'u-all', 'all'),
      line(3, 'u-instructors', 'observers'),
      { seq: 4, t: 4000, type: 'end', reason: 'ended', turns: 2, audience: 'all' },
    ]);
    server.store.markEnded(id, 5000);
    for (const utterance of ['u-all', 'u-instructors']) {
      await server.recordings.write(id, { utterance, participant: 'ada', sampleRate: 16_000, pcm: tone(100), cues: [], words: [] });
    }
    const tokenOf = (role: 'participant' | 'observer', session = id) => server.tokens.sign({ session, participant: role === 'participant' ? 'tara' : null, role }, 60_000, Date.now());

    expect((await listOf(id, tokenOf('participant'))).recordings.map((r) => r.utterance)).toEqual(['u-all']);
    expect((await listOf(id, tokenOf('observer'))).recordings.map((r) => r.utterance)).toEqual(['u-all', 'u-instructors']);
    expect((await listOf(id)).recordings.map((r) => r.startMs)).toEqual([2000, 3000]);
    expect((await api(server, `/api/sessions/${id}/recordings/u-instructors.wav`, { token: tokenOf('participant') })).status).toBe(404);
    expect((await api(server, `/api/sessions/${id}/recordings/u-all.wav`, { token: tokenOf('participant') })).status).toBe(200);
    expect((await api(server, `/api/sessions/${id}/recordings`, { token: tokenOf('observer', 'another') })).status).toBe(403);
    expect((await api(server, `/api/sessions/${id}/recordings/u-all.wav`, { token: tokenOf('observer', 'another') })).status).toBe(403);
    expect((await api(server, `/api/sessions/${id}/recordings`, { token: null })).status).toBe(401);
  });
});

describe("a human's microphone", () => {
  it('is recorded when the session records, and the participant is told so before joining', async () => {
    const { created, tara, said } = await interviewWithTara(true);
    expect(created.recording).toBe(true);
    const welcome = tara.messages.find((m) => m.type === 'welcome');
    expect(welcome?.type === 'welcome' && welcome.snapshot.recording).toBe(true);
    const lobby = (await (await api(server, `/api/sessions/${created.id}`, { token: created.tokens.tara })).json()) as { recording?: boolean };
    expect(lobby.recording).toBe(true);

    const list = await listOf(created.id, created.tokens.tara);
    const hers = list.recordings.find((r) => r.utterance === said.id);
    expect(hers).toMatchObject({ participant: 'tara', sampleRate: 16_000, cues: [], words: [] });
    // The utterance as the VAD heard it, with its pre- and post-roll.
    expect(hers!.durationMs).toBeGreaterThanOrEqual(550);
    expect(hers!.durationMs).toBeLessThan(1500);
    const { pcm, sampleRate } = decodeWav(Buffer.from(await (await api(server, hers!.url, { token: created.tokens.tara })).arrayBuffer()));
    expect(sampleRate).toBe(16_000);
    expect(pcm.some((s) => Math.abs(s) > 4000)).toBe(true);

    // Her audio gone, sidecar and all: the session records, so it should be there.
    for (const f of filesOf(created.id).filter((name) => name.startsWith(`${said.id}.`))) rmSync(join(recordingsDir(created.id), f));
    expect((await listOf(created.id)).missing).toEqual([said.id]);
  });

  it('is never written when the session does not record (the default), though personas still are', async () => {
    const { created, tara, said, answer } = await interviewWithTara();
    expect(created.recording).toBe(false);
    const welcome = tara.messages.find((m) => m.type === 'welcome');
    expect(welcome?.type === 'welcome' && welcome.snapshot.recording).toBe(false);
    expect(filesOf(created.id).filter((f) => f.startsWith(`${said.id}.`))).toEqual([]);
    const list = await listOf(created.id);
    expect(list.recordings.map((r) => r.participant)).not.toContain('tara');
    expect(list.recordings.map((r) => r.utterance)).toContain(answer.id);
    expect(list.missing).toEqual([]);
  });
});

describe('deleting a session with ?purge=true', () => {
  it('deletes its log, its row, its recordings and its cached report; plain DELETE only ends', async () => {
    const { created } = await finishedDuet();
    expect((await api(server, `/api/sessions/${created.id}/report`)).status).toBe(200);
    expect(filesOf(created.id).length).toBeGreaterThan(0);
    const res = await api(server, `/api/sessions/${created.id}?purge=true`, { method: 'DELETE', token: created.tokens.observer });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: created.id, ended: true, deleted: true });
    expect(server.store.session(created.id)).toBeUndefined();
    expect(server.store.events(created.id)).toEqual([]);
    expect(existsSync(recordingsDir(created.id))).toBe(false);
    for (const path of ['', '/report', '/recordings']) expect((await api(server, `/api/sessions/${created.id}${path}`)).status, path).toBe(404);
    const sessions = (await (await api(server, '/api/sessions')).json()) as { sessions: { id: string }[] };
    expect(sessions.sessions.map((s) => s.id)).not.toContain(created.id);
    expect((await api(server, `/api/sessions/${created.id}?purge=true`, { method: 'DELETE' })).status).toBe(404);
  });

  it('ends a live session first; a participant may not purge', async () => {
    const res = await api(server, '/api/sessions', { method: 'POST', body: { scene: 'interview', pace: 'realtime' } });
    const created = (await res.json()) as Created;
    expect((await api(server, `/api/sessions/${created.id}?purge=true`, { method: 'DELETE', token: created.tokens.tara })).status).toBe(403);
    expect((await api(server, `/api/sessions/${created.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(server.store.session(created.id)?.endedAt).not.toBeNull();

    const live = await createSession(server, 'interview', 'realtime', 'lobby');
    const purged = await api(server, `/api/sessions/${live.id}?purge=true`, { method: 'DELETE' });
    expect(purged.status).toBe(200);
    expect(server.store.session(live.id)).toBeUndefined();
    expect(server.rooms.get(live.id)).toBeUndefined();
  });
});
