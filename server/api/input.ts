/**
 * What a request carries, read at the edge. A JSON body is checked against its zod schema: 400
 * `bad-json` when it is not JSON (the message shows the shape expected), 400 `bad-request` naming
 * the first field that is wrong; handlers get the parsed value, or the answer to return. A
 * `?after=` seq is a whole number, else 0.
 *
 * ```ts
 * const read = await jsonBody(c, CreateSession, 'The body must be JSON: {"scene": "<scene id>"}.');
 * if (!read.ok) return read.problem;
 * rooms.create(read.data.scene);
 * ```
 */
import type { Context } from 'hono';
import type { z } from 'zod';
import { problem } from './problem';

/** `path.to.field: what is wrong` (`body: …` for the whole body), the first issue only. */
export const firstIssue = (error: z.ZodError): string => {
  const issue = error.issues[0]!;
  return `${issue.path.map(String).join('.') || 'body'}: ${issue.message}`;
};

export const jsonBody = async <S extends z.ZodTypeAny>(c: Context, schema: S, expected: string): Promise<{ ok: true; data: z.output<S> } | { ok: false; problem: Response }> => {
  let json: unknown;
  try {
    json = await c.req.json();
  } catch {
    return { ok: false, problem: problem(c, 400, 'bad-json', expected) };
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, problem: problem(c, 400, 'bad-request', firstIssue(parsed.error)) };
};

/** A `?after=` seq: a whole number, else 0 (from the start). */
export const seqParam = (raw: string | undefined): number => (raw !== undefined && /^\d{1,15}$/.test(raw) ? Number(raw) : 0);
