/**
 * The live server's configuration, read once from the environment and validated at the edge.
 * Every problem is collected, so a bad `.env` is fixed in one pass, not one restart per mistake.
 * `.env.example` at the repository root documents each variable with its default.
 *
 * ```ts
 * const config = loadConfig(process.env); // throws ConfigError listing every bad variable
 * if (config.adminTokenGenerated) console.log(`admin token: ${config.adminToken}`);
 * const tokens = createTokens(resolveTokenSecret(config));
 * ```
 *
 * A variable set to an empty or blank string counts as unset, so `ADMIN_TOKEN=` in a `.env`
 * file means "generate one", not "the empty token".
 */
import { modelsDirFrom } from './models/registry';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { createTranscriber, transcriberNames, transcriberVariables, type TranscriberName } from './providers/transcription';
import { createGenerator, generatorNames, type GeneratorName } from './providers/generator';
import { createSynthesizer, espeakWorkersFrom, synthesizerNames, synthesizerVariables, type SynthesizerName } from './providers/synthesis';
import { recordingsLocationFrom, recordingsVariables } from './recordings/location';
import type { RecordingsLocation } from './recordings/files';

export const logLevels = ['info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

/** `https://host[:port]`, nothing after it but a slash; no wildcard (URL takes `*` in a host name). */
const isOrigin = (value: string): boolean => !value.includes('*') && URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol) && new URL(value).origin === value.replace(/\/$/, '').toLowerCase();

/** Read by `createGenerator` for the chosen vendor (see server/providers/generator/index.ts). */
export const generatorVariables = [
  'GEMINI_API_KEY',
  'GEMINI_MODEL',
  'GEMINI_BASE_URL',
  'OPENAI_BASE_URL',
  'OPENAI_MODEL',
  'OPENAI_API_KEY',
  'LOCAL_LLM_MODEL',
  'LOCAL_LLM_THREADS',
  'GENERATOR_TIMEOUT_MS',
  'GENERATOR_BUDGET_MS',
] as const;

/** Values never echoed back in an error message. */
const secretVariables = new Set([
  'ADMIN_TOKEN',
  'TOKEN_SECRET',
  'GEMINI_API_KEY',
  'OPENAI_API_KEY',
  'ELEVENLABS_API_KEY',
  'WHISPER_API_KEY',
  'LIVEKIT_API_KEY',
  'LIVEKIT_API_SECRET',
  // Its password.
  'DATABASE_URL',
  // The recordings bucket's key.
  'AWS_SECRET_ACCESS_KEY',
]);

/** Set all three to carry media over LiveKit; none for the embedded WebSocket transport. */
const liveKitVariables = ['LIVEKIT_URL', 'LIVEKIT_API_KEY', 'LIVEKIT_API_SECRET'] as const;

const MIN_SECRET_LENGTH = 32;

