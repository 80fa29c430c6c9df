/**
 * Issue 26: a live session deleted with its log (purge) is closed: the room ends if it still
 * runs, every client is told (an `ended` error saying why) and its connection closed with the
 * code given (4410 "session deleted"), and the room is forgotten, so nobody reconnects to it.
 * Other transports (LiveKit) are handed what everyone may see, as participants see it: the
 * instructor's line in a seat they hold reads as the seat's own there too.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import type { ServerMessage } from '../../shared/protocol/messages';
import { createRooms, type Client, type CloseReason } from '../../server/rooms/rooms';
import { loadScenes } from '../../server/scene/load';
import { openStore } from '../../server/store/store';
import { tempDir, until } from './helpers';

const repoRoot = new URL('../../', import.meta.url).pathname;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const roomsOf = async () => {
  const dir = tempDir();
  const store = openStore(dir);
  const scenes = new Map((await loadScenes(join(repoRoot, 'scenes'))).map((s) => [s.id, s]));
  const rooms = createRooms({ store, scenes, generator: () => createScriptedGenerator() });
  cleanups.push(() => {
    for (const room of rooms.list()) if (!room.ended()) room.conversation.send({ type: 'end' });
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { rooms, store };
};

/** A client that records what it is sent and how it was closed. */
const clientOf = (role: Client['role'], participant: string | null) => {
  const messages: ServerMessage[] = [];
  const closes: (CloseReason | undefined)[] = [];
  const client: Client = { role, participant, send: (m) => void messages.push(m), close: (how) => void closes.push(how) };
  return { client, messages, closes };
};

const deleted = { code: 4410, reason: 'session deleted' };

describe('closing a live room', () => {
  it('ends the session, tells every client, closes each with the code given, and forgets the room', async () => {
    const { rooms, store } = await roomsOf();
    const room = rooms.create('sprint-retro', { pace: 'realtime', standIns: true });
    const riley = clientOf('participant', 'riley');
    const observer = clientOf('observer', null);
    const leaves = [room.join(riley.client, 0), room.join(observer.client, 0)];

    expect(rooms.close(room.id, deleted)).toBe(true);
    expect(room.ended()).toBe(true);
    for (const { messages, closes } of [riley, observer]) {
      expect(messages.at(-1)).toEqual({ type: 'error', code: 'ended', message: 'This session has ended: session deleted.' });
      expect(closes).toEqual([deleted]);
    }
    expect(rooms.get(room.id)).toBeUndefined();
    // The end is logged (by the admin) before the route deletes the log.
    await until(() => store.session(room.id)?.endedAt !== null, 'the end stored');
    expect((store.events(room.id) as SessionEvent[]).at(-1)).toMatchObject({ type: 'end', by: 'admin' });
    // A socket closing afterwards leaves quietly: nothing more is sent to anyone.
    const sent = riley.messages.length + observer.messages.length;
    for (const leave of leaves) leave();
    room.handle(observer.client, { type: 'pause' });
    expect(riley.messages.length + observer.messages.length).toBe(sent);
  });

  it('is false for a session with no room in memory', async () => {
    const { rooms } = await roomsOf();
    expect(rooms.close('no-such-session', deleted)).toBe(false);
  });
});

describe("other transports' stream", () => {
  it("carries the instructor's say-as line as the seat's own, as participants see it", async () => {
    const { rooms } = await roomsOf();
    const room = rooms.create('sprint-retro', { pace: 'realtime', standIns: true });
    const shared: ServerMessage[] = [];
    room.subscribe((message) => void shared.push(message));
    const author = clientOf('author', null);
    room.join(author.client, 0);
    room.handle(author.client, { type: 'take-over', participant: 'morgan' });
    expect(room.handle(author.client, { type: 'say-as', participant: 'morgan', text: 'Let us look at the estimate first.' })).toBeNull();
    const said = (messages: ServerMessage[]) =>
      messages.flatMap((m) => (m.type === 'event' && m.event.type === 'utterance' && m.event.text === 'Let us look at the estimate first.' ? [m.event] : []));
    await until(() => said(shared).length > 0 && said(author.messages).length > 0, 'the line');
    expect(said(shared)[0]).toMatchObject({ speaker: 'morgan', source: 'ai' });
    expect(said(author.messages)[0]).toMatchObject({ speaker: 'morgan', source: 'instructor' });
  });
});
