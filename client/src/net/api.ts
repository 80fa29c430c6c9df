/**
 * The browser's one door to the server's HTTP API (server/api/): every endpoint a page calls, with
 * its path, its method and the shape of its answer, in one place. A request carries the token in
 * the Authorization header (never in the URL, except a recording's audio, which an <audio> fetch
 * cannot sign); a failure carries the server's own words (its problem-details `message`) and the
 * HTTP status, so a page can say what is wrong rather than "HTTP 500".
 *
 * Several servers: a call for a session another node runs is answered 421 with that node's URL,
 * and made again there (`request`); the page then calls that node for the session directly.
 *
 * Two levels: `request` resolves to the Response whatever its status (for pages that read the
 * status themselves: a join link's problems, a comparison's missing sessions), and `api.*` resolve
 * to the parsed body or throw an `ApiError`.
 *
 * ```ts
 * const { scenes } = await api.scenes();
 * try { await api.endSession(admin, id); } catch (error) { show((error as ApiError).message); }
 * ```
 */
import type { Pace } from '../../../shared/events';
import type { SessionSummary } from '../../../shared/protocol/messages';
import type { Formation, SceneInput, StructureForm } from '../../../shared/scene/schema';
import type { Answer, Debrief, Feedback, PairJudgement } from '../../../shared/review/answers';
import type { ModelsHealth } from '../../../shared/models';
import type { Health } from './media';

/** A scene as GET /api/scenes lists it (titles and formations are not secret; the personas are). */
export interface SceneSummary {
  id: string;
  title: string;
  topic: string;
  formation: Formation;
  humans: string[];
  participants: number;
  /** The scene records participants' microphones unless the session says otherwise. */
  recording?: boolean;
  /** Minutes at real-time pace, as the scene states it. */
  duration: number | null;
}

/** Join links by seat (a participant's id, `observer`), as the server makes them. */
export type Links = Record<string, string>;

export type { Pace };

/** What the server said when it did not do what was asked. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const session = (id: string) => `/api/sessions/${encodeURIComponent(id)}`;

/** Every path of the API the browser uses. */
export const paths = {
  health: '/api/health',
  scenes: '/api/scenes',
  sessions: '/api/sessions',
  session,
  links: (id: string) => `${session(id)}/links`,
  report: (id: string, format?: 'json' | 'csv') => `${session(id)}/report${format ? `?format=${format}` : ''}`,
  transcript: (id: string, format: 'json' | 'markdown' | 'vtt' | 'csv') => `${session(id)}/transcript?format=${format}`,
  recordings: (id: string) => `${session(id)}/recordings`,
  replay: (id: string) => `${session(id)}/replay`,
  feedback: (id: string, seat: string) => `${session(id)}/feedback?seat=${encodeURIComponent(seat)}`,
  debrief: (id: string, seat: string) => `${session(id)}/debrief?seat=${encodeURIComponent(seat)}`,
  ask: (id: string) => `${session(id)}/ask`,
  livekitToken: (id: string) => `${session(id)}/livekit-token`,
  compare: (ids: readonly string[]) => `/api/compare?sessions=${ids.map(encodeURIComponent).join(',')}`,
  compareReports: '/api/compare',
  judge: '/api/compare/judge',
} as const;

export interface RequestInit {
  method?: 'GET' | 'POST' | 'DELETE';
  /** Sent as JSON. */
  body?: unknown;
}

/**
 * Several servers (server/cluster/routing.ts): the public URL of the node that runs a session, once
 * a node that does not run it answered 421 `moved`. Later calls for the session go there directly;
 * the room's socket opens there (connection.ts). Forgotten when it cannot be reached: its sessions
 * are taken over by another node, which the page's own server then names.
 */
const owners = new Map<string, string>();

/** The node a session was found to run on, or null (this page's server, as far as we know). */
export const ownerOf = (session: string): string | null => owners.get(session) ?? null;

/** Calls for `session` go to `base` from now on (a socket sent there, connection.ts); null: through this page's server again. */
export const rememberOwner = (session: string, base: string | null): void => {
  if (base === null) owners.delete(session);
  else owners.set(session, base.replace(/\/+$/, ''));
};

