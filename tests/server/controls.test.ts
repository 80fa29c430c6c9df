/**
 * Issue 3, steering a live room over real sockets: a human barging in over a streaming reply,
 * an instructor pausing and resuming, and approving, editing or dismissing a simulated human's
 * proposed deviation (human-control).
 *
 * The server is built in-process so that each room can get the generator it needs (one whose
 * first reply stalls mid-stream for barge-in, one behind a valve the test opens for pausing), and
 * so that the performance review's human proposes a deviation at every opportunity
 * (derailProbability 1, set on the scene object in memory, not in the file).
 *
 * No test waits for a fixed time: a room moves on only as far as its generator lets it, and a
 * ping's round trip shows that nothing more was sent before it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events';
import type { Generator } from '../../server/providers/generator/port';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import type { LoadedScene } from '../../shared/scene/schema';
import { Client, closeClients, createSession, createValve, stallingReply, serverPerFile, type Valve } from './helpers';

/** The generator for rooms created from now on. */
let nextGenerator: () => Generator = () => createScriptedGenerator();

/** Sam (performance review, human-control) proposes a deviation whenever the engine lets them; nobody cuts Sam off. */
const eagerSam = (scenes: LoadedScene[]): LoadedScene[] =>
  scenes.map((scene) =>
    scene.id !== 'performance-review'
      ? scene
      : {
          ...scene,
          participants: scene.participants.map((p) =>
            p.kind === 'human' && p.id === 'sam' && p.simulated ? { ...p, simulated: { ...p.simulated, derailProbability: 1 } } : p,
          ),
          snippets: scene.snippets.map((s) => ({ ...s, interruptions: s.interruptions.filter((rule) => rule.to !== 'sam') })),
        },
  );

const server = serverPerFile({ generator: () => nextGenerator(), scenes: eagerSam });
afterEach(async () => {
  nextGenerator = () => createScriptedGenerator();
  await closeClients();
});

const isSystem = (code: string) => (e: SessionEvent) => e.type === 'system' && e.code === code;

describe('barge-in', () => {
  it('a human speaking over a streaming reply cuts it off: deltas, the cut utterance, the interruption, then the human', async () => {
    // The first reply starts once both are in, and stops after three words until Jordan cuts in.
    let start!: () => void;
    const started = new Promise<void>((resolve) => (start = resolve));
    nextGenerator = () => stallingReply(3, started);
    const created = await createSession(server, 'team-standup', 'instant');
    const jordan = await Client.connect(server, created.id, created.tokens.jordan!);
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    start();

    await jordan.waitFor((messages) => messages.some((m) => m.type === 'delta'), 'a reply streaming as deltas');
    const first = jordan.messages.find((m) => m.type === 'delta')!;
    if (first.type !== 'delta') throw new Error('unreachable');
    jordan.send({ type: 'say', text: 'Sorry to cut in, Marco: is staging back yet?' });

    const said = await jordan.waitForEvent((e) => e.type === 'utterance' && e.speaker === 'jordan', "jordan's utterance");
    const events = jordan.events();
    const cut = events.find((e) => e.type === 'utterance' && e.interrupted);
    const interruption = events.find((e) => e.type === 'interruption');
    expect(cut).toMatchObject({ type: 'utterance', speaker: first.speaker, interrupted: true, text: expect.stringMatching(/—$/) });
    expect(interruption).toMatchObject({ by: 'jordan', of: first.speaker, vibe: 'barge-in' });
    expect(said).toMatchObject({ source: 'human', text: 'Sorry to cut in, Marco: is staging back yet?' });
    expect(cut!.seq).toBeLessThan(interruption!.seq);
    expect(interruption!.seq).toBeLessThan(said.seq);
    if (cut?.type !== 'utterance' || interruption?.type !== 'interruption') throw new Error('unreachable');
    expect(interruption.utterance).toBe(cut.id);

    // What was logged as heard is exactly what had been streamed to the client before the cut.
    const cutAt = jordan.messages.findIndex((m) => m.type === 'event' && m.event.seq === cut.seq);
    const streamed = jordan.messages
      .slice(0, cutAt)
      .flatMap((m) => (m.type === 'delta' && m.draft === first.draft ? [m.text] : []))
      .join('');
    expect(`${streamed.trim()}—`).toBe(cut.text);
    expect(interruption.atWord).toBe(streamed.trim().split(/\s+/).length);
    // The cut reply is never finished later: the room answers Jordan instead.
    await observer.waitForEvent((e) => e.seq === said.seq, "jordan's utterance on the observer socket");
    await observer.waitForEvent((e) => e.type === 'utterance' && e.seq > said.seq, 'the next utterance after jordan');
    expect(observer.events().filter((e) => e.type === 'utterance' && e.speaker === first.speaker && e.seq > cut.seq && e.text.startsWith(streamed.trim()))).toEqual([]);
  });
});

