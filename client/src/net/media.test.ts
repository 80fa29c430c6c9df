import { describe, expect, it } from 'vitest';
import { mediaTransport, participantOf } from './media';

describe('choosing the media transport', () => {
  it('uses LiveKit only when the server is configured for it and reaches it', () => {
    expect(mediaTransport({ providers: { transport: 'livekit' }, livekit: { reachable: true } })).toBe('livekit');
    expect(mediaTransport({ providers: { transport: 'livekit' }, livekit: { reachable: false } })).toBe('websocket');
    expect(mediaTransport({ providers: { transport: 'websocket' } })).toBe('websocket');
    expect(mediaTransport(null)).toBe('websocket');
  });

  it('maps LiveKit identities to scene participants, personas included, the server to nobody', () => {
    expect(participantOf('tara')).toBe('tara');
    expect(participantOf('persona:nora')).toBe('nora');
    expect(participantOf('server:abc')).toBeNull();
    expect(participantOf('observer:x1')).toBeNull();
    expect(participantOf('persona:')).toBeNull();
  });
});
