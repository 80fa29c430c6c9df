/**
 * GET /api/sessions/:id/socket?token=&after=&stream=: the realtime protocol (shared/protocol/messages.ts)
 * of a live session, for any role of it. The client gets a welcome with a snapshot, the log after
 * `?after=`, then the live stream (stream=livekit: a participant's comes on LiveKit data topics).
 *
 * Limits hold per person (a seat, or an observer's or the author's token) across all their
 * sockets: one message budget, lines (`say`, `say-as`, `inject`) and microphone seconds in
 * rate-limit.ts's buckets (a headset's `pose`s have their own, and are not sent to a reader that is
 * behind); a bad or refused message gets a typed `error` and the connection stays.
 * What closes a socket:
 *   1007  a text frame that is not UTF-8 (RFC 6455 §8.1, by the `ws` library)
 *   1009  a frame larger than the payload limit (`maxPayload`: 64x MAX_MESSAGE_BYTES, at least 1 MiB)
 *   4401  its token expired          4404  the session is not live on this server
 *   4408  it fell 4 MB behind (a slow reader: rejoin with ?after=)
 *   4409  a newer socket of the same seat or token took its place
 *   1000  the client sent `leave`
 * One that misses a ping (every 15 s) is cut.
 *
 * ```ts
 * const upgrades = createUpgrades({ maxPayload: 1 << 20 });
 * app.route('/api/sessions', sessionSocket({ authorize, upgrades, rooms, config, now }));
 * upgrades.inject(server, app);
 * ```
 */
import { Hono } from 'hono';
import type { WebSocket } from 'ws';
import { roles } from '../../shared/claims';
import type { Config } from '../config';
import { ClientMessage, clientTypes, MAX_MIC_FRAME_BYTES, MIC_SAMPLE_RATE, observerTypes, participantTypes, type ServerMessage } from '../../shared/protocol/messages';
import type { Client, Room, Rooms } from '../rooms/rooms';
import { credentialOf, type ApiEnv, type Authorize } from './access';
import { createBucket, type Bucket } from './rate-limit';
import { seqParam } from './input';
import type { Upgrades } from './upgrade';

export interface SessionSocketOptions {
  authorize: Authorize;
  upgrades: Upgrades;
  rooms: Rooms;
  config: Pick<Config, 'maxMessageBytes' | 'messageRatePerS' | 'messageBurst'> & Partial<Pick<Config, 'livekit'>>;
  now: () => number;
  /** How often sockets are pinged (a dead one is cut after two missed pings); default 15 s. */
  heartbeatMs?: number;
  /** The send buffer past which a socket is dropped as a slow reader; default 4 MB. */
  maxBufferedBytes?: number;
  /** Sockets an observer's or the author's token may hold in a session at once; default 256. */
  maxSocketsPerToken?: number;
}

/** Microphone budget: seconds of audio per second, and the burst. */
const MIC_RATE = 1.5;
// A browser whose main thread stalled (a slow machine drawing the room) sends its queued frames at
// once: a few seconds of burst keep those words instead of dropping them.
const MIC_BURST_S = 5;

/**
 * Lines (`say`, `say-as`, `inject`): each is a turn or a direction, so a burst of them would run a
 * scene's snippets out in a second. A person may say 3 at once, then one every 2 s, across all
 * their sockets (typing a line takes longer than that).
 */
const lineTypes = new Set<ClientMessage['type']>(['say', 'say-as', 'inject']);
const LINE_BURST = 3;
const LINE_RATE_PER_S = 0.5;
/**
 * Sockets one observer's or the author's token may hold in a session at once; a newer one
 * replaces the oldest. A seat holds one (rooms.ts: one seat, one tab). An observer link may be
 * shared by a class watching a rehearsal, so it holds many: what they send shares one budget, and
 * what each is sent is bounded by the backpressure below.
 */
const MAX_SOCKETS_PER_TOKEN = 256;
/**
 * The send buffer a socket may fill before it is dropped as a slow reader (it rejoins with
 * ?after=): 4 MB is about a minute of a persona's speech as base64 PCM.
 */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/**
 * Poses from a headset (xr/pose.ts sends ~12 a second): their own budget, with room for a browser
 * that stalled and sends a few at once.
 */
