/**
 * Issue 30, several servers on one database: three real server processes (`node --import tsx
 * server/main.ts`) share one Postgres (PGlite served over the wire in `npm test`; the real
 * PostgreSQL of TEST_DATABASE_URL when set, as .ci/run sets it). Each runs the sessions created on
 * it, under leases; a node that does not run a session sends its clients to the one that does.
 * One node is killed with SIGKILL mid-conversation: within the lease's time and a margin the
 * others take each of its sessions over and resume it from its checkpoint as crash recovery does
 * (a `session-resumed` notice, then new lines; a client reconnecting after its last seq is sent to
 * the new owner and goes on), the other nodes' sessions go on, and every event a client had
 * received is in the log exactly once (no gaps, no duplicates, unchanged).
 *
 * A browser page's call is answered 421 with the owner rather than 307 (a browser drops the
 * Authorization header on a cross-origin redirect), and every node lets the cluster's own origins
 * (CLUSTER_ORIGINS) call it, and no other.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events';
import { CLOSE_MOVED } from '../../shared/protocol/messages';
import { startPgliteServer, type PgliteServer } from '../fakes/pglite-server';
import { scratchDatabase } from '../store/scratch-database';
import { freePorts } from './ports';
import { Client, api, closeClients, createSession, expectContiguous, logOf, startChild, tempDir, until, type ChildServer, type Created } from './helpers';

/** Sessions per node: the run has 30 in all; a few keep `npm test` short on a busy machine. */
const SESSIONS_PER_NODE = 2;
/** Short leases, so a dead node's sessions are taken over within seconds. */
const LEASE_TTL_S = 3;
const LEASE_RENEW_S = 1;
/** Beyond the lease's time: a renewal beat, the takeover's own queries, a loaded machine (two copies of the suite on two cores). */
const MARGIN_MS = 30_000;

const dataDir = tempDir();
const nodes: ChildServer[] = [];
/** The cluster's database, closed (PGlite) or dropped (a real server's) after the file. */
let database: Pick<PgliteServer, 'url' | 'close'> | null = null;
afterAll(async () => {
  await closeClients();
  for (const node of nodes) await node.kill9();
  await database?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A fresh database: PGlite in this process, or one of this file's own on the server of TEST_DATABASE_URL. */
const openDatabase = async (): Promise<string> => {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    database = await startPgliteServer();
    return database.url;
  }
  const scratch = await scratchDatabase(url);
  database = { url: scratch.url, close: scratch.drop };
  return scratch.url;
};

/** A node: its own data directory, the cluster's shared token secret (tokens from any node work on all), the cluster's origins. */
const startNode = (name: string, databaseUrl: string, port: number, origins: readonly string[]): Promise<ChildServer> => {
  const dir = join(dataDir, name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'token-secret'), 'a-secret-every-node-of-the-cluster-shares\n', { mode: 0o600 });
  return startChild(dir, {
    env: { PORT: String(port), CLUSTER_ORIGINS: origins.join(','), DATABASE_URL: databaseUrl, NODE_ID: name, SYNTHESIZER: 'none', TRANSCRIBER: 'none', LEASE_TTL_S: String(LEASE_TTL_S), LEASE_RENEW_S: String(LEASE_RENEW_S) },
    timeoutMs: 120_000,
  });
};

