/**
 * Issue 4 end to end over the socket: a participant's microphone (synthesized speech from the
 * audio fixtures, sent as binary PCM16 frames) is relayed to the other clients, detected by the
 * Silero VAD, transcribed by an OpenAI-compatible Whisper server (a local fake speaking its wire
 * format), and answered by a persona whose reply arrives as audio with viseme cues; a persona cut
 * off is recorded up to where its audio stopped. Without a
 * transcriber, the client is told how to turn voice on, and bad frames get typed errors.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Generator } from '../../server/providers/generator/port';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { createEspeakSynthesizer } from '../../server/providers/synthesis/espeak';
import { createOpenAITranscriber } from '../../server/providers/transcription/openai';
import { decodeWav } from '../../shared/wav';
import type { ServerMessage } from '../../shared/protocol/messages';
import { ai, human, makeScene } from '../engine/harness';
import { fileBytes } from '../fakes/multipart';
import { startFakeWhisper, type FakeWhisper, type MultipartForm } from '../fakes/whisper-server';
import { loadAudioFixture } from '../fixtures/audio/fixtures';
import { Client, api, closeClients, createSession, startServer, until, type InProcessServer } from './helpers';

/** Round robin: Ada, Ben, then Tara, for whom the room waits once she is here. */
const voiceRoom = makeScene(
  {
    participants: [human('tara', 'Tara Quinn'), ai('ada', 'Ada Park'), ai('ben', 'Ben Osei')],
    turnTaking: { policy: 'round-robin' },
    snippets: [{ id: 'a', initiator: 'ada', turns: 6 }],
  },
  'voice-room',
);

/** Generation waits for `openGate()`, so a test's clients are in the room before anyone speaks. */
let openGate!: () => void;
let gate!: Promise<void>;
const closeGate = () => (gate = new Promise<void>((resolve) => (openGate = resolve)));
closeGate();
const gated = (): Generator => {
  const scripted = createScriptedGenerator();
  return {
    name: 'scripted',
    async *stream(request, signal) {
      await gate;
      yield* scripted.stream(request, signal);
    },
  };
};

const espeak = createEspeakSynthesizer();
let whisper: FakeWhisper;
let server: InProcessServer;
/** Microphone audio sent so far, in ms: the server's clock runs that far ahead (see `speak`). */
let spokenMs = 0;

beforeAll(async () => {
  whisper = await startFakeWhisper();
  server = await startServer({
    generator: gated,
    now: () => Date.now() + spokenMs,
    // Realtime at a tenth of real speed: a persona's line lasts long enough for the test to cut in.
    speed: 0.1,
    scenes: (scenes) => [...scenes, voiceRoom],
    synthesizer: () => espeak,
    transcriber: createOpenAITranscriber({ apiKey: 'none', baseUrl: whisper.baseUrl }),
    env: { SYNTHESIZER: 'espeak', TRANSCRIBER: 'openai', WHISPER_BASE_URL: whisper.baseUrl },
  });
});
afterEach(() => closeClients());
afterAll(async () => {
  openGate();
  await server?.close();
  await whisper?.close();
  await espeak.close?.();
});

const ofType = <T extends ServerMessage['type']>(messages: ServerMessage[], type: T) =>
  messages.filter((m): m is Extract<ServerMessage, { type: T }> => m.type === type);

/**
 * Sends `pcm` from `client`'s microphone as 64 ms binary frames, as a live microphone does: the
 * server's clock moves on 64 ms with each frame (so its real-time budget holds), and each frame is
 * sent once `listener` has had the one before relayed.
 */
