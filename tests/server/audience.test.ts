/**
 * Issue 16, item 7: every event has an audience (everyone, the instructors, one seat), the log keeps
 * it, and the live stream, the replay after `?after=`, the log endpoint and the transcript export
 * all respect it. A trainee never sees a stand-in's proposed line or the instructor's decision on it
 * (an edit's private text included), live or on replay; a notice about one seat reaches that seat
 * and the instructors only.
 *
 * The sprint retro has two human seats: Riley joins; Casey is stood in for by the simulation under
 * human control, proposing a deviation whenever the engine lets them (derailProbability 1, set on
 * the scene in memory).
 */
import { describe, expect, it } from 'vitest';
import { audienceOf, type SessionEvent } from '../../shared/events';
import type { Vad } from '../../server/media/vad';
import type { ServerMessage } from '../../shared/protocol/messages';
import type { Transcriber } from '../../server/providers/transcription/port';
import type { LoadedScene } from '../../shared/scene/schema';
import { Client, api, createSession, logOf, serverPerFile } from './helpers';

const eagerCasey = (scenes: LoadedScene[]): LoadedScene[] =>
  scenes.map((scene) =>
    scene.id !== 'sprint-retro'
      ? scene
      : {
          ...scene,
          participants: scene.participants.map((p) => (p.id === 'casey' && p.simulated ? { ...p, simulated: { ...p.simulated, derailProbability: 1 } } : p)),
          snippets: scene.snippets.map((s) => ({ ...s, interruptions: s.interruptions.filter((rule) => rule.to !== 'casey') })),
        },
  );

/** Speech wherever the samples are loud. */
const loudnessVad = (): Promise<Vad> =>
  Promise.resolve({
    frame: async (samples) => (samples.some((x) => Math.abs(x) > 0.1) ? 0.99 : 0.01),
    reset: () => {},
    close: async () => {},
  });
/** A vendor that always fails. */
const failing: Transcriber = {
  name: 'failing',
  transcribe: async () => {
    throw new Error('the transcription vendor is down');
  },
};


const server = serverPerFile({ scenes: eagerCasey, transcriber: failing, vad: loudnessVad });

const instructorOnly = (e: SessionEvent) => e.type === 'approval-needed' || e.type === 'approval-resolved' || (e.type === 'system' && e.audience === 'observers');

/** Riley and an observer in a started sprint retro, Casey stood in for. */
const retro = async () => {
  const created = await createSession(server, 'sprint-retro', 'instant', 'lobby');
  const riley = await Client.connect(server, created.id, created.tokens.riley!);
  const observer = await Client.connect(server, created.id, created.tokens.observer!);
  observer.send({ type: 'start', standIns: true });
  return { created, riley, observer };
};

describe('instructor-only events', () => {
  it('never reach a trainee: not live, not on replay, not in their transcript; the log keeps each audience', async () => {
    const { created, riley, observer } = await retro();
    const sharedStream: ServerMessage[] = [];
    const unsubscribe = server.rooms.get(created.id)!.subscribe((message) => sharedStream.push(message));
    const needed = await observer.waitForEvent((e) => e.type === 'approval-needed', "Casey's proposal", 0, 30_000);
    if (needed.type !== 'approval-needed') throw new Error('unreachable');
    const direction = 'Casey should bring up the flaky end-to-end tests.';
    observer.send({ type: 'inject', text: direction });
    await observer.waitForEvent((e) => e.type === 'system' && e.code === 'direction', 'the direction');
    const edit = 'What if we froze the design at sprint planning?';
    observer.send({ type: 'edit', proposal: needed.proposal, text: edit });
    const resolved = await observer.waitForEvent((e) => e.type === 'approval-resolved', 'the edit');
    const said = await observer.waitForEvent((e) => e.type === 'utterance' && e.seq > resolved.seq, "Casey's edited line");
    expect(said).toMatchObject({ speaker: 'casey', text: edit });
    await riley.waitForEvent((e) => e.seq >= said.seq, "Casey's line on Riley's socket");

    // The stream the whole room shares (LiveKit's data topics) carries only public events, and
    // for the others their seq alone, so its count has no holes (a hole means events were lost).
    const shared = sharedStream.splice(0);
    const publicSeqs = shared.flatMap((m) => (m.type === 'event' ? [m.event.seq] : []));
    const markers = shared.flatMap((m) => (m.type === 'seq' ? [m.seq] : []));
    expect(markers).toEqual(expect.arrayContaining([needed.seq, resolved.seq]));
    expect(shared.filter((m) => m.type === 'event' && instructorOnly(m.event))).toEqual([]);
    const counted = [...publicSeqs, ...markers].filter((seq) => seq <= said.seq).sort((a, b) => a - b);
    expect(counted).toEqual(Array.from({ length: said.seq - counted[0]! + 1 }, (_, i) => counted[0]! + i));
    unsubscribe();

    // Live: the line is public; the proposal, the edit and the direction never came.
    expect(riley.events().filter(instructorOnly)).toEqual([]);
    const raw = riley.messages.map((m) => JSON.stringify(m)).join('\n');
    expect(raw).not.toContain(needed.proposal);
    expect(raw).not.toContain(direction);
    if (needed.text !== edit) expect(raw).not.toContain(needed.text);
    expect(riley.invalid).toEqual([]);

    // The log keeps who may see each event.
    const log = await logOf(server, created.id);
    expect(log.every((e) => e.audience !== undefined)).toBe(true);
    expect(log.find((e) => e.seq === needed.seq)?.audience).toBe('observers');
    expect(log.find((e) => e.seq === resolved.seq)?.audience).toBe('observers');
    expect(log.find((e) => e.seq === said.seq)?.audience).toBe('all');

    // Replay: a reload from the start, and a resume from before the proposal.
    for (const after of [0, needed.seq - 1]) {
      const again = await Client.connect(server, created.id, created.tokens.riley!, after);
      await again.ping();
      expect(again.events().some((e) => e.seq === said.seq)).toBe(true);
      expect(again.events().filter(instructorOnly)).toEqual([]);
      await again.close();
    }
    // The observer's replay has them all.
    const watcher = await Client.connect(server, created.id, created.tokens.observer!, needed.seq - 1);
    await watcher.ping();
    expect(watcher.events().map((e) => e.seq)).toEqual(expect.arrayContaining([needed.seq, resolved.seq]));

    // Transcripts: Riley's leaves the instructor's notes out.
    const forRiley = await (await api(server, `/api/sessions/${created.id}/transcript`, { token: created.tokens.riley })).text();
    const forObserver = await (await api(server, `/api/sessions/${created.id}/transcript`, { token: created.tokens.observer })).text();
    expect(forRiley).toContain(edit);
    expect(forRiley).not.toContain(direction);
    expect(forObserver).toContain(direction);
  });
});

