/**
 * Shared content (issue 15): the slides' current slide is changed by their presenters or the
 * instructor, for everyone, and each change is an event in the log; a participant sees the public
 * contents and their own party's.
 */
import { describe, expect, it } from 'vitest';
import { Client, createSession, logOf, serverPerFile } from './helpers';

const server = serverPerFile({ env: { SEAT_GRACE_S: '60' } });

describe('slides', () => {
  it('move for everyone when the presenter or the instructor changes them, and the log keeps each change', async () => {
    const created = await createSession(server, 'conference-qa', 'realtime', 'lobby');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    const nadia = await Client.connect(server, created.id, created.tokens.nadia!);
    await nadia.waitFor((m) => m.some((x) => x.type === 'welcome'), 'the welcome');
    const welcome = nadia.messages.find((m) => m.type === 'welcome');
    expect(welcome?.type === 'welcome' && welcome.snapshot.scene.contents.map((c) => c.id)).toContain('cool-roof-slides');
    await observer.waitForEvent((e) => e.type === 'session-start', 'the start');

    nadia.send({ type: 'slide', content: 'cool-roof-slides', index: 2 });
    const moved = await observer.waitForEvent((e) => e.type === 'slide', 'the slide change');
    expect(moved).toMatchObject({ content: 'cool-roof-slides', index: 2, by: 'nadia' });
    observer.send({ type: 'slide', content: 'cool-roof-slides', index: 1 });
    await nadia.waitForEvent((e) => e.type === 'slide' && e.index === 1 && e.by === null, 'the instructor moving it back');
    observer.send({ type: 'slide', content: 'cool-roof-slides', index: 99 });
    await observer.waitForEvent((e) => e.type === 'system' && e.code === 'bad-slide', 'a clear warning for a slide that does not exist');

    const log = await logOf(server, created.id);
    expect(log.filter((e) => e.type === 'slide').map((e) => e.type === 'slide' && [e.index, e.by])).toEqual([
      [2, 'nadia'],
      [1, null],
    ]);
    // A late joiner gets the current slide in the snapshot.
    const late = await Client.connect(server, created.id, created.tokens.observer!);
    const snapshot = late.messages.find((m) => m.type === 'welcome');
    expect(snapshot?.type === 'welcome' && snapshot.snapshot.slides).toEqual({ 'cool-roof-slides': 1 });
  });
});

describe('the brief', () => {
  it("gives a participant the situation and their own goals, never another seat's", async () => {
    const created = await createSession(server, 'job-interview', 'realtime', 'lobby');
    const alex = await Client.connect(server, created.id, created.tokens.alex!);
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    for (const client of [alex, observer]) await client.waitFor((m) => m.some((x) => x.type === 'welcome'), 'the welcome');
    const mine = alex.messages.find((m) => m.type === 'welcome');
    const theirs = observer.messages.find((m) => m.type === 'welcome');
    if (mine?.type !== 'welcome' || theirs?.type !== 'welcome') throw new Error('no welcome');
    expect(mine.snapshot.scene.context?.length).toBeGreaterThan(40);
    expect(mine.snapshot.brief?.goals.length).toBeGreaterThan(0);
    const scene = server.scenes.get('job-interview')!;
    // The seat's brief, in the second person, with who they are: what the goals refer to.
    const seat = scene.participants.find((p) => p.id === 'alex')!;
    expect(mine.snapshot.brief).toEqual({ goals: seat.brief!.goals, backstory: seat.brief!.background });
    expect(mine.snapshot.brief?.backstory).toMatch(/^You are Alex Moreno/);
    expect(mine.snapshot.scene.duration).toBe(10);
    // Nobody else's goals or private knowledge travel with it.
    const others = scene.participants.filter((p) => p.id !== 'alex').flatMap((p) => [...(p.persona?.goals ?? []), ...(p.persona?.privateKnowledge ?? []).map((k) => (typeof k === 'string' ? k : k.text))]);
    const sent = JSON.stringify(mine);
    expect(others.filter((text) => sent.includes(text))).toEqual([]);
    expect(theirs.snapshot.brief ?? null).toBeNull();
  });
});