describe('three nodes on one database', () => {
  it('sends clients to the owner, and takes a killed node\'s sessions over, resumed, with every received event kept once', { timeout: 240_000 }, async () => {
    const url = await openDatabase();
    const ports = await freePorts(3);
    const origins = ports.map((port) => `http://127.0.0.1:${port}`);
    nodes.push(...(await Promise.all(['n1', 'n2', 'n3'].map((name, i) => startNode(name, url, ports[i]!, origins)))));
    const [n1, n2, n3] = nodes as [ChildServer, ChildServer, ChildServer];

    // Realtime sessions with stand-ins: they talk at speaking pace, so they are mid-conversation when n1 dies.
    const sessions: { node: ChildServer; created: Created; observer: Client }[] = [];
    for (const node of nodes) {
      for (let i = 0; i < SESSIONS_PER_NODE; i++) {
        const created = await createSession(node, 'team-standup', 'realtime');
        sessions.push({ node, created, observer: await Client.connect(node, created.id, created.tokens.observer!) });
      }
    }
    for (const { observer } of sessions) await observer.waitForEvent((e) => e.type === 'utterance', 'a first utterance');

    // Routing: n2 sends n1's session's live routes to n1; what the store holds it answers itself.
    const onN1 = sessions.find((s) => s.node === n1)!.created;
    const redirected = await fetch(`${n2.base}/api/sessions/${onN1.id}?x=1`, { headers: { authorization: `Bearer ${onN1.tokens.observer}` }, redirect: 'manual' });
    expect(redirected.status).toBe(307);
    expect(redirected.headers.get('location')).toBe(`${n1.base}/api/sessions/${onN1.id}?x=1`);
    expect((await api(n2, `/api/sessions/${onN1.id}/events`)).status).toBe(200);
    const moved = await Client.connect(n2, onN1.id, onN1.tokens.observer!);
    await until(() => moved.closed !== null, 'the socket on a node that does not run the session to close');
    expect(moved.closed).toEqual({ code: CLOSE_MOVED, reason: n1.base });
    // A page's call (a browser's fetch says so in Sec-Fetch-Dest), or one asking for JSON: 421 naming the owner.
    for (const asking of [{ 'sec-fetch-dest': 'empty', 'sec-fetch-mode': 'cors' }, { accept: 'application/json' }] as Record<string, string>[]) {
      const misdirected = await fetch(`${n2.base}/api/sessions/${onN1.id}`, { headers: { authorization: `Bearer ${onN1.tokens.observer}`, ...asking }, redirect: 'manual' });
      expect(misdirected.status).toBe(421);
      expect(misdirected.headers.get('location')).toBe(`${n1.base}/api/sessions/${onN1.id}`);
      expect(await misdirected.json()).toEqual({ error: 'moved', message: `Session "${onN1.id}" runs on ${n1.base}: ask there.`, owner: n1.base });
    }
    // The owner lets a page of n2 call it: the preflight for the token's header and a JSON body, then the call.
    const preflight = await fetch(`${n1.base}/api/sessions/${onN1.id}`, {
      method: 'OPTIONS',
      headers: { origin: n2.base, 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(n2.base);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('DELETE');
    expect(preflight.headers.get('access-control-allow-headers')?.split(/,\s*/)).toEqual(expect.arrayContaining(['authorization', 'content-type']));
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    expect(preflight.headers.get('vary')).toContain('Origin');
    const called = await fetch(`${n1.base}/api/sessions/${onN1.id}`, { headers: { origin: n2.base, authorization: `Bearer ${onN1.tokens.observer}` } });
    expect(called.status).toBe(200);
    expect(called.headers.get('access-control-allow-origin')).toBe(n2.base);
    // Any other origin: its preflight refused, its answers without the header that would let its page read them.
    const foreign = await fetch(`${n1.base}/api/sessions/${onN1.id}`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(((await foreign.json()) as { error: string }).error).toBe('cross-origin');
    const unread = await fetch(`${n1.base}/api/sessions/${onN1.id}`, { headers: { origin: 'https://evil.example', authorization: `Bearer ${onN1.tokens.observer}` } });
    expect(unread.headers.get('access-control-allow-origin')).toBeNull();
    // A page of any node may connect to every other (its calls and its moved socket).
    const connectSrc = /connect-src ([^;]*)/.exec((await fetch(`${n2.base}/api/health`)).headers.get('content-security-policy') ?? '')?.[1]?.split(' ') ?? [];
    expect(connectSrc).toEqual(expect.arrayContaining(ports.flatMap((port) => [`http://127.0.0.1:${port}`, `ws://127.0.0.1:${port}`])));
    expect(connectSrc).not.toContain('*');
    // The sessions page of any node lists every node's sessions.
    const listed = (await (await api(n3, '/api/sessions')).json()) as { sessions: { id: string }[] };
    expect(listed.sessions.map((s) => s.id).sort()).toEqual(sessions.map((s) => s.created.id).sort());

    const survivors = sessions.filter((s) => s.node !== n1);
    const before = new Map(survivors.map((s) => [s.created.id, s.observer.events().length]));
    await n1.kill9();
    const orphans = sessions.filter((s) => s.node === n1);
    for (const { observer } of orphans) await until(() => observer.closed !== null, 'the dead node\'s sockets to drop');

    // Every session of n1 is taken over by n2 or n3 and goes on there (a new line after its resume), waited for over the lease and a margin.
    const goesOn = async (id: string) => {
      const log = await logOf(n2, id);
      const resumed = log.find((e) => e.type === 'system' && e.code === 'session-resumed');
      return resumed !== undefined && log.some((e) => e.type === 'utterance' && e.seq > resumed.seq);
    };
    // Asked every 200 ms (each ask reads a log over HTTP).
    const goneOn = async (id: string) => (await goesOn(id)) || (await new Promise((resolve) => setTimeout(resolve, 200)), false);
    for (const { created } of orphans) await until(() => goneOn(created.id), `session ${created.id} to be taken over and go on`, LEASE_TTL_S * 1000 + MARGIN_MS);
    const takers = [...n2.stdout, ...n3.stdout].filter((line) => line.includes('took over'));
    expect(takers.join('\n')).toContain(orphans[0]!.created.id);

    for (const { created, observer } of orphans) {
      const log = await logOf(n3, created.id);
      expect(expectContiguous(log), created.id).toBeNull();
      const received = observer.events();
      for (const event of received) expect(log[event.seq - 1], `${created.id} seq ${event.seq}`).toEqual(event);
      expect(log.some((e) => e.type === 'end' || (e.type === 'system' && e.code === 'server-restarted'))).toBe(false);
      expect(log.filter((e) => e.type === 'system' && e.code === 'session-resumed')).toHaveLength(1);
      const lines = log.flatMap((e) => (e.type === 'utterance' ? [e.id] : []));
      expect(new Set(lines).size).toBe(lines.length);
    }
    // Its client reconnects after the last event it saw: sent on to the new owner, it gets what it missed and goes on.
    const { created: orphan, observer: dropped } = orphans[0]!;
    const lastSeen = dropped.events().at(-1)!.seq;
    const asked = await Client.connect(n2, orphan.id, orphan.tokens.observer!, lastSeen);
    await until(() => asked.closed !== null || asked.events().length > 0, 'the backlog or a move');
    const owner = asked.closed ? nodes.find((n) => n.base === asked.closed!.reason)! : n2;
    expect(owner).not.toBe(n1);
    const again = asked.closed ? await Client.connect(owner, orphan.id, orphan.tokens.observer!, lastSeen) : asked;
    await again.waitForEvent((e) => e.type === 'system' && e.code === 'session-resumed', 'the resume in the backlog');
    expect(again.events()[0]?.seq).toBe(lastSeen + 1);
    expect(expectContiguous(again.events(), lastSeen + 1)).toBeNull();

    // The others' sessions go on where they were, each on its own node, and their logs hold what their clients got, once.
    for (const { created, observer } of survivors) {
      await observer.waitFor(() => observer.events().length > before.get(created.id)!, `session ${created.id} to go on`);
      const received: SessionEvent[] = observer.events();
      const log = await logOf(n2, created.id);
      expect(expectContiguous(log), created.id).toBeNull();
      for (const event of received) expect(log[event.seq - 1], `${created.id} seq ${event.seq}`).toEqual(event);
      expect(observer.closed).toBeNull();
    }
  });
});
