import { TokenVerifier } from 'livekit-server-sdk';
import { describe, expect, it } from 'vitest';
import {
  isReservedIdentity,
  mintLiveKitToken,
  mintPersonaToken,
  mintServerToken,
  personaIdentity,
  roomNameFor,
  serverIdentity,
  sessionOfRoom,
} from './tokens';

const livekit = { url: 'ws://127.0.0.1:7880', apiKey: 'devkey', apiSecret: 'a-test-secret-that-is-at-least-32-characters' };

/** The JWT's claims, read without verifying (the signature is checked separately below). */
const claimsOf = (jwt: string): Record<string, unknown> & { video: Record<string, unknown> } => {
  const [, payload] = jwt.split('.');
  return JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown> & { video: Record<string, unknown> };
};

const participant = { session: 's1', role: 'participant', participant: 'ana', name: 'Ana', avatar: 'avatar-03', ttlSeconds: 600 } as const;
const observer = { session: 's1', role: 'observer', participant: null, name: 'Observer', avatar: null, ttlSeconds: 600 } as const;

describe('room names and identities', () => {
  it('gives each session its own room and reads the session back from it', () => {
    expect(roomNameFor('abc_-9')).toBe('rehearsal-abc_-9');
    expect(sessionOfRoom(roomNameFor('abc_-9'))).toBe('abc_-9');
    expect(sessionOfRoom('someone-elses-room')).toBeNull();
    expect(sessionOfRoom('rehearsal-')).toBeNull();
  });

  it('reserves the identities of personas, the server bridge and observers', () => {
    expect(personaIdentity('dr-lee')).toBe('persona:dr-lee');
    expect(serverIdentity('s1')).toBe('server:s1');
    for (const identity of ['persona:dr-lee', 'server:s1', 'observer:x']) expect(isReservedIdentity(identity)).toBe(true);
    expect(isReservedIdentity('ana')).toBe(false);
  });
});

describe('mintLiveKitToken', () => {
  it('lets a participant join its session under its seat, publish its microphone only, and listen', async () => {
    const jwt = await mintLiveKitToken(livekit, participant);
    const claims = claimsOf(jwt);
    expect(claims.sub).toBe('ana');
    expect(claims.iss).toBe('devkey');
    expect(claims.name).toBe('Ana');
    expect(claims.attributes).toEqual({ role: 'participant', avatar: 'avatar-03' });
    expect(claims.video).toEqual({
      roomJoin: true,
      room: 'rehearsal-s1',
      canPublish: true,
      canPublishSources: ['microphone'],
      canSubscribe: true,
      canPublishData: false,
    });
    expect((claims.exp as number) - (claims.nbf as number)).toBe(600);
  });

  it('is signed with the API secret', async () => {
    const jwt = await mintLiveKitToken(livekit, participant);
    await expect(new TokenVerifier(livekit.apiKey, livekit.apiSecret).verify(jwt)).resolves.toMatchObject({ sub: 'ana' });
    await expect(new TokenVerifier(livekit.apiKey, 'another-secret-another-secret-another').verify(jwt)).rejects.toThrow();
  });

  it('leaves the avatar out when the scene names none', async () => {
    expect(claimsOf(await mintLiveKitToken(livekit, { ...participant, avatar: null })).attributes).toEqual({ role: 'participant' });
  });

  it('makes an observer hidden and unable to publish anything, under a fresh observer identity', async () => {
    const first = claimsOf(await mintLiveKitToken(livekit, observer));
    const second = claimsOf(await mintLiveKitToken(livekit, observer));
    expect(first.sub).toMatch(/^observer:[A-Za-z0-9_-]{12}$/);
    expect(second.sub).not.toBe(first.sub);
    expect(first.attributes).toEqual({ role: 'observer' });
    expect(first.video).toEqual({ roomJoin: true, room: 'rehearsal-s1', hidden: true, canSubscribe: true, canPublish: false, canPublishData: false });
  });

  it('refuses to let a client join as a persona, the server bridge or an observer by name', async () => {
    for (const identity of [personaIdentity('dr-lee'), serverIdentity('s1'), 'observer:abc']) {
      await expect(mintLiveKitToken(livekit, { ...participant, participant: identity })).rejects.toThrow(/reserved/);
    }
  });

  it('refuses a participant without a seat and an observer with one', async () => {
    await expect(mintLiveKitToken(livekit, { ...participant, participant: null })).rejects.toThrow(/participant id/);
    await expect(mintLiveKitToken(livekit, { ...observer, participant: 'ana' })).rejects.toThrow(/no seat/);
  });
});

describe('the server side', () => {
  it('lets the bridge join as an agent that publishes audio and data and hears everyone', async () => {
    const claims = claimsOf(await mintServerToken(livekit, 's1'));
    expect(claims.sub).toBe('server:s1');
    expect(claims.video).toEqual({ roomJoin: true, room: 'rehearsal-s1', canPublish: true, canPublishData: true, canSubscribe: true, agent: true });
  });

  it('publishes each persona under its reserved identity, microphone and data only, hearing nobody', async () => {
    const claims = claimsOf(await mintPersonaToken(livekit, { session: 's1', participant: 'dr-lee', name: 'Dr Lee', avatar: 'avatar-07' }));
    expect(claims.sub).toBe('persona:dr-lee');
    expect(claims.name).toBe('Dr Lee');
    expect(claims.attributes).toEqual({ role: 'persona', avatar: 'avatar-07' });
    expect(claims.video).toEqual({
      roomJoin: true,
      room: 'rehearsal-s1',
      canPublish: true,
      canPublishSources: ['microphone'],
      canPublishData: true,
      canSubscribe: false,
      agent: true,
    });
  });
});
