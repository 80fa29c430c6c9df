/**
 * Issue 30, routing: the browser's connection follows a session to the server that runs it. A
 * server that does not run the session closes the socket with CLOSE_MOVED and the owner's URL;
 * the connection reconnects there at once, resuming after the last event seen, and after any
 * other drop it goes back through the address it started with (the load balancer).
 */
import { describe, expect, it, vi } from 'vitest';
import { connect, movedTo } from '../../client/src/net/connection';
import { CLOSE_LEASE_LOST, CLOSE_MOVED } from '../../shared/protocol/messages';
import { FakeSocket, fakeSocketsFor } from '../fakes/browser-socket';

const opened = (i: number) => new URL(FakeSocket.opened[i]!.url);

describe('a session on another server', () => {
  fakeSocketsFor({ protocol: 'https:', host: 'rehearse.example.org' });

  it("reconnects at once to the owner a CLOSE_MOVED names, after the last event seen, with the same token", () => {
    connect({ session: 's1', token: 't', onMessage: () => {}, lastSeq: () => 12 });
    expect(opened(0).host).toBe('rehearse.example.org');
    FakeSocket.opened[0]!.drop(CLOSE_MOVED, 'https://node-b.example.org');
    expect(FakeSocket.opened).toHaveLength(2);
    expect(`${opened(1).protocol}//${opened(1).host}${opened(1).pathname}`).toBe('wss://node-b.example.org/api/sessions/s1/socket');
    expect(opened(1).searchParams.get('token')).toBe('t');
    expect(opened(1).searchParams.get('after')).toBe('12');
    // A path prefix in the owner's URL is kept (nodes behind one origin: /b/ to node b).
    FakeSocket.opened[1]!.drop(CLOSE_MOVED, 'http://lb.example.org/b/');
    expect(FakeSocket.opened[2]!.url).toMatch(/^ws:\/\/lb\.example\.org\/b\/api\/sessions\/s1\/socket\?/);
  });

  it('goes back through the address it started with when the server it was sent to drops (it may have died)', () => {
    connect({ session: 's1', token: 't', onMessage: () => {}, lastSeq: () => 5 });
    FakeSocket.opened[0]!.drop(CLOSE_MOVED, 'https://node-b.example.org');
    FakeSocket.opened[1]!.accept();
    FakeSocket.opened[1]!.drop(1006);
    vi.advanceTimersByTime(1000);
    expect(opened(2).host).toBe('rehearse.example.org');
    // Its new owner's server stopped it here (the lease went to another): the same way back.
    FakeSocket.opened[2]!.accept();
    FakeSocket.opened[2]!.drop(CLOSE_LEASE_LOST, 'moved to another server');
    vi.advanceTimersByTime(1000);
    expect(opened(3).host).toBe('rehearse.example.org');
  });

  it('backs off instead of following two servers that keep naming each other', () => {
    const statuses: string[] = [];
    connect({ session: 's1', token: 't', onMessage: () => {}, lastSeq: () => 0, onStatus: (s) => statuses.push(s) });
    for (let i = 0; i < 5; i++) FakeSocket.opened.at(-1)!.drop(CLOSE_MOVED, i % 2 ? 'https://a.example.org' : 'https://b.example.org');
    expect(FakeSocket.opened).toHaveLength(6);
    FakeSocket.opened.at(-1)!.drop(CLOSE_MOVED, 'https://b.example.org');
    expect(FakeSocket.opened).toHaveLength(6);
    expect(statuses.at(-1)).toBe('reconnecting');
    vi.advanceTimersByTime(1000);
    expect(opened(6).host).toBe('rehearse.example.org');
  });

  it('reads only an http(s) URL from a close reason', () => {
    expect(movedTo('https://node-b.example.org:8443')).toBe('wss://node-b.example.org:8443');
    expect(movedTo('http://10.0.0.2:8787/')).toBe('ws://10.0.0.2:8787');
    expect(movedTo('javascript:alert(1)')).toBeNull();
    expect(movedTo('not a url')).toBeNull();
    expect(movedTo('')).toBeNull();
  });
});