const speak = async (client: Client, listener: Client, pcm: Int16Array) => {
  const frame = 1024;
  const relayed = () => ofType(listener.messages, 'voice').length;
  for (let at = 0, before = relayed(); at < pcm.length; at += frame, before++) {
    const piece = pcm.slice(at, at + frame);
    spokenMs += (piece.length / 16_000) * 1000;
    client.ws.send(Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
    await listener.waitFor(() => relayed() > before, `microphone frame ${at / frame} relayed`);
  }
};

describe('a spoken turn, end to end', () => {
  it('relays, detects, transcribes and answers a human voice with a spoken, lip-synced reply', async () => {
    for (let i = 0; i < 3; i++) whisper.script({ chunks: [' Hello there, Ada.'] });
    closeGate();
    const session = await createSession(server, 'voice-room', 'instant');
    const watcher = await Client.connect(server, session.id, session.tokens.observer!);
    const tara = await Client.connect(server, session.id, session.tokens.tara!);
    await tara.waitFor((m) => m.some((x) => x.type === 'welcome'), 'welcome');
    expect(ofType(tara.messages, 'welcome')[0]!.voice).toEqual({ input: true, output: 'espeak' });
    openGate();
    await watcher.waitFor((m) => m.some((x) => x.type === 'event' && x.event.type === 'floor' && x.event.speaker === 'tara'), 'the room waiting for Tara');

    // "Hello there." then 1.5 s of silence: one turn.
    const { pcm, truth } = await loadAudioFixture('hello-pause');
    const said = truth.segments[0]!;
    await speak(tara, watcher, pcm.subarray(0, Math.round((said.endMs + 1400) * 16)));

    const heard = await watcher.waitForEvent((e) => e.type === 'utterance' && e.speaker === 'tara', "Tara's transcribed turn");
    expect(heard).toMatchObject({ source: 'human', text: 'Hello there, Ada.' });
    if (heard.type !== 'utterance') throw new Error('expected an utterance');
    // The VAD's start and end, around the fixture's speech (pre-roll is not part of the turn).
    expect(heard.spoken!.end - heard.spoken!.start).toBeGreaterThan(said.endMs - said.startMs - 150);
    expect(heard.spoken!.end - heard.spoken!.start).toBeLessThan(said.endMs - said.startMs + 250);
    expect(heard.durationMs).toBe(heard.spoken!.end - heard.spoken!.start);

    // Whisper got the utterance as a 16 kHz WAV upload, names as the prompt.
    const form = whisper.requests[0]!.body as MultipartForm;
    expect(form.fields.model).toBe('whisper-1');
    expect(form.fields.prompt).toContain('Ada Park');
    const wav = decodeWav(fileBytes(form, 'file'));
    expect(wav.sampleRate).toBe(16_000);
    expect(wav.pcm.length / 16).toBeGreaterThan(said.endMs - said.startMs);

    // The relay: the observer heard Tara's microphone; Tara did not get her own voice back.
    const relayed = ofType(watcher.messages, 'voice');
    expect(relayed.length).toBeGreaterThan(10);
    expect(relayed.every((v) => v.participant === 'tara' && v.sampleRate === 16_000)).toBe(true);
    expect(Buffer.from(relayed[0]!.pcm, 'base64').length).toBe(2048);
    expect(ofType(tara.messages, 'voice')).toHaveLength(0);
    expect(ofType(watcher.messages, 'speech').map((s) => s.active).slice(0, 2)).toEqual([true, false]);

    // Ada answers, out loud: audio pieces with cues, tied to her utterance by its draft.
    const answer = await watcher.waitForEvent((e) => e.type === 'utterance' && e.speaker === 'ada', "Ada's answer");
    if (answer.type !== 'utterance') throw new Error('expected an utterance');
    expect(answer.draft).toBeTruthy();
    const audio = ofType(watcher.messages, 'audio').filter((a) => a.draft === answer.draft);
    expect(audio.length).toBeGreaterThan(0);
    expect(audio[0]).toMatchObject({ speaker: 'ada', seq: 0, offsetMs: 0, sampleRate: 22_050 });
    const samples = audio.reduce((n, a) => n + Buffer.from(a.pcm, 'base64').length / 2, 0);
    expect(answer.durationMs).toBe(Math.round((samples / 22_050) * 1000));
    const cues = audio.flatMap((a) => a.cues);
    expect(cues.length).toBeGreaterThan(5);
    expect(new Set(cues.map((c) => c.viseme)).size).toBeGreaterThan(3);
    // The first audio went out before the utterance was logged.
    const firstAudio = watcher.messages.indexOf(audio[0]!);
    const logged = watcher.messages.findIndex((m) => m.type === 'event' && m.event === answer);
    expect(firstAudio).toBeLessThan(logged);
    // Audio never reaches the log.
    const res = await api(server, `/api/sessions/${session.id}/events`);
    expect(await res.text()).not.toContain('"pcm"');
  });
});

describe('barge-in over the socket', () => {
  it("a human voice stops a persona's speech in realtime, and the log has the interruption with its offset", async () => {
    for (let i = 0; i < 3; i++) whisper.script({ chunks: [' Sorry, Ada, one question.'] });
    closeGate();
    const session = await createSession(server, 'voice-room', 'realtime');
    const watcher = await Client.connect(server, session.id, session.tokens.observer!);
    const tara = await Client.connect(server, session.id, session.tokens.tara!);
    await tara.waitFor((m) => m.some((x) => x.type === 'welcome'), 'welcome');
    openGate();
    // Ada starts talking; her speech plays in real time on the clients.
    await tara.waitFor((m) => m.some((x) => x.type === 'audio' && x.speaker === 'ada'), "Ada's first audio");
    const { pcm } = await loadAudioFixture('hello-pause');
    await speak(tara, watcher, pcm.subarray(0, Math.round(2600 * 16)));
    await watcher.waitFor((m) => ofType(m, 'audio-stop').length > 0, 'audio-stop');
    const stop = ofType(watcher.messages, 'audio-stop')[0]!;
    expect(stop).toMatchObject({ speaker: 'ada', reason: 'barge-in' });

    const interruption = await watcher.waitForEvent((e) => e.type === 'interruption', 'the interruption');
    expect(interruption).toMatchObject({ by: 'tara', of: 'ada', vibe: 'barge-in', atMs: Math.round(stop.atMs) });
    const turns = watcher.events().filter((e) => e.type === 'utterance');
    const ada = turns[0]!;
    expect(ada).toMatchObject({ speaker: 'ada', draft: stop.draft });
    if (ada.type === 'utterance') expect(stop.atMs).toBeLessThan(ada.durationMs);
    await watcher.waitForEvent((e) => e.type === 'utterance' && e.speaker === 'tara', "Tara's words");
    // Nobody else took the floor while Tara was speaking.
    expect(watcher.events().filter((e) => e.type === 'utterance').map((e) => (e.type === 'utterance' ? e.speaker : '')).slice(0, 2)).toEqual(['ada', 'tara']);
    // Ada's recording holds what the room heard, up to the stop; Tara's microphone is not recorded (the session does not record).
    await until(async () => (await server.recordings.list(session.id)).get(ada.type === 'utterance' ? ada.id : '')?.audio === true, "Ada's recording");
    const listed = (await (await api(server, `/api/sessions/${session.id}/recordings`)).json()) as { recordings: { utterance: string; participant: string; durationMs: number }[] };
    expect(listed.recordings.map((r) => r.participant)).not.toContain('tara');
    const cut = listed.recordings.find((r) => r.utterance === (ada.type === 'utterance' ? ada.id : ''));
    expect(Math.abs(cut!.durationMs - stop.atMs)).toBeLessThanOrEqual(1);
    await api(server, `/api/sessions/${session.id}`, { method: 'DELETE' });
  });
});

describe('voice edges', () => {
  it('without a transcriber: the welcome says how to turn voice on, audio is relayed, and one voice-off error explains', async () => {
    closeGate();
    const plain = await startServer({ generator: gated, scenes: (scenes) => [...scenes, voiceRoom] });
    try {
      const session = await createSession(plain, 'voice-room', 'instant');
      const watcher = await Client.connect(plain, session.id, session.tokens.observer!);
      const tara = await Client.connect(plain, session.id, session.tokens.tara!);
      await tara.waitFor((m) => m.some((x) => x.type === 'welcome'), 'welcome');
      const offer = ofType(tara.messages, 'welcome')[0]!.voice;
      expect(offer).toMatchObject({ input: false, output: null, hint: expect.stringContaining('TRANSCRIBER') });
      const frame = new Int16Array(512).fill(1000);
      for (let i = 0; i < 3; i++) tara.ws.send(Buffer.from(frame.buffer));
      await tara.waitFor((m) => m.some((x) => x.type === 'error'), 'the voice-off error');
      await watcher.waitFor((m) => ofType(m, 'voice').length === 3, `three relayed frames ${JSON.stringify(watcher.events().slice(-3))} ${JSON.stringify(tara.messages.slice(-2)).slice(0, 300)}`);
      await tara.ping();
      expect(tara.errors()).toEqual([expect.objectContaining({ code: 'voice-off', message: expect.stringContaining('Type instead') })]);
    } finally {
      await closeClients();
      openGate();
      await plain.close();
    }
  });

  it('typed errors for bad frames and for observers; the socket stays open', async () => {
    closeGate();
    const session = await createSession(server, 'voice-room', 'instant');
    const watcher = await Client.connect(server, session.id, session.tokens.observer!);
    const tara = await Client.connect(server, session.id, session.tokens.tara!);
    expect(await tara.expectError(Buffer.alloc(3))).toMatchObject({ code: 'bad-message', field: 'audio' });
    expect(await tara.expectError(Buffer.alloc(40_000))).toMatchObject({ code: 'too-large' });
    expect(await watcher.expectError(Buffer.alloc(1024))).toMatchObject({ code: 'forbidden' });
    // A flood of audio far faster than real time is refused, not queued.
    const second = Buffer.alloc(32_000);
    for (let i = 0; i < 8; i++) tara.ws.send(second);
    await tara.waitFor((m) => m.some((x) => x.type === 'error' && x.code === 'rate-limited'), 'rate-limited');
    await tara.ping();
    await watcher.ping();
    expect(tara.closed).toBeNull();
    openGate();
  });
});
