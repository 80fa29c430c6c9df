/**
 * The LiveKit bridge against an in-memory LiveKit (tests/fakes/livekit-media.ts): real rooms from
 * rooms.ts for the spoken turn end to end (speech from the audio fixtures, an energy VAD, a
 * transcriber that returns fixed words, a synthesizer that speaks tones), and a stub room with
 * fake timers where only the bridge's own clock and backoff are under test. The real rtc-node
 * path is only checked against a port where no LiveKit answers.
 */
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ai, human, makeScene } from '../../tests/engine/harness';
import { createFakeMediaRoom, framesOf, type FakeMediaRoom } from '../../tests/fakes/livekit-media';
import { loadAudioFixture } from '../../tests/fixtures/audio/fixtures';
import { tempDir, until } from '../../tests/server/helpers';
import type { SessionEvent } from '../../shared/events';
import type { Vad } from '../media/vad';
import { ServerMessage } from '../../shared/protocol/messages';
import type { Generator } from '../providers/generator/port';
import { createScriptedGenerator } from '../providers/generator/scripted';
import type { Synthesizer } from '../providers/synthesis/port';
import type { Transcriber, TranscriptionRequest } from '../providers/transcription/port';
import { createRooms, type Client, type Pace, type Room } from '../rooms/rooms';
import type { LoadedScene } from '../../shared/scene/schema';
import { openStore } from '../store/store';
import { createBridge, type Bridge, type BridgedRoom } from './bridge';
import { CueMessage, topics } from '../../shared/protocol/media';

// ---------------------------------------------------------------------------------------------
// Stand-ins for the vendors

/** Speech is anything louder than a whisper: enough for clean fixtures, and instant. */
const energyVad = async (): Promise<Vad> => ({
  frame: async (samples) => (Math.sqrt(samples.reduce((sum, x) => sum + x * x, 0) / samples.length) > 0.01 ? 0.95 : 0.01),
  reset: () => undefined,
  close: async () => undefined,
});

const fixedTranscriber = (text: string): Transcriber & { calls: TranscriptionRequest[] } => {
  const calls: TranscriptionRequest[] = [];
  return { name: 'fixed', calls, transcribe: async (request) => (calls.push(request), { text }) };
};

/** Each clause as `msPerClause` of a tone at `sampleRate`, its words spread evenly over it. */
const toneSynthesizer = (sampleRate: number, msPerClause: number): Synthesizer => ({
  name: 'tone',
  async *synthesize({ text }) {
    const samples = Math.round((sampleRate * msPerClause) / 1000);
    const pcm = Int16Array.from({ length: samples }, (_, i) => Math.round(8000 * Math.sin(i / 7)));
    const words = text.split(/\s+/).filter(Boolean);
    const each = msPerClause / Math.max(1, words.length);
    yield {
      pcm,
      sampleRate,
      offsetMs: 0,
      cues: [{ t: 0, viseme: 'aa' }, { t: msPerClause / 2, viseme: 'O' }],
      words: words.map((word, i) => ({ word, start: i * each, end: (i + 1) * each })),
    };
  },
});

/** Never answers (until the room ends): the room keeps waiting for its first reply. */
const silentGenerator = (): Generator => ({
  name: 'silent',
  async *stream(_request, signal) {
    await new Promise((resolve) => signal?.addEventListener('abort', resolve));
  },
});

// ---------------------------------------------------------------------------------------------
// A real room with a bridge on a fake LiveKit