const wholeNumber = (min: number, max: number) =>
  z.coerce
    .number({ error: 'must be a whole number' })
    .int({ error: 'must be a whole number' })
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` });

const positiveNumber = () =>
  z.coerce.number({ error: 'must be a number' }).positive({ error: 'must be greater than 0' });

const Environment = z.object({
  PORT: wholeNumber(0, 65_535).default(8787),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  /** Postgres for the sessions and their logs, shared by several servers; unset: SQLite under DATA_DIR. */
  DATABASE_URL: z
    .string()
    .refine((value) => URL.canParse(value) && ['postgres:', 'postgresql:'].includes(new URL(value).protocol), {
      error: 'must be a postgres:// or postgresql:// URL such as postgres://rehearsal:secret@db.internal:5432/rehearsal',
    })
    .optional(),
  /** Where the local models are kept (server/models/store.ts); default `<DATA_DIR>/models`. */
  MODELS_DIR: z.string().optional(),
  /** This server among several on one DATABASE_URL (server/cluster/): unique; default the host name and process id. */
  NODE_ID: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, { error: 'must be 1 to 64 letters, digits, dots, dashes or underscores' })
    .optional(),
  /** Seconds a session's lease lasts unless renewed: how soon another server takes over a dead one's sessions. */
  LEASE_TTL_S: positiveNumber().default(15),
  /** Seconds between renewals of this server's leases (and looks for dead servers' sessions); less than LEASE_TTL_S. */
  LEASE_RENEW_S: positiveNumber().default(5),
  ADMIN_TOKEN: z.string().optional(),
  TOKEN_SECRET: z
    .string()
    .min(MIN_SECRET_LENGTH, { error: `must be at least ${MIN_SECRET_LENGTH} characters` })
    .optional(),
  TOKEN_TTL_HOURS: positiveNumber().default(12),
  /** Seconds a joined human's empty seat is held before the session pauses for them. */
  SEAT_GRACE_S: positiveNumber().default(20),
  GENERATOR: z.enum(generatorNames, { error: `must be one of ${generatorNames.join(', ')}` }).default('scripted'),
  MAX_MESSAGE_BYTES: wholeNumber(1, 2 ** 30).default(16_384),
  MESSAGE_RATE_PER_S: positiveNumber().default(20),
  MESSAGE_BURST: wholeNumber(1, 1_000_000).default(40),
  LOG_LEVEL: z.enum(logLevels, { error: `must be one of ${logLevels.join(', ')}` }).default('info'),
  /** 1: the editor's saves of a shipped scene write scenes/<id>.yaml (developers); 0: they become authored copies in DATA_DIR. */
  SCENES_WRITABLE: z.enum(['0', '1'], { error: 'must be 0 or 1' }).default('0'),
  TRANSCRIBER: z.enum(transcriberNames, { error: `must be one of ${transcriberNames.join(', ')}` }).default('none'),
  SYNTHESIZER: z.enum(synthesizerNames, { error: `must be one of ${synthesizerNames.join(', ')}` }).default('espeak'),
  LIVEKIT_URL: z
    .string()
    .refine((value) => URL.canParse(value) && ['ws:', 'wss:'].includes(new URL(value).protocol), {
      error: 'must be a ws:// or wss:// URL such as wss://livekit.example.com',
    })
    .optional(),
  LIVEKIT_API_KEY: z.string().optional(),
  LIVEKIT_API_SECRET: z.string().optional(),
  /** Where people reach this server (https://rehearse.example.org): join links are built from it. */
  PUBLIC_URL: z
    .string()
    .refine((value) => URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol) && !new URL(value).search && !new URL(value).hash, {
      error: 'must be an http:// or https:// URL without a query, such as https://rehearse.example.org',
    })
    .optional(),
  /**
   * Several servers: every origin a page of the cluster is served from (the balanced address and
   * each node's PUBLIC_URL), comma-separated. A page on one may call, and open sockets to, the
   * others (CORS and the CSP's connect-src, server/api/security.ts): a session's owner is reached directly.
   */
  CLUSTER_ORIGINS: z
    .string()
    .refine((value) => value.split(',').every((item) => isOrigin(item.trim())), {
      error: 'must be http:// or https:// origins separated by commas, such as https://rehearse.example.org,https://node1.rehearse.example.org (no path, no *)',
    })
    .optional(),
});

/** Every environment variable the server reads, its own and the generator's. */
export const configVariables = [
  ...new Set([...Environment.keyof().options, ...generatorVariables, ...transcriberVariables, ...synthesizerVariables, ...recordingsVariables]),
] as (
  | keyof z.infer<typeof Environment>
  | (typeof generatorVariables)[number]
  | (typeof transcriberVariables)[number]
  | (typeof synthesizerVariables)[number]
  | (typeof recordingsVariables)[number]
)[];

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** DATABASE_URL: the sessions and their logs in Postgres; null: SQLite, `<dataDir>/rehearsal.db`. */
  databaseUrl: string | null;
  /** MODELS_DIR: the local models' folder, `<dataDir>/models` unless set. */
  modelsDir: string;
  adminToken: string;
  /** True when ADMIN_TOKEN was unset and `adminToken` was made up now: print it once at start-up. */
  adminTokenGenerated: boolean;
  /** TOKEN_SECRET, or undefined: then `resolveTokenSecret` keeps one in `<dataDir>/token-secret`. */
  tokenSecret: string | undefined;
  tokenTtlMs: number;
  /** How long a joined human's empty seat is held before the session pauses (SEAT_GRACE_S). */
  seatGraceMs: number;
  /** The vendor's own variables were checked; call `createGenerator(generator, env)` to get one. */
  generator: GeneratorName;
  maxMessageBytes: number;
  messageRatePerS: number;
  messageBurst: number;
  logLevel: LogLevel;
  /** SCENES_WRITABLE=1: saving a shipped scene in the editor writes its file in scenes/. */
  scenesWritable: boolean;
  /** Speech-to-text for microphones; 'none' means humans type. */
  transcriber: TranscriberName;
  /** The personas' voices; 'none' means text only. */
  synthesizer: SynthesizerName;
  /** LiveKit carries the media when set (all three variables); null: the embedded WebSocket transport. */
  livekit: LiveKitConfig | null;
  /** PUBLIC_URL without its trailing slash: the origin (and any path) of join links; null: the request's own. */
  publicUrl: string | null;
  /** CLUSTER_ORIGINS: the origins of the cluster's pages and nodes, each `https://host[:port]`; [] alone. */
  clusterOrigins: string[];
  /** RECORDINGS_URL: where utterances' audio is kept; default `<dataDir>/recordings` (recordings/location.ts). */
  recordings: RecordingsLocation;
  /** NODE_ID: this server among several on one database. */
  nodeId: string;
  /** LEASE_TTL_S, in ms: how long a session's lease lasts unless renewed (with DATABASE_URL). */
  leaseTtlMs: number;
  /** LEASE_RENEW_S, in ms: how often the leases are renewed and dead servers' sessions taken over. */
  leaseRenewMs: number;
}

