/**
 * The review's model routes (server/api/review.ts, compare.ts) on a server whose generator is a fake
 * OpenAI-compatible vendor: written feedback per seat (who may see which seat, kept per state of
 * the log, a failing vendor answered by the rules and not kept), questions (a clear 400 for a bad
 * body, a rate limit per token), comparing sessions with simulated runs' reports, and the judge.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGenerator } from '../../server/providers/generator';
import type { Comparison } from '../../shared/review/comparison';
import type { PairJudgement } from '../../shared/review/answers';
import type { Report } from '../../shared/review/report';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server';
import { api, createSession, startServer, until, type Created, type InProcessServer } from './helpers';

let server: InProcessServer;
let fake: FakeOpenAI;
let ran: Created;
let again: Created;
let report: Report;
beforeAll(async () => {
  fake = await startFakeOpenAI();
  const reviewGenerator = createGenerator('openai', { OPENAI_BASE_URL: fake.baseUrl, OPENAI_MODEL: 'review-model' }, { breaker: null, sleep: async () => {}, retries: 1 });
  server = await startServer({ reviewGenerator });
  ran = await createSession(server, 'team-standup', 'instant');
  again = await createSession(server, 'team-standup', 'instant');
  await until(() => [ran, again].every((s) => server.rooms.get(s.id)!.ended()), 'the two instant stand-ups to end');
  report = (await (await api(server, `/api/sessions/${ran.id}/report`)).json()) as Report;
}, 60_000);
afterAll(async () => {
  await server?.close();
  await fake?.close();
}, 60_000);
beforeEach(() => {
  fake.requests.length = 0;
  fake.setDefault({ status: 500 });
});

const json = (value: unknown) => ({ chunks: [JSON.stringify(value)] });
/** A time the transcript has, as the prompts show it. */
const clockOf = (ms: number) => `${Math.floor(ms / 60_000)}:${String(Math.floor(ms / 1000) % 60).padStart(2, '0')}`;
const jordanLine = () => report.timeline.find((i) => i.kind === 'utterance' && i.participant === 'jordan')!;

describe('GET /api/sessions/:id/debrief', () => {
  it("gives a participant their own seat's debrief, computed on the server from the log; instructors any seat; others nothing", async () => {
    const mine = await api(server, `/api/sessions/${ran.id}/debrief`, { token: ran.tokens.jordan });
    expect(mine.status).toBe(200);
    const body = (await mine.json()) as { seat: string; observations: { moments: unknown[] }[] };
    expect(body.seat).toBe('jordan');
    // Every observation cites at least one moment of the log.
    expect(body.observations.length).toBeGreaterThan(0);
    for (const o of body.observations) expect(o.moments.length).toBeGreaterThan(0);
    expect((await api(server, `/api/sessions/${ran.id}/debrief?seat=gwen`, { token: ran.tokens.jordan })).status).toBe(403);
    expect(((await (await api(server, `/api/sessions/${ran.id}/debrief?seat=gwen`, { token: ran.tokens.observer })).json()) as { seat: string }).seat).toBe('gwen');
    expect((await api(server, `/api/sessions/no-such-session/debrief`)).status).toBe(404);
    expect((await api(server, `/api/sessions/${ran.id}/debrief`, { token: null })).status).toBe(401);
    expect((await api(server, `/api/sessions/${ran.id}/debrief`, { token: again.tokens.jordan })).status).toBe(403);
  });
});

