/**
 * Issue 16, item 4: a broadcast is serialised once, whatever the number of recipients (200
 * observers used to cost 200 JSON.stringify calls per event, 0.44 s of event loop). Clients that
 * take pre-serialised text (`sendRaw`, as every socket does) all get the same string; the log
 * event reaches each audience it is meant for and no other.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import type { ServerMessage } from '../../shared/protocol/messages';
import { createRooms, type Client } from '../../server/rooms/rooms';
import { loadScenes } from '../../server/scene/load';
import { openStore } from '../../server/store/store';
import { tempDir } from './helpers';

const repoRoot = new URL('../../', import.meta.url).pathname;
const cleanups: (() => void)[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const roomOf = async () => {
  const dir = tempDir();
  const store = openStore(dir);
  const scenes = new Map((await loadScenes(join(repoRoot, 'scenes'))).map((s) => [s.id, s]));
  const rooms = createRooms({ store, scenes, generator: () => createScriptedGenerator() });
  const room = rooms.create('team-standup', { pace: 'realtime', standIns: true });
  cleanups.push(() => {
    room.conversation.send({ type: 'end' });
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return room;
};

/** A client that records the raw text it is handed. */
const rawClient = (role: Client['role'], participant: string | null) => {
  const raw: string[] = [];
  const client: Client = { role, participant, send: () => {}, sendRaw: (json) => void raw.push(json) };
  return { client, raw };
};

describe('broadcasts', () => {
  it('serialise each message once for 200 observers, who all get the same string', async () => {
    const room = await roomOf();
    const observers = Array.from({ length: 200 }, () => rawClient('observer', null));
    for (const { client } of observers) room.join(client, 0);
    const stringify = vi.spyOn(JSON, 'stringify');
    const author = { role: 'author' as const, participant: null, send: () => {} };
    room.handle(author, { type: 'pause' });
    const broadcasts = stringify.mock.calls.filter(([value]) => (value as ServerMessage | undefined)?.type === 'event');
    expect(broadcasts).toHaveLength(1);
    const sent = new Set(observers.map(({ raw }) => raw.at(-1)));
    expect(sent.size).toBe(1);
    expect(JSON.parse([...sent][0]!)).toMatchObject({ type: 'event', event: { type: 'system', code: 'paused', audience: 'all' } });
  });

  it('serialise an instructor-only event once for its audience, and hand it to no participant', async () => {
    const room = await roomOf();
    const observers = Array.from({ length: 50 }, () => rawClient('observer', null));
    for (const { client } of observers) room.join(client, 0);
    const jordan = rawClient('participant', 'jordan');
    room.join(jordan.client, 0);
    const before = jordan.raw.length;
    const stringify = vi.spyOn(JSON, 'stringify');
    room.handle({ role: 'observer', participant: null, send: () => {} }, { type: 'inject', text: 'Marco should admit the delay.' });
    expect(stringify.mock.calls.filter(([value]) => (value as ServerMessage | undefined)?.type === 'event')).toHaveLength(1);
    expect(new Set(observers.map(({ raw }) => raw.at(-1))).size).toBe(1);
    expect(jordan.raw.slice(before).some((json) => json.includes('Marco should admit the delay.'))).toBe(false);
  });
});
