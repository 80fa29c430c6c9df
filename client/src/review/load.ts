/**
 * The dashboard's data: a session's report (`GET /api/sessions/:id/report`, server/review/report.ts)
 * fetched with the token from the review link, or why it cannot be shown (the same problems as a
 * room link: net/sessions.ts says which); the session's recorded speech (`GET /api/sessions/:id/recordings`,
 * review/player.ts plays it); the room and log of its 3D replay (`GET /api/sessions/:id/replay`);
 * and the session's exports, saved as files. The exports need the Authorization header, so they
 * are fetched and handed to the browser as a Blob.
 *
 * ```ts
 * const opened = await openReport(id, token);
 * if (opened.kind === 'report') draw(opened.report);
 * ```
 */
import type { ReplayData } from '../../../shared/review/replay';
import type { Report } from '../../../shared/review/report';
import { ApiError, messageOf, paths, request } from '../net/api';
import { readToken } from '../net/connection';
import { readSessionResponse, type LinkProblem } from '../net/sessions';
import type { Recordings } from './player';

export type OpenedReport = { kind: 'report'; report: Report } | { kind: 'problem'; problem: LinkProblem; detail: string | null };

/** Enough of the report's shape to draw it: an older or newer server's answer without it is "unexpected", not a crash. */
const looksLikeReport = (body: unknown): body is Report => {
  const r = body as Partial<Report> | null;
  return !!r && typeof r.durationMs === 'number' && typeof r.turns === 'number' && Array.isArray(r.participants) && Array.isArray(r.timeline) && typeof r.breakdowns === 'object';
};

export const openReport = async (session: string, token: string, now = Date.now()): Promise<OpenedReport> => {
  if (!token) return { kind: 'problem', problem: 'no-token', detail: null };
  let response: Response;
  try {
    response = await request(paths.report(session), token);
  } catch (error) {
    return { kind: 'problem', problem: 'unreachable', detail: (error as Error).message };
  }
  const body: unknown = await response.json().catch(() => null);
  if (response.status === 200) {
    return looksLikeReport(body) ? { kind: 'report', report: body } : { kind: 'problem', problem: 'unexpected', detail: 'The server described this session in a way this page does not understand.' };
  }
  const claims = readToken(token);
  const link = readSessionResponse(response.status, body, claims !== null && claims.exp <= now);
  return link.kind === 'problem' ? link : { kind: 'problem', problem: 'unexpected', detail: `HTTP ${response.status}` };
};

export const noRecordings = (): Recordings => ({ recordings: [], missing: [] });

/**
 * The session's recordings. None is not an error: a session recorded before recordings were kept,
 * one without speech, or a server that does not keep them (404) plays in silence.
 */
export const openRecordings = async (session: string, token: string): Promise<Recordings> => {
  if (!token) return noRecordings();
  try {
    const response = await request(paths.recordings(session), token);
    if (!response.ok) return noRecordings();
    const body = (await response.json()) as Partial<Recordings> | null;
    return Array.isArray(body?.recordings) ? { recordings: body.recordings, missing: Array.isArray(body.missing) ? body.missing : [] } : noRecordings();
  } catch {
    return noRecordings();
  }
};

/** The room and the log for the 3D replay, or the server's words for why not (asked after the report, with the same token). */
export const openReplay = async (session: string, token: string): Promise<{ kind: 'replay'; data: ReplayData } | { kind: 'problem'; detail: string }> => {
  try {
    const response = await request(paths.replay(session), token);
    const body = (await response.json().catch(() => null)) as (ReplayData & { message?: string }) | null;
    if (response.ok && body && Array.isArray(body.events) && Array.isArray(body.participants) && body.scene) return { kind: 'replay', data: body };
    return { kind: 'problem', detail: body?.message ?? `HTTP ${response.status}` };
  } catch (error) {
    return { kind: 'problem', detail: (error as Error).message };
  }
};

export interface Export {
  label: string;
  path: string;
  /** The file's name when the server does not give one. */
  file: string;
}

export const exportsOf = (session: string): { group: string; files: Export[] }[] => {
  return [
    {
      group: 'Transcript',
      files: [
        { label: 'JSON', path: paths.transcript(session, 'json'), file: 'transcript.json' },
        { label: 'Markdown', path: paths.transcript(session, 'markdown'), file: 'transcript.md' },
        { label: 'WebVTT', path: paths.transcript(session, 'vtt'), file: 'transcript.vtt' },
        { label: 'CSV', path: paths.transcript(session, 'csv'), file: 'transcript.csv' },
      ],
    },
    {
      group: 'Report',
      files: [
        { label: 'JSON', path: paths.report(session, 'json'), file: 'report.json' },
        { label: 'CSV', path: paths.report(session, 'csv'), file: 'report.csv' },
      ],
    },
  ];
};

/** Saves an export: fetched with the token, then offered to the browser as a download. Throws the server's message. */
export const download = async (item: Export, token: string): Promise<void> => {
  const response = await request(item.path, token);
  if (!response.ok) throw new ApiError(messageOf(await response.json().catch(() => null)) ?? `HTTP ${response.status}`, response.status);
  const named = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1];
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = named ?? item.file;
  document.body.append(link);
  link.click();
  link.remove();
  // The click has handed the file to the browser: the URL is no longer needed.
  setTimeout(() => URL.revokeObjectURL(url), 0);
};