export interface LiveKitConfig {
  /** ws:// or wss://, as browsers and the server's bridge connect to it. */
  url: string;
  apiKey: string;
  apiSecret: string;
}

export interface ConfigProblem {
  variable: string;
  message: string;
  value: string | undefined;
}

const describeProblem = ({ variable, message, value }: ConfigProblem): string => {
  const got =
    value === undefined
      ? 'not set'
      : secretVariables.has(variable)
        ? `got a ${value.length}-character value`
        : `got "${value}"`;
  return `${variable}: ${message} (${got})`;
};

export class ConfigError extends Error {
  /** One line a problem, each naming its variable: what the server prints when it refuses to start. */
  readonly lines: readonly string[];

  constructor(readonly problems: readonly ConfigProblem[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${describeProblem(p)}`).join('\n')}`);
    this.name = 'ConfigError';
    this.lines = problems.map((p) => `invalid configuration: ${describeProblem(p)}`);
  }
}

const newSecret = (): string => randomBytes(32).toString('base64url');

/** `createGenerator` names the variable first ("GEMINI_API_KEY is not set: …"); split it back out. */
const generatorProblem = (error: unknown, env: Record<string, string | undefined>): ConfigProblem => {
  const text = error instanceof Error ? error.message : String(error);
  const match = /^([A-Z][A-Z0-9_]+) (.*)$/s.exec(text);
  const variable = match?.[1] ?? 'GENERATOR';
  const message = (match?.[2] ?? text).replace(/,? got "[^"]*"$/, '');
  return { variable, message, value: env[variable]?.trim() || undefined };
};

