/**
 * The HTTP and WebSocket API: small Hono apps, one per resource, mounted on one root that gives
 * every answer the security headers and holds every request body to its limit. Every route but
 * `/api/health` and `/api/scenes` checks a credential (access.ts): the author's ADMIN_TOKEN, or a
 * signed session token whose session and role fit the route. No token: 401. A token for another
 * session or role: 403. LiveKit's webhooks carry LiveKit's own signature instead. A refusal is
 * `{ error, message }` (problem.ts).
 *
 *   /api/health                         health.ts    version, providers, their vendors' circuits
 *   /api/scenes, /api/scenes/:id/…      scenes.ts    the scenes this server runs; the editor's open, check, save, copy, upload, simulate
 *   /api/uploads/:scene/:name           uploads.ts   a scene's uploaded files (images, PDFs, text)
 *   /api/sessions, /api/sessions/:id    sessions.ts  create, list, links, snapshot, events, end, purge
 *   /api/sessions/:id/…                 review.ts    transcript, report, replay, recordings, debrief, feedback, ask
 *   /api/sessions/:id/socket            socket.ts    the realtime protocol (upgrade.ts: the upgrade on Node)
 *   /api/compare, /api/compare/judge    compare.ts   runs of one scene side by side, and the judge
 *   /api/sessions/:id/livekit-token,
 *   /api/livekit/webhook                livekit.ts   the LiveKit media plane
 *   /avatars/*, /*                      static.ts    the avatars and the built client (mounted by server/main.ts)
 *
 * ```ts
 * const { app, injectWebSocket } = createApp({ config, rooms, store, tokens, scenes, version });
 * app.route('/', staticFiles().app);
 * injectWebSocket(serve({ fetch: app.fetch, port: 8787 }));
 * ```
 */
import { Hono } from 'hono';
import { toOwner } from '../cluster/routing';
import type { Config } from '../config';
import { createLiveKitProbe, type LiveKitProbe } from '../livekit/health';
import type { Generator } from '../providers/generator/port';
import type { CircuitState } from '../providers/resilience';
import type { RecordingStore } from '../recordings/store';
import type { Rooms } from '../rooms/rooms';
import type { LoadedScene } from '../../shared/scene/schema';
import type { AnyStore, Lease } from '../store/store';
import type { ModelKind, ModelStatus } from '../../shared/models';
import type { Tokens } from '../auth/tokens';
import type { SceneLibrary } from '../scene/library';
import { sessionScenes, type SceneOf } from '../scene/versions';
import type { UploadStore } from '../scene/uploads';
import type { Synthesizer } from '../providers/synthesis/port';
import { authorization } from './access';
import { compare } from './compare';
import { health, type HealthOptions } from './health';
import { livekit } from './livekit';
import { sessionReports } from './reports';
import { review } from './review';
import { scenes } from './scenes';
import { clusterCors, limitBodies, publicOrigin, securityHeaders } from './security';
import { sessions } from './sessions';
import { sessionSocket } from './socket';
import { createUpgrades } from './upgrade';
import { uploadFiles } from './uploads';

export interface AppOptions {
  /** Without `livekit` (or with null) media stays on the embedded WebSocket transport. */
  config: Pick<Config, 'adminToken' | 'tokenTtlMs' | 'maxMessageBytes' | 'messageRatePerS' | 'messageBurst' | 'generator' | 'synthesizer' | 'transcriber'> &
    Partial<Pick<Config, 'livekit' | 'publicUrl' | 'clusterOrigins'>>;
  rooms: Rooms;
  store: AnyStore;
  tokens: Tokens;
  /**
   * The scenes rooms can be made of, for GET /api/scenes; with an editor, its library's live `list`.
   * Sessions stored before scene versions were kept are read with these.
   */
  scenes: readonly LoadedScene[];
  /** The scene editor's routes (open, check, save, copy, upload, simulate) and the uploads; absent: only the list. */
  editor?: { library: SceneLibrary; uploads: UploadStore; synthesizer?: () => Synthesizer | null };
  version: string;
  /** What the review's written feedback, answers and judge ask: the rooms' generator; default the scripted one (rules only). */
  generator?: Generator;
  /** Utterances' audio (GET .../recordings, deleted with ?purge=true); absent: no recordings are listed. */
  recordings?: RecordingStore;
  /** Whether LiveKit answers, for /api/health; default: a probe of `config.livekit` (none without LiveKit). */
  liveKitProbe?: LiveKitProbe;
  /** Each vendor's circuit, for /api/health: `open` while a vendor that kept failing is not called. */
  circuits?: () => Record<string, CircuitState>;
  /** The local models' state, for /api/health (server/models/store.ts `statuses`). */
  models?: () => Partial<Record<ModelKind, ModelStatus>>;
  /** The local language model at work (GENERATOR=local), for /api/health's `models.llm.runtime`. */
  localGenerator?: HealthOptions['localGenerator'];
  /** A human joined (true) or left (false) a session's LiveKit room, as LiveKit's webhooks report it. */
  onLiveKitPresence?(session: string, participant: string, present: boolean): void;
  now?: () => number;
  /** How often sockets are pinged (a dead one is cut after two missed pings); default 15 s. */
  heartbeatMs?: number;
  /** The send buffer past which a socket is dropped as a slow reader; default 4 MB. */
  maxBufferedBytes?: number;
  /** Sockets an observer's or the author's token may hold in a session at once; default 256. */
  maxSocketsPerToken?: number;
  /** Where the server's warnings go (join links built behind a proxy without PUBLIC_URL); default: standard error. */
  warn?: (line: string) => void;
  /** The server's log: a line when a session is deleted. Default: none. */
  log?: (line: string) => void;
  /** Several servers on one database: the live lease of a session another node runs (cluster/ownership.ts), to send its clients there. */
  elsewhere?: (session: string) => Promise<Lease | null>;
}

