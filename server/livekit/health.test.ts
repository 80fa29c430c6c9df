import { createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createLiveKitProbe } from './health';

const livekit = { url: 'ws://127.0.0.1:1', apiKey: 'devkey', apiSecret: 'a-test-secret-that-is-at-least-32-characters' };

/** A room service that answers (or fails) as told, counting its calls. */
const fakeRooms = (answer: () => Promise<unknown>) => {
  const calls = { count: 0 };
  return { calls, rooms: { listRooms: () => (calls.count++, answer()) as never } };
};

describe('createLiveKitProbe', () => {
  it('reports a LiveKit that answers as reachable', async () => {
    const { rooms } = fakeRooms(async () => []);
    const probe = createLiveKitProbe(livekit, { rooms, now: () => Date.parse('2030-01-01T00:00:00Z') });
    expect(await probe.status()).toEqual({ configured: true, reachable: true, checkedAt: '2030-01-01T00:00:00.000Z' });
  });

  it('asks at most once per interval, refreshing a stale result in the background', async () => {
    let t = 0;
    let up = true;
    const { calls, rooms } = fakeRooms(async () => {
      if (!up) throw Object.assign(new Error('Unauthorized'), { status: 401 });
      return [];
    });
    const probe = createLiveKitProbe(livekit, { rooms, intervalMs: 1000, now: () => t });
    await probe.status();
    t = 999;
    up = false;
    expect((await probe.status()).reachable).toBe(true);
    expect(calls.count).toBe(1);
    t = 1000;
    expect((await probe.status()).reachable).toBe(true); // the stale answer, while the new check runs
    expect(calls.count).toBe(2);
    await probe.check();
    expect(await probe.status()).toMatchObject({ reachable: false, error: 'LiveKit refused the API key or secret (HTTP 401)' });
  });

  it('shares one request between concurrent checks', async () => {
    const { calls, rooms } = fakeRooms(async () => []);
    const probe = createLiveKitProbe(livekit, { rooms });
    await Promise.all([probe.status(), probe.status(), probe.check()]);
    expect(calls.count).toBe(1);
  });

  it('gives up on a LiveKit that does not answer within the timeout', async () => {
    const { rooms } = fakeRooms(() => new Promise(() => {}));
    const probe = createLiveKitProbe(livekit, { rooms, timeoutMs: 20 });
    expect(await probe.status()).toMatchObject({ reachable: false, error: 'no answer within 20 ms' });
  });

  it('reports a closed port as unreachable', async () => {
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const { port } = free.address() as AddressInfo;
    await new Promise((resolve) => free.close(resolve));
    const probe = createLiveKitProbe({ ...livekit, url: `ws://127.0.0.1:${port}` });
    expect(await probe.status()).toMatchObject({ configured: true, reachable: false, error: 'cannot connect (ECONNREFUSED)' });
  });

  it('times out against a server that accepts the connection and never answers', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const probe = createLiveKitProbe({ ...livekit, url: `ws://127.0.0.1:${port}` }, { timeoutMs: 100 });
      expect(await probe.status()).toMatchObject({ reachable: false, error: 'no answer within 100 ms' });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
