import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events';
import { transcriptOf } from './transcript';

const utterance = (seq: number, t: number, speaker: string, text: string, spoken?: { start: number; end: number }): SessionEvent => ({
  seq,
  t,
  type: 'utterance',
  id: `u${seq}`,
  speaker,
  text,
  addressee: null,
  pair: 'none',
  act: 'statement',
  snippet: 's',
  source: spoken ? 'human' : 'ai',
  durationMs: 2000,
  ...(spoken ? { spoken } : {}),
});

describe('the text transcript', () => {
  it("counts time from the session's start, as the review does: five minutes in the lobby are not in it", () => {
    const lobby = 5 * 60_000;
    const events: SessionEvent[] = [
      { seq: 1, t: lobby, type: 'session-start', scene: 'team-standup', title: 'Stand-up', seed: 1, policy: 'round-robin', participants: [{ id: 'gwen', name: 'Gwen', kind: 'ai', present: true, speakingRate: 150 }, { id: 'jordan', name: 'Jordan', kind: 'human', present: true, speakingRate: 150 }] },
      utterance(2, lobby + 4_000, 'gwen', 'Morning, everyone.'),
      // A spoken line is logged when the transcript is back; it is stamped when it was said.
      utterance(3, lobby + 12_500, 'jordan', 'Staging is still down.', { start: lobby + 9_200, end: lobby + 11_000 }),
    ];
    const text = transcriptOf(events, undefined, { role: 'observer', participant: null });
    expect(text).toContain('[00:04] Gwen: Morning, everyone.');
    expect(text).toContain('[00:09] Jordan: Staging is still down.');
  });
});
