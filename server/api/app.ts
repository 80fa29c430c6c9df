/**
 * The HTTP and WebSocket API (Hono). Routes are grouped by resource; every route but
 * `/api/health` checks a credential: the author's ADMIN_TOKEN, or a signed session token whose
 * session and role fit the route. No token: 401. A token for another session or role: 403.
 * LiveKit's webhooks carry LiveKit's own signature instead, checked against the body.
 *
 *   GET    /api/health                       version, active providers and their vendors' circuits
 *   GET    /api/scenes                       the scenes (id, title, topic, formation, human seats)
 *   POST   /api/sessions                     author: create a live session of a scene (tokens and join links)
 *   GET    /api/sessions                     author: every session, live or past
 *   GET    /api/sessions/:id                 any role of the session: a snapshot
 *   GET    /api/sessions/:id/events          observer or author: the log as JSON lines
 *   GET    /api/sessions/:id/transcript      any role of the session: readable text
 *   DELETE /api/sessions/:id                 observer or author: end the session
 *   GET    /api/sessions/:id/socket?token=&after=&stream=   the realtime protocol (protocol/messages.ts);
 *                                                  stream=livekit: live messages come on LiveKit data topics
 *   POST   /api/sessions/:id/livekit-token   any role of the session: { url, token } for its LiveKit room
 *                                            (the author gets an observer's); 409 livekit-off without LiveKit
 *   POST   /api/livekit/webhook              LiveKit's signed webhooks (only with LiveKit): humans' media presence
 */
import { timingSafeEqual } from 'node:crypto';
import { createNodeWebSocket } from '@hono/node-ws';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import { roles, type Claims, type Role } from '../auth/claims';
import type { Tokens } from '../auth/tokens';
import type { Config } from '../config';
import type { SessionEvent } from '../engine/events';
import { ClientMessage, clientTypes, MAX_MIC_FRAME_BYTES, MIC_SAMPLE_RATE, observerTypes, participantTypes, type ServerMessage } from '../protocol/messages';
import { createLiveKitProbe, type LiveKitProbe } from '../livekit/health';
import { mintLiveKitToken } from '../livekit/tokens';
import { createWebhookHandler } from '../livekit/webhooks';
import type { CircuitState } from '../providers/resilience';
import { UnknownSceneError, type Rooms } from '../rooms/rooms';
import type { LoadedScene } from '../scene/schema';
import type { Store } from '../store/store';
import { transcriptOf } from './transcript';

export interface AppOptions {
  /** Without `livekit` (or with null) media stays on the embedded WebSocket transport. */
  config: Pick<Config, 'adminToken' | 'tokenTtlMs' | 'maxMessageBytes' | 'messageRatePerS' | 'messageBurst' | 'generator' | 'synthesizer' | 'transcriber'> &
    Partial<Pick<Config, 'livekit'>>;
  rooms: Rooms;
  store: Store;
  tokens: Tokens;
  /** The scenes rooms can be made of, for GET /api/scenes. */
  scenes: readonly LoadedScene[];
  version: string;
  /** Whether LiveKit answers, for /api/health; default: a probe of `config.livekit` (none without LiveKit). */
  liveKitProbe?: LiveKitProbe;
  /** Each vendor's circuit, for /api/health: `open` while a vendor that kept failing is not called. */
  circuits?: () => Record<string, CircuitState>;
  /** A human joined (true) or left (false) a session's LiveKit room, as LiveKit's webhooks report it. */
  onLiveKitPresence?(session: string, participant: string, present: boolean): void;
  now?: () => number;
}

/** `expiresAt`: when the session token expires (ms since the epoch); null for the admin token. */
type Access = { role: Role; session: string | null; participant: string | null; expiresAt: number | null };
type Env = { Variables: { access: Access } };

const CreateSession = z
  .object({
    scene: z.string().min(1),
    pace: z.enum(['realtime', 'instant']).default('realtime'),
    /** Start at once, the simulation standing in for every human seat (else the session waits in its lobby). */
    standIns: z.boolean().default(false),
  })
  .strict();

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * A LiveKit token is checked only when a client connects (LiveKit renews it on a live connection),
 * so it lives an hour at most, and never past the session token it was traded for.
 */
const LIVEKIT_TOKEN_TTL_MS = 3_600_000;
/** LiveKit's webhook events are a few hundred bytes. */
const MAX_WEBHOOK_BYTES = 64 * 1024;

/** Microphone budget: seconds of audio per second, and the burst. */
const MIC_RATE = 1.5;
const MIC_BURST_S = 2;

