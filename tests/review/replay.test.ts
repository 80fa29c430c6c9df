/**
 * Issue 17 part 4, the data of the 3D replay (`GET /api/sessions/:id/replay`): the session's room
 * (formation, contents, seats with avatars) and its log, as the caller may see it: a participant's
 * has nothing only instructors see, an instructor's is the whole log.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { audienceOf } from '../../shared/events';
import type { ReplayData } from '../../shared/review/replay';
import { Client, api, closeClients, createSession, createValve, logOf, serverPerFile, type Valve } from '../server/helpers';

let valve: Valve = createValve();

const server = serverPerFile({ generator: () => valve.generator() });
afterEach(async () => {
  valve.allow();
  await closeClients();
});

const replayOf = async (id: string, token: string | null): Promise<{ status: number; body: ReplayData }> => {
  const res = await api(server, `/api/sessions/${id}/replay`, { token });
  return { status: res.status, body: (await res.json()) as ReplayData };
};

describe('the replay data', () => {
  it("gives the room and the log, without instructors' events for a participant", async () => {
    valve = createValve();
    const created = await createSession(server, 'team-standup', 'instant');
    const jordan = await Client.connect(server, created.id, created.tokens.jordan!);
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    // A gaze is logged for instructors only.
    jordan.send({ type: 'gaze', at: 'gwen' });
    await observer.waitForEvent((e) => e.type === 'gaze', 'the gaze event');
    valve.allow(2);
    await observer.waitForEvent((e) => e.type === 'utterance', 'someone speaking');

    const log = await logOf(server, created.id);
    const theirs = await replayOf(created.id, created.tokens.jordan!);
    const instructors = await replayOf(created.id, created.tokens.observer!);
    expect(theirs.status).toBe(200);
    expect(instructors.status).toBe(200);
    expect(instructors.body.events.length).toBeGreaterThanOrEqual(log.length);
    expect(instructors.body.events.some((e) => e.type === 'gaze')).toBe(true);
    expect(theirs.body.events.some((e) => audienceOf(e) === 'observers')).toBe(false);
    expect(theirs.body.events.some((e) => e.type === 'utterance')).toBe(true);

    expect(theirs.body.scene).toMatchObject({ id: 'team-standup', formation: expect.any(String) });
    const seats = theirs.body.participants.map((p) => p.id);
    expect(seats).toContain('jordan');
    expect(seats).toContain('gwen');
    expect(theirs.body.participants.every((p) => typeof p.name === 'string' && 'avatar' in p)).toBe(true);
  });

  it('asks for a token of the session', async () => {
    const created = await createSession(server, 'team-standup', 'instant');
    const other = await createSession(server, 'team-standup', 'instant');
    expect((await replayOf(created.id, null)).status).toBe(401);
    expect((await replayOf(created.id, other.tokens.observer!)).status).toBe(403);
    expect((await replayOf('no-such-session', server.admin)).status).toBe(404);
  });
});

describe("an instructor's say-as line in the replay", () => {
  it("is the seat's own for a participant, and the instructor's for instructors", async () => {
    const { loadScene } = await import('../../server/scene/load');
    const { replayOf: replayFor } = await import('../../server/review/replay');
    const scene = await loadScene('scenes/team-standup.yaml');
    const persona = scene.participants.find((p) => p.kind === 'ai')!.id;
    const line = { type: 'utterance' as const, seq: 2, t: 1000, id: 'u1', speaker: persona, text: 'Let us move on to the blockers.', addressee: null, pair: 'none' as const, act: 'statement' as const, snippet: 'main', source: 'instructor' as const, durationMs: 2000, sentAt: 1000 };
    const events = [{ seq: 1, t: 0, type: 'session-start' as const, scene: scene.id, title: scene.title, seed: 1, policy: 'round-robin' as const, participants: [] }, line];
    const theirs = replayFor('s', scene, events, { role: 'participant', participant: 'jordan' }).events.find((e) => e.type === 'utterance');
    const instructors = replayFor('s', scene, events, { role: 'observer', participant: null }).events.find((e) => e.type === 'utterance');
    expect(theirs).toMatchObject({ speaker: persona, text: line.text, source: 'ai' });
    expect(theirs).not.toHaveProperty('sentAt');
    expect(instructors).toMatchObject({ source: 'instructor', sentAt: 1000 });
  });
});
