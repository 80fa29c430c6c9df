/**
 * Issue 3, live sessions over real HTTP and WebSockets: a whole scene to its end, a typed question
 * answered by the persona it names, instructor directions seen only by observers, reconnecting
 * with `?after=`, and two sessions at once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events';
import { Client, api, closeClients, createSession, createValve, expectContiguous, logOf, serverPerFile, type Valve } from './helpers';

const openValve = (): Valve => {
  const valve = createValve();
  valve.allow();
  return valve;
};
/** Rooms created from now on generate behind this valve: open, unless a test holds it. */
let valve = openValve();

const server = serverPerFile({ generator: () => valve.generator() });
afterEach(async () => {
  valve.allow();
  valve = openValve();
  await closeClients();
});

const utterances = (events: readonly SessionEvent[]) => events.flatMap((e) => (e.type === 'utterance' ? [e] : []));

describe('live sessions over HTTP and WebSocket', () => {
  it('runs a whole scene to its end at instant pace: the socket, the log and the transcript agree', async () => {
    const created = await createSession(server, 'team-standup', 'instant');
    expect(created).toMatchObject({ scene: 'team-standup', pace: 'instant' });
    expect(Object.keys(created.tokens).sort()).toEqual(['jordan', 'observer']);

    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    await observer.waitForEvent((e) => e.type === 'end', 'the end event');

    const [welcome] = observer.messages;
    expect(welcome).toMatchObject({ type: 'welcome', protocol: 1, you: { participant: null, role: 'observer' }, resumedFrom: 0, snapshot: { session: created.id } });
    expect(observer.messages.slice(1).every((m) => m.type === 'event' || m.type === 'delta')).toBe(true);
    expect(observer.invalid).toEqual([]);

    const received = observer.events();
    expect(expectContiguous(received)).toBeNull();
    expect(received[0]).toMatchObject({ type: 'session-start', scene: 'team-standup' });
    expect(received.at(-1)).toMatchObject({ type: 'end', reason: 'snippets-done' });
    expect(received.filter((e) => e.type === 'end')).toHaveLength(1);
    expect(utterances(received).length).toBeGreaterThan(10);

    const log = await logOf(server, created.id);
    expect(log).toEqual(received);

    const raw = await api(server, `/api/sessions/${created.id}/events`, { token: created.tokens.observer });
    expect(raw.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect((await raw.text()).split('\n').filter(Boolean)).toHaveLength(log.length);
    expect(await logOf(server, created.id, created.tokens.observer)).toEqual(log);

    const transcript = await api(server, `/api/sessions/${created.id}/transcript`, { token: created.tokens.observer });
    expect(transcript.status).toBe(200);
    expect(transcript.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await transcript.text();
    expect(text).toContain('Daily stand-up with a broken staging environment');
    for (const u of utterances(log)) expect(text).toContain(u.text);

    const snapshot = await api(server, `/api/sessions/${created.id}`, { token: created.tokens.jordan });
    expect(await snapshot.json()).toMatchObject({ session: created.id, phase: 'ended', lastSeq: log.length });
    const list = (await (await api(server, '/api/sessions')).json()) as { sessions: { id: string; endedAt: number | null; events: number }[] };
    expect(list.sessions.find((s) => s.id === created.id)).toMatchObject({ events: log.length, endedAt: expect.any(Number) });
  });

  it('a typed question addressed to a persona is answered by that persona next', async () => {
    valve = createValve(); // no reply until Jordan is in
    const created = await createSession(server, 'team-standup', 'instant');
    const jordan = await Client.connect(server, created.id, created.tokens.jordan!);
    expect(jordan.messages[0]).toMatchObject({ type: 'welcome', you: { participant: 'jordan', role: 'participant' } });
    valve.allow();

    // Jordan is present now: the room waits at their turn instead of simulating them.
    const waiting = await jordan.waitForEvent((e) => e.type === 'human-input-required' && e.participant === 'jordan', 'the room to wait for jordan');
    jordan.send({ type: 'say', text: 'Marco, what broke on staging?' });

    const asked = await jordan.waitForEvent((e) => e.type === 'utterance' && e.speaker === 'jordan' && e.seq > waiting.seq, "jordan's utterance");
    expect(asked).toMatchObject({ text: 'Marco, what broke on staging?', source: 'human', addressee: 'marco', pair: 'question' });
    const next = await jordan.waitForEvent((e) => e.type === 'utterance' && e.seq > asked.seq, 'the next utterance');
    expect(next).toMatchObject({ speaker: 'marco', act: 'answer', addressee: 'jordan', replyTo: asked.type === 'utterance' ? asked.id : '' });
    // Nobody spoke in between.
    expect(utterances(jordan.events()).filter((u) => u.seq > asked.seq && u.seq < next.seq)).toEqual([]);
  });

  it('an instructor direction (inject) reaches observers only, never the participant', async () => {
    valve = createValve(); // no reply until both are in
    const created = await createSession(server, 'team-standup', 'instant');
    const jordan = await Client.connect(server, created.id, created.tokens.jordan!);
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    valve.allow();
    await jordan.waitForEvent((e) => e.type === 'human-input-required' && e.participant === 'jordan', 'the room to wait for jordan');

    const direction = 'Marco should admit he skipped the code review.';
    observer.send({ type: 'inject', text: direction });
    const injected = await observer.waitForEvent((e) => e.type === 'system' && e.code === 'direction', 'the direction event');
    expect(injected).toMatchObject({ type: 'system', message: direction, audience: 'observers' });

    // A later event reaches the participant: the direction, had it been sent, would be before it.
    jordan.send({ type: 'say', text: 'Gwen, I think my migration broke staging.' });
    const said = await jordan.waitForEvent((e) => e.type === 'utterance' && e.speaker === 'jordan' && e.text.startsWith('Gwen, I think'), "jordan's utterance");
    expect(said.seq).toBeGreaterThan(injected.seq);
    await observer.waitForEvent((e) => e.seq === said.seq, "jordan's utterance on the observer socket");

    expect(jordan.events().some((e) => e.type === 'system' && e.audience === 'observers')).toBe(false);
    expect(jordan.messages.some((m) => JSON.stringify(m).includes(direction))).toBe(false);
    // The participant's stream skips exactly the observers-only events.
    const seen = new Set(jordan.events().map((e) => e.seq));
    const hidden = observer.events().filter((e) => e.seq <= said.seq && !seen.has(e.seq));
    expect(hidden.map((e) => e.seq)).toEqual([injected.seq]);

    const forJordan = await (await api(server, `/api/sessions/${created.id}/transcript`, { token: created.tokens.jordan })).text();
    const forObserver = await (await api(server, `/api/sessions/${created.id}/transcript`, { token: created.tokens.observer })).text();
    expect(forJordan).not.toContain(direction);
    expect(forObserver).toContain(direction);
  });

  it('reconnecting with ?after=<last seq seen> delivers exactly the missed events while the session kept running', async () => {
    valve = createValve();
    const created = await createSession(server, 'team-standup', 'instant');
    /** Lets the room through reply by reply until its log reaches `seq`; then it waits at the valve. */
    const runTo = async (seq: number) => {
      await valve.held();
      while (server.store.lastSeq(created.id) < seq) {
        valve.allow(1);
        await valve.held();
      }
    };
    const first = await Client.connect(server, created.id, created.tokens.observer!);
    await runTo(8);
    await first.waitFor(() => first.events().at(-1)?.seq === server.store.lastSeq(created.id), 'every event so far');
    await first.close();
    const before = first.events();
    const lastSeen = before.at(-1)!.seq;
    expect(expectContiguous(before)).toBeNull();

    // The room goes on without us, by at least five events, and waits again.
    await runTo(lastSeen + 5);

    const second = await Client.connect(server, created.id, created.tokens.observer!, lastSeen);
    const welcome = second.messages[0];
    expect(welcome).toMatchObject({ type: 'welcome', resumedFrom: lastSeen, snapshot: { phase: 'running' } });
    expect(welcome?.type === 'welcome' && welcome.snapshot.lastSeq).toBeGreaterThan(lastSeen);
    valve.allow();
    await second.waitForEvent((e) => e.type === 'end', 'the end event');

    const after = second.events();
    expect(after[0]!.seq).toBe(lastSeen + 1);
    expect(expectContiguous(after, lastSeen + 1)).toBeNull();
    expect([...before, ...after]).toEqual(await logOf(server, created.id));
  });

  it('two sessions at once are isolated: each socket gets its own events, with its own seqs', async () => {
    valve = createValve(); // no reply until both observers are in
    const a = await createSession(server, 'team-standup', 'instant');
    const b = await createSession(server, 'job-interview', 'instant');
    const observerA = await Client.connect(server, a.id, a.tokens.observer!);
    const observerB = await Client.connect(server, b.id, b.tokens.observer!);
    // Both were live at once.
    expect(observerA.messages[0]).toMatchObject({ snapshot: { phase: 'running' } });
    expect(observerB.messages[0]).toMatchObject({ snapshot: { phase: 'running' } });
    valve.allow();
    await Promise.all([
      observerA.waitForEvent((e) => e.type === 'end', 'the end of session A'),
      observerB.waitForEvent((e) => e.type === 'end', 'the end of session B'),
    ]);

    const eventsA = observerA.events();
    const eventsB = observerB.events();
    expect(expectContiguous(eventsA)).toBeNull();
    expect(expectContiguous(eventsB)).toBeNull();
    expect(eventsA.filter((e) => e.type === 'session-start')).toEqual([expect.objectContaining({ scene: 'team-standup' })]);
    expect(eventsB.filter((e) => e.type === 'session-start')).toEqual([expect.objectContaining({ scene: 'job-interview' })]);
    expect(eventsA).toEqual(await logOf(server, a.id));
    expect(eventsB).toEqual(await logOf(server, b.id));
    const speakersA = new Set(utterances(eventsA).map((u) => u.speaker));
    const peopleB = new Set(server.scenes.get('job-interview')!.participants.map((p) => p.id));
    expect([...speakersA].filter((s) => peopleB.has(s))).toEqual([]);
    // Nor the other's reply deltas.
    const peopleA = new Set(server.scenes.get('team-standup')!.participants.map((p) => p.id));
    const deltaSpeakers = (client: Client) => new Set(client.messages.flatMap((m) => (m.type === 'delta' ? [m.speaker] : [])));
    expect([...deltaSpeakers(observerA)].filter((s) => !peopleA.has(s))).toEqual([]);
    expect([...deltaSpeakers(observerB)].filter((s) => !peopleB.has(s))).toEqual([]);
    expect(observerA.errors()).toEqual([]);
    expect(observerB.errors()).toEqual([]);
  });
});