describe('GET /api/sessions/:id/feedback', () => {
  it("gives a participant their own seat's feedback, written by the vendor, and keeps it for the log's state", async () => {
    const line = jordanLine();
    fake.setDefault(json({ paragraph: 'You kept your update short.', moments: [{ at: clockOf(line.startMs) }] }));
    const res = await api(server, `/api/sessions/${ran.id}/feedback`, { token: ran.tokens.jordan });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ seat: 'jordan', paragraph: 'You kept your update short.', moments: [{ startMs: line.startMs, text: expect.any(String) }], by: 'model', vendor: 'openai' });
    expect(fake.requests).toHaveLength(1);
    const again = await api(server, `/api/sessions/${ran.id}/feedback?seat=jordan`, { token: ran.tokens.jordan });
    expect(((await again.json()) as { by: string }).by).toBe('model');
    expect(fake.requests).toHaveLength(1);
  });

  it("refuses a participant another seat's feedback; instructors and the author pick any seat", async () => {
    const other = await api(server, `/api/sessions/${ran.id}/feedback?seat=gwen`, { token: ran.tokens.jordan });
    expect(other.status).toBe(403);
    expect(((await other.json()) as { message: string }).message).toBe('A participant sees their own seat only.');
    fake.setDefault(json({ paragraph: 'Gwen chaired well.', moments: [] }));
    const observer = await api(server, `/api/sessions/${ran.id}/feedback?seat=gwen`, { token: ran.tokens.observer });
    expect(observer.status).toBe(200);
    expect(await observer.json()).toMatchObject({ seat: 'gwen', paragraph: 'Gwen chaired well.' });
    const author = await api(server, `/api/sessions/${ran.id}/feedback?seat=gwen`);
    expect(author.status).toBe(200);
    expect(((await api(server, `/api/sessions/${ran.id}/feedback?seat=nobody`)).status)).toBe(404);
    expect((await api(server, `/api/sessions/no-such-session/feedback`)).status).toBe(404);
    expect((await api(server, `/api/sessions/${ran.id}/feedback`, { token: null })).status).toBe(401);
    expect((await api(server, `/api/sessions/${ran.id}/feedback`, { token: again.tokens.jordan })).status).toBe(403);
  });

  it('answers from the figures when the vendor fails, and asks again next time', async () => {
    const first = await api(server, `/api/sessions/${again.id}/feedback`, { token: again.tokens.jordan });
    expect(first.status).toBe(200);
    const body = (await first.json()) as { by: string; note: string; paragraph: string };
    expect(body.by).toBe('rules');
    expect(body.note).toBe('openai did not answer (generator-fallback); written from the figures instead');
    expect(body.paragraph.length).toBeGreaterThan(20);
    expect(fake.requests).toHaveLength(2);
    await api(server, `/api/sessions/${again.id}/feedback`, { token: again.tokens.jordan });
    expect(fake.requests).toHaveLength(4);
  });
});

describe('POST /api/sessions/:id/ask', () => {
  const ask = (body: unknown, token: string | null = ran.tokens.jordan!, id = ran.id) => api(server, `/api/sessions/${id}/ask`, { method: 'POST', token, body });

  it('answers with the moments the vendor cites, the question cleaned', async () => {
    const line = jordanLine();
    fake.setDefault(json({ answer: 'At the start of your update.', moments: [{ at: clockOf(line.startMs) }] }));
    const res = await ask({ question: '  When did I\ngive my update?  ' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ seat: 'jordan', question: 'When did I give my update?', answer: 'At the start of your update.', moments: [{ startMs: line.startMs, speaker: 'jordan' }], by: 'model' });
    expect(fake.requests[0]!.body.messages[1].content).toContain('<question>When did I give my update?</question>');
  });

  it('answers 400 with a clear message for a bad body, 404 for an unknown session, 403 for another seat', async () => {
    const bad = async (body: unknown) => {
      const res = await ask(body);
      expect(res.status).toBe(400);
      return ((await res.json()) as { message: string }).message;
    };
    expect(await bad('{not json')).toMatch(/^The body must be JSON/);
    expect(await bad({})).toMatch(/^question: /);
    expect(await bad({ question: ' \u202e\n ' })).toMatch(/^question: ask something/);
    expect(await bad({ question: 'hi', extra: 1 })).toMatch(/extra/);
    expect((await ask({ question: 'hi' }, ran.tokens.jordan!, 'no-such-session')).status).toBe(403);
    expect((await api(server, '/api/sessions/no-such-session/ask', { method: 'POST', body: { question: 'hi' } })).status).toBe(404);
    expect((await ask({ question: 'hi', seat: 'gwen' })).status).toBe(403);
  });

  it('lets a token ask six questions a minute', async () => {
    fake.setDefault(json({ answer: 'Not in the transcript.', moments: [] }));
    for (let i = 0; i < 6; i++) expect((await ask({ question: `question ${i}` }, ran.tokens.observer!)).status).toBe(200);
    const limited = await ask({ question: 'one more' }, ran.tokens.observer!);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await limited.json()) as { message: string }).message).toMatch(/At most 6 questions a minute/);
  });
});

