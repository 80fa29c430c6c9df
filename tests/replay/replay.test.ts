import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events';
import type { ReplayData } from '../../shared/review/replay';
import { reportOf } from '../../server/review/report';
import { createReplay, placeEvents } from '../../client/src/replay/replay';

const T0 = 50_000;
let seq = 0;
const at = <E extends Record<string, unknown>>(ms: number, event: E) => ({ seq: ++seq, t: T0 + ms, ...event }) as unknown as SessionEvent;
const said = (ms: number, id: string, speaker: string, addressee: string | null, durationMs: number, extra: Record<string, unknown> = {}) =>
  at(ms, { type: 'utterance', id, speaker, text: 'Some words here.', addressee, pair: 'none', act: 'statement', snippet: 's', source: 'ai', durationMs, ...extra });

const log = (): SessionEvent[] => {
  seq = 0;
  return [
    at(0, { type: 'session-start', scene: 'x', title: 'X', seed: 1, policy: 'round-robin', participants: [] }),
    at(100, { type: 'system', level: 'info', code: 'joined', message: 'Jo joined', participant: 'jo' }),
    said(1000, 'u1', 'nora', 'omar', 2000),
    at(2000, { type: 'backchannel', participant: 'omar', to: 'nora', utterance: 'u1', kind: 'nod' }),
    at(3500, { type: 'slide', content: 'deck', index: 2, by: 'nora' }),
    // Jo's speech was transcribed after it ended: logged at 6 s, said from 4 s.
    said(6000, 'u2', 'jo', 'nora', 0, { source: 'human', spoken: { start: T0 + 4000, end: T0 + 5500 } }),
    at(7000, { type: 'hand-raise', participant: 'omar', action: 'raise', queue: ['omar'] }),
    at(8000, { type: 'end', reason: 'ended', turns: 2 }),
  ];
};

const data = (events: SessionEvent[]): ReplayData => ({
  session: 's1',
  scene: { id: 'x', title: 'X', topic: 't', formation: 'table', contents: [{ id: 'deck', kind: 'slides', title: 'Deck', summary: '', sections: ['a', 'b', 'c'] }], moderated: false },
  participants: ['nora', 'omar', 'jo'].map((id) => ({ id, name: id.toUpperCase(), kind: id === 'jo' ? 'human' : 'ai', role: null, present: false, avatar: null })),
  events,
});

describe('the replay of a session', () => {
  const events = log();
  const report = reportOf(events);
  const replay = () => createReplay(data(events), report, { participant: null, role: 'observer' });

  it('places an utterance where its speech began, and numbers the events again in that order', () => {
    const placed = placeEvents(events, report);
    expect(placed.map((p) => p.at)).toEqual([0, 100, 1000, 2000, 3500, 4000, 7000, 8000]);
    expect(placed.map((p) => p.event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('shows the room as the live room showed it at the playhead', () => {
    const r = replay();
    const before = r.at(500);
    expect(before.snapshot?.participants.find((p) => p.id === 'jo')?.present).toBe(true);
    expect(before.floor.speaker).toBeNull();
    expect(r.speakingAt(500)).toBeNull();

    const during = r.at(1500);
    expect(during.floor).toEqual({ speaker: 'nora', addressee: 'omar' });
    expect(r.speakingAt(1500)).toBe('nora');
    expect(during.nods.omar ?? 0).toBe(0);

    const later = r.at(4500);
    expect(later.nods.omar).toBe(1);
    expect(later.slides).toEqual({ deck: 2 });
    expect(later.floor).toEqual({ speaker: 'jo', addressee: 'nora' });
    expect(r.speakingAt(4500)).toBe('jo');
    expect(r.at(7500).hands).toEqual(['omar']);
    expect(r.at(9000).status).toBe('ended');
  });

  it('has ended at the very end of the report, even where the end event was placed a rounding past it', () => {
    const late = [...events.slice(0, -1), { ...events.at(-1)!, t: T0 + report.durationMs + 0.4 } as SessionEvent];
    const r = createReplay(data(late), { ...report, durationMs: report.durationMs - 0.2 }, { participant: null, role: 'observer' });
    expect(r.at(report.durationMs - 1).status).not.toBe('ended');
    expect(r.at(report.durationMs - 0.2).status).toBe('ended');
    expect(r.speakingAt(report.durationMs - 0.2)).toBeNull();
  });

  it('goes back when scrubbed back, and keeps the same view while nothing happens', () => {
    const r = replay();
    expect(r.at(7500).slides).toEqual({ deck: 2 });
    const back = r.at(1200);
    expect(back.slides).toEqual({});
    expect(back.hands).toEqual([]);
    expect(r.at(1300)).toBe(back);
  });

  it("shows a participant's replay only what the log gave them", () => {
    const r = createReplay(data(events.filter((e) => e.type !== 'slide')), report, { participant: 'jo', role: 'participant' });
    expect(r.at(9000).slides).toEqual({});
    expect(r.at(9000).you).toEqual({ participant: 'jo', role: 'participant' });
  });
});