describe('instructor controls', () => {
  /**
   * A session held after three generated replies: the room waits for its fourth at the valve, and
   * the observer has every event so far.
   */
  const heldSession = async (scene: string) => {
    const valve = createValve();
    nextGenerator = () => valve.generator();
    valve.allow(3);
    const created = await createSession(server, scene, 'instant');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    await valve.held();
    await observer.waitFor(() => observer.events().at(-1)?.seq === server.store.lastSeq(created.id), 'every event so far');
    expect(observer.events().filter((e) => e.type === 'utterance').length).toBeGreaterThanOrEqual(3);
    return { created, observer, valve };
  };

  /**
   * Pauses the held room, then lets the reply it was waiting for be generated while paused.
   * Returns the paused event and how many replies had been asked for when it came.
   */
  const pauseWithReplyInFlight = async (observer: Client, valve: Valve) => {
    observer.send({ type: 'pause' });
    const paused = await observer.waitForEvent(isSystem('paused'), 'the paused event');
    const asked = valve.asked;
    valve.allow();
    await valve.idle();
    // The room has the reply in hand: a running room would log it (or, rejecting it, ask again)
    // and ask for the next one before it reads a ping sent now.
    await observer.ping();
    return { paused, asked };
  };

  it('pause stops the flow (nobody takes the floor) and resume restarts it', async () => {
    const { observer, valve } = await heldSession('team-standup');
    const { paused, asked } = await pauseWithReplyInFlight(observer, valve);
    const during = observer.events().filter((e) => e.seq > paused.seq);
    // Nothing is said and nobody new gets the floor; no further reply is even asked for.
    expect(during.filter((e) => e.type === 'floor' || e.type === 'human-input-required' || e.type === 'utterance')).toEqual([]);
    expect(during.some((e) => e.type === 'end')).toBe(false);
    expect(valve.asked).toBe(asked);

    observer.send({ type: 'resume' });
    const resumed = await observer.waitForEvent(isSystem('resumed'), 'the resumed event');
    expect(observer.events().filter((e) => e.seq > paused.seq && e.seq < resumed.seq)).toEqual(during);
    await observer.waitForEvent((e) => e.type === 'utterance' && e.seq > resumed.seq, 'an utterance after resuming');
    await observer.waitForEvent((e) => e.type === 'end', 'the end event');
  });

  it('pause: a reply generated while paused waits, and lands only after resume', async () => {
    const { observer, valve } = await heldSession('team-standup');
    const finished = valve.finished;
    const { paused } = await pauseWithReplyInFlight(observer, valve);
    expect(valve.finished).toBe(finished + 1);
    expect(observer.events().filter((e) => e.type === 'utterance' && e.seq > paused.seq)).toEqual([]);
    observer.send({ type: 'resume' });
    const resumed = await observer.waitForEvent(isSystem('resumed'), 'the resumed event');
    expect(observer.events().filter((e) => e.type === 'utterance' && e.seq > paused.seq && e.seq < resumed.seq)).toEqual([]);
    await observer.waitForEvent((e) => e.type === 'utterance' && e.seq > resumed.seq, 'the held reply, after resuming');
  });

  /** A performance review whose simulated Sam proposes a deviation; returns the observer and the proposal. */
  const proposal = async () => {
    const created = await createSession(server, 'performance-review', 'instant');
    expect(created.tokens).toHaveProperty('sam'); // issued, but Sam stays away: simulated, under human control
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    const needed = await observer.waitForEvent((e) => e.type === 'approval-needed', 'an approval-needed event');
    if (needed.type !== 'approval-needed') throw new Error('unreachable');
    expect(needed).toMatchObject({ participant: 'sam', text: expect.any(String) });
    // The room waits for the decision: nothing follows it, even after a round trip to the server.
    await observer.ping();
    expect(observer.events().at(-1)).toEqual(needed);
    expect(observer.messages.find((m) => m.type === 'welcome')).toBeDefined();
    return { created, observer, needed };
  };

  it('approve: the proposal becomes Sam’s deviation and starts an impromptu phase', async () => {
    const { observer, needed } = await proposal();
    observer.send({ type: 'approve', proposal: needed.proposal });
    const resolved = await observer.waitForEvent((e) => e.type === 'approval-resolved', 'approval-resolved');
    expect(resolved).toMatchObject({ proposal: needed.proposal, decision: 'approve' });
    const impromptu = await observer.waitForEvent((e) => e.type === 'impromptu-start', 'impromptu-start');
    expect(impromptu).toMatchObject({ participant: 'sam', intent: needed.intent });
    const spoken = await observer.waitForEvent((e) => e.type === 'utterance' && e.seq > resolved.seq, "Sam's deviation");
    expect(spoken).toMatchObject({ speaker: 'sam', act: 'deviation', text: needed.text, source: 'simulated-human', impromptu: true });
  });

  it('edit: the edited text, not the proposal, becomes Sam’s deviation', async () => {
    const { observer, needed } = await proposal();
    const edited = 'Show me the written record.';
    observer.send({ type: 'edit', proposal: needed.proposal, text: `  ${edited}  ` });
    const resolved = await observer.waitForEvent((e) => e.type === 'approval-resolved', 'approval-resolved');
    expect(resolved).toMatchObject({ proposal: needed.proposal, decision: 'edit', text: edited });
    const spoken = await observer.waitForEvent((e) => e.type === 'utterance' && e.seq > resolved.seq, "Sam's deviation");
    expect(spoken).toMatchObject({ speaker: 'sam', act: 'deviation', text: edited, source: 'simulated-human' });
    expect(observer.events().some((e) => e.type === 'utterance' && e.text === needed.text && needed.text !== edited)).toBe(false);
  });

  it('dismiss: the proposal is dropped, no impromptu phase, and the scene goes on', async () => {
    const { observer, needed } = await proposal();
    observer.send({ type: 'dismiss', proposal: needed.proposal });
    const resolved = await observer.waitForEvent((e) => e.type === 'approval-resolved', 'approval-resolved');
    expect(resolved).toMatchObject({ proposal: needed.proposal, decision: 'dismiss' });
    expect(resolved).not.toHaveProperty('text');
    // The scene goes on until Sam's next proposal (derailProbability 1) or the end.
    const next = await observer.waitForEvent((e) => (e.type === 'approval-needed' || e.type === 'end') && e.seq > resolved.seq, 'the next proposal or the end');
    const between = observer.events().filter((e) => e.seq > resolved.seq && e.seq < next.seq);
    expect(between.some((e) => e.type === 'utterance')).toBe(true);
    expect(between.filter((e) => e.type === 'impromptu-start' || (e.type === 'utterance' && (e.act === 'deviation' || e.impromptu)))).toEqual([]);
    expect(between.some((e) => e.type === 'utterance' && e.text === needed.text)).toBe(false);
  });

  it('an unknown proposal id is logged as a warning, and the open proposal stays open', async () => {
    const { observer, needed } = await proposal();
    observer.send({ type: 'approve', proposal: 'p-nope' });
    await observer.waitForEvent(isSystem('unknown-proposal'), 'the unknown-proposal warning');
    observer.send({ type: 'approve', proposal: needed.proposal });
    await observer.waitForEvent((e) => e.type === 'approval-resolved' && e.proposal === needed.proposal, 'approval-resolved');
  });
});

