import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../../shared/protocol/messages';
import { readSessionResponse } from './sessions';

const snapshot: Snapshot = {
  session: 's1',
  scene: { id: 'job-interview', title: 'Interview', topic: 'a job', formation: 'panel', contents: [], moderated: false },
  participants: [{ id: 'alex', name: 'Alex', kind: 'human', role: null, present: false, avatar: null }],
  phase: 'new',
  status: 'lobby',
  pausedFor: null,
  paused: false,
  turns: 0,
  snippet: 'intro',
  expected: null,
  waitingFor: null,
  hands: [],
  proposal: null,
  lastSeq: 1,
};

describe('what a join link opens', () => {
  it('opens a live session on its snapshot', () => {
    expect(readSessionResponse(200, snapshot)).toEqual({ kind: 'live', snapshot });
  });

  it('opens an ended session on its summary', () => {
    const ended = {
      session: 's1',
      status: 'ended',
      scene: { id: 'job-interview', title: 'Interview' },
      durationMs: 754_000,
      turns: 31,
      participants: [{ id: 'alex', name: 'Alex', kind: 'human' }],
      review: '/review/s1',
      endedBecause: 'Ended by the instructor',
    };
    expect(readSessionResponse(200, ended)).toEqual({ kind: 'ended', summary: { ...ended, status: undefined } });
  });

  it("reads an older server's ended session, which had no participants (the blank page's TypeError on 'find')", () => {
    const link = readSessionResponse(200, { session: 's1', scene: 'job-interview', phase: 'ended', lastSeq: 7 });
    expect(link).toEqual({ kind: 'ended', summary: { session: 's1', scene: { id: 'job-interview', title: 'job-interview' }, durationMs: null, turns: null, participants: [], review: null, endedBecause: null } });
  });

  it('names what is wrong with a link that does not open', () => {
    expect(readSessionResponse(404, { code: 'not-found', message: 'No session "x".' })).toEqual({ kind: 'problem', problem: 'not-found', detail: 'No session "x".' });
    expect(readSessionResponse(401, { code: 'unauthorized', message: 'The token is not valid.' })).toMatchObject({ problem: 'unauthorized' });
    expect(readSessionResponse(401, { code: 'unauthorized', message: 'The token is expired.' })).toMatchObject({ problem: 'expired' });
    expect(readSessionResponse(401, { code: 'unauthorized' }, true)).toMatchObject({ problem: 'expired' });
    expect(readSessionResponse(403, { code: 'forbidden' })).toMatchObject({ problem: 'forbidden' });
    expect(readSessionResponse(502, null)).toMatchObject({ problem: 'unreachable' });
    expect(readSessionResponse(200, { nonsense: true })).toMatchObject({ problem: 'unexpected' });
  });
});
