/**
 * The session store's port, one specification for every store (backends.ts): SQLite, Postgres
 * through PGlite over the wire, and a real PostgreSQL server when TEST_DATABASE_URL is set. What
 * only one store has (SQLite's files, locks and crash safety) is tested beside it
 * (server/store/store.test.ts); Postgres's faults in postgres.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { latestVersion } from '../../server/store/migrations/index';
import type { NewSession } from '../../server/store/store';
import { storeBackends } from './backends';

const standup: NewSession = { id: 's1', scene: 'team-standup', seed: 7, pace: 'instant', createdAt: 1000 };
const event = (seq: number, type = 'utterance') => ({ seq, t: seq * 100, type, text: `line ${seq}` });
const seqs = (events: unknown[]) => events.map((e) => (e as { seq: number }).seq);

describe.each(storeBackends())('the session store on $name', (backend) => {
  beforeAll(backend.start, 60_000);
  afterEach(backend.closeStores);
  afterAll(backend.stop);

  it('reads back appended events whole, in seq order', async () => {
    const store = await backend.fresh();
    await store.createSession(standup);
    await store.appendEvents('s1', [event(1, 'session-start'), event(2)]);
    await store.appendEvents('s1', [event(3)]);
    expect(await store.events('s1')).toEqual([event(1, 'session-start'), event(2), event(3)]);
    expect(await store.lastSeq('s1')).toBe(3);
  });

  it('keeps an event\'s text exactly, whatever it holds', async () => {
    const store = await backend.fresh();
    await store.createSession(standup);
    const odd = { seq: 1, t: 0.25, type: 'utterance', text: 'Zoë said "ok"\\n; 100% \u{1F44D} \u0000 end', nested: { list: [1, null, 'x'] } };
    await store.appendEvents('s1', [odd]);
    expect(await store.events('s1')).toEqual([odd]);
  });

  it('reads only the events after a seq, for a client catching up', async () => {
    const store = await backend.fresh();
    await store.createSession(standup);
    await store.appendEvents('s1', [1, 2, 3, 4, 5].map((seq) => event(seq)));
    expect(seqs(await store.events('s1', 3))).toEqual([4, 5]);
    expect(await store.events('s1', 5)).toEqual([]);
  });

  it('gives a long log in pages of stored JSON', async () => {
    const store = await backend.fresh();
    await store.createSession(standup);
    await store.appendEvents('s1', [1, 2, 3, 4, 5].map((seq) => event(seq)));
    const page = await store.storedEvents('s1', 1, 2);
    expect(page.map((row) => row.seq)).toEqual([2, 3]);
    expect(page.map((row) => JSON.parse(row.json) as unknown)).toEqual([event(2), event(3)]);
    expect(await store.storedEvents('s1', 5, 2)).toEqual([]);
  });

  it('keeps each session to its own log', async () => {
    const store = await backend.fresh();
    await store.createSession(standup);
    await store.createSession({ ...standup, id: 's2' });
    await store.appendEvents('s1', [event(1), event(2)]);
    await store.appendEvents('s2', [event(1)]);
    expect(seqs(await store.events('s1'))).toEqual([1, 2]);
    expect(seqs(await store.events('s2'))).toEqual([1]);
    expect(await store.lastSeq('nobody')).toBe(0);
  });

  it('refuses a duplicate seq and leaves no part of the batch behind', async () => {
    const store = await backend.fresh();
    await store.createSession(standup);
    await store.appendEvents('s1', [event(1), event(2)]);
    await expect(async () => store.appendEvents('s1', [event(3), event(2)])).rejects.toThrow(/seq 2 does not follow 3/);
    await expect(async () => store.appendEvents('s1', [event(2)])).rejects.toThrow(/seq 2 does not follow 2/);
    expect(seqs(await store.events('s1'))).toEqual([1, 2]);
  });

  it('refuses a gap in the seqs', async () => {
    const store = await backend.fresh();
    await store.createSession(standup);
    await expect(async () => store.appendEvents('s1', [event(2)])).rejects.toThrow(/expected 1/);
    await store.appendEvents('s1', [event(1)]);
    await expect(async () => store.appendEvents('s1', [event(2), event(4)])).rejects.toThrow(/expected 3/);
    expect(await store.lastSeq('s1')).toBe(1);
  });

  it('lets one of two writers racing for the same seqs through, and refuses the other', async () => {
    const store = await backend.fresh();
    const other = await backend.again();
    await store.createSession(standup);
    await store.appendEvents('s1', [event(1)]);
    const results = await Promise.allSettled([
      (async () => store.appendEvents('s1', [event(2), { ...event(3), by: 'first' }]))(),
      (async () => other.appendEvents('s1', [event(2), { ...event(3), by: 'second' }]))(),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const log = await store.events('s1');
    expect(seqs(log)).toEqual([1, 2, 3]);
    expect((log[2] as { by: string }).by).toBe(results[0]!.status === 'fulfilled' ? 'first' : 'second');
  });

  it('refuses events for a session it does not know', async () => {
    const store = await backend.fresh();
    await expect(async () => store.appendEvents('ghost', [event(1)])).rejects.toThrow(/foreign key/i);
  });

  it('refuses a second session with the same id', async () => {
    const store = await backend.fresh();
    await store.createSession(standup);
    await expect(async () => store.createSession(standup)).rejects.toThrow(/unique/i);
  });

  it('sees everything again when opened again (a restart, another server)', async () => {
    const first = await backend.fresh();
    await first.createSession({ ...standup, present: ['ana', 'ben'] });
    await first.appendEvents('s1', [event(1), event(2)]);
    await first.close();
    const again = await backend.again();
    expect(await again.events('s1')).toEqual([event(1), event(2)]);
    expect(await again.session('s1')).toEqual({ ...standup, present: ['ana', 'ben'], endedAt: null, recording: false, events: 2, sceneEtag: null });
  });

  it('lists sessions oldest first with their event counts', async () => {
    const store = await backend.fresh();
    await store.createSession({ ...standup, id: 'later', createdAt: 2000, pace: 'realtime' });
    await store.createSession(standup);
    await store.appendEvents('later', [event(1), event(2), event(3)]);
    expect(await store.sessions()).toEqual([
      { ...standup, present: [], endedAt: null, recording: false, events: 0, sceneEtag: null },
      { ...standup, id: 'later', createdAt: 2000, pace: 'realtime', present: [], endedAt: null, recording: false, events: 3, sceneEtag: null },
    ]);
    expect(await store.session('nobody')).toBeUndefined();
  });

  it('keeps times and seeds as large as they come', async () => {
    const store = await backend.fresh();
    const now = Date.UTC(2031, 0, 1);
    await store.createSession({ ...standup, createdAt: now, seed: 2 ** 31 - 2 });
    await store.markEnded('s1', now + 3_600_000);
    expect(await store.session('s1')).toMatchObject({ createdAt: now, seed: 2 ** 31 - 2, endedAt: now + 3_600_000 });
  });

  it('marks sessions ended, keeping the first end time, and lists the unfinished ones for recovery', async () => {
    const store = await backend.fresh();
    await store.createSession(standup);
    await store.createSession({ ...standup, id: 's2', createdAt: 2000 });
    expect((await store.unfinished()).map((s) => s.id)).toEqual(['s1', 's2']);
    await store.markEnded('s1', 5000);
    await store.markEnded('s1', 9000);
    expect((await store.session('s1'))?.endedAt).toBe(5000);
    expect((await store.unfinished()).map((s) => s.id)).toEqual(['s2']);
    await expect(async () => store.markEnded('nobody', 1)).rejects.toThrow(/no session "nobody"/);
  });

  it("keeps whether a session records participants' microphones", async () => {
    const store = await backend.fresh();
    await store.createSession({ ...standup, recording: true });
    await store.createSession({ ...standup, id: 's2' });
    expect((await store.session('s1'))?.recording).toBe(true);
    expect((await store.session('s2'))?.recording).toBe(false);
  });

  it('keeps the scene version each session ran, once however many sessions ran it', async () => {
    const store = await backend.fresh();
    const first = { etag: '"v1"', text: 'title: Stand-up\n# as first written\n' };
    const second = { etag: '"v2"', text: 'title: Stand-up, edited\n' };
    await store.createSession({ ...standup, sceneVersion: first });
    await store.createSession({ ...standup, id: 's2', sceneVersion: first });
    await store.createSession({ ...standup, id: 's3', sceneVersion: second });
    await store.createSession({ ...standup, id: 'untracked' });
    expect((await store.session('s1'))?.sceneEtag).toBe('"v1"');
    expect((await store.sessions()).map((row) => row.sceneEtag)).toEqual(['"v1"', '"v1"', '"v2"', null]);
    expect(await store.sceneText('team-standup', '"v1"')).toBe(first.text);
    expect(await store.sceneText('team-standup', '"v2"')).toBe(second.text);
    // Keyed by scene and version: another scene's version of the same etag is not this one.
    expect(await store.sceneText('job-interview', '"v1"')).toBeUndefined();
    // Seen again after a restart, as resuming a session needs it.
    expect(await (await backend.again()).sceneText('team-standup', '"v1"')).toBe(first.text);
  });

  it("purges a scene version with the last session that ran it, and keeps it while another did", async () => {
    const store = await backend.fresh();
    const version = { etag: '"v1"', text: 'title: Private brief zebra-7261\n' };
    await store.createSession({ ...standup, sceneVersion: version });
    await store.createSession({ ...standup, id: 's2', sceneVersion: version });
    await store.createSession({ ...standup, id: 'other', scene: 'job-interview', sceneVersion: version });
    expect(await store.deleteSession('s1')).toBe(true);
    expect(await store.sceneText('team-standup', '"v1"')).toBe(version.text);
    expect(await store.deleteSession('s2')).toBe(true);
    expect(await store.sceneText('team-standup', '"v1"')).toBeUndefined();
    expect(await store.sceneText('job-interview', '"v1"')).toBe(version.text);
    // A new session of that version stores it again.
    await store.createSession({ ...standup, id: 's4', sceneVersion: version });
    expect(await store.sceneText('team-standup', '"v1"')).toBe(version.text);
  });

  it('stores a session and its scene version together, or neither', async () => {
    const store = await backend.fresh();
    await store.createSession(standup);
    await expect(async () => store.createSession({ ...standup, sceneVersion: { etag: '"v9"', text: 'title: never stored\n' } })).rejects.toThrow();
    expect(await store.sceneText('team-standup', '"v9"')).toBeUndefined();
  });

  it('deletes a session with its log, leaving the others', async () => {
    const store = await backend.fresh();
    await store.createSession(standup);
    await store.createSession({ ...standup, id: 's2' });
    await store.appendEvents('s1', [event(1), event(2)]);
    await store.appendEvents('s2', [event(1)]);
    expect(await store.deleteSession('s1')).toBe(true);
    expect(await store.session('s1')).toBeUndefined();
    expect(await store.events('s1')).toEqual([]);
    expect(await store.events('s2')).toHaveLength(1);
    expect(await store.deleteSession('s1')).toBe(false);
    // The id is free again, and its new log starts at 1.
    await store.createSession(standup);
    await store.appendEvents('s1', [event(1)]);
    expect(seqs(await store.events('s1'))).toEqual([1]);
  });

  it('records the schema version it migrated to, and migrates nothing the second time', async () => {
    const first = await backend.fresh();
    await first.createSession(standup);
    expect(await backend.version()).toBe(latestVersion);
    const again = await backend.again();
    expect(await backend.version()).toBe(latestVersion);
    expect((await again.session('s1'))?.id).toBe('s1');
  });

  it('lets two servers open one new database at once: one migrates it, both use it', async () => {
    await backend.empty();
    const [a, b] = await Promise.all([backend.again(), backend.again()]);
    await a.createSession(standup);
    expect((await b.session('s1'))?.id).toBe('s1');
    expect(await backend.version()).toBe(latestVersion);
  });

  it('refuses a database a newer server migrated, naming both versions', async () => {
    await backend.fresh();
    await backend.migratedBy(latestVersion + 1);
    await expect(backend.again()).rejects.toThrow(`is at schema version ${latestVersion + 1}, newer than this server's ${latestVersion}`);
  });
});
