/**
 * Issue 26: the instructor's line in a seat they took over (`say-as`) reaches participants as the
 * seat's own line, over the real server and its sockets, live and on a rejoin's backlog: with the
 * source the seat's other lines carry ('ai' for a persona, 'simulated-human' for a human seat stood
 * in for) and no `sentAt` (only typed lines have one). The instructors see `source: 'instructor'`,
 * and the stored log keeps it.
 *
 * The sprint retro: Riley joins as herself; Casey (a human seat) is stood in for; Morgan is a persona.
 */
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events';
import { Client, createSession, logOf, serverPerFile } from './helpers';

const server = serverPerFile({ speed: 50 });

const lineOf = (events: SessionEvent[], text: string) => events.find((e): e is Extract<SessionEvent, { type: 'utterance' }> => e.type === 'utterance' && e.text === text);

describe("an instructor's say-as line", () => {
  it("reaches participants as the seat's own line, and instructors and the log as the instructor's", async () => {
    const created = await createSession(server, 'sprint-retro', 'realtime');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    const riley = await Client.connect(server, created.id, created.tokens.riley!);
    await riley.waitForEvent((e) => e.type === 'session-start', 'the start');

    for (const seat of ['casey', 'morgan']) {
      observer.send({ type: 'take-over', participant: seat });
      await observer.waitForEvent((e) => e.type === 'system' && e.code === 'take-over' && e.participant === seat, `the take-over of ${seat}`);
    }
    const forCasey = 'I think the estimate slipped because nobody owned the design review.';
    const forMorgan = 'Casey, can you say more about who should own it next sprint?';
    observer.send({ type: 'say-as', participant: 'casey', text: forCasey });
    observer.send({ type: 'say-as', participant: 'morgan', text: forMorgan });
    for (const text of [forCasey, forMorgan]) await riley.waitFor(() => lineOf(riley.events(), text) !== undefined, `Riley hearing "${text}"`);
    await observer.waitFor(() => lineOf(observer.events(), forMorgan) !== undefined, 'the observer seeing the lines');

    // Riley, live: each line as its seat's own, like the lines the simulation writes for it.
    const heard = [lineOf(riley.events(), forCasey)!, lineOf(riley.events(), forMorgan)!];
    expect(heard.map((e) => [e.speaker, e.source])).toEqual([
      ['casey', 'simulated-human'],
      ['morgan', 'ai'],
    ]);
    for (const line of heard) expect(line).not.toHaveProperty('sentAt');
    expect(riley.events().some((e) => e.type === 'utterance' && e.source === 'instructor')).toBe(false);
    // Nothing else tells her a seat is held: no wait for a held seat's input, no floor taken "by a human" for a persona.
    expect(riley.events().filter((e) => e.type === 'human-input-required' && ['casey', 'morgan'].includes(e.participant))).toEqual([]);
    expect(riley.events().filter((e) => e.type === 'floor' && e.reason === 'human' && e.speaker !== 'riley')).toEqual([]);

    // The instructor sees who spoke, and the log keeps it.
    expect([lineOf(observer.events(), forCasey)!.source, lineOf(observer.events(), forMorgan)!.source]).toEqual(['instructor', 'instructor']);
    const log = await logOf(server, created.id);
    expect([lineOf(log, forCasey)!.source, lineOf(log, forMorgan)!.source]).toEqual(['instructor', 'instructor']);
    // The same line otherwise: seq, id, text, addressee.
    const { source: _truth, sentAt: _typed, ...rest } = lineOf(log, forMorgan)!;
    expect(lineOf(riley.events(), forMorgan)).toEqual({ ...rest, source: 'ai' });

    // Riley rejoining gets her backlog from the store, as she saw it live.
    const again = await Client.connect(server, created.id, created.tokens.riley!, 0);
    await again.waitFor(() => lineOf(again.events(), forMorgan) !== undefined, 'the backlog');
    expect([lineOf(again.events(), forCasey)!.source, lineOf(again.events(), forMorgan)!.source]).toEqual(['simulated-human', 'ai']);
    expect(again.events().some((e) => e.type === 'utterance' && e.source === 'instructor')).toBe(false);
  }, 60_000);
});
