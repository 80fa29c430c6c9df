/**
 * The instructors' sessions page reads GET /api/sessions (every session: scene, status, seats and
 * who is present, duration, turns) and GET /api/sessions/:id/links (fresh join links per seat).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createSession, startServer, until, type InProcessServer } from './helpers';

let server: InProcessServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close(), 60_000);

type Listed = {
  id: string;
  scene: { id: string; title: string };
  status: string;
  durationMs: number;
  turns: number;
  participants: { id: string; name: string; kind: string; present: boolean }[];
  createdAt: number;
  recording: boolean;
};
const list = async () => ((await (await api(server, '/api/sessions')).json()) as { sessions: Listed[] }).sessions;

describe('GET /api/sessions', () => {
  it('lists every session newest first, with its scene, status, seats, duration and turns', async () => {
    const lobby = await createSession(server, 'job-interview', 'realtime', 'lobby');
    const done = await createSession(server, 'team-standup', 'instant');
    await until(() => server.rooms.get(done.id)!.ended(), 'the instant stand-up to end');
    const sessions = await list();
    const waiting = sessions.find((s) => s.id === lobby.id)!;
    expect(waiting).toMatchObject({ scene: { id: 'job-interview', title: expect.any(String) }, status: 'lobby', turns: 0, durationMs: 0 });
    const candidate = server.scenes.get('job-interview')!.participants.find((p) => p.kind === 'human')!;
    expect(waiting.participants.find((p) => p.id === candidate.id)).toEqual({ id: candidate.id, name: candidate.name, kind: 'human', present: false });
    expect(waiting.participants).toHaveLength(server.scenes.get('job-interview')!.participants.length);
    const ended = sessions.find((s) => s.id === done.id)!;
    expect(ended.status).toBe('ended');
    expect(ended.turns).toBeGreaterThan(3);
    expect(ended.durationMs).toBeGreaterThan(0);
    expect(sessions.map((s) => s.createdAt)).toEqual([...sessions.map((s) => s.createdAt)].sort((a, b) => b - a));
  });

  it("says whether each session records participants' microphones", async () => {
    const recorded = await api(server, '/api/sessions', { method: 'POST', body: { scene: 'job-interview', pace: 'realtime', recording: true } });
    const silent = await api(server, '/api/sessions', { method: 'POST', body: { scene: 'job-interview', pace: 'realtime', recording: false } });
    const [on, off] = [(await recorded.json()) as { id: string }, (await silent.json()) as { id: string }];
    const sessions = await list();
    expect(sessions.find((s) => s.id === on.id)?.recording).toBe(true);
    expect(sessions.find((s) => s.id === off.id)?.recording).toBe(false);
  });

  it('is for authors only', async () => {
    const session = await createSession(server, 'job-interview', 'realtime', 'lobby');
    expect((await api(server, '/api/sessions', { token: session.tokens.observer })).status).toBe(403);
    expect((await api(server, '/api/sessions', { token: null })).status).toBe(401);
  });
});

describe('GET /api/sessions/:id/links', () => {
  it('issues working join links for every human seat and the instructor', async () => {
    const session = await createSession(server, 'sprint-retro', 'realtime', 'lobby');
    const res = await api(server, `/api/sessions/${session.id}/links`);
    expect(res.status).toBe(200);
    const { links, tokens } = (await res.json()) as { links: Record<string, string>; tokens: Record<string, string> };
    const humans = server.scenes.get('sprint-retro')!.participants.filter((p) => p.kind === 'human').map((p) => p.id);
    expect(Object.keys(links).sort()).toEqual([...humans, 'observer'].sort());
    for (const [who, link] of Object.entries(links)) {
      expect(link).toMatch(new RegExp(`/room/${session.id}\\?token=`));
      // Each token opens its own seat of this session.
      const snapshot = (await (await api(server, `/api/sessions/${session.id}`, { token: tokens[who]! })).json()) as { you?: { participant: string | null; role: string } };
      expect(new URL(link).searchParams.get('token')).toBe(tokens[who]);
      expect(snapshot).toBeTruthy();
    }
    expect((await api(server, `/api/sessions/${session.id}/links`, { token: tokens.observer! })).status).toBe(403);
    expect((await api(server, '/api/sessions/nope/links')).status).toBe(404);
  });
});
