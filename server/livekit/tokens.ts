/**
 * Who may do what in a session's LiveKit room: one room per session, identities that tell humans,
 * observers, personas and the server's bridge apart, and the access tokens that grant each its part.
 *
 * ```ts
 * const token = await mintLiveKitToken(config.livekit, {
 *   session: room.id, role: 'participant', participant: 'ana', name: 'Ana', avatar: 'avatar-03', ttlSeconds: 3600,
 * });
 * // the browser: new Room().connect(config.livekit.url, token) -> it may publish its microphone, nothing else
 * ```
 *
 * DESIGN.md §8: observers never publish audio and never appear in the room; participants publish
 * their microphone only; room events and visemes travel from the server alone, so no client may
 * publish data.
 */
import { randomBytes } from 'node:crypto';
import { AccessToken, TrackSource } from 'livekit-server-sdk';
import type { Role } from '../../shared/claims';
import type { LiveKitConfig } from '../config';

const ROOM_PREFIX = 'rehearsal-';
const PERSONA_PREFIX = 'persona:';
const SERVER_PREFIX = 'server:';
const OBSERVER_PREFIX = 'observer:';

/** The LiveKit room of a session. */
export const roomNameFor = (session: string): string => `${ROOM_PREFIX}${session}`;

/** The session a LiveKit room belongs to, or null for a room this server did not name. */
export const sessionOfRoom = (room: string): string | null =>
  room.startsWith(ROOM_PREFIX) && room.length > ROOM_PREFIX.length ? room.slice(ROOM_PREFIX.length) : null;

/** The identity the server's bridge publishes an AI persona under (one LiveKit participant per persona). */
export const personaIdentity = (participant: string): string => `${PERSONA_PREFIX}${participant}`;

/** The identity of the server's bridge in a session's room. */
export const serverIdentity = (session: string): string => `${SERVER_PREFIX}${session}`;

/** Identities only the server hands out: personas, its bridge, and hidden observers. */
export const isReservedIdentity = (identity: string): boolean =>
  [PERSONA_PREFIX, SERVER_PREFIX, OBSERVER_PREFIX].some((prefix) => identity.startsWith(prefix));

/** True for an observer's identity (hidden, subscribe-only). */
export const isObserverIdentity = (identity: string): boolean => identity.startsWith(OBSERVER_PREFIX);

export interface ClientTokenRequest {
  session: string;
  /** Authors do not join rooms. */
  role: Exclude<Role, 'author'>;
  /** The scene participant's id (its seat) for a participant; null for an observer. */
  participant: string | null;
  /** Display name, from the scene. */
  name: string;
  /** Avatar id from the scene, null when the scene names none (the client then picks one). */
  avatar: string | null;
  ttlSeconds: number;
}

/**
 * A browser's token for a session's room. A participant joins under its scene participant id and
 * may publish its microphone only; an observer joins hidden under a fresh `observer:` identity and
 * may only listen. Throws for a participant without a seat or with a reserved identity.
 */
export const mintLiveKitToken = async (livekit: LiveKitConfig, request: ClientTokenRequest): Promise<string> => {
  const { session, role, participant, name, avatar, ttlSeconds } = request;
  const room = roomNameFor(session);
  if (role === 'observer') {
    if (participant !== null) throw new Error(`an observer holds no seat, got participant "${participant}"`);
    const token = new AccessToken(livekit.apiKey, livekit.apiSecret, {
      identity: `${OBSERVER_PREFIX}${randomBytes(9).toString('base64url')}`,
      name,
      attributes: { role },
      ttl: ttlSeconds,
    });
    token.addGrant({ roomJoin: true, room, hidden: true, canSubscribe: true, canPublish: false, canPublishData: false });
    return token.toJwt();
  }
  if (participant === null) throw new Error('a participant token needs the seat\'s participant id');
  // Scene ids are [a-z0-9-], so this cannot happen by accident; a client must never pose as a persona or the server.
  if (isReservedIdentity(participant)) throw new Error(`"${participant}" is a reserved LiveKit identity; clients cannot join under it`);
  const token = new AccessToken(livekit.apiKey, livekit.apiSecret, {
    identity: participant,
    name,
    attributes: { role, ...(avatar ? { avatar } : {}) },
    ttl: ttlSeconds,
  });
  token.addGrant({
    roomJoin: true,
    room,
    canPublish: true,
    canPublishSources: [TrackSource.MICROPHONE],
    canSubscribe: true,
    canPublishData: false,
  });
  return token.toJwt();
};

/**
 * The server bridge's token for a session's room: it subscribes to every human's microphone and
 * publishes room events and visemes as data. `agent` marks it as a server-side participant.
 */
export const mintServerToken = async (livekit: LiveKitConfig, session: string, ttlSeconds = 24 * 3600): Promise<string> => {
  const token = new AccessToken(livekit.apiKey, livekit.apiSecret, {
    identity: serverIdentity(session),
    name: 'Rehearsal room',
    attributes: { role: 'server' },
    ttl: ttlSeconds,
  });
  token.addGrant({ roomJoin: true, room: roomNameFor(session), canPublish: true, canPublishData: true, canSubscribe: true, agent: true });
  return token.toJwt();
};

/**
 * A persona publisher's token: the bridge joins once per AI persona so every client can place
 * that voice on the persona's avatar (DESIGN.md §5). It publishes audio and data, and hears nobody.
 */
export const mintPersonaToken = async (
  livekit: LiveKitConfig,
  persona: { session: string; participant: string; name: string; avatar: string | null },
  ttlSeconds = 24 * 3600,
): Promise<string> => {
  const token = new AccessToken(livekit.apiKey, livekit.apiSecret, {
    identity: personaIdentity(persona.participant),
    name: persona.name,
    attributes: { role: 'persona', ...(persona.avatar ? { avatar: persona.avatar } : {}) },
    ttl: ttlSeconds,
  });
  token.addGrant({
    roomJoin: true,
    room: roomNameFor(persona.session),
    canPublish: true,
    canPublishSources: [TrackSource.MICROPHONE],
    canPublishData: true,
    canSubscribe: false,
    agent: true,
  });
  return token.toJwt();
};
