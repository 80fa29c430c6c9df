/**
 * What a join link opens, from `GET /api/sessions/:id`: a live session's snapshot, an ended
 * session's summary, or why the link does not work (no such session, a token that expired or was
 * altered, a token for another session, a server that does not answer). Every answer becomes one
 * of these, so the room page always has something true to say.
 *
 * ```ts
 * const link = await openSessionLink(id, token);
 * if (link.kind === 'live') showBrief(link.snapshot);
 * ```
 */
import { z } from 'zod';
import { Snapshot } from '../../../shared/protocol/messages';
import { participantKinds } from '../../../shared/scene/schema';
import { paths, request } from './api';
import { readToken } from './connection';

export interface EndedSummary {
  session: string;
  scene: { id: string; title: string };
  /** Null when the server did not say (an older server). */
  durationMs: number | null;
  turns: number | null;
  participants: { id: string; name: string; kind: (typeof participantKinds)[number] }[];
  /** Where the session's review is, when there is one. */
  review: string | null;
  /** Who ended it and why ("Ended by the instructor", "Time is up"); null from an older server. */
  endedBecause?: string | null;
}

export type LinkProblem = 'no-token' | 'not-found' | 'expired' | 'unauthorized' | 'forbidden' | 'unreachable' | 'unexpected';

export type SessionLink = { kind: 'live'; snapshot: Snapshot } | { kind: 'ended'; summary: EndedSummary } | { kind: 'problem'; problem: LinkProblem; detail: string | null };

/** An ended session as the server describes it; older servers sent only `{ session, scene: '<id>', phase: 'ended' }`. */
const Ended = z.object({
  session: z.string(),
  scene: z.union([z.string().transform((id) => ({ id, title: id })), z.object({ id: z.string(), title: z.string() })]),
  durationMs: z.number().nonnegative().nullable().catch(null),
  turns: z.number().int().nonnegative().nullable().catch(null),
  participants: z.array(z.object({ id: z.string(), name: z.string(), kind: z.enum(participantKinds) })).catch([]),
  review: z.string().nullable().catch(null),
  endedBecause: z.string().nullable().catch(null),
});

const Problem = z.object({ code: z.string().optional(), error: z.string().optional(), message: z.string().optional() });

/** The link's outcome for an HTTP status and body; `tokenExpired`: the token's own expiry has passed. */
export const readSessionResponse = (status: number, body: unknown, tokenExpired = false): SessionLink => {
  if (status === 200) {
    const ended = (body as { status?: unknown; phase?: unknown } | null) ?? {};
    if (ended.status === 'ended' || ended.phase === 'ended') {
      const summary = Ended.safeParse(body);
      return summary.success ? { kind: 'ended', summary: summary.data } : { kind: 'problem', problem: 'unexpected', detail: 'The server described this ended session in a way this page does not understand.' };
    }
    const snapshot = Snapshot.safeParse(body);
    return snapshot.success ? { kind: 'live', snapshot: snapshot.data } : { kind: 'problem', problem: 'unexpected', detail: 'The server described this session in a way this page does not understand.' };
  }
  const problem = Problem.safeParse(body);
  const detail = problem.success ? (problem.data.message ?? null) : null;
  if (status === 404) return { kind: 'problem', problem: 'not-found', detail };
  if (status === 401) return { kind: 'problem', problem: tokenExpired || /expired/i.test(detail ?? '') ? 'expired' : 'unauthorized', detail };
  if (status === 403) return { kind: 'problem', problem: 'forbidden', detail };
  if (status >= 500) return { kind: 'problem', problem: 'unreachable', detail: detail ?? `HTTP ${status}` };
  return { kind: 'problem', problem: 'unexpected', detail: detail ?? `HTTP ${status}` };
};

export const openSessionLink = async (session: string, token: string, now = Date.now()): Promise<SessionLink> => {
  if (!token) return { kind: 'problem', problem: 'no-token', detail: null };
  const claims = readToken(token);
  let response: Response;
  try {
    response = await request(paths.session(session), token);
  } catch (error) {
    return { kind: 'problem', problem: 'unreachable', detail: (error as Error).message };
  }
  const body: unknown = await response.json().catch(() => null);
  return readSessionResponse(response.status, body, claims !== null && claims.exp <= now);
};