describe('a line typed during a pause (issue 25)', () => {
  it('is kept, its sender told so on their socket, and said when the instructor resumes', async () => {
    const created = await createSession(server, 'job-interview', 'instant');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    const alex = await Client.connect(server, created.id, created.tokens.alex!);
    const asked = await alex.waitForEvent((e) => e.type === 'human-input-required' && e.participant === 'alex', 'the room waiting for Alex');
    observer.send({ type: 'pause' });
    const paused = await alex.waitForEvent((e) => e.seq > asked.seq && isSystem('paused')(e), 'the pause');
    const text = 'Sorry, could you say a little more about the on-call rota?';
    alex.send({ type: 'say', text });
    const held = await alex.waitForEvent((e) => e.seq > paused.seq && isSystem('line-held')(e), 'the line held');
    expect(held).toMatchObject({ participant: 'alex', audience: { seat: 'alex' } });
    expect(alex.messages.filter((m) => m.type === 'error')).toEqual([]);
    await alex.ping();
    expect(alex.events().filter((e) => e.seq > paused.seq && e.type === 'utterance')).toEqual([]);
    observer.send({ type: 'resume' });
    const said = await observer.waitForEvent((e) => e.type === 'utterance' && e.speaker === 'alex' && e.seq > held.seq, "Alex's line after the resume");
    expect(said).toMatchObject({ text, source: 'human' });
    const resumed = observer.events().find((e) => e.seq > paused.seq && isSystem('resumed')(e));
    expect(resumed!.seq).toBeLessThan(said.seq);
    // Ended by the instructor: everyone is told who ended it.
    observer.send({ type: 'end' });
    const end = await alex.waitForEvent((e) => e.type === 'end', 'the end');
    expect(end).toMatchObject({ reason: 'ended', by: 'instructor' });
  });
});
