/**
 * Which transport carries the voices, and whose voice a LiveKit identity is. Small on purpose:
 * the LiveKit SDK itself (net/livekit.ts) is only loaded when LiveKit is in use.
 */

export interface Health {
  providers: { transport: string };
  livekit?: { reachable?: boolean };
}

/** LiveKit carries the voices when the server is configured for it and can reach it; else the socket does. */
export const mediaTransport = (health: Health | null): 'livekit' | 'websocket' =>
  health?.providers.transport === 'livekit' && health.livekit?.reachable === true ? 'livekit' : 'websocket';

/** The scene participant a LiveKit identity stands for: `persona:nora` is Nora; the server's own identity is nobody. */
export const participantOf = (identity: string): string | null => {
  if (identity.startsWith('persona:')) return identity.slice('persona:'.length) || null;
  if (identity.includes(':')) return null;
  return identity;
};