/** The session a path is about (`/api/sessions/:id…`), or null. */
const sessionOf = (path: string): string | null => {
  const match = /^\/api\/sessions\/([^/?]+)/.exec(path);
  return match ? decodeURIComponent(match[1]!) : null;
};

/** The owner a 421 answer names, if it is an http(s) URL: nothing else gets the token. */
const movedTo = async (response: Response): Promise<string | null> => {
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => null);
  const { error, owner } = (body ?? {}) as { error?: unknown; owner?: unknown };
  if (error !== 'moved' || typeof owner !== 'string' || !URL.canParse(owner)) return null;
  const { protocol } = new URL(owner);
  return protocol === 'http:' || protocol === 'https:' ? owner.replace(/\/+$/, '') : null;
};

/**
 * The server's answer whatever its status; rejects only when the server cannot be reached. A call
 * for a session another node runs (421 `moved`) is made again there, once, with the same headers
 * and body; a second 421 is the answer, so two nodes that name each other cannot loop.
 */
export const request = async (path: string, token: string | null, init: RequestInit = {}): Promise<Response> => {
  const call = (base: string) =>
    fetch(`${base}${path}`, {
      method: init.method ?? 'GET',
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
  const session = sessionOf(path);
  const known = session ? owners.get(session) : undefined;
  const first =
    known === undefined
      ? await call('')
      : await call(known).catch(() => {
          // Gone (its sessions are being taken over): this page's own server knows who runs it now.
          owners.delete(session!);
          return call('');
        });
  if (first.status !== 421 || !session) return first;
  const owner = await movedTo(first);
  if (!owner || owner === known) return first;
  owners.set(session, owner);
  return call(owner).catch((error: unknown) => {
    owners.delete(session);
    throw error;
  });
};

/** The server's message in a failed answer's body, if it gave one. */
export const messageOf = (body: unknown): string | null => {
  const message = (body as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message ? message : null;
};

/** The parsed JSON body of a 2xx answer; otherwise an ApiError with the server's message. */
export const json = async <T>(path: string, token: string | null, init: RequestInit = {}): Promise<T> => {
  const response = await request(path, token, init);
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok || body === null) throw new ApiError(messageOf(body) ?? `The server answered ${response.status}.`, response.status);
  return body as T;
};

export const api = {
  health: () => json<Health & { providers: { transcription: string }; models?: ModelsHealth }>(paths.health, null),
  scenes: () => json<{ scenes: SceneSummary[] }>(paths.scenes, null),
  listSessions: (admin: string) => json<{ sessions: SessionSummary[] }>(paths.sessions, admin),
  createSession: (admin: string, body: { scene: string; pace: Pace; recording?: boolean }) => json<{ id: string; links: Links }>(paths.sessions, admin, { method: 'POST', body }),
  links: (admin: string, id: string) => json<{ links: Links }>(paths.links(id), admin),
  endSession: (admin: string, id: string) => json<unknown>(session(id), admin, { method: 'DELETE' }),
  purgeSession: (admin: string, id: string) => json<unknown>(`${session(id)}?purge=true`, admin, { method: 'DELETE' }),
  feedback: (id: string, token: string, seat: string) => json<Feedback>(paths.feedback(id, seat), token),
  debrief: (id: string, token: string, seat: string) => json<Debrief>(paths.debrief(id, seat), token),
  ask: (id: string, token: string, body: { seat?: string; question: string }) => json<Answer>(paths.ask(id), token, { method: 'POST', body }),
  livekitToken: (id: string, token: string) => json<{ url?: string; token?: string }>(paths.livekitToken(id), token, { method: 'POST' }),
  judge: (admin: string, body: unknown) => json<PairJudgement>(paths.judge, admin, { method: 'POST', body }),
};

// ---------------------------------------------------------------------------------------------
// Authoring (the editor): scenes read, checked and written with the admin token; a save carries
// the version it was made from (`If-Match`), so a second save of the same version is refused with
// the other one (409) rather than silently overwriting it.

/** A scene as the editor lists it: shipped with the server (scenes/) or authored through the API. */
export interface SceneListing {
  id: string;
  title: string;
  structure: StructureForm | null;
  formation: Formation;
  source: 'shipped' | 'authored';
  etag: string;
}

/** One problem of a scene, as POST /api/scenes/validate and a refused save word it (`npm run scene:check`'s words); a line and column in YAML only. */
export interface SceneProblem {
  path: string;
  message: string;
  line?: number;
  col?: number;
}

/** A figure over the simulated runs (metrics/metrics.ts `Stats`). */
export interface FigureStats {
  mean: number;
  std: number;
  min: number;
  max: number;
}

/** What N simulated runs of a scene came to (POST /api/scenes/:id/simulate): each run's figures and their aggregate (metrics/metrics.ts). */
export interface SimulationSummary {
  scene: string;
  generator: string;
  runs: number;
  /** The first run's seed; run k ran with seed + k - 1. */
  seed: number;
  metrics: {
    runs: unknown[];
    aggregate: { runs: number; metrics: Record<string, FigureStats | null>; endReasons: Record<string, number> };
  };
}

/** A scene written by the server: its id (a new one when a shipped scene was saved as an authored copy) and version. */
export interface SavedScene {
  id: string;
  etag: string;
  source: 'shipped' | 'authored';
  created: boolean;
  /** The scene this one was copied from: a duplicate, or a shipped scene saved on a server that keeps its files as shipped. */
  copiedFrom?: string;
}

/** A file stored for a scene's contents: `file` (`<scene>/<name>`) goes into the content's `file`. */
export interface Upload {
  file: string;
  url: string;
  type: string;
  bytes: number;
  /** The name it had on the author's disk, when sent as a form. */
  name: string | null;
  /** A text document's words. */
  text?: string;
}

/** What became of a save: written (its new version), refused as invalid, or refused because someone saved first. */
export type SaveOutcome =
  | ({ kind: 'saved' } & SavedScene)
  | { kind: 'invalid'; message: string; errors: SceneProblem[] }
  | { kind: 'conflict'; message: string; current: { etag: string; yaml: string } };

const sceneAt = (id: string) => `/api/scenes/${encodeURIComponent(id)}`;

/** The authoring paths (beside `paths.scenes`, which lists them). */
export const scenePaths = {
  scene: sceneAt,
  validate: '/api/scenes/validate',
  duplicate: (id: string) => `${sceneAt(id)}/duplicate`,
  uploads: (id: string) => `${sceneAt(id)}/uploads`,
  /** An uploaded file, by the `file` its upload answered (`<scene>/<name>`). */
  upload: (file: string) => `/api/uploads/${file.split('/').map(encodeURIComponent).join('/')}`,
  simulate: (id: string) => `${sceneAt(id)}/simulate`,
  voiceSample: '/api/scenes/voice-sample',
} as const;

/** A request with headers of its own (If-Match, Accept, a raw body's type); the answer whatever its status. */
const authoring = (path: string, token: string, init: { method?: 'GET' | 'POST' | 'PUT' | 'DELETE'; headers?: Record<string, string>; body?: BodyInit } = {}): Promise<Response> =>
  fetch(path, { method: init.method ?? 'GET', headers: { authorization: `Bearer ${token}`, ...init.headers }, ...(init.body !== undefined ? { body: init.body } : {}) });

const parsed = async <T>(response: Response): Promise<T> => {
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok || body === null) throw new ApiError(messageOf(body) ?? `The server answered ${response.status}.`, response.status);
  return body as T;
};

const asJson = { 'content-type': 'application/json' };

export const sceneApi = {
  list: (admin: string) => json<{ scenes: SceneListing[] }>(paths.scenes, admin),
  /** The scene as its file holds it (the schema's input shape), and its version. */
  get: async (admin: string, id: string): Promise<{ scene: SceneInput; etag: string }> => {
    const response = await authoring(sceneAt(id), admin, { headers: { accept: 'application/json' } });
    const scene = await parsed<SceneInput>(response);
    return { scene, etag: response.headers.get('etag') ?? '' };
  },
  validate: (admin: string, scene: unknown) =>
    authoring(scenePaths.validate, admin, { method: 'POST', headers: asJson, body: JSON.stringify(scene) }).then((r) => parsed<{ ok: boolean; errors: SceneProblem[] }>(r)),
  /** Writes the scene; `etag` is the version it was edited from (null for a scene not yet on the server). */
  save: async (admin: string, id: string, scene: unknown, etag: string | null): Promise<SaveOutcome> => {
    const response = await authoring(sceneAt(id), admin, { method: 'PUT', headers: { ...asJson, ...(etag ? { 'if-match': etag } : {}) }, body: JSON.stringify(scene) });
    if (response.status === 422) {
      const body = (await response.json()) as { message?: string; errors: SceneProblem[] };
      return { kind: 'invalid', message: body.message ?? 'The server refused the scene.', errors: body.errors };
    }
    if (response.status === 409) {
      const body = (await response.json()) as { message?: string; current: { etag: string; yaml: string } };
      return { kind: 'conflict', message: body.message ?? 'Someone saved this scene since you opened it.', current: body.current };
    }
    return { kind: 'saved', ...(await parsed<SavedScene>(response)) };
  },
  /** Deletes an authored scene at the version listed (`etag`); the server's words when it keeps it (shipped, changed, run by sessions). */
  remove: async (admin: string, id: string, etag: string): Promise<void> => {
    const response = await authoring(sceneAt(id), admin, { method: 'DELETE', headers: { 'if-match': etag } });
    if (!response.ok) throw new ApiError(messageOf(await response.json().catch(() => null)) ?? `The server answered ${response.status}.`, response.status);
  },
  duplicate: (admin: string, id: string) => authoring(scenePaths.duplicate(id), admin, { method: 'POST' }).then((r) => parsed<SavedScene>(r)),
  create: (admin: string, template: StructureForm) =>
    authoring(paths.scenes, admin, { method: 'POST', headers: asJson, body: JSON.stringify({ template }) }).then((r) => parsed<SavedScene>(r)),
  /** Stores a file for the scene's contents (an image, a PDF, a text document), sent as a form so its name goes along. */
  upload: (admin: string, id: string, file: File) => {
    const form = new FormData();
    // Browsers give some text files no type (.md on Linux); the server goes by the declared type, then checks the bytes.
    const typed = file.type || !/\.(md|txt)$/i.test(file.name) ? file : new File([file], file.name, { type: /\.md$/i.test(file.name) ? 'text/markdown' : 'text/plain' });
    form.append('file', typed, file.name);
    return authoring(scenePaths.uploads(id), admin, { method: 'POST', body: form }).then((r) => parsed<Upload>(r));
  },
  /** An uploaded file's bytes: the route wants the token in the header, so an <img> is given an object URL of them. */
  file: async (token: string, file: string): Promise<Blob> => {
    const response = await authoring(scenePaths.upload(file), token);
    if (!response.ok) throw new ApiError(messageOf(await response.json().catch(() => null)) ?? `The server answered ${response.status}.`, response.status);
    return response.blob();
  },
  /**
   * A line in a participant's voice as a session would give it (`participants`: the scene's, each
   * with its voice and persona's speaking rate), as WAV; `voice` says which one it was ("en-gb+f3; 160 wpm").
   */
  voiceSample: async (admin: string, body: { text: string; participant: string; participants: readonly { id: string; voice?: unknown; persona?: { speakingRate?: unknown } }[] }): Promise<{ audio: Blob; voice: string }> => {
    const response = await authoring(scenePaths.voiceSample, admin, { method: 'POST', headers: asJson, body: JSON.stringify(body) });
    if (!response.ok) throw new ApiError(messageOf(await response.json().catch(() => null)) ?? `The server answered ${response.status}.`, response.status);
    return { audio: await response.blob(), voice: response.headers.get('x-voice') ?? '' };
  },
  simulate: (admin: string, id: string, runs: number) =>
    authoring(scenePaths.simulate(id), admin, { method: 'POST', headers: asJson, body: JSON.stringify({ runs }) }).then((r) => parsed<SimulationSummary>(r)),
};