const POSE_RATE_PER_S = 20;
const POSE_BURST = 30;
/**
 * A pose is presence: the next one supersedes it. It is not sent to a socket with this much
 * unsent (it is dropped, not queued), so poses never push a reader toward the slow-reader drop.
 */
const LOSSY_BUFFERED_BYTES = 64 * 1024;
/** How long a dropped slow reader has to read its close frame before its connection is cut. */
const SLOW_READER_CLOSE_MS = 1000;
/** Every socket is pinged this often; one that misses a ping is cut, so a dead one goes within 2x this (30 s). */
const HEARTBEAT_MS = 15_000;
/** How long an idle holder (no sockets) keeps its budgets, so reconnecting does not refill them. */
const HOLDER_IDLE_MS = 60_000;
/** setTimeout's longest delay. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Close codes: a newer socket took this one's place; the reader fell too far behind; the token ran out. */
const CLOSE_REPLACED = 4409;
const CLOSE_SLOW_READER = 4408;
const CLOSE_TOKEN_EXPIRED = 4401;

/** One person in one session (a seat, or an observer's or the author's credential), across their sockets. */
interface Holder {
  /** Oldest first. */
  sockets: Socket[];
  messages: Bucket;
  lines: Bucket;
  audio: Bucket;
  poses: Bucket;
  toldVoiceOff: boolean;
}

interface Socket {
  raw: WebSocket;
  room: Room;
  client: Client;
  holder: string;
  /** Answered the last ping. */
  alive: boolean;
  /** Closed or being closed by the server: nothing more is read from or sent to it. */
  gone: boolean;
  leave: (() => void) | null;
  expiresAt: number | null;
  expiry: ReturnType<typeof setTimeout> | null;
}