export const loadConfig = (env: Record<string, string | undefined>): Config => {
  const present = Object.fromEntries(
    configVariables.map((name) => [name, env[name]?.trim() || undefined] as const).filter(([, value]) => value !== undefined),
  );
  const parsed = Environment.safeParse(present);
  const problems: ConfigProblem[] = parsed.success
    ? []
    : parsed.error.issues.map((issue) => {
        const variable = String(issue.path[0]);
        return { variable, message: issue.message, value: present[variable] };
      });

  const generator = parsed.success ? parsed.data.GENERATOR : Environment.shape.GENERATOR.safeParse(present.GENERATOR).data;
  if (generator) {
    try {
      createGenerator(generator, present);
    } catch (error) {
      problems.push(generatorProblem(error, present));
    }
  }

  const transcriber = parsed.success ? parsed.data.TRANSCRIBER : Environment.shape.TRANSCRIBER.safeParse(present.TRANSCRIBER).data;
  if (transcriber) {
    try {
      createTranscriber(transcriber, present);
    } catch (error) {
      problems.push({ ...generatorProblem(error, present), ...(/^[A-Z]/.test(String((error as Error).message)) ? {} : { variable: 'TRANSCRIBER' }) });
    }
  }

  const synthesizer = parsed.success ? parsed.data.SYNTHESIZER : Environment.shape.SYNTHESIZER.safeParse(present.SYNTHESIZER).data;
  // eSpeak needs nothing (and starting its worker here would be wasted); a vendor's variables are checked.
  if (synthesizer === 'elevenlabs') {
    try {
      createSynthesizer(synthesizer, present);
    } catch (error) {
      problems.push(generatorProblem(error, present));
    }
  }

  try {
    espeakWorkersFrom(present);
  } catch (error) {
    problems.push(generatorProblem(error, present));
  }

  // Half a LiveKit setup is a mistake, not a choice: name what is missing (never the values set).
  const liveKitSet = liveKitVariables.filter((name) => present[name] !== undefined);
  if (liveKitSet.length > 0 && liveKitSet.length < liveKitVariables.length) {
    for (const variable of liveKitVariables.filter((name) => present[name] === undefined)) {
      problems.push({
        variable,
        message: `is needed with ${liveKitSet.join(' and ')}: set all of ${liveKitVariables.join(', ')} for LiveKit, or none for the embedded transport`,
        value: undefined,
      });
    }
  }

  // Where the recordings go: a directory (default under DATA_DIR) or an S3-compatible bucket.
  const recordings = recordingsLocationFrom(present, present.DATA_DIR ?? Environment.shape.DATA_DIR.parse(undefined));
  problems.push(...recordings.problems.map((problem) => ({ ...problem, value: present[problem.variable] })));
  // A renewal must come well before the lease runs out, or a live server loses its sessions.
  if (parsed.success && parsed.data.LEASE_RENEW_S >= parsed.data.LEASE_TTL_S) {
    problems.push({ variable: 'LEASE_RENEW_S', message: `must be less than LEASE_TTL_S (${parsed.data.LEASE_TTL_S}); a third of it is usual`, value: present.LEASE_RENEW_S ?? String(parsed.data.LEASE_RENEW_S) });
  }

  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const vars = parsed.data;
  return {
    port: vars.PORT,
    host: vars.HOST,
    dataDir: vars.DATA_DIR,
    databaseUrl: vars.DATABASE_URL ?? null,
    modelsDir: modelsDirFrom({ MODELS_DIR: vars.MODELS_DIR, DATA_DIR: vars.DATA_DIR }),
    adminToken: vars.ADMIN_TOKEN ?? newSecret(),
    adminTokenGenerated: vars.ADMIN_TOKEN === undefined,
    tokenSecret: vars.TOKEN_SECRET,
    tokenTtlMs: vars.TOKEN_TTL_HOURS * 3_600_000,
    seatGraceMs: vars.SEAT_GRACE_S * 1000,
    generator: vars.GENERATOR,
    maxMessageBytes: vars.MAX_MESSAGE_BYTES,
    messageRatePerS: vars.MESSAGE_RATE_PER_S,
    messageBurst: vars.MESSAGE_BURST,
    logLevel: vars.LOG_LEVEL,
    scenesWritable: vars.SCENES_WRITABLE === '1',
    transcriber: vars.TRANSCRIBER,
    synthesizer: vars.SYNTHESIZER,
    livekit:
      vars.LIVEKIT_URL && vars.LIVEKIT_API_KEY && vars.LIVEKIT_API_SECRET
        ? { url: vars.LIVEKIT_URL, apiKey: vars.LIVEKIT_API_KEY, apiSecret: vars.LIVEKIT_API_SECRET }
        : null,
    publicUrl: vars.PUBLIC_URL ? vars.PUBLIC_URL.replace(/\/+$/, '') : null,
    clusterOrigins: vars.CLUSTER_ORIGINS ? [...new Set(vars.CLUSTER_ORIGINS.split(',').map((item) => new URL(item.trim()).origin))] : [],
    recordings: recordings.location,
    nodeId: vars.NODE_ID ?? `${hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 40)}-${process.pid}`,
    leaseTtlMs: vars.LEASE_TTL_S * 1000,
    leaseRenewMs: vars.LEASE_RENEW_S * 1000,
  };
};

/**
 * The secret that signs join tokens: TOKEN_SECRET, else the one kept in `<dataDir>/token-secret`,
 * created on first start (mode 0600) so tokens handed out survive a restart.
 */
export const resolveTokenSecret = (config: Pick<Config, 'dataDir' | 'tokenSecret'>): string => {
  if (config.tokenSecret !== undefined) return config.tokenSecret;
  const file = join(config.dataDir, 'token-secret');
  mkdirSync(config.dataDir, { recursive: true });
  try {
    // 'wx' fails if the file exists, so two servers starting at once cannot overwrite each other's secret.
    const secret = newSecret();
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(`${file} holds a ${secret.length}-character secret; it must be at least ${MIN_SECRET_LENGTH}. Delete it to have a new one made (tokens already handed out stop working).`);
  }
  return secret;
};
