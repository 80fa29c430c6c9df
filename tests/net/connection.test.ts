import { describe, expect, it, vi } from 'vitest';
import { createTokens } from '../../server/auth/tokens';
import { connect, readToken } from '../../client/src/net/connection';
import { FakeSocket, fakeSocketsFor } from '../fakes/browser-socket';

describe('reading a join token in the browser', () => {
  const tokens = createTokens('a secret the browser never sees');

  it('gives the session, seat and role the token claims', () => {
    const token = tokens.sign({ session: 's1', participant: 'ana', role: 'participant' }, 60_000, 0);
    expect(readToken(token)).toEqual({ session: 's1', participant: 'ana', role: 'participant', exp: 60_000 });
  });

  it('gives null for anything else: no payload, no JSON, a role that does not exist', () => {
    const claims = (json: unknown) => `v1.${btoa(JSON.stringify(json)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}.sig`;
    expect(readToken('the-admin-token')).toBeNull();
    expect(readToken('v1.%%%.sig')).toBeNull();
    expect(readToken(claims({ session: 's1', participant: null, role: 'owner', exp: 1 }))).toBeNull();
  });
});

describe('reconnecting', () => {
  fakeSocketsFor({ protocol: 'http:', host: 'localhost' });

  const open = () => {
    const statuses: string[] = [];
    let lastSeq = 0;
    const link = connect({ session: 's1', token: 't', onMessage: () => {}, lastSeq: () => lastSeq, onStatus: (status) => statuses.push(status) });
    return { link, statuses, seen: (seq: number) => (lastSeq = seq) };
  };

  it('rejoins after the last event seen when the server drops a slow reader (4408) or the connection dies (1006)', () => {
    const { statuses, seen } = open();
    seen(41);
    FakeSocket.opened[0]!.drop(4408, 'too slow: rejoin with ?after=');
    expect(statuses.at(-1)).toBe('reconnecting');
    vi.advanceTimersByTime(10_000);
    expect(FakeSocket.opened).toHaveLength(2);
    expect(new URL(FakeSocket.opened[1]!.url).searchParams.get('after')).toBe('41');
    seen(57);
    FakeSocket.opened[1]!.drop(1006);
    vi.advanceTimersByTime(10_000);
    expect(new URL(FakeSocket.opened[2]!.url).searchParams.get('after')).toBe('57');
  });

  it('stays closed when a newer tab took the seat (4409) or the token expired (4401), instead of taking it back', () => {
    for (const code of [4409, 4401]) {
      FakeSocket.opened = [];
      const { statuses } = open();
      FakeSocket.opened[0]!.drop(code);
      vi.advanceTimersByTime(60_000);
      expect(FakeSocket.opened, String(code)).toHaveLength(1);
      expect(statuses.at(-1)).toBe('closed');
    }
  });
});
