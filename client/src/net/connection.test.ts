import { describe, expect, it } from 'vitest';
import { createTokens } from '../../../server/auth/tokens';
import { readToken } from './connection';

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
