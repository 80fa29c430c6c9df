/**
 * What a LiveKit server sends to our webhook, made here since no LiveKit server can run in tests:
 * the event as protobuf JSON (lowerCamelCase, e.g. `{"event": "participant_joined", "room": {"name": …},
 * "participant": {"sid": …, "identity": …}, "createdAt": "…"}`), and in `Authorization` a JWT signed with the API key and secret whose `sha256`
 * claim is the body's base64 SHA-256 (as livekit-server-sdk's WebhookReceiver checks it).
 */
import { createHash } from 'node:crypto';
import { AccessToken } from 'livekit-server-sdk';

export const signWebhookBody = async (body: string, apiKey: string, apiSecret: string): Promise<string> => {
  const token = new AccessToken(apiKey, apiSecret, { ttl: 300 });
  token.sha256 = createHash('sha256').update(body).digest('base64');
  return token.toJwt();
};

export const signedWebhook = async (
  event: { event: string } & Record<string, unknown>,
  apiKey: string,
  apiSecret: string,
): Promise<{ body: string; authorization: string }> => {
  const body = JSON.stringify({ id: 'EV_test', createdAt: String(Math.floor(Date.now() / 1000)), ...event });
  return { body, authorization: await signWebhookBody(body, apiKey, apiSecret) };
};
