/**
 * The browser's one door to the server's HTTP API (server/api/): every endpoint a page calls, with
 * its path, its method and the shape of its answer, in one place. A request carries the token in
 * the Authorization header (never in the URL, except a recording's audio, which an <audio> fetch
 * cannot sign); a failure carries the server's own words (its problem-details `message`) and the
 * HTTP status, so a page can say what is wrong rather than "HTTP 500".
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
import type { Formation } from '../../../shared/scene/schema';
import type { Answer, Debrief, Feedback, PairJudgement } from '../../../shared/review/answers';
import type { ModelKind, ModelStatus } from '../../../shared/models';
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

/** The server's answer whatever its status; rejects only when the server cannot be reached. */
export const request = (path: string, token: string | null, init: RequestInit = {}): Promise<Response> =>
  fetch(path, {
    method: init.method ?? 'GET',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });

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
  health: () => json<Health & { providers: { transcription: string }; models?: Partial<Record<ModelKind, ModelStatus>> }>(paths.health, null),
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