describe('seat-private events', () => {
  it('a notice about one seat reaches that seat and the instructors, not the other trainee', async () => {
    const created = await createSession(server, 'sprint-retro', 'instant', 'lobby');
    const riley = await Client.connect(server, created.id, created.tokens.riley!);
    const casey = await Client.connect(server, created.id, created.tokens.casey!);
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    await observer.waitForEvent((e) => e.type === 'system' && e.code === 'session-started', 'the session starting');
    // Riley speaks (a loud half second, then silence); the transcriber fails.
    const room = server.rooms.get(created.id)!;
    const frame = (level: number) => new Int16Array(512).fill(level);
    for (let i = 0; i < 16; i++) room.hear('riley', frame(12_000));
    for (let i = 0; i < 120; i++) room.hear('riley', frame(0));
    const failed = await observer.waitForEvent((e) => e.type === 'system' && e.code === 'transcription-failed', 'the transcription failure');
    expect(failed).toMatchObject({ participant: 'riley', audience: { seat: 'riley' } });
    await riley.waitForEvent((e) => e.seq === failed.seq, "the notice on Riley's socket");
    // Casey's stream passes it by: a later event reaches Casey, and the notice never does.
    observer.send({ type: 'inject', text: 'Keep going.' });
    await observer.waitForEvent((e) => e.type === 'system' && e.code === 'direction', 'a later event');
    casey.send({ type: 'raise-hand' });
    const later = await casey.waitForEvent((e) => e.seq > failed.seq, 'an event after the notice');
    expect(later.seq).toBeGreaterThan(failed.seq);
    expect(casey.events().some((e) => e.seq === failed.seq)).toBe(false);
    const replay = await Client.connect(server, created.id, created.tokens.casey!, 0);
    await replay.ping();
    expect(replay.events().some((e) => e.seq === failed.seq)).toBe(false);

    const forCasey = await (await api(server, `/api/sessions/${created.id}/transcript`, { token: created.tokens.casey })).text();
    const forRiley = await (await api(server, `/api/sessions/${created.id}/transcript`, { token: created.tokens.riley })).text();
    expect(forCasey).not.toContain('could not be transcribed');
    expect(forRiley).toContain('could not be transcribed');
  });
});

describe('logs recorded before audiences', () => {
  it('get a default by kind: proposals and decisions for the instructors, seat notices for their seat, the rest for all', () => {
    const at = { seq: 1, t: 0 };
    expect(audienceOf({ ...at, type: 'approval-needed', proposal: 'p1', participant: 'casey', intent: 'drift', text: 'x' })).toBe('observers');
    expect(audienceOf({ ...at, type: 'approval-resolved', proposal: 'p1', decision: 'edit', text: 'y' })).toBe('observers');
    expect(audienceOf({ ...at, type: 'system', level: 'info', code: 'direction', message: 'x', audience: 'observers' })).toBe('observers');
    // A proposal decided by the scene's default: nothing a trainee should read about the seat beside them.
    expect(audienceOf({ ...at, type: 'system', level: 'warn', code: 'approval-timeout', message: "No decision on Casey's proposal within 60 s: skipped (the scene's default)." })).toBe('observers');
    expect(audienceOf({ ...at, type: 'system', level: 'info', code: 'approval-default', message: "No instructor is watching: Casey's proposal was skipped at once (the scene's default)." })).toBe('observers');
    expect(audienceOf({ ...at, type: 'system', level: 'warn', code: 'transcription-failed', message: 'x', participant: 'riley' })).toEqual({ seat: 'riley' });
    expect(audienceOf({ ...at, type: 'system', level: 'info', code: 'joined', message: 'x', participant: 'riley' })).toBe('all');
    expect(audienceOf({ ...at, type: 'slide', content: 'deck', index: 1, by: null })).toBe('all');
  });
});