export const createApp = (options: AppOptions) => {
  const { config, rooms, store, tokens } = options;
  const now = options.now ?? (() => Date.now());
  const app = new Hono<Env>();
  const { upgradeWebSocket, injectWebSocket, wss } = createNodeWebSocket({ app });
  // Messages are bounded below (a typed error keeps the connection); far larger frames are abuse.
  wss.options.maxPayload = Math.max(config.maxMessageBytes * 64, 1 << 20);

  const problem = (c: Context, status: 400 | 401 | 403 | 404 | 409 | 413, error: string, message: string) => c.json({ error, message }, status);
  const liveKitProbe = config.livekit ? (options.liveKitProbe ?? createLiveKitProbe(config.livekit)) : null;

  /** Reads the credential (Authorization header, or ?token= for sockets) and checks it against the route. */
  const authorize = (allowed: readonly Role[]) => async (c: Context<Env>, next: () => Promise<void>) => {
    const header = c.req.header('authorization');
    const token = header?.startsWith('Bearer ') ? header.slice(7).trim() : c.req.query('token');
    if (!token) return problem(c, 401, 'unauthorized', 'Send a token: Authorization: Bearer <token>, or ?token= on sockets.');
    let access: Access;
    if (sameSecret(token, config.adminToken)) access = { role: 'author', session: null, participant: null, expiresAt: null };
    else {
      const verified = tokens.verify(token, now());
      if (!verified.ok) return problem(c, 401, 'unauthorized', `The token is ${verified.reason === 'expired' ? 'expired' : 'not valid'}.`);
      const claims: Claims = verified.claims;
      access = { role: claims.role, session: claims.session, participant: claims.participant, expiresAt: claims.exp };
    }
    const id = c.req.param('id') ?? '';
    if (id && access.role !== 'author' && access.session !== id) return problem(c, 403, 'forbidden', 'This token is for another session.');
    if (!allowed.includes(access.role)) return problem(c, 403, 'forbidden', `This needs the ${allowed.join(' or ')} role.`);
    c.set('access', access);
    await next();
  };

  // An unexpected failure answers 500 without details; the room and the server keep running.
  app.onError((error, c) => {
    process.stderr.write(`${c.req.method} ${c.req.path}: ${error.stack ?? error.message}\n`);
    return c.json({ error: 'internal', message: 'Something went wrong on the server.' }, 500);
  });

  // With LiveKit configured the transport stays 'livekit' while it is down: clients fall back to
  // the embedded WebSocket, and `livekit.fallback` says so.
  app.get('/api/health', async (c) => {
    const livekit = liveKitProbe ? await liveKitProbe.status() : null;
    return c.json({
      status: 'ok',
      version: options.version,
      providers: { generator: config.generator, synthesis: config.synthesizer, transcription: config.transcriber, transport: livekit ? 'livekit' : 'websocket' },
      ...(livekit ? { livekit: { ...livekit, ...(livekit.reachable ? {} : { fallback: 'websocket' }) } } : {}),
      sessions: rooms.list().filter((r) => !r.ended()).length,
      ...(options.circuits ? { circuits: options.circuits() } : {}),
    });
  });

  // The scenes this server can run (titles and formations are not secret; the personas are).
  app.get('/api/scenes', (c) =>
    c.json({
      scenes: options.scenes.map((s) => ({ id: s.id, title: s.title, topic: s.topic, formation: s.formation, humans: s.participants.filter((p) => p.kind === 'human').map((p) => p.name), participants: s.participants.length })),
    }),
  );

  app.post('/api/sessions', authorize(['author']), async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return problem(c, 400, 'bad-json', 'The body must be JSON: {"scene": "<scene id>", "pace"?: "realtime" | "instant"}.');
    }
    const parsed = CreateSession.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return problem(c, 400, 'bad-request', `${issue.path.join('.') || 'body'}: ${issue.message}`);
    }
    let room;
    try {
      room = rooms.create(parsed.data.scene, { pace: parsed.data.pace, standIns: parsed.data.standIns });
    } catch (error) {
      // Anything else (the store failing) is the server's problem, not the request's.
      if (!(error instanceof UnknownSceneError)) throw error;
      return problem(c, 404, 'unknown-scene', error.message);
    }
    const issued: Record<string, string> = {};
    for (const p of room.scene.participants) {
      if (p.kind === 'human') issued[p.id] = tokens.sign({ session: room.id, participant: p.id, role: 'participant' }, config.tokenTtlMs, now());
    }
    issued.observer = tokens.sign({ session: room.id, participant: null, role: 'observer' }, config.tokenTtlMs, now());
    // Join links, keyed like the tokens: the room page of this server for each seat and the observer.
    const origin = new URL(c.req.url).origin;
    const links = Object.fromEntries(Object.entries(issued).map(([who, token]) => [who, `${origin}/room/${room.id}?token=${encodeURIComponent(token)}`]));
    return c.json({ id: room.id, scene: room.scene.id, pace: room.pace, seed: room.seed, tokens: issued, links }, 201);
  });

  app.get('/api/sessions', authorize(['author']), (c) => c.json({ sessions: store.sessions() }));

  app.get('/api/sessions/:id', authorize(roles), (c) => {
    const id = c.req.param('id') ?? '';
    const room = rooms.get(id);
    if (room && !room.ended()) return c.json(room.snapshot(c.get('access').role, c.get('access').participant));
    const row = store.session(id);
    if (!row) return problem(c, 404, 'not-found', `No session "${id}".`);
    // An ended session (or one this process no longer holds): what it was, from its log.
    const log = store.events(id) as SessionEvent[];
    const scene = options.scenes.find((s) => s.id === row.scene);
    const started = log.find((e) => e.type === 'session-start');
    const ended = !!row.endedAt || !!room?.ended();
    return c.json({
      session: id,
      status: ended ? 'ended' : 'live',
      phase: ended ? 'ended' : 'running',
      scene: { id: row.scene, title: scene?.title ?? row.scene },
      durationMs: started ? Math.max(0, (log.at(-1)?.t ?? 0) - started.t) : 0,
      turns: log.filter((e) => e.type === 'utterance').length,
      participants: (scene?.participants ?? []).map((p) => ({ id: p.id, name: p.name, kind: p.kind })),
      review: null,
      lastSeq: store.lastSeq(id),
    });
  });

  app.get('/api/sessions/:id/events', authorize(['observer', 'author']), (c) => {
    const id = c.req.param('id') ?? '';
    if (!store.session(id)) return problem(c, 404, 'not-found', `No session "${id}".`);
    const after = Number(c.req.query('after') ?? 0) || 0;
    const lines = store.events(id, after).map((e) => `${JSON.stringify(e)}\n`);
    return c.body(lines.join(''), 200, { 'content-type': 'application/x-ndjson; charset=utf-8' });
  });

  app.get('/api/sessions/:id/transcript', authorize(roles), (c) => {
    const id = c.req.param('id') ?? '';
    const row = store.session(id);
    if (!row) return problem(c, 404, 'not-found', `No session "${id}".`);
    const scene = rooms.get(id)?.scene;
    return c.text(transcriptOf(store.events(id) as SessionEvent[], scene, c.get('access').role));
  });

  app.delete('/api/sessions/:id', authorize(['observer', 'author']), (c) => {
    const id = c.req.param('id') ?? '';
    const room = rooms.get(id);
    if (!room) return problem(c, 404, 'not-found', `No live session "${id}".`);
    if (!room.ended()) room.conversation.send({ type: 'end' });
    return c.json({ id, ended: true });
  });

  app.post('/api/sessions/:id/livekit-token', authorize(roles), async (c) => {
    if (!config.livekit) {
      return problem(c, 409, 'livekit-off', 'LiveKit is not configured on this server (LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET); use the session socket.');
    }
    const id = c.req.param('id') ?? '';
    const room = rooms.get(id);
    if (!room || room.ended()) return problem(c, 404, 'not-found', `No live session "${id}".`);
    const access = c.get('access');
    const ttlMs = Math.min(LIVEKIT_TOKEN_TTL_MS, (access.expiresAt ?? Infinity) - now());
    const ttlSeconds = Math.max(1, Math.floor(ttlMs / 1000));
    let token: string;
    if (access.role === 'participant') {
      const seat = room.scene.participants.find((p) => p.id === access.participant);
      if (!seat) return problem(c, 403, 'forbidden', 'This token names no seat of the session.');
      token = await mintLiveKitToken(config.livekit, { session: id, role: 'participant', participant: seat.id, name: seat.name, avatar: seat.avatar ?? null, ttlSeconds });
    } else {
      // Observers and the author hold no seat: hidden, listening only (DESIGN.md §8).
      token = await mintLiveKitToken(config.livekit, { session: id, role: 'observer', participant: null, name: access.role === 'author' ? 'Author' : 'Observer', avatar: null, ttlSeconds });
    }
    return c.json({ url: config.livekit.url, token });
  });

  if (config.livekit) {
    const receive = createWebhookHandler({
      apiKey: config.livekit.apiKey,
      apiSecret: config.livekit.apiSecret,
      onPresence: (session, participant, present) => options.onLiveKitPresence?.(session, participant, present),
    });
    app.post(
      '/api/livekit/webhook',
      bodyLimit({ maxSize: MAX_WEBHOOK_BYTES, onError: (c) => problem(c, 413, 'too-large', `Webhook bodies are limited to ${MAX_WEBHOOK_BYTES} bytes.`) }),
      async (c) => {
        // The signature covers the exact bytes sent, so the body is read as text, never re-serialised.
        const outcome = await receive(await c.req.text(), c.req.header('authorization'));
        if (!outcome.ok) return problem(c, outcome.reason === 'malformed' ? 400 : 401, outcome.reason, outcome.message);
        return c.json({ received: outcome.event });
      },
    );
  }

  app.get(
    '/api/sessions/:id/socket',
    authorize(roles),
    upgradeWebSocket((c) => {
      const access = c.get('access');
      const room = rooms.get(c.req.param('id') ?? '');
      const after = Math.max(0, Number(c.req.query('after') ?? 0) || 0);
      let leave: (() => void) | null = null;
      // A token bucket per connection: floods get typed errors, not a dropped socket.
      let allowance = config.messageBurst;
      let last = now();
      // Microphone audio has its own budget, in seconds of audio: up to 1.5x real time, 2 s of burst.
      let audioAllowance = MIC_BURST_S;
      let audioLast = now();
      let toldVoiceOff = false;
      return {
        onOpen(_event, ws) {
          const send = (message: ServerMessage) => {
            if (ws.readyState === 1) ws.send(JSON.stringify(message));
          };
          if (!room) {
            send({ type: 'error', code: 'ended', message: 'This session is not live on this server.' });
            ws.close(4404, 'not live');
            return;
          }
          // ?stream=livekit: a participant hears the live stream on the LiveKit data topics instead.
          const streamVia = c.req.query('stream') === 'livekit' && access.role === 'participant' && config.livekit ? ('livekit' as const) : ('socket' as const);
          const client = { participant: access.participant, role: access.role, send, streamVia, close: () => ws.close(4409, 'replaced') };
          leave = room.join(client, after);
          (ws as unknown as { client: typeof client }).client = client;
        },
        onMessage(event, ws) {
          const client = (ws as unknown as { client?: { participant: string | null; role: Role; send: (m: ServerMessage) => void } }).client;
          if (!client || !room) return;
          if (typeof event.data !== 'string') {
            // Binary: a microphone frame.
            const bytes = new Uint8Array(event.data as ArrayBuffer);
            if (!client.participant) return client.send({ type: 'error', code: 'forbidden', message: 'Observers have no microphone in the room; only participants send audio.' });
            if (bytes.byteLength > MAX_MIC_FRAME_BYTES) {
              return client.send({ type: 'error', code: 'too-large', message: `Audio frames are at most ${MAX_MIC_FRAME_BYTES} bytes (1 s of 16 kHz PCM16); send 20-40 ms frames.` });
            }
            if (bytes.byteLength % 2 !== 0) {
              return client.send({ type: 'error', code: 'bad-message', message: 'Audio frames are PCM16 (2 bytes a sample), little-endian, 16 kHz, mono: an even number of bytes.', field: 'audio' });
            }
            if (room.ended()) return client.send({ type: 'error', code: 'ended', message: 'This session has ended.' });
            const t = now();
            audioAllowance = Math.min(MIC_BURST_S, audioAllowance + ((t - audioLast) / 1000) * MIC_RATE);
            audioLast = t;
            const seconds = bytes.byteLength / 2 / MIC_SAMPLE_RATE;
            if (audioAllowance < seconds) return client.send({ type: 'error', code: 'rate-limited', message: 'Audio arrives faster than real time; frames were dropped.' });
            audioAllowance -= seconds;
            if (!room.voice.input && !toldVoiceOff) {
              toldVoiceOff = true;
              client.send({ type: 'error', code: 'voice-off', message: room.voice.hint ?? 'Voice input is off on this server; type instead.' });
            }
            const pcm = new Int16Array(bytes.byteLength / 2);
            const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
            for (let i = 0; i < pcm.length; i++) pcm[i] = view.getInt16(i * 2, true);
            room.audio(client, pcm);
            return;
          }
          const t = now();
          allowance = Math.min(config.messageBurst, allowance + ((t - last) / 1000) * config.messageRatePerS);
          last = t;
          if (allowance < 1) return client.send({ type: 'error', code: 'rate-limited', message: `At most ${config.messageRatePerS} messages a second.` });
          allowance -= 1;
          const raw = event.data;
          if (Buffer.byteLength(raw) > config.maxMessageBytes) {
            return client.send({ type: 'error', code: 'too-large', message: `Messages are limited to ${config.maxMessageBytes} bytes.` });
          }
          let json: unknown;
          try {
            json = JSON.parse(raw);
          } catch {
            return client.send({ type: 'error', code: 'bad-json', message: 'Messages are JSON objects with a "type".' });
          }
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
            leave?.();
            leave = null;
            ws.close(1000, 'left');
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
          const reply = room.handle(client, message);
          if (reply) client.send(reply);
        },
        onClose() {
          leave?.();
          leave = null;
        },
      };
    }),
  );

  return { app, injectWebSocket };
};
