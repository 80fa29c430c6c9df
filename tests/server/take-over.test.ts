/**
 * The instructor takes over a seat (issue 15, part 12): while they hold it the room waits for
 * their line on its turns, the line is logged as that participant's (source `instructor`) and
 * voiced like any other; handed back, the simulation speaks for it again. Only the instructors
 * see the switch: participants are sent the line as the seat's own (issue 26); a seat whose human
 * is here cannot be taken.
 */
import { describe, expect, it } from 'vitest';
import { Client, createSession, serverPerFile } from './helpers';

// Realtime at fifty times real speed: turns follow each other quickly, but one at a time.
const server = serverPerFile({ speed: 50 });

describe('taking over a seat', () => {
  it('waits for the instructor on the seat’s turns, logs their line as the seat’s, and hands it back', async () => {
    const created = await createSession(server, 'job-interview', 'realtime');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    await observer.waitForEvent((e) => e.type === 'session-start', 'the start');

    // Nobody can speak for a seat before taking it over.
    observer.send({ type: 'say-as', participant: 'hannah', text: 'Hello.' });
    await observer.waitFor((m) => m.some((x) => x.type === 'error' && /Take over Hannah/.test(x.message)), 'a clear error for say-as without a take-over');

    observer.send({ type: 'take-over', participant: 'hannah' });
    await observer.waitForEvent((e) => e.type === 'system' && e.code === 'take-over' && e.participant === 'hannah', 'the take-over');
    const asked = await observer.waitForEvent((e) => e.type === 'human-input-required' && e.participant === 'hannah', 'the room waiting for Hannah’s line');

    observer.send({ type: 'say-as', participant: 'hannah', text: 'Alex, what made you leave the delivery company?' });
    const line = await observer.waitForEvent((e) => e.type === 'utterance' && e.speaker === 'hannah' && e.seq > asked.seq, 'the instructor’s line');
    expect(line).toMatchObject({ source: 'instructor', text: 'Alex, what made you leave the delivery company?', addressee: 'alex' });
    // Asked by name, the (simulated) candidate answers next.
    const next = await observer.waitForEvent((e) => e.type === 'utterance' && e.seq > line.seq, 'the answer');
    expect(next.type === 'utterance' && next.speaker).toBe('alex');

    observer.send({ type: 'hand-back', participant: 'hannah' });
    const back = await observer.waitForEvent((e) => e.type === 'system' && e.code === 'hand-back', 'the hand-back');
    const generated = await observer.waitForEvent((e) => e.type === 'utterance' && e.speaker === 'hannah' && e.seq > back.seq, 'Hannah speaking for herself again', 0, 60_000);
    expect(generated.type === 'utterance' && generated.source).not.toBe('instructor');

    // The trainee, joining now, is sent Hannah's lines, the instructor's among them as Hannah's own, never the switch.
    const alex = await Client.connect(server, created.id, created.tokens.alex!);
    await alex.waitForEvent((e) => e.seq >= generated.seq, 'the backlog');
    const seen = alex.events();
    expect(seen.find((e) => e.type === 'utterance' && e.id === (line.type === 'utterance' && line.id))).toMatchObject({ speaker: 'hannah', text: line.type === 'utterance' && line.text, source: 'ai' });
    expect(seen.some((e) => e.type === 'utterance' && e.source === 'instructor')).toBe(false);
    expect(seen.filter((e) => e.type === 'system' && ['take-over', 'hand-back'].includes(e.code))).toEqual([]);
  }, 90_000);

  it('refuses a seat whose human is here, and a participant of another scene', async () => {
    const created = await createSession(server, 'sprint-retro', 'realtime');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    await Client.connect(server, created.id, created.tokens.riley!);
    observer.send({ type: 'take-over', participant: 'riley' });
    await observer.waitFor((m) => m.some((x) => x.type === 'error' && /Riley Quinn is here and speaks for themselves/.test(x.message)), 'a seat taken by its human');
    observer.send({ type: 'take-over', participant: 'hannah' });
    await observer.waitFor((m) => m.some((x) => x.type === 'error' && /"hannah" is not a participant of this scene/.test(x.message)), 'a stranger');
    await observer.waitFor((m) => m.some((x) => x.type === 'welcome'), 'the welcome');
    const welcome = observer.messages.find((m) => m.type === 'welcome');
    expect(welcome?.type === 'welcome' && welcome.snapshot.controlled).toEqual([]);
  });

  it('gives the seat back to its human when they arrive', async () => {
    const created = await createSession(server, 'sprint-retro', 'realtime');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    await observer.waitForEvent((e) => e.type === 'session-start', 'the start');
    observer.send({ type: 'take-over', participant: 'casey' });
    await observer.waitForEvent((e) => e.type === 'system' && e.code === 'take-over', 'the take-over');
    await Client.connect(server, created.id, created.tokens.casey!);
    await observer.waitForEvent((e) => e.type === 'system' && e.code === 'hand-back' && e.participant === 'casey', 'Casey taking her seat back');
    await observer.waitForEvent((e) => e.type === 'system' && e.code === 'joined' && e.participant === 'casey', 'Casey shown as here');
    observer.send({ type: 'say-as', participant: 'casey', text: 'I am still here.' });
    await observer.waitFor((m) => m.some((x) => x.type === 'error' && /Take over Casey/.test(x.message)), 'no longer the instructor’s seat');
  });
});