interface Setup {
  room: Room;
  media: FakeMediaRoom;
  bridge: Bridge;
  errors: Error[];
  /** What a socket observer of the room received. */
  socket: ServerMessage[];
  log(): SessionEvent[];
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const setup = (
  scene: LoadedScene,
  options: { pace: Pace; speed?: number; generator?: () => Generator; synthesizer?: Synthesizer; transcriber?: Transcriber; present?: string[] },
): Setup => {
  const dir = tempDir();
  const store = openStore(dir);
  const media = createFakeMediaRoom();
  for (const identity of options.present ?? []) media.join(identity);
  const errors: Error[] = [];
  let bridge: Bridge | null = null;
  const rooms = createRooms({
    store,
    scenes: new Map([[scene.id, scene]]),
    generator: options.generator ?? (() => createScriptedGenerator()),
    synthesizer: () => options.synthesizer ?? null,
    transcriber: options.transcriber ?? null,
    vad: energyVad,
    ...(options.speed ? { speed: options.speed } : {}),
    // As server/main.ts does: every new room gets its bridge before its first event.
    onOpen: (room) => (bridge = createBridge({ room, media, onError: (error) => errors.push(error) })),
  });
  const room = rooms.create(scene.id, { pace: options.pace, seed: 7, standIns: true });
  const socket: ServerMessage[] = [];
  const observer: Client = { participant: null, role: 'observer', send: (message) => socket.push(message) };
  room.join(observer, 0);
  cleanups.push(async () => {
    if (!room.ended()) room.conversation.send({ type: 'end' });
    await bridge?.close();
    await room.conversation.ended;
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { room, media, bridge: bridge!, errors, socket, log: () => store.events(room.id) as SessionEvent[] };
};

const ofType = <T extends ServerMessage['type']>(messages: readonly ServerMessage[], type: T) =>
  messages.filter((m): m is Extract<ServerMessage, { type: T }> => m.type === type);

const samplesOf = (base64: string) => {
  const bytes = Buffer.from(base64, 'base64');
  return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
};

const concat = (parts: readonly Int16Array[]) => {
  const all = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (all.set(p, at), at + p.length), 0);
  return all;
};

/** Every data message on `topic`, parsed as a protocol message (throws on any that is not). */
const protocolOn = (media: FakeMediaRoom, topic: string) => media.data.filter((d) => d.topic === topic).map((d) => ServerMessage.parse(JSON.parse(d.payload)));

/** "Hello there." and the silence that ends the turn. */
const helloThere = async () => {
  const { pcm, truth } = await loadAudioFixture('hello-pause');
  return pcm.subarray(0, Math.round((truth.segments[0]!.endMs + 1400) * 16));
};

const meeting = makeScene(
  {
    participants: [human('tara', 'Tara Quinn'), human('sam', 'Sam Reyes'), ai('ada', 'Ada Park')],
    turnTaking: { policy: 'round-robin' },
    snippets: [{ id: 'a', initiator: 'ada', turns: 6 }],
  },
  'bridge-meeting',
);

const panel = makeScene(
  {
    participants: [ai('ada', 'Ada Park'), ai('ben', 'Ben Osei'), human('tara', 'Tara Quinn')],
    turnTaking: { policy: 'round-robin' },
    snippets: [{ id: 'a', initiator: 'ada', turns: 6 }],
  },
  'bridge-panel',
);

describe('humans in the LiveKit room', () => {
  it("hears each microphone track as its owner's voice, as the socket's microphone path does", async () => {
    const transcriber = fixedTranscriber('Hello there, Ada.');
    const { media, socket, log } = setup(meeting, { pace: 'instant', generator: silentGenerator, transcriber, present: ['tara', 'sam'] });
    await until(() => media.connected, 'the bridge in the LiveKit room');
    await until(() => log().filter((e) => e.type === 'system' && e.code === 'joined').length === 2, 'Tara and Sam joined');

    const tara = media.track('tara', framesOf(await helloThere()));
    const sam = media.track('sam', framesOf(new Int16Array(16_000)));
    await until(() => log().some((e) => e.type === 'utterance'), 'a transcribed turn');
    expect(log().find((e) => e.type === 'utterance')).toMatchObject({ speaker: 'tara', source: 'human', text: 'Hello there, Ada.' });
    expect(tara.read && sam.read).toBe(true);
    // Sam's silence was heard and never transcribed; Tara's voice was, once, as a 16 kHz turn.
    expect(transcriber.calls).toHaveLength(1);
    expect(transcriber.calls[0]!.sampleRate).toBe(16_000);
    // The room's other clients hear both microphones relayed, each under its owner.
    const relayed = ofType(socket, 'voice');
    expect(new Set(relayed.map((v) => v.participant))).toEqual(new Set(['tara', 'sam']));
    expect(relayed.every((v) => v.sampleRate === 16_000)).toBe(true);
    // Who spoke, on the control topic: Tara started and stopped; Sam never did.
    expect(protocolOn(media, topics.control).filter((m) => m.type === 'speech')).toEqual([
      { type: 'speech', participant: 'tara', active: true },
      { type: 'speech', participant: 'tara', active: false },
    ]);
  });

  it('makes humans present while they are in the LiveKit room', async () => {
    const { media, room, log } = setup(meeting, { pace: 'instant', generator: silentGenerator });
    await until(() => media.connected, 'the bridge in the LiveKit room');
    media.join('tara');
    await until(() => room.snapshot('observer').participants.find((p) => p.id === 'tara')!.present, 'Tara present');
    media.leave('tara');
    await until(() => !room.snapshot('observer').participants.find((p) => p.id === 'tara')!.present, 'Tara gone');
    const presence = log().flatMap((e) => (e.type === 'system' && e.participant ? [`${e.participant} ${e.code}`] : []));
    expect(presence).toEqual(['tara joined', 'tara left']);
  });
});

describe('personas on their own tracks', () => {
  it('publishes each persona once, as persona:<id> at its voice rate, with exactly the audio the room spoke', async () => {
    const { media, room, socket, log } = setup(panel, { pace: 'instant', synthesizer: toneSynthesizer(24_000, 300), present: ['tara'] });
    // Ada and Ben speak; then the room waits for Tara.
    await until(() => log().some((e) => e.type === 'floor' && e.speaker === 'tara'), 'the floor to Tara');
    room.conversation.send({ type: 'end' });
    await until(() => media.closed, 'the bridge leaving when the session ends');

    expect(media.personas.map((p) => [p.identity, p.sampleRate])).toEqual([
      ['persona:ada', 24_000],
      ['persona:ben', 24_000],
    ]);
    const audio = ofType(socket, 'audio');
    for (const speaker of ['ada', 'ben']) {
      const spoken = concat(audio.filter((a) => a.speaker === speaker).map((a) => samplesOf(a.pcm)));
      const track = media.persona(`persona:${speaker}`)!;
      expect(spoken.length).toBeGreaterThan(0);
      expect(track.pushed.every((p) => p.sampleRate === 24_000)).toBe(true);
      expect(concat(track.pushed.map((p) => p.pcm))).toEqual(spoken);
      expect(track.closed).toBe(true);
    }
  });

  it('sends events, deltas, cues and controls on their topics in the protocol schema, reliably', async () => {
    const { media, room, socket, log } = setup(panel, { pace: 'instant', synthesizer: toneSynthesizer(24_000, 300), present: ['tara'] });
    await until(() => log().some((e) => e.type === 'floor' && e.speaker === 'tara'), 'the floor to Tara');
    room.conversation.send({ type: 'end' });
    await until(() => media.closed, 'the bridge leaving when the session ends');

    expect(media.data.every((d) => d.reliable)).toBe(true);
    // Events: the log from when the bridge was in (the first few came before: clients read
    // them from the log), in order, each once, to the end.
    const events = protocolOn(media, topics.events);
    expect(events.every((m) => m.type === 'event')).toBe(true);
    expect(events.length).toBeGreaterThan(5);
    expect(events.map((m) => (m.type === 'event' ? m.event : null))).toEqual(log().slice(-events.length));
    expect(log().at(-1)!.type).toBe('end');
    // Deltas as the socket had them.
    expect(protocolOn(media, topics.deltas)).toEqual(ofType(socket, 'delta'));
    // Cues: the socket's audio messages without their samples.
    const cues = media.messages(topics.cues).map((m) => CueMessage.strict().parse(m));
    expect(cues).toEqual(ofType(socket, 'audio').map(({ pcm: _pcm, ...rest }) => rest));
    expect(cues.length).toBeGreaterThan(1);
    expect(cues[0]!.cues[0]).toEqual({ t: 0, viseme: 'aa' });
    // Nothing for the socket alone (voice relays, welcomes) went out as data.
    const topicNames = new Set(media.data.map((d) => d.topic));
    expect([...topicNames].every((t) => Object.values(topics).includes(t))).toBe(true);
  });

  it("stops a persona's track when a human's voice barges in", async () => {
    const scene = makeScene(
      { participants: [ai('ada', 'Ada Park'), human('tara', 'Tara Quinn')], turnTaking: { policy: 'round-robin' }, snippets: [{ id: 'a', initiator: 'ada', turns: 4 }] },
      'bridge-barge-in',
    );
    const transcriber = fixedTranscriber('Sorry, Ada, one question.');
    // Realtime at a tenth of real speed: Ada's clauses (3 s of audio each) last 30 s on the air.
    const { media, log, socket } = setup(scene, { pace: 'realtime', speed: 0.1, synthesizer: toneSynthesizer(24_000, 3000), transcriber, present: ['tara'] });
    await until(() => (media.persona('persona:ada')?.pushed.length ?? 0) > 0, "Ada's voice on her track");

    media.track('tara', framesOf(await helloThere()));
    await until(() => media.persona('persona:ada')!.clears > 0, "Ada's track cleared", undefined, () => `room messages: ${socket.map((m) => m.type).join(' ')}`);
    const stops = protocolOn(media, topics.control).filter((m) => m.type === 'audio-stop');
    expect(stops).toEqual([expect.objectContaining({ speaker: 'ada', reason: 'barge-in' })]);
    // Cleared once, after all of the reply she was saying and before anything of her next one.
    const stopped = ofType(socket, 'audio').filter((a) => a.draft === stops[0]!.draft).length;
    const track = media.persona('persona:ada')!.log.map((entry) => entry.type);
    expect(track.slice(0, stopped + 1)).toEqual([...Array<string>(stopped).fill('push'), 'clear']);
    expect(track.slice(stopped + 1).every((type) => type === 'push')).toBe(true);

    await until(() => log().some((e) => e.type === 'utterance' && e.speaker === 'tara'), "Tara's words");
    expect(log().find((e) => e.type === 'interruption')).toMatchObject({ by: 'tara', of: 'ada', vibe: 'barge-in' });
  });
});

// ---------------------------------------------------------------------------------------------
// The bridge's own rules, with a stub room and fake timers

const stubRoom = (scene: LoadedScene = panel) => {
  const listeners = new Set<(message: ServerMessage) => void>();
  const heard: string[] = [];
  const presence: [string, boolean][] = [];
  const room: BridgedRoom = {
    id: 'stub',
    scene,
    hear: (participant) => void heard.push(participant),
    presence: (participant, present) => void presence.push([participant, present]),
    subscribe: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
  return { room, heard, presence, emit: (message: ServerMessage) => listeners.forEach((l) => l(message)) };
};

const base64Of = (pcm: Int16Array) => Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64');

/** A piece of Ada's speech: `ms` of samples at 16 kHz from `offsetMs` into `draft`. */
const piece = (draft: string, seq: number, offsetMs: number, ms: number): ServerMessage => ({
  type: 'audio',
  speaker: 'ada',
  draft,
  seq,
  offsetMs,
  sampleRate: 16_000,
  pcm: base64Of(new Int16Array(ms * 16).fill(seq + 1)),
  cues: [],
  words: [],
});

const event = (seq: number): ServerMessage => ({ type: 'event', event: { seq, t: seq, type: 'system', level: 'info', code: 'test', message: `event ${seq}` } });

const stopAda = (draft: string, atMs: number, reason: 'barge-in' | 'interrupted' = 'interrupted'): ServerMessage => ({ type: 'audio-stop', speaker: 'ada', draft, atMs, reason });

/** A bridge between a stub room and a fake media room, on fake timers, past its first tick. */
const bridgedOnFakeTimers = async () => {
  vi.useFakeTimers();
  const { room, emit } = stubRoom();
  const media = createFakeMediaRoom();
  createBridge({ room, media });
  await vi.advanceTimersByTimeAsync(0);
  return { emit, media };
};

describe('cutting a persona where the room says', () => {
  it('clears at once when the stop point has played, and at the stop point when it is still ahead', async () => {
    const { emit, media } = await bridgedOnFakeTimers();

    emit(piece('d1', 0, 0, 1000));
    emit(piece('d1', 1, 1000, 1000));
    await vi.advanceTimersByTimeAsync(200);
    // The scene's interruption rule: Ada stops at a word 1.5 s in, still 1.3 s away.
    emit(stopAda('d1', 1500));
    const ada = media.persona('persona:ada')!;
    await vi.advanceTimersByTimeAsync(1299);
    expect(ada.clears).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(ada.clears).toBe(1);

    // A barge-in 300 ms into the next reply: cut now.
    emit(piece('d2', 0, 0, 1000));
    await vi.advanceTimersByTimeAsync(300);
    emit(stopAda('d2', 300, 'barge-in'));
    await vi.advanceTimersByTimeAsync(0);
    expect(ada.clears).toBe(2);
    expect(media.personas).toHaveLength(1);
  });

  it('cuts pieces still to come at a stop beyond what is queued', async () => {
    const { emit, media } = await bridgedOnFakeTimers();

    emit(piece('d1', 0, 0, 1000));
    // A persistent persona stops at the end of the clause, 1.5 s in: half of the next piece plays.
    emit(stopAda('d1', 1500));
    emit(piece('d1', 1, 1000, 1000));
    emit(piece('d1', 2, 2000, 1000));
    await vi.advanceTimersByTimeAsync(3000);
    const ada = media.persona('persona:ada')!;
    expect(ada.clears).toBe(0);
    expect(ada.pushed.map((p) => p.pcm.length)).toEqual([16_000, 8000]);

    // The next reply plays whole.
    emit(piece('d2', 0, 0, 500));
    await vi.advanceTimersByTimeAsync(0);
    expect(ada.pushed.map((p) => p.pcm.length)).toEqual([16_000, 8000, 8000]);
  });

  it("makes a pending cut at once when the persona's next reply begins", async () => {
    const { emit, media } = await bridgedOnFakeTimers();

    emit(piece('d1', 0, 0, 1000));
    emit(stopAda('d1', 800));
    emit(piece('d2', 0, 0, 500));
    await vi.advanceTimersByTimeAsync(0);
    expect(media.persona('persona:ada')!.log.map((entry) => entry.type)).toEqual(['push', 'clear', 'push']);
    await vi.advanceTimersByTimeAsync(2000);
    expect(media.persona('persona:ada')!.clears).toBe(1);
  });
});

describe('who the bridge listens to', () => {
  it('ignores identities that are not a human seat of the scene: personas, the server, observers, AI seats, strangers', async () => {
    const { room, heard, presence } = stubRoom();
    const media = createFakeMediaRoom();
    createBridge({ room, media });
    await until(() => media.connected, 'connected');
    const others = ['persona:ada', 'server:stub', 'observer:x1', 'ada', 'mallory'];
    const tracks = others.map((identity) => {
      media.join(identity);
      return media.track(identity, framesOf(new Int16Array(3200).fill(5000)));
    });
    media.join('tara');
    const tara = media.track('tara', framesOf(new Int16Array(3200).fill(5000)));
    await until(() => heard.length === 10, "Tara's ten frames");
    expect(new Set(heard)).toEqual(new Set(['tara']));
    expect(presence).toEqual([['tara', true]]);
    expect(tracks.some((t) => t.read)).toBe(false);
    expect(tara.read).toBe(true);
  });
});

describe('when LiveKit is away', () => {
  it('retries the connect with exponential backoff, reporting each failure, and sends only what comes after', async () => {
    vi.useFakeTimers();
    const start = Date.now();
    const { room, emit } = stubRoom();
    const media = createFakeMediaRoom();
    media.failNext(3);
    const errors: string[] = [];
    const bridge = createBridge({ room, media, retry: { initialMs: 100, maxMs: 250 }, onError: (e) => errors.push(e.message) });
    await vi.advanceTimersByTimeAsync(50);
    emit(event(1));
    await vi.advanceTimersByTimeAsync(1000);

    expect(media.attempts.map((t) => t - start)).toEqual([0, 100, 300, 550]);
    expect(errors).toEqual([100, 200, 250].map((ms) => expect.stringMatching(new RegExp(`could not join the LiveKit room of session stub \\(connection refused\\); retrying in ${ms} ms`))));
    expect(bridge.connected).toBe(true);
    emit(event(2));
    await vi.advanceTimersByTimeAsync(0);
    expect(media.messages(topics.events)).toEqual([event(2)]);
  });

  it('after a lost connection: presence withdrawn and restored, personas republished, nothing old re-sent', async () => {
    vi.useFakeTimers();
    const { room, emit, presence } = stubRoom();
    const media = createFakeMediaRoom();
    const errors: string[] = [];
    const bridge = createBridge({ room, media, retry: { initialMs: 100, maxMs: 1000 }, onError: (e) => errors.push(e.message) });
    media.join('tara');
    await vi.advanceTimersByTimeAsync(0);
    emit(event(1));
    emit(piece('d1', 0, 0, 200));
    await vi.advanceTimersByTimeAsync(0);

    media.failNext(1);
    media.drop('SIGNAL_CLOSE');
    expect(bridge.connected).toBe(false);
    expect(presence).toEqual([['tara', true], ['tara', false]]);
    emit(event(2)); // while away: the client reads it from the log
    await vi.advanceTimersByTimeAsync(100);
    expect(bridge.connected).toBe(true);
    expect(presence).toEqual([['tara', true], ['tara', false], ['tara', true]]);
    emit(event(3));
    emit(piece('d2', 0, 0, 200));
    await vi.advanceTimersByTimeAsync(0);

    expect(media.messages(topics.events)).toEqual([event(1), event(3)]);
    expect(media.personas.map((p) => p.identity)).toEqual(['persona:ada', 'persona:ada']);
    expect(media.personas[1]!.pushed).toHaveLength(1);
    expect(errors[0]).toMatch(/lost the LiveKit room of session stub \(SIGNAL_CLOSE\); reconnecting/);
    await bridge.close();
    expect(presence.at(-1)).toEqual(['tara', false]);
    expect(media.closed).toBe(true);
  });
});

describe('with rtc-node and no LiveKit server', () => {
  it('fails to connect, keeps retrying, and closes cleanly', async () => {
    const { createRtcMediaRoom } = await import('./rtc');
    // A port nobody listens on.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const media = createRtcMediaRoom({ url: `ws://127.0.0.1:${port}`, token: async () => 'no-token', personaToken: async () => 'no-token' });
    const errors: string[] = [];
    const { room } = stubRoom();
    const bridge = createBridge({ room, media, retry: { initialMs: 20, maxMs: 40 }, onError: (e) => errors.push(e.message) });
    await until(() => errors.length >= 2, 'two failed connects');
    expect(errors[0]).toMatch(/could not join the LiveKit room of session stub \(.+\); retrying in 20 ms/);
    expect(bridge.connected).toBe(false);
    await expect(media.publishPersona('persona:ada', 24_000)).rejects.toThrow(/not connected/);
    await bridge.close();
  });
});
