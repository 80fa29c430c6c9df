/**
 * GET /api/compare?sessions=…: sessions of one scene side by side (server/review/compare.ts) for
 * the author, with their figures exactly as each session's report has them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Comparison } from '../../shared/review/comparison';
import type { Report } from '../../shared/review/report';
import { api, createSession, startServer, until, type InProcessServer } from './helpers';

let server: InProcessServer;
let runs: string[];
beforeAll(async () => {
  server = await startServer();
  runs = [];
  for (let i = 0; i < 3; i++) runs.push((await createSession(server, 'team-standup', 'instant')).id);
  await until(() => runs.every((id) => server.rooms.get(id)!.ended()), 'the three instant stand-ups to end');
}, 60_000);
afterAll(() => server?.close(), 60_000);

const compare = (ids: readonly string[], token?: string | null) => api(server, `/api/compare?sessions=${ids.map(encodeURIComponent).join(',')}`, token === undefined ? {} : { token });

describe('GET /api/compare', () => {
  it("returns each session's figures as its report has them, scaled 0..1, in the order asked for", async () => {
    const res = await compare([runs[2]!, runs[0]!, runs[1]!]);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Comparison;
    expect(body.scene).toBe('team-standup');
    expect(body.sessions.map((s) => s.id)).toEqual([runs[2], runs[0], runs[1]]);
    for (const s of body.sessions) {
      const report = (await (await api(server, `/api/sessions/${s.id}/report`)).json()) as Report;
      expect(s).toMatchObject({ status: 'ended', durationMs: report.durationMs, turns: report.turns, answeredNext: report.answeredNext, evenness: report.evenness, breakdowns: report.breakdowns.count, interruptions: report.interruptions });
      expect(s.participants).toEqual(
        report.participants.map((p) => ({ id: p.id, name: p.name, kind: p.kind, speakingShare: p.speakingShare, turns: p.turns, wordsPerMinute: p.wordsPerMinute, responseLatencyMedianMs: p.responseLatencyMs.median })),
      );
      expect(s.turns).toBeGreaterThan(0);
      // Instant runs are on simulated time, and say so.
      expect([report.pace, s.pace]).toEqual(['instant', 'instant']);
    }
    for (const f of body.figures) {
      const scaled = body.normalised[f.key]!;
      expect(scaled).toHaveLength(3);
      for (const v of scaled) if (v !== null) expect(v).toBeGreaterThanOrEqual(0), expect(v).toBeLessThanOrEqual(1);
    }
    expect(Array.isArray(body.differences)).toBe(true);
  });

  it("tells a realtime session's report from an instant run's: its times are real", async () => {
    const live = await createSession(server, 'team-standup', 'realtime');
    await until(() => server.store.events(live.id).length > 0, 'the realtime session to start');
    const report = (await (await api(server, `/api/sessions/${live.id}/report`)).json()) as Report;
    expect(report.pace).toBe('realtime');
    expect((await api(server, `/api/sessions/${live.id}`, { method: 'DELETE' })).status).toBe(200);
  });

  it('is for authors only', async () => {
    const session = await createSession(server, 'team-standup', 'realtime', 'lobby');
    expect((await compare(runs.slice(0, 2), session.tokens.observer)).status).toBe(403);
    expect((await compare(runs.slice(0, 2), null)).status).toBe(401);
  });

  it('answers 400 for fewer than 2 or more than 8 sessions, and names the odd one out of mixed scenes', async () => {
    expect((await compare([runs[0]!])).status).toBe(400);
    expect((await compare([runs[0]!, runs[0]!])).status).toBe(400);
    expect((await api(server, '/api/compare')).status).toBe(400);
    expect((await compare(Array.from({ length: 9 }, (_, i) => `s${i}`))).status).toBe(400);
    const other = await createSession(server, 'job-interview', 'realtime', 'lobby');
    const mixed = await compare([runs[0]!, other.id, runs[1]!]);
    expect(mixed.status).toBe(400);
    const body = (await mixed.json()) as { error: string; message: string };
    expect(body.error).toBe('mixed-scenes');
    expect(body.message).toContain(other.id);
    expect(body.message).not.toContain(runs[0]!);
  });

  it('answers 404 naming an unknown session', async () => {
    const res = await compare([runs[0]!, 'no-such-session']);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toContain('no-such-session');
  });

  it('compares a session with no utterances: its figures are zeros and nulls', async () => {
    const empty = await createSession(server, 'team-standup', 'realtime', 'lobby');
    const res = await compare([runs[0]!, empty.id]);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Comparison;
    expect(body.sessions[1]).toMatchObject({ id: empty.id, status: 'lobby', turns: 0, durationMs: 0, answeredNext: null, evenness: null, interruptions: 0 });
    expect(body.sessions[1]!.participants.length).toBeGreaterThan(0);
    for (const p of body.sessions[1]!.participants) expect(p).toMatchObject({ turns: 0, wordsPerMinute: null, responseLatencyMedianMs: null });
  });
});
