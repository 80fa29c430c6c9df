/**
 * An in-memory LiveKit room for the bridge (shared/protocol/media.ts): the test is LiveKit. It
 * decides who is in the room and what their microphones say, makes connects fail or the
 * connection drop, and reads back what the bridge published: persona tracks with every PCM push
 * and clear, and every data message by topic.
 *
 * ```ts
 * const media = createFakeMediaRoom();
 * createBridge({ room, media });
 * media.join('tara');
 * media.track('tara', framesOf(pcm));
 * await until(() => media.persona('persona:ada')?.pushed.length > 0, 'Ada on her track');
 * media.messages('rehearsal.events'); // parsed JSON, in order
 * ```
 */
import type { Topic } from '../../shared/protocol/media';
import type { MediaRoom, PersonaTrack } from '../../server/livekit/media';

export interface FakePersona extends PersonaTrack {
  identity: string;
  /** Every push and clear, in order. */
  log: ({ type: 'push'; pcm: Int16Array; sampleRate: number } | { type: 'clear' })[];
  readonly pushed: { pcm: Int16Array; sampleRate: number }[];
  readonly clears: number;
  closed: boolean;
}

export interface FakeTrack {
  identity: string;
  /** Whether anyone started reading the frames. */
  read: boolean;
}

export interface FakeMediaRoom extends MediaRoom {
  /** Date.now() of every connect attempt. */
  readonly attempts: number[];
  readonly connected: boolean;
  readonly closed: boolean;
  /** The next `n` connects reject. */
  failNext(n: number): void;
  /** The connection drops (as LiveKit going away does); microphone tracks end with it. */
  drop(reason: string): void;
  /** A participant is in the room (reported now if connected, else on connect). */
  join(identity: string): void;
  leave(identity: string): void;
  /** `identity` publishes a microphone with these frames. */
  track(identity: string, frames: AsyncIterable<Int16Array>): FakeTrack;
  /** Every persona track published, in order (a republished persona appears again). */
  readonly personas: FakePersona[];
  /** The latest track published under `identity`. */
  persona(identity: string): FakePersona | undefined;
  readonly data: { topic: Topic; payload: string; reliable: boolean }[];
  /** The data sent on `topic`, parsed. */
  messages(topic: Topic): unknown[];
}

/** `pcm` as frames of `samples`, as fast as they are read. */
export async function* framesOf(pcm: Int16Array, options: { samples?: number } = {}): AsyncGenerator<Int16Array> {
  const size = options.samples ?? 320;
  for (let at = 0; at < pcm.length; at += size) yield pcm.slice(at, at + size);
}

export const createFakeMediaRoom = (): FakeMediaRoom => {
  const onTrack: ((identity: string, frames: AsyncIterable<Int16Array>) => void)[] = [];
  const onParticipant: ((identity: string, present: boolean) => void)[] = [];
  const onDisconnect: ((reason: string) => void)[] = [];
  const members = new Set<string>();
  const tracks = new Map<string, { fake: FakeTrack; frames: AsyncIterable<Int16Array> }[]>();
  const personas: FakePersona[] = [];
  const data: FakeMediaRoom['data'] = [];
  const attempts: number[] = [];
  let failures = 0;
  let connected = false;
  let closed = false;

  const announce = (identity: string) => {
    onParticipant.forEach((cb) => cb(identity, true));
    for (const { frames } of tracks.get(identity) ?? []) onTrack.forEach((cb) => cb(identity, frames));
  };

  const media: FakeMediaRoom = {
    attempts,
    get connected() {
      return connected;
    },
    get closed() {
      return closed;
    },
    failNext: (n) => void (failures = n),
    drop(reason) {
      connected = false;
      // Their streams end with the connection; a test publishes new ones after the reconnect.
      tracks.clear();
      for (const persona of personas) persona.closed = true;
      onDisconnect.forEach((cb) => cb(reason));
    },
    join(identity) {
      members.add(identity);
      if (connected) onParticipant.forEach((cb) => cb(identity, true));
    },
    leave(identity) {
      members.delete(identity);
      tracks.delete(identity);
      if (connected) onParticipant.forEach((cb) => cb(identity, false));
    },
    track(identity, frames) {
      const fake: FakeTrack = { identity, read: false };
      const watched: AsyncIterable<Int16Array> = {
        [Symbol.asyncIterator]: () => {
          fake.read = true;
          return frames[Symbol.asyncIterator]();
        },
      };
      tracks.set(identity, [...(tracks.get(identity) ?? []), { fake, frames: watched }]);
      if (connected) onTrack.forEach((cb) => cb(identity, watched));
      return fake;
    },
    personas,
    persona: (identity) => personas.filter((p) => p.identity === identity).at(-1),
    data,
    messages: (topic) => data.filter((d) => d.topic === topic).map((d) => JSON.parse(d.payload) as unknown),

    async connect() {
      attempts.push(Date.now());
      await Promise.resolve();
      if (failures > 0) {
        failures--;
        throw new Error('connection refused');
      }
      connected = true;
      for (const identity of members) announce(identity);
    },
    onHumanTrack: (cb) => void onTrack.push(cb),
    onParticipant: (cb) => void onParticipant.push(cb),
    onDisconnect: (cb) => void onDisconnect.push(cb),
    async publishPersona(identity, sampleRate) {
      if (!connected) throw new Error('not connected');
      const log: FakePersona['log'] = [];
      const persona: FakePersona = {
        identity,
        sampleRate,
        log,
        get pushed() {
          return log.flatMap((entry) => (entry.type === 'push' ? [{ pcm: entry.pcm, sampleRate: entry.sampleRate }] : []));
        },
        get clears() {
          return log.filter((entry) => entry.type === 'clear').length;
        },
        closed: false,
        async push(pcm, rate) {
          if (persona.closed) throw new Error(`${identity} is gone`);
          log.push({ type: 'push', pcm: pcm.slice(), sampleRate: rate });
        },
        clear: () => void log.push({ type: 'clear' }),
        close: async () => void (persona.closed = true),
      };
      personas.push(persona);
      return persona;
    },
    async sendData(topic, payload, reliable) {
      if (!connected) throw new Error('not connected');
      data.push({ topic, payload, reliable });
    },
    async close() {
      closed = true;
      connected = false;
      for (const persona of personas) persona.closed = true;
    },
  };
  return media;
};
