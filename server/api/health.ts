/**
 * GET /api/health, open to anyone: the version, the active providers, the live sessions, each
 * vendor's circuit, the local models' state while one is asked for (fetching, ready, or why it
 * failed; file names only; for the language model also whether it is loaded, the turns waiting for
 * it and how many were late; for the speech recogniser whisper.cpp's build for this CPU: building,
 * ready or why it failed, for how long, and what transcribes meanwhile) and, with LiveKit configured, whether it answers. With LiveKit the transport stays
 * 'livekit' while it is down: clients fall back to the embedded WebSocket, and `livekit.fallback` says so.
 *
 * ```ts
 * app.route('/api/health', health({ version: '1.2.0', config, rooms, circuits: () => ({ generator: breaker.state }) }));
 * // {"status":"ok","version":"1.2.0","providers":{"generator":"gemini",…,"transport":"websocket"},"sessions":2,"circuits":{…}}
 * ```
 */
import { Hono } from 'hono';
import type { Config } from '../config';
import type { LiveKitProbe } from '../livekit/health';
import type { CircuitState } from '../providers/resilience';
import type { Rooms } from '../rooms/rooms';
import type { LocalGenerator } from '../providers/generator/local';
import { whisperBuildStatus } from '../providers/transcription/local';
import type { ModelKind, ModelsHealth, ModelStatus, RuntimeBuild } from '../../shared/models';

export interface HealthOptions {
  version: string;
  config: Pick<Config, 'generator' | 'synthesizer' | 'transcriber'>;
  rooms: Rooms;
  /** Whether LiveKit answers; null without LiveKit. */
  liveKitProbe: LiveKitProbe | null;
  /** Each vendor's circuit: `open` while a vendor that kept failing is not called. */
  circuits?: () => Record<string, CircuitState>;
  /** The local models' state (server/models/store.ts `statuses`): only the kinds asked for. */
  models?: () => Partial<Record<ModelKind, ModelStatus>>;
  /** The local language model at work (providers/generator/local.ts), shown beside its file's status as `models.llm.runtime`. */
  localGenerator?: Pick<LocalGenerator, 'status' | 'waiting' | 'lateTurns'> | null;
  /**
   * whisper.cpp's build for this CPU, shown beside the recogniser's file as `models.asr.build`;
   * default with TRANSCRIBER=local: this process's (providers/transcription/local.ts).
   */
  whisperBuild?: () => RuntimeBuild | null;
}

export const health = (options: HealthOptions): Hono => {
  const { config, rooms, liveKitProbe } = options;
  const app = new Hono();
  app.get('/', async (c) => {
    const livekit = liveKitProbe ? await liveKitProbe.status() : null;
    const generator = options.localGenerator;
    // The file's state (fetched, verified) and the model's (loading, queue, late turns) side by side.
    // Its state only: a failure's reason names the file's path, and the store's status already says why by file name.
    const runtime = generator ? { runtime: { state: generator.status.state, waiting: generator.waiting, lateTurns: generator.lateTurns } } : null;
    const stored: ModelsHealth | undefined = options.models?.();
    const build = (options.whisperBuild ?? (config.transcriber === 'local' ? whisperBuildStatus : null))?.();
    const models: ModelsHealth | undefined = {
      ...stored,
      ...(runtime ? { llm: { ...(stored?.llm ?? { state: 'idle' as const }), ...runtime } } : {}),
      ...(build ? { asr: { ...(stored?.asr ?? { state: 'idle' as const }), build } } : {}),
    };
    return c.json({
      status: 'ok',
      version: options.version,
      providers: { generator: config.generator, synthesis: config.synthesizer, transcription: config.transcriber, transport: livekit ? 'livekit' : 'websocket' },
      ...(livekit ? { livekit: { ...livekit, ...(livekit.reachable ? {} : { fallback: 'websocket' }) } } : {}),
      sessions: rooms.list().filter((r) => !r.ended()).length,
      ...(options.circuits ? { circuits: options.circuits() } : {}),
      ...(models && Object.keys(models).length > 0 ? { models } : {}),
    });
  });
  return app;
};
