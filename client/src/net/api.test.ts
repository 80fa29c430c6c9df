/**
 * The browser's one API client (client/src/net/api.ts): the token goes in the Authorization
 * header, a JSON body with its content type, and a failure brings the server's own words and
 * status; no other client module calls the API itself.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { api, ApiError, paths, request } from './api';

const realFetch = globalThis.fetch;
afterEach(() => void (globalThis.fetch = realFetch));

/** A server that answers `status` with `body`, and the requests it was sent. */
const answering = (status: number, body: unknown) => {
  const sent: { url: string; init: RequestInit }[] = [];
  globalThis.fetch = (async (url: string, init: RequestInit) => {
    sent.push({ url, init });
    return new Response(body === undefined ? 'not json' : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return sent;
};

describe('the API client', () => {
  it('signs a request with the token and sends a JSON body with its type', async () => {
    const sent = answering(201, { id: 's1', links: { alex: '/room/s1?token=t' } });
    const created = await api.createSession('adm', { scene: 'job-interview', pace: 'realtime' });
    expect(created).toEqual({ id: 's1', links: { alex: '/room/s1?token=t' } });
    expect(sent[0]!.url).toBe('/api/sessions');
    expect(sent[0]!.init.method).toBe('POST');
    expect(sent[0]!.init.headers).toEqual({ authorization: 'Bearer adm', 'content-type': 'application/json' });
    expect(JSON.parse(sent[0]!.init.body as string)).toEqual({ scene: 'job-interview', pace: 'realtime' });
  });

  it("throws the server's own message and status when it refuses", async () => {
    answering(401, { type: 'about:blank', title: 'Unauthorized', status: 401, message: 'The admin token is wrong.' });
    const error = await api.listSessions('wrong').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ message: 'The admin token is wrong.', status: 401 });
  });

  it('says the status when the answer has no words, and sends no token when there is none', async () => {
    const sent = answering(502, undefined);
    await expect(api.scenes()).rejects.toMatchObject({ message: 'The server answered 502.', status: 502 });
    expect(sent[0]!.init.headers).toEqual({});
  });

  it('leaves the status to pages that read it themselves', async () => {
    answering(404, { message: 'No such session.' });
    const response = await request(paths.session('gone id'), 'tok');
    expect(response.status).toBe(404);
    expect(paths.session('gone id')).toBe('/api/sessions/gone%20id');
    expect(paths.feedback('s', 'Dr. X')).toBe('/api/sessions/s/feedback?seat=Dr.%20X');
  });
});

describe('the client calls the API only through its client', () => {
  it('has no fetch of /api anywhere else in client/src (a recording plays from the URL the server lists)', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name)) files.push(path);
      }
    };
    walk('client/src');
    const calling = files.filter((f) => !f.endsWith(join('net', 'api.ts')) && /\bfetch\(\s*[`'"]\/api|\bfetch\(`\$\{|['"`]\/api\//.test(readFileSync(f, 'utf8').replace(/^\s*(\/\*\*?|\*|\/\/).*$/gm, '')));
    expect(calling).toEqual([]);
    expect(files.length).toBeGreaterThan(20);
  });
});
