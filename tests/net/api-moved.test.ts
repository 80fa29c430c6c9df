/**
 * Issue 30, routing over HTTP: a page's call for a session another node runs is answered 421
 * `moved` with that node's URL (server/cluster/routing.ts); the API client (client/src/net/api.ts)
 * makes the call again there, once, with the same token in the same header (never in the URL),
 * remembers the node for the session, and opens the session's socket there too. A fake fetch
 * plays the nodes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { api, ownerOf, paths, rememberOwner, request } from '../../client/src/net/api';
import { connect } from '../../client/src/net/connection';
import { FakeSocket, fakeSocketsFor } from '../fakes/browser-socket';

const realFetch = globalThis.fetch;
afterEach(() => void (globalThis.fetch = realFetch));

type Sent = { url: string; init: RequestInit };
/** Each call answered by `answer(url)`: a [status, body] pair, or an Error for a node that cannot be reached. */
const nodes = (answer: (url: string) => [number, unknown] | Error): Sent[] => {
  const sent: Sent[] = [];
  globalThis.fetch = (async (url: string, init: RequestInit) => {
    sent.push({ url, init });
    const answered = answer(url);
    if (answered instanceof Error) throw answered;
    return new Response(JSON.stringify(answered[1]), { status: answered[0], headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return sent;
};

const moved = (owner: string): [number, unknown] => [421, { error: 'moved', message: 'Session runs elsewhere.', owner }];

describe('a call for a session another node runs', () => {
  it('is made again at the owner a 421 names, with the same method, token header and body, and later calls go there directly', async () => {
    const sent = nodes((url) => (url.startsWith('https://node-b.example.org/') ? [200, { ok: true }] : moved('https://node-b.example.org/')));
    const answer = await api.ask('m1', 'tok', { question: 'Who spoke most?' });
    expect(answer).toEqual({ ok: true });
    expect(sent.map((s) => s.url)).toEqual(['/api/sessions/m1/ask', 'https://node-b.example.org/api/sessions/m1/ask']);
    expect(sent[1]!.init).toEqual(sent[0]!.init);
    expect(sent[1]!.init.headers).toEqual({ authorization: 'Bearer tok', 'content-type': 'application/json' });
    expect(sent.every((s) => !s.url.includes('tok'))).toBe(true);
    expect(ownerOf('m1')).toBe('https://node-b.example.org');

    await api.endSession('adm', 'm1');
    expect(sent.slice(2).map((s) => [s.url, s.init.method])).toEqual([['https://node-b.example.org/api/sessions/m1', 'DELETE']]);
    // Another session is still asked of this page's server.
    await request(paths.session('m2'), 'tok');
    expect(sent[3]!.url).toBe('/api/sessions/m2');
  });

  it('follows a move once: a second 421 is the answer, so two nodes naming each other cannot loop', async () => {
    const sent = nodes((url) => moved(url.startsWith('https://a.example.org') ? 'https://b.example.org' : 'https://a.example.org'));
    const response = await request(paths.session('m3'), 'tok');
    expect(response.status).toBe(421);
    expect(sent.map((s) => s.url)).toEqual(['/api/sessions/m3', 'https://a.example.org/api/sessions/m3']);
    await expect(api.livekitToken('m4', 'tok')).rejects.toMatchObject({ status: 421, message: 'Session runs elsewhere.' });
    expect(sent).toHaveLength(4);
  });

  it('is not sent on to an owner that is no http(s) URL, nor by a 421 that is no move', async () => {
    for (const [status, body] of [moved('javascript:alert(1)'), moved('not a url'), [421, { error: 'misdirected', owner: 'https://x.example.org' }], [421, null]] as const) {
      const sent = nodes(() => [status, body]);
      expect((await request(paths.session('m5'), 'tok')).status).toBe(421);
      expect(sent).toHaveLength(1);
    }
    expect(ownerOf('m5')).toBeNull();
  });

  it('goes back through the page\'s server when the owner it remembered cannot be reached (its sessions are being taken over)', async () => {
    rememberOwner('m6', 'https://dead.example.org');
    const sent = nodes((url) => (url.startsWith('https://dead.example.org') ? new TypeError('Failed to fetch') : url.startsWith('https://c.example.org') ? [200, { id: 'm6' }] : moved('https://c.example.org')));
    expect((await request(paths.session('m6'), 'tok')).status).toBe(200);
    expect(sent.map((s) => s.url)).toEqual(['https://dead.example.org/api/sessions/m6', '/api/sessions/m6', 'https://c.example.org/api/sessions/m6']);
    expect(ownerOf('m6')).toBe('https://c.example.org');
  });
});

describe("the room's socket for a session found on another node", () => {
  fakeSocketsFor({ protocol: 'https:', host: 'rehearse.example.org' });

  it('opens at the owner directly, and after a drop goes back through the page\'s server and forgets it', () => {
    rememberOwner('m7', 'https://node-b.example.org');
    connect({ session: 'm7', token: 't', onMessage: () => {}, lastSeq: () => 0 });
    expect(FakeSocket.opened[0]!.url).toMatch(/^wss:\/\/node-b\.example\.org\/api\/sessions\/m7\/socket\?token=t$/);
    FakeSocket.opened[0]!.accept();
    FakeSocket.opened[0]!.drop(1006);
    expect(ownerOf('m7')).toBeNull();
  });

  it('tells the API where a CLOSE_MOVED sent it', () => {
    connect({ session: 'm8', token: 't', onMessage: () => {}, lastSeq: () => 0 });
    FakeSocket.opened[0]!.drop(4307, 'https://node-c.example.org');
    expect(ownerOf('m8')).toBe('https://node-c.example.org');
  });
});