export const createApp = (options: AppOptions) => {
  const { config, rooms, store, tokens } = options;
  const now = options.now ?? (() => Date.now());
  const authorize = authorization({ adminToken: config.adminToken, tokens, now });
  // A session's readers (review, report, replay, listing, links, its uploads) read the scene it ran, not the editor's latest.
  const versions = sessionScenes({ store, current: (id) => options.scenes.find((s) => s.id === id), ...(options.warn ? { warn: options.warn } : {}) });
  const sceneOf: SceneOf = async (row) => rooms.get(row.id)?.scene ?? (await versions.of(row));
  const reports = sessionReports({ store, sceneOf });
  const { generator, recordings } = options;
  // Messages are bounded by the socket (a typed error keeps the connection); far larger frames are abuse.
  const upgrades = createUpgrades({ maxPayload: Math.max(config.maxMessageBytes * 64, 1 << 20) });

  const app = new Hono();
  // Every response carries the security headers; no request body is read past the limit.
  app.use(securityHeaders({ publicUrl: config.publicUrl ?? null, livekitUrl: config.livekit?.url ?? null, clusterOrigins: config.clusterOrigins ?? [] }));
  // Pages of the cluster's other nodes call a session's owner directly (cluster/routing.ts).
  app.use('/api/*', clusterCors({ origins: config.clusterOrigins ?? [], publicUrl: config.publicUrl ?? null }));
  app.use(limitBodies());
  // An unexpected failure answers 500 without details; the room and the server keep running.
  app.onError((error, c) => {
    process.stderr.write(`${c.req.method} ${c.req.path}: ${error.stack ?? error.message}\n`);
    return c.json({ error: 'internal', message: 'Something went wrong on the server.' }, 500);
  });
  // A session another node runs: its live routes answer with the way there (cluster/routing.ts).
  if (options.elsewhere) app.use('/api/sessions/:id/*', toOwner({ rooms, elsewhere: options.elsewhere, upgrades }));

  app.route('/api/health', health({ version: options.version, config, rooms, liveKitProbe: config.livekit ? (options.liveKitProbe ?? createLiveKitProbe(config.livekit)) : null, ...(options.circuits ? { circuits: options.circuits } : {}), ...(options.models ? { models: options.models } : {}), ...(options.localGenerator ? { localGenerator: options.localGenerator } : {}) }));
  app.route('/api/scenes', scenes({ scenes: options.scenes, ...(options.editor ? { editor: { ...options.editor, authorize } } : {}) }));
  if (options.editor) {
    const sceneOfSession = async (session: string) => {
      const live = rooms.get(session)?.scene;
      if (live) return live;
      const row = await store.session(session);
      return row && (await versions.of(row));
    };
    app.route('/api/uploads', uploadFiles({ authorize, uploads: options.editor.uploads, sceneOf: sceneOfSession }));
  }
  app.route(
    '/api/sessions',
    sessions({
      authorize,
      rooms,
      store,
      reports,
      sceneOf,
      sign: (claims) => tokens.sign(claims, config.tokenTtlMs, now()),
      linkOrigin: publicOrigin({ publicUrl: config.publicUrl ?? null, ...(options.warn ? { warn: options.warn } : {}) }),
      ...(recordings ? { recordings } : {}),
      ...(options.log ? { log: options.log } : {}),
    }),
  );
  app.route('/api/sessions', review({ authorize, reports, store, sceneOf, now, ...(recordings ? { recordings } : {}), ...(generator ? { generator } : {}) }));
  app.route(
    '/api/sessions',
    sessionSocket({
      authorize,
      upgrades,
      rooms,
      config,
      now,
      ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
      ...(options.maxBufferedBytes !== undefined ? { maxBufferedBytes: options.maxBufferedBytes } : {}),
      ...(options.maxSocketsPerToken !== undefined ? { maxSocketsPerToken: options.maxSocketsPerToken } : {}),
    }),
  );
  app.route('/api/compare', compare({ authorize, reports, store, rooms, ...(generator ? { generator } : {}) }));
  app.route('/api', livekit({ authorize, livekit: config.livekit ?? null, rooms, now, ...(options.onLiveKitPresence ? { onPresence: options.onLiveKitPresence } : {}) }));

  return { app, injectWebSocket: (server: Parameters<typeof upgrades.inject>[0]) => upgrades.inject(server, app) };
};
