/**
 * `npm start`: the live session server. Reads its configuration from the environment (see
 * .env.example), recovers sessions a previous process left unfinished, and serves the API and
 * the realtime socket (and the built client, when there is one). With LiveKit configured, each
 * new room is also bridged to its LiveKit room (livekit/bridge.ts).
 *
 * Start-up checks everything it can before it touches the data: the environment (config.ts), the
 * data directory and its lock (one server per DATA_DIR, store/data-dir.ts), the port, the store
 * (DATABASE_URL's Postgres reached and migrated, else SQLite's; a schema newer than this server's
 * is refused); a problem ends the process with one clear line each on stderr and exit code 1,
 * never a stack trace. Once serving, an error nothing caught is logged on one line and the server
 * goes on: one failure must not end every session.
 *
 * With DATABASE_URL the server is one node of several on that database (server/cluster/): it
 * leases the sessions it runs (NODE_ID, LEASE_TTL_S, LEASE_RENEW_S), takes over those of a node
 * whose leases ran out (at start and on every renewal), and sends the clients of a session another
 * node runs to that node's PUBLIC_URL.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { createApp } from './api/app';
import { createOwnership, type Ownership } from './cluster/ownership';
import { staticFiles } from './api/static';
import { createTokens } from './auth/tokens';
import { ConfigError, loadConfig, resolveTokenSecret } from './config';
import { createBridge, type Bridge } from './livekit/bridge';
import { mintPersonaToken, mintServerToken, personaIdentity } from './livekit/tokens';
import { createModelStore } from './models/store';
import { createGenerator } from './providers/generator';
import type { LocalGenerator } from './providers/generator/local';
import { createSynthesizer, espeakWorkersFrom, synthesisLimitsFrom } from './providers/synthesis';
import { createBreaker, resilientSynthesizer, type Breaker } from './providers/resilience';
import { createEspeakSynthesizer } from './providers/synthesis/espeak';
import { createTranscriber } from './providers/transcription';
import { openRecordingsAt } from './recordings/store';
import { createRooms } from './rooms/rooms';
import { openSceneLibrary } from './scene/library';
import { openUploads } from './scene/uploads';
import { claimDataDir, DataDirError } from './store/data-dir';
import { createJournal } from './store/journal';
import { SchemaTooNewError } from './store/migrations/index';
import { DatabaseError, describeDatabase, openPostgresStore } from './store/postgres';
import { openStore, type AnyStore } from './store/store';
import { SceneError } from './scene/load';
import { provideWordVectors } from './engine/embeddings';
import { installedWordVectors } from './providers/word-vectors';

// Similarity compares by meaning with the installation's word vectors (read on the first comparison).
provideWordVectors(installedWordVectors);

/** A problem that stops the start, said in one line (a bad environment: a line per variable). */
class StartupError extends Error {}

