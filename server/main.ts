/**
 * `npm start`: the live session server. Reads its configuration from the environment (see
 * .env.example), recovers sessions a previous process left unfinished, and serves the API and
 * the realtime socket (and the built client, when there is one). With LiveKit configured, each
 * new room is also bridged to its LiveKit room (livekit/bridge.ts).
 */
import { readFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import { createApp } from './api/app';
import { serveClient } from './api/static';
import { createTokens } from './auth/tokens';
import { ConfigError, loadConfig, resolveTokenSecret } from './config';
import { createBridge, type Bridge } from './livekit/bridge';
import { mintPersonaToken, mintServerToken, personaIdentity } from './livekit/tokens';
import { createGenerator } from './providers/generator';
import { createSynthesizer, espeakWorkersFrom, synthesisLimitsFrom } from './providers/synthesis';
import { createBreaker, resilientSynthesizer, type Breaker } from './providers/resilience';
import { createEspeakSynthesizer } from './providers/synthesis/espeak';
import { createTranscriber } from './providers/transcription';
import { createRooms } from './rooms/rooms';
import { loadScenes } from './scene/load';
import { openStore } from './store/store';

const main = async (): Promise<void> => {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const log = (message: string) => config.logLevel !== 'silent' && process.stdout.write(`${message}\n`);
  const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  const scenes = new Map((await loadScenes('scenes')).map((s) => [s.id, s]));
  const store = openStore(config.dataDir);
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
  const generator = createGenerator(config.generator, process.env, { breaker: circuits.generator ?? null, log });
  const synthesizer = voice && espeak ? resilientSynthesizer(voice, espeak, { ...synthesisLimitsFrom(process.env), breaker: circuits.synthesis ?? null, log }) : voice;
  const transcriber = createTranscriber(config.transcriber, process.env, { breaker: circuits.transcription ?? null, log });
  // With LiveKit, each new room is bridged to its LiveKit room; rtc-node (native) loads only then.
  const livekit = config.livekit;
  // rtc-node logs every debug line to stdout unless NODE_ENV says production.
  if (livekit) process.env.NODE_ENV ??= 'production';
  const rtc = livekit ? await import('./livekit/rtc') : null;
  const bridges = new Set<Bridge>();
  const rooms = createRooms({
    store,
    scenes,
    generator: () => generator,
    synthesizer: () => synthesizer,
    transcriber,
    seatGraceMs: config.seatGraceMs,
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
  const recovered = rooms.recover();
  if (recovered.length) log(`marked ${recovered.length} interrupted session(s) as ended: ${recovered.join(', ')}`);
  const tokens = createTokens(resolveTokenSecret(config));
  const { app, injectWebSocket } = createApp({
    config,
    rooms,
    store,
    tokens,
    version,
    scenes: [...scenes.values()],
    circuits: () => Object.fromEntries(Object.entries(circuits).map(([port, breaker]) => [port, breaker.state])),
    // LiveKit's signed webhooks report who is in the room; the bridge reports it too, and a room
    // counts one LiveKit presence per person, so the two never add up.
    onLiveKitPresence: (session, participant, present) => rooms.get(session)?.presence(participant, present),
  });
  // The avatars, then the built client (npm start builds it first); room links are client routes.
  if (!serveClient(app)) log('the client is not built (dist/client): run npm run build:client; the API works without it');

  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
    const providers = `generator: ${config.generator}, voices: ${config.synthesizer}, transcriber: ${config.transcriber}`;
    log(`rehearsal room server ${version} on http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${info.port} (${providers}, data: ${config.dataDir})`);
    if (config.transcriber === 'none') log('voice input is off (TRANSCRIBER=none): participants type; see README, "Voice"');
    if (config.adminTokenGenerated) log(`ADMIN_TOKEN was not set; this run's admin token: ${config.adminToken}`);
    // Machine-readable line for tests and scripts that start the server on port 0.
    if (process.env.PORT === '0') process.stdout.write(`LISTENING ${info.port}\n`);
  });
  injectWebSocket(server);
  const stop = () => {
    server.close();
    // Bridges leave LiveKit first (withdrawing presence writes to the log), for at most 2 s.
    const bridged = Promise.all([...bridges].map((bridge) => bridge.close()));
    void Promise.race([bridged, new Promise((resolve) => setTimeout(resolve, 2000))]).finally(() => {
      store.close();
      void Promise.all([voice?.close?.(), espeak?.close?.()]).finally(() => process.exit(0));
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
};

void main();
