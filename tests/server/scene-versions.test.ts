/**
 * Issue 29, the scene editor: a session is read with the scene it ran. A session of an authored
 * scene keeps its review, transcript, report, debrief, replay, listing and links as they were when
 * it ran, after the author renamed a persona, dropped a snippet and deleted the scene; a new
 * session of a scene re-created under the same id runs the new version; a session interrupted by
 * a crash resumes with its own version, even of a scene edited or deleted meanwhile. Over the real
 * HTTP server, with the scene library, the store and the rooms main.ts builds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { createRooms } from '../../server/rooms/rooms';
import { api, createSession, createValve, startServer, until, type InProcessServer } from './helpers';

interface SceneData {
  title: string;
  topic: string;
  participants: { id: string; kind: string; name: string }[];
  snippets: { id: string; next?: string | null }[];
}

/** The scene's file as JSON, and its version. */
const opened = async (server: InProcessServer, id: string): Promise<{ data: SceneData; etag: string }> => {
  const res = await fetch(`${server.base}/api/scenes/${id}`, { headers: { authorization: `Bearer ${server.admin}`, accept: 'application/json' } });
  expect(res.status).toBe(200);
  return { data: (await res.json()) as SceneData, etag: res.headers.get('etag')! };
};

const save = async (server: InProcessServer, id: string, data: SceneData, ifMatch?: string): Promise<string> => {
  const res = await fetch(`${server.base}/api/scenes/${id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${server.admin}`, 'content-type': 'application/json', ...(ifMatch ? { 'if-match': ifMatch } : {}) },
    body: JSON.stringify(data),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { etag: string }).etag;
};

const remove = (server: InProcessServer, id: string, ifMatch: string) =>
  fetch(`${server.base}/api/scenes/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${server.admin}`, 'if-match': ifMatch } });

/** The author's edit: a persona renamed, the last snippet dropped (the one before it now ends the session), a new title and topic. */
const edited = (data: SceneData, persona: string): SceneData => {
  const snippets = data.snippets.slice(0, -1).map((s, i, kept) => (i === kept.length - 1 ? { ...s, next: null } : s));
  return {
    ...data,
    title: 'Panel interview, second draft',
    topic: 'A topic the author chose later',
    participants: data.participants.map((p) => (p.id === persona ? { ...p, name: 'Quinn Avery' } : p)),
    snippets,
  };
};

const json = async <T>(res: Response): Promise<T> => {
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as T;
};