/** Why the port cannot be listened on, by the error's code. */
const listenProblem = (error: NodeJS.ErrnoException, port: number, host: string): string => {
  switch (error.code) {
    case 'EADDRINUSE':
      return `PORT ${port} is already in use on ${host} (another server?); stop it, or set PORT to a free port (0 picks one)`;
    case 'EACCES':
      return `PORT ${port} needs privileges this user does not have on ${host}; set PORT to 1024 or above`;
    case 'EADDRNOTAVAIL':
      return `HOST ${host} is not an address of this machine; set HOST to one of its addresses, or 0.0.0.0`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST ${host} cannot be resolved; set HOST to an address of this machine, or 0.0.0.0`;
    default:
      return `cannot listen on ${host}:${port}: ${error.message}`;
  }
};

/** The first line of an error, with where it was thrown: enough to find it, short enough to read. */
const oneLine = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  const at = error.stack?.split('\n').find((line) => line.trimStart().startsWith('at '))?.trim();
  return `${error.name}: ${error.message.split('\n')[0]}${at ? ` (${at})` : ''}`;
};

const main = async (): Promise<void> => {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new StartupError(error.lines.join('\n'));
    throw error;
  }
  const log = (message: string) => config.logLevel !== 'silent' && process.stdout.write(`${message}\n`);
  // Before anything reads or writes the data: a second server on the same DATA_DIR stops here.
  const claim = claimDataDir(config.dataDir);
  let tokens;
  try {
    tokens = createTokens(resolveTokenSecret(config));
  } catch (error) {
    throw new StartupError((error as Error).message);
  }
  const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  // Shipped scenes and those authored in the editor (DATA_DIR/scenes), in one live library the rooms and routes share.
  const library = await openSceneLibrary({ dir: 'scenes', dataDir: config.dataDir, writable: config.scenesWritable });
  const scenes = library.scenes;
  // With LiveKit, each new room is bridged to its LiveKit room; rtc-node (native) loads only then.
  const livekit = config.livekit;
  // rtc-node logs every debug line to stdout unless NODE_ENV says production.
  if (livekit) process.env.NODE_ENV ??= 'production';
  const rtc = livekit ? await import('./livekit/rtc') : null;

  // The port next, so a server that cannot serve ends before crash recovery. Requests wait for
  // the app below, which is built in the same turn of the event loop as `listening`.
  let app: { fetch: (request: Request, env: unknown) => Response | Promise<Response> } | null = null;
  const server = createAdaptorServer({ fetch: (request, env) => (app ? app.fetch(request, env) : new Response('starting', { status: 503 })), hostname: config.host });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new StartupError(listenProblem(error, config.port, config.host))));
    server.listen(config.port, config.host, () => resolve((server.address() as AddressInfo).port));
  });

  // DATABASE_URL: Postgres (reached and migrated now, or the start ends here); else SQLite under DATA_DIR.
  const databaseUrl = config.databaseUrl;
  let store: AnyStore;
  try {
    store = databaseUrl ? await openPostgresStore(databaseUrl, { log: (line) => config.logLevel !== 'silent' && process.stderr.write(`${line}\n`) }) : openStore(config.dataDir);
  } catch (error) {
    if (error instanceof DatabaseError || error instanceof SchemaTooNewError) throw new StartupError(error.message);
    throw error;
  }
  const journal = createJournal(store, { log: (line) => config.logLevel !== 'silent' && process.stderr.write(`${line}\n`) });
  // Utterances' audio, beside the database; a file that cannot be written is a line in the log, never a stopped session.
  const recordings = openRecordingsAt(config.recordings, { log: (line) => config.logLevel !== 'silent' && process.stderr.write(`${line}\n`) });
  // One generator, one synthesizer (one eSpeak worker process) and one transcriber serve every
  // room; each call's notices go to the room that made it. A voice vendor falls back to eSpeak.
  const voice = createSynthesizer(config.synthesizer, process.env);
  const espeak = voice?.name === 'espeak' ? null : voice ? createEspeakSynthesizer({ workers: espeakWorkersFrom(process.env) }) : null;
  // One breaker per vendor, shared by every room: a vendor that is down is called by none of them.
  const circuits: Partial<Record<'generator' | 'synthesis' | 'transcription', Breaker>> = {
    ...(config.generator !== 'scripted' ? { generator: createBreaker() } : {}),
    ...(voice && espeak ? { synthesis: createBreaker() } : {}),
    ...(config.transcriber !== 'none' ? { transcription: createBreaker() } : {}),
  };
  // A vendor's failures are logged here, one line each, keys blanked; rooms hear only what stood in.
  // Local models (GENERATOR=local, TRANSCRIBER=local) come from MODELS_DIR, fetched on first use and
  // verified; meanwhile the scripted generator writes and participants type, and the log, /api/health
  // and the sessions page show the download.
  const models = createModelStore({ dir: config.modelsDir, env: process.env, log });
  const localModel = (kind: 'llm' | 'asr') => () => models.ensure(kind, { checkMemory: true });
  let localGenerator: LocalGenerator | null = null;
  const generator = createGenerator(config.generator, process.env, { breaker: circuits.generator ?? null, log, preload: true, model: localModel('llm'), onLocal: (local) => (localGenerator = local) });
  const synthesizer = voice && espeak ? resilientSynthesizer(voice, espeak, { ...synthesisLimitsFrom(process.env), breaker: circuits.synthesis ?? null, log }) : voice;
  // Fetched, and whisper.cpp built for this CPU, at start, not at the first turn that needs it.
  const transcriber = createTranscriber(config.transcriber, process.env, { breaker: circuits.transcription ?? null, log, model: localModel('asr'), preload: true });
  const bridges = new Set<Bridge>();
  // Several servers on one database: each session leased to its node. Without PUBLIC_URL the others
  // reach this node at the address it listens on.
  const ownership: Ownership | null = databaseUrl
    ? createOwnership({
        store,
        node: config.nodeId,
        url: config.publicUrl ?? `http://${config.host === '0.0.0.0' ? hostname() : config.host}:${port}`,
        ttlMs: config.leaseTtlMs,
        renewMs: config.leaseRenewMs,
        log: (line) => config.logLevel !== 'silent' && process.stderr.write(`${line}\n`),
      })
    : null;
  const rooms = createRooms({
    store,
    journal,
    recordings,
    scenes,
    generator: () => generator,
    synthesizer: () => synthesizer,
    transcriber,
    seatGraceMs: config.seatGraceMs,
    // Sessions created, started, ended (and why): the informational lines, on stdout like the rest.
    log,
    ...(ownership ? { ownership } : {}),
    ...(livekit && rtc
      ? {
          onOpen: (room) => {
            const seats = new Map(room.scene.participants.map((p) => [personaIdentity(p.id), p]));
            const media = rtc.createRtcMediaRoom({
              url: livekit.url,
              token: () => mintServerToken(livekit, room.id),
              personaToken: async (identity) => {
                const seat = seats.get(identity);
                if (!seat) throw new Error(`${identity} is no participant of session ${room.id}`);
                return mintPersonaToken(livekit, { session: room.id, participant: seat.id, name: seat.name, avatar: seat.avatar ?? null });
              },
            });
            const bridge = createBridge({ room, media, onError: (error) => log(error.message) });
            bridges.add(bridge);
            void room.conversation.ended.then(() => bridges.delete(bridge));
          },
        }
      : {}),
  });
  const recovered = await rooms.recover();
  if (recovered.length) log(`recovered ${recovered.length} interrupted session(s), each resumed or ended as said above: ${recovered.join(', ')}`);
  // Then on every beat: renew this node's leases, and take over the sessions of a node that stopped.
  ownership?.start(async () => {
    const taken = await rooms.recover();
    if (taken.length) log(`took over ${taken.length} session(s) whose server stopped, each resumed or ended as said above: ${taken.join(', ')}`);
  });
  const api = createApp({
    config,
    rooms,
    store,
    tokens,
    version,
    recordings,
    scenes: library.list,
    editor: { library, uploads: openUploads(config.dataDir), synthesizer: () => synthesizer },
    log,
    // The review's written feedback, answers and judge ask the rooms' generator: the same retries and circuit.
    generator,
    models: () => models.statuses(),
    localGenerator,
    circuits: () => Object.fromEntries(Object.entries(circuits).map(([port, breaker]) => [port, breaker.state])),
    // LiveKit's signed webhooks report who is in the room; the bridge reports it too, and a room
    // counts one LiveKit presence per person, so the two never add up.
    onLiveKitPresence: (session, participant, present) => rooms.get(session)?.presence(participant, present),
    ...(ownership ? { elsewhere: ownership.elsewhere } : {}),
  });
  // The avatars, then the built client (npm start builds it first); room links are client routes.
  const files = staticFiles();
  if (!files.clientBuilt) log('the client is not built (dist/client): run npm run build:client; the API works without it');
  api.app.route('/', files.app);
  api.injectWebSocket(server);
  app = api.app;

  // From here on nothing ends the process but a signal: an error nobody caught is one line in the log.
  // When whoever reads the log is gone (its terminal or supervisor closed the pipe), a write fails
  // with EPIPE: unhandled, that error was itself logged, failed again, and the server spun at full
  // CPU and never stopped on SIGTERM. The log is lost; the server goes on, and stops when told.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  process.on('uncaughtException', (error) => process.stderr.write(`uncaught error (the server goes on): ${oneLine(error)}\n`));
  process.on('unhandledRejection', (reason) => process.stderr.write(`unhandled rejection (the server goes on): ${oneLine(reason)}\n`));
  server.on('error', (error) => process.stderr.write(`server error (the server goes on): ${oneLine(error)}\n`));

  const providers = `generator: ${config.generator}, voices: ${config.synthesizer}, transcriber: ${config.transcriber}`;
  log(`rehearsal room server ${version} on http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port} (${providers}, data: ${config.dataDir}${databaseUrl ? `, sessions: ${describeDatabase(databaseUrl)}, node ${config.nodeId} at ${ownership?.claim.url}` : ''})`);
  if (config.transcriber === 'none') log('voice input is off (TRANSCRIBER=none): participants type; see README, "Voice"');
  if (config.generator === 'scripted' && config.transcriber === 'none') log('no key needed for real models: GENERATOR=local TRANSCRIBER=local npm start (fetched once; README, "No key, real models")');
  if (config.adminTokenGenerated) log(`ADMIN_TOKEN was not set; this run's admin token: ${config.adminToken}`);

  const stop = (signal: NodeJS.Signals) => {
    const live = rooms.list().filter((room) => !room.ended()).length;
    log(`stopping on ${signal}${live ? `: ${live} live session(s) left unfinished, ended at the next start${ownership ? ' or by another node once their leases run out' : ''}` : ''}`);
    ownership?.stop();
    server.close();
    // Bridges leave LiveKit first (withdrawing presence writes to the log), for at most 2 s.
    const bridged = Promise.all([...bridges].map((bridge) => bridge.close()));
    void Promise.race([bridged, new Promise((resolve) => setTimeout(resolve, 2000))]).finally(async () => {
      // Postgres: the writes in flight are answered (or time out) before the pool closes.
      const held = await journal.close();
      if (held > 0) process.stderr.write(`${held} event(s) could not be stored before stopping (no client had seen them)\n`);
      await Promise.resolve(store.close()).catch((error: unknown) => process.stderr.write(`closing the store: ${oneLine(error)}\n`));
      claim.release();
      void Promise.all([voice?.close?.(), espeak?.close?.()]).finally(() => process.exit(0));
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // Machine-readable line for tests and scripts that start the server on port 0: printed once it
  // stops cleanly when told (a SIGTERM that came before its handler killed it outright).
  if (process.env.PORT === '0') process.stdout.write(`LISTENING ${port}\n`);
};

main().catch((error: unknown) => {
  const known = error instanceof StartupError || error instanceof DataDirError || error instanceof SceneError;
  process.stderr.write(`${known ? error.message : `could not start: ${oneLine(error)}`}\n`);
  process.exit(1);
});