export const sessionSocket = (options: SessionSocketOptions): Hono<ApiEnv> => {
  const { config, rooms, now } = options;
  const app = new Hono<ApiEnv>();
  /** What each person shares across their sockets in a session: their place, their message budgets. */
  const holders = new Map<string, Holder>();
  /** Every open socket, for the heartbeat. */
  const live = new Set<Socket>();
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const maxBufferedBytes = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  const maxSocketsPerToken = options.maxSocketsPerToken ?? MAX_SOCKETS_PER_TOKEN;
  let heartbeat: ReturnType<typeof setInterval> | null = null;

  /** Closes a socket from the server's side: it leaves its room at once and is sent nothing more. */
  const drop = (socket: Socket, code: number, reason: string, error?: ServerMessage) => {
    if (socket.gone) return;
    if (error) socket.client.send(error);
    socket.gone = true;
    forget(socket);
    socket.raw.close(code, reason);
    // A reader too far behind may never read the close frame: its buffer is freed now, not in 30 s.
    if (code === CLOSE_SLOW_READER) setTimeout(() => socket.raw.terminate(), SLOW_READER_CLOSE_MS).unref();
  };

  const forget = (socket: Socket) => {
    socket.leave?.();
    socket.leave = null;
    if (socket.expiry) clearTimeout(socket.expiry);
    live.delete(socket);
    if (live.size === 0 && heartbeat) {
      clearInterval(heartbeat);
      heartbeat = null;
    }
    const holder = holders.get(socket.holder);
    if (!holder) return;
    holder.sockets = holder.sockets.filter((s) => s !== socket);
    // Kept a while when empty: reconnecting does not refill the budgets.
    if (holder.sockets.length === 0) {
      setTimeout(() => {
        if (holders.get(socket.holder) === holder && holder.sockets.length === 0) holders.delete(socket.holder);
      }, HOLDER_IDLE_MS).unref();
    }
  };

  const expired = (socket: Socket) => socket.expiresAt !== null && now() >= socket.expiresAt;
  const expire = (socket: Socket) =>
    drop(socket, CLOSE_TOKEN_EXPIRED, 'token expired', { type: 'error', code: 'token-expired', message: 'Your link has expired; ask the instructor for a new one.' });

  /** Pings every socket; one that did not answer the previous ping is dead and cut, one whose token ran out is closed. */
  const beat = () => {
    for (const socket of live) {
      if (expired(socket)) expire(socket);
      else if (!socket.alive) {
        socket.gone = true;
        forget(socket);
        socket.raw.terminate();
      } else {
        socket.alive = false;
        socket.raw.ping();
      }
    }
  };

  /** A microphone frame: PCM16, little-endian, 16 kHz, mono, from a participant, within their audio budget. */
  const hearAudio = (socket: Socket, holder: Holder, data: Buffer) => {
    const { client, room } = socket;
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (!client.participant) return client.send({ type: 'error', code: 'forbidden', message: 'Observers have no microphone in the room; only participants send audio.' });
    if (bytes.byteLength > MAX_MIC_FRAME_BYTES) {
      return client.send({ type: 'error', code: 'too-large', message: `Audio frames are at most ${MAX_MIC_FRAME_BYTES} bytes (1 s of 16 kHz PCM16); send 20-40 ms frames.` });
    }
    if (bytes.byteLength % 2 !== 0) {
      return client.send({ type: 'error', code: 'bad-message', message: 'Audio frames are PCM16 (2 bytes a sample), little-endian, 16 kHz, mono: an even number of bytes.', field: 'audio' });
    }
    if (room.ended()) return client.send({ type: 'error', code: 'ended', message: 'This session has ended.' });
    if (!holder.audio.take(bytes.byteLength / 2 / MIC_SAMPLE_RATE, now())) return client.send({ type: 'error', code: 'rate-limited', message: 'Audio arrives faster than real time; frames were dropped.' });
    if (!room.voice.input && !holder.toldVoiceOff) {
      holder.toldVoiceOff = true;
      client.send({ type: 'error', code: 'voice-off', message: room.voice.hint ?? 'Voice input is off on this server; type instead.' });
    }
    const pcm = new Int16Array(bytes.byteLength / 2);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < pcm.length; i++) pcm[i] = view.getInt16(i * 2, true);
    room.audio(client, pcm);
  };

  app.get(
    '/:id/socket',
    options.authorize(roles),
    options.upgrades.upgrade<ApiEnv>((c) => {
      const access = c.get('access');
      const session = c.req.param('id') ?? '';
      const room = rooms.get(session);
      const after = seqParam(c.req.query('after'));
      const key = access.participant ? `seat ${session} ${access.participant}` : `token ${session} ${credentialOf(c)}`;
      // ?stream=livekit: a participant hears the live stream on the LiveKit data topics instead.
      const streamVia = c.req.query('stream') === 'livekit' && access.role === 'participant' && config.livekit ? ('livekit' as const) : ('socket' as const);
      return (raw) => {
        let socket: Socket | null = null;
        // The close that follows a protocol error (1007, 1009) says it all; nothing else to do here.
        raw.on('error', () => undefined);
        raw.on('close', () => socket && forget(socket));
        if (!room) {
          raw.send(JSON.stringify({ type: 'error', code: 'ended', message: 'This session is not live on this server.' } satisfies ServerMessage));
          raw.close(4404, 'not live');
          return;
        }
        let holder = holders.get(key);
        if (!holder) {
          holder = {
            sockets: [],
            messages: createBucket(config.messageBurst, config.messageRatePerS, now()),
            lines: createBucket(LINE_BURST, LINE_RATE_PER_S, now()),
            // Microphone audio has its own budget, in seconds of audio: up to 1.5x real time, 5 s of burst.
            audio: createBucket(MIC_BURST_S, MIC_RATE, now()),
            poses: createBucket(POSE_BURST, POSE_RATE_PER_S, now()),
            toldVoiceOff: false,
          };
          holders.set(key, holder);
        }
        const write = (data: string) => {
          if (!socket || socket.gone || raw.readyState !== 1) return;
          // Backpressure: a socket that cannot keep up is dropped, and its client rejoins with ?after=.
          if (raw.bufferedAmount > maxBufferedBytes) return drop(socket, CLOSE_SLOW_READER, 'too slow: rejoin with ?after=');
          raw.send(data);
        };
        const client: Client = {
          participant: access.participant,
          role: access.role,
          send: (message) => write(JSON.stringify(message)),
          sendRaw: write,
          sendLossy: (data) => {
            if (raw.bufferedAmount <= LOSSY_BUFFERED_BYTES) write(data);
          },
          streamVia,
          close: (how) => socket && drop(socket, how?.code ?? CLOSE_REPLACED, how?.reason ?? 'replaced'),
        };
        socket = { raw, room, client, holder: key, alive: true, gone: false, leave: null, expiresAt: access.expiresAt, expiry: null };
        const mine = socket;
        live.add(mine);
        holder.sockets.push(mine);
        raw.on('message', (data: Buffer, isBinary: boolean) => {
          try {
            receive(mine, data, isBinary);
          } catch (error) {
            process.stderr.write(`socket ${session}: ${(error as Error).stack ?? String(error)}\n`);
          }
        });
        const leave = room.join(client, after);
        // Dropped while its backlog was sent (too slow for it): it leaves at once, and rejoins after what it got.
        if (mine.gone) return leave();
        mine.leave = leave;
        raw.on('pong', () => (mine.alive = true));
        heartbeat ??= setInterval(beat, heartbeatMs);
        heartbeat.unref?.();
        // The token is checked again when it runs out, not only at the upgrade.
        if (mine.expiresAt !== null) {
          const check = () => {
            if (mine.gone) return;
            if (expired(mine)) return expire(mine);
            mine.expiry = setTimeout(check, Math.min(MAX_TIMER_MS, Math.max(0, mine.expiresAt! - now())));
            mine.expiry.unref?.();
          };
          check();
        }
        // A token holds so many sockets at most: the newest replaces the oldest (a seat holds one: rooms.ts).
        while (holder.sockets.length > maxSocketsPerToken) {
          const oldest = holder.sockets[0]!;
          drop(oldest, CLOSE_REPLACED, 'replaced', { type: 'error', code: 'replaced', message: 'This link was opened in another tab or on another device; this one is closed.' });
        }
      };
    }),
  );

  /** One frame from a client: a microphone frame (binary) or a protocol message (text, JSON). */
  const receive = (socket: Socket, data: Buffer, isBinary: boolean) => {
    if (socket.gone) return;
    const { client, room } = socket;
    const holder = holders.get(socket.holder)!;
    if (expired(socket)) return expire(socket);
    if (isBinary) return hearAudio(socket, holder, data);
    const text = data.toString('utf-8');
    if (Buffer.byteLength(text) > config.maxMessageBytes) {
      return client.send({ type: 'error', code: 'too-large', message: `Messages are limited to ${config.maxMessageBytes} bytes.` });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return client.send({ type: 'error', code: 'bad-json', message: 'Messages are JSON objects with a "type".' });
    }
    // One budget per person, whatever number of sockets they open: floods get typed errors, not a
    // dropped socket. A headset's poses have their own, so ~12 a second leave the other messages theirs.
    if ((json as { type?: unknown } | null)?.type === 'pose') {
      if (!holder.poses.take(1, now())) return client.send({ type: 'error', code: 'rate-limited', message: `At most ${POSE_RATE_PER_S} poses a second.` });
    } else if (!holder.messages.take(1, now())) return client.send({ type: 'error', code: 'rate-limited', message: `At most ${config.messageRatePerS} messages a second.` });
    const parsed = ClientMessage.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const type = (json as { type?: unknown })?.type;
      const known = typeof type === 'string' && clientTypes.includes(type);
      return client.send({
        type: 'error',
        code: 'bad-message',
        message: known ? `${issue.path.join('.') || 'message'}: ${issue.message}` : `unknown message type ${JSON.stringify(type)}`,
        field: known ? issue.path.join('.') || 'type' : 'type',
      });
    }
    const message = parsed.data;
    if (message.type === 'leave') {
      forget(socket);
      socket.gone = true;
      socket.raw.close(1000, 'left');
      return;
    }
    const forParticipants = (participantTypes as readonly string[]).includes(message.type);
    const forObservers = (observerTypes as readonly string[]).includes(message.type);
    // Slides are changed by their presenters and by the instructor alike.
    if (forParticipants && !client.participant && message.type !== 'slide') {
      return client.send({ type: 'error', code: 'forbidden', message: `Observers cannot send "${message.type}"; they never appear in the room.` });
    }
    if (forObservers && client.role === 'participant') {
      return client.send({ type: 'error', code: 'forbidden', message: `Only observers can send "${message.type}".` });
    }
    // Each line is a turn: lines faster than anyone could hear them would fast-forward the scene.
    if (lineTypes.has(message.type) && !holder.lines.take(1, now())) {
      return client.send({ type: 'error', code: 'rate-limited', message: `One line every ${1 / LINE_RATE_PER_S} s at most (after ${LINE_BURST} at once): nobody could hear them faster.` });
    }
    const reply = room.handle(client, message);
    if (reply) client.send(reply);
  };

  return app;
};