describe("a session's scene, after the author edited and deleted it", () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close(), 60_000);

  it('is the version it ran, for every reader; a new session of the re-created scene runs the new one', async () => {
    const made = await fetch(`${server.base}/api/scenes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ template: 'interview', id: 'panel-interview' }),
    });
    expect(made.status).toBe(201);
    const original = await opened(server, 'panel-interview');
    const persona = original.data.participants.find((p) => p.kind === 'ai')!;
    const seat = original.data.participants.find((p) => p.kind === 'human')!;
    const dropped = original.data.snippets.at(-1)!.id;

    const session = await createSession(server, 'panel-interview', 'instant');
    await until(() => server.rooms.get(session.id)?.ended() ?? false, 'the instant interview to end');
    const log = (await server.store.events(session.id)) as SessionEvent[];
    expect(log.filter((e) => e.type === 'utterance').length).toBeGreaterThan(2);
    expect(log.some((e) => e.type === 'snippet-start' && e.snippet === dropped)).toBe(true);
    // Read as a server does once the ended room has left its memory (or after a restart): from the store.
    server.rooms.remove(session.id);

    // The author renames the persona, drops the last snippet, then deletes the scene: no session keeps it.
    const second = await save(server, 'panel-interview', edited(original.data, persona.id), original.etag);
    expect((await remove(server, 'panel-interview', second)).status).toBe(204);
    expect((await api(server, '/api/scenes/panel-interview')).status).toBe(404);

    const id = session.id;
    const names = (people: { name: string }[]) => people.map((p) => p.name);
    const snapshot = await json<{ scene: { title: string }; participants: { name: string }[] }>(await api(server, `/api/sessions/${id}`));
    expect(snapshot.scene.title).toBe(original.data.title);
    expect(names(snapshot.participants)).toEqual(names(original.data.participants));

    const listed = (await json<{ sessions: { id: string; scene: { title: string }; participants: { name: string }[] }[] }>(await api(server, '/api/sessions'))).sessions.find((s) => s.id === id)!;
    expect(listed.scene.title).toBe(original.data.title);
    expect(names(listed.participants)).toContain(persona.name);
    expect(names(listed.participants)).not.toContain('Quinn Avery');

    const links = await json<{ tokens: Record<string, string> }>(await api(server, `/api/sessions/${id}/links`));
    expect(Object.keys(links.tokens).sort()).toEqual([seat.id, 'observer'].sort());

    const transcript = await (await api(server, `/api/sessions/${id}/transcript`)).text();
    expect(transcript).toContain(`(${original.data.topic})`);
    expect(transcript).toContain(`${persona.name}:`);
    expect(transcript).not.toContain('Quinn Avery');
    const markdown = await (await api(server, `/api/sessions/${id}/transcript?format=markdown`)).text();
    expect(markdown).toContain(persona.name);

    const report = await json<{ scene: string; participants: { id: string; name: string }[] }>(await api(server, `/api/sessions/${id}/report`));
    expect(report.participants.find((p) => p.id === persona.id)?.name).toBe(persona.name);

    const debrief = await json<{ seat: string }>(await api(server, `/api/sessions/${id}/debrief?seat=${seat.id}`));
    expect(debrief.seat).toBe(seat.id);
    // The seat's own token reads its own debrief, as the trainee's page does.
    expect((await api(server, `/api/sessions/${id}/debrief`, { token: session.tokens[seat.id]! })).status).toBe(200);

    const replay = await json<{ scene: { title: string; topic: string }; participants: { id: string; name: string }[] }>(await api(server, `/api/sessions/${id}/replay`));
    expect(replay.scene).toMatchObject({ title: original.data.title, topic: original.data.topic });
    expect(replay.participants.find((p) => p.id === persona.id)?.name).toBe(persona.name);

    // Re-created under the same id: a new session runs the new version, the old one still reads its own.
    await save(server, 'panel-interview', edited(original.data, persona.id));
    const later = await createSession(server, 'panel-interview', 'instant');
    await until(() => server.rooms.get(later.id)?.ended() ?? false, 'the second interview to end');
    server.rooms.remove(later.id);
    const laterLog = (await server.store.events(later.id)) as SessionEvent[];
    expect(laterLog.some((e) => e.type === 'snippet-start' && e.snippet === dropped)).toBe(false);
    const laterReplay = await json<{ scene: { title: string }; participants: { id: string; name: string }[] }>(await api(server, `/api/sessions/${later.id}/replay`));
    expect(laterReplay.scene.title).toBe('Panel interview, second draft');
    expect(laterReplay.participants.find((p) => p.id === persona.id)?.name).toBe('Quinn Avery');
    expect((await json<{ participants: { name: string }[] }>(await api(server, `/api/sessions/${id}/replay`))).participants.map((p) => p.name)).toContain(persona.name);
    expect(server.store.session(later.id)?.sceneEtag).not.toBe(server.store.session(id)?.sceneEtag);

    // Runs of the two versions still compare: they are runs of one scene.
    const compared = await json<{ sessions: unknown[] }>(await api(server, `/api/compare?sessions=${id},${later.id}`));
    expect(compared.sessions).toHaveLength(2);
  });

  it('reads a session stored before versions were kept with the scene as it is now', async () => {
    server.store.createSession({ id: 'from-before', scene: 'team-standup', seed: 1, pace: 'instant', createdAt: 1 });
    const snapshot = await json<{ scene: { title: string }; participants: { name: string }[] }>(await api(server, '/api/sessions/from-before'));
    const standup = server.scenes.get('team-standup')!;
    expect(snapshot.scene.title).toBe(standup.title);
    expect(snapshot.participants.map((p) => p.name)).toEqual(standup.participants.map((p) => p.name));
  });
});

describe('a session interrupted by a crash', () => {
  let server: InProcessServer;
  const valve = createValve();
  beforeAll(async () => {
    server = await startServer({ generator: () => valve.generator() });
  });
  afterAll(() => server?.close(), 60_000);

  it('resumes with the version of its scene it ran, though the author edited one scene and deleted another meanwhile', async () => {
    const template = async (id: string) => {
      const res = await fetch(`${server.base}/api/scenes`, { method: 'POST', headers: { authorization: `Bearer ${server.admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ template: 'interview', id }) });
      expect(res.status).toBe(201);
      return opened(server, id);
    };
    const kept = await template('edited-later');
    const gone = await template('deleted-later');
    const persona = kept.data.participants.find((p) => p.kind === 'ai')!;

    // Two sessions get a few lines each, then wait at the valve: the server "dies" there.
    valve.allow(4);
    const first = await createSession(server, 'edited-later', 'instant');
    const second = await createSession(server, 'deleted-later', 'instant');
    await valve.held();
    const linesOf = (id: string) => (server.store.events(id) as SessionEvent[]).filter((e) => e.type === 'utterance').length;
    expect(linesOf(first.id) + linesOf(second.id)).toBeGreaterThan(0);
    // The dead server's rooms are gone with it: forgotten here, never to be ended or written again.
    server.rooms.remove(first.id);
    server.rooms.remove(second.id);

    await save(server, 'edited-later', edited(kept.data, persona.id), kept.etag);
    expect((await remove(server, 'deleted-later', gone.etag)).status).toBe(204);

    // The next server on the same store and scene library.
    const lines: string[] = [];
    const restarted = createRooms({ store: server.store, scenes: server.library.scenes, generator: () => createScriptedGenerator(), log: (line) => lines.push(line) });
    expect(restarted.recover().sort()).toEqual([first.id, second.id].sort());
    expect(lines.filter((line) => line.includes('resumed after its server stopped'))).toHaveLength(2);
    const resumed = restarted.get(first.id)!;
    expect(resumed.scene.title).toBe(kept.data.title);
    expect(resumed.scene.participants.find((p) => p.id === persona.id)?.name).toBe(persona.name);
    expect(resumed.scene.snippets.map((s) => s.id)).toEqual(kept.data.snippets.map((s) => s.id));
    expect(restarted.get(second.id)!.scene.id).toBe('deleted-later');

    // Both go on to their ends, and their logs say they resumed, not that they were cut short.
    await until(() => restarted.list().every((room) => room.ended()), 'both resumed sessions to end');
    for (const id of [first.id, second.id]) {
      const log = server.store.events(id) as SessionEvent[];
      expect(log.some((e) => e.type === 'system' && e.code === 'session-resumed')).toBe(true);
      expect(log.some((e) => e.type === 'system' && e.code === 'server-restarted')).toBe(false);
      expect(log.at(-1)?.type).toBe('end');
    }
  });
});