describe('POST /api/compare with simulated runs', () => {
  const post = (body: unknown, token?: string) => api(server, '/api/compare', { method: 'POST', body, ...(token ? { token } : {}) });

  it('compares sessions with reports posted in the body, named by their files', async () => {
    const res = await post({ sessions: [ran.id], reports: [report, { ...report, turns: report.turns + 5 }], names: ['report-1.json', 'report-2.json'] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Comparison;
    expect(body.sessions.map((s) => [s.id, s.file, s.status])).toEqual([
      [ran.id, undefined, 'ended'],
      ['report-1.json', 'report-1.json', 'simulated'],
      ['report-2.json', 'report-2.json', 'simulated'],
    ]);
    expect(body.sessions[2]!.turns).toBe(report.turns + 5);
  });

  it('takes reports past the 64 KB other bodies are held to', async () => {
    const long = { ...report, timeline: Array.from({ length: 600 }, (_, i) => ({ kind: 'utterance', participant: 'jordan', startMs: i * 1000, endMs: i * 1000 + 900, text: 'A line of a long simulated run, long enough to count.' })) };
    const body = { sessions: [ran.id], reports: [long], names: ['report-long.json'] };
    expect(JSON.stringify(body).length).toBeGreaterThan(64 * 1024);
    expect((await post(body)).status).toBe(200);
    expect((await api(server, `/api/sessions/${ran.id}/ask`, { method: 'POST', body: { question: 'x'.repeat(70_000) } })).status).toBe(413);
  });

  it('names the file that is not a report, and the one of another scene; authors only', async () => {
    const bad = await post({ sessions: [ran.id], reports: [{ turns: 3 }], names: ['notes.json'] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'bad-report', message: expect.stringMatching(/^reports\[0\] \("notes.json"\) is not a report/) });
    const mixed = await post({ sessions: [ran.id], reports: [{ ...report, scene: 'job-interview' }], names: ['other.json'] });
    expect(mixed.status).toBe(400);
    expect(((await mixed.json()) as { message: string }).message).toContain('"other.json" is of job-interview');
    expect((await post({ reports: [report] })).status).toBe(400);
    expect((await post({ sessions: [ran.id, 'no-such-session'] })).status).toBe(404);
    expect((await post({ sessions: [ran.id, again.id] }, ran.tokens.observer)).status).toBe(403);
  });
});

describe('POST /api/compare/judge', () => {
  const judge = (body: unknown, token?: string) => api(server, '/api/compare/judge', { method: 'POST', body, ...(token ? { token } : {}) });

  it('asks the vendor twice, the runs swapped, and reconciles the verdicts', async () => {
    fake.script(json({ verdicts: [{ criterion: 'clarity', winner: 'A', reason: 'crisper' }] }), json({ verdicts: [{ criterion: 'clarity', winner: 'A', reason: 'crisper' }] }));
    const res = await judge({ a: { session: ran.id, label: 'Run 1' }, b: { report, label: 'report-1.json' }, criteria: ['clarity'] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as PairJudgement;
    expect(fake.requests).toHaveLength(2);
    expect(body).toMatchObject({ by: 'model', vendor: 'openai', criteria: [{ criterion: 'clarity', winner: 'tie', positionInconsistent: true, orders: { first: { winner: 'a' }, second: { winner: 'b' } } }] });
  });

  it('answers from the figures when the vendor fails', async () => {
    const res = await judge({ a: { session: ran.id }, b: { session: again.id }, criteria: ['evenness', 'turn-taking'] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as PairJudgement;
    expect(body.by).toBe('rules');
    expect(body.criteria.map((c) => c.criterion)).toEqual(['evenness', 'turn-taking']);
  });

  it('answers 400 for unknown criteria or a bad report, 404 for an unknown session; authors only', async () => {
    const criteria = await judge({ a: { session: ran.id }, b: { session: again.id }, criteria: ['charm'] });
    expect(criteria.status).toBe(400);
    expect(((await criteria.json()) as { message: string }).message).toMatch(/^criteria\.0: /);
    const bad = await judge({ a: { session: ran.id }, b: { report: { turns: 1 }, label: 'x.json' }, criteria: ['clarity'] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/^b\.report \("x.json"\) is not a report/);
    expect((await judge({ a: { session: ran.id }, b: { session: 'nope' }, criteria: ['clarity'] })).status).toBe(404);
    expect((await judge({ a: { session: ran.id }, b: { session: again.id }, criteria: ['clarity'] }, ran.tokens.observer)).status).toBe(403);
  });
});
