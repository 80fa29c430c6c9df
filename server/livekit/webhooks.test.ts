import { describe, expect, it } from 'vitest';
import { signedWebhook as signed, signWebhookBody } from '../../tests/fakes/livekit';
import { roomNameFor } from './tokens';
import { createWebhookHandler } from './webhooks';

const apiKey = 'devkey';
const apiSecret = 'a-test-secret-that-is-at-least-32-characters';

const signedWebhook = (event: Parameters<typeof signed>[0], key = apiKey, secret = apiSecret) => signed(event, key, secret);

const joined = (session: string, identity: string, sid = `PA_${identity}`) => ({
  event: 'participant_joined',
  room: { name: roomNameFor(session) },
  participant: { identity, sid },
});
const left = (session: string, identity: string, sid = `PA_${identity}`) => ({ ...joined(session, identity, sid), event: 'participant_left' });

const handler = () => {
  const calls: [string, string, boolean][] = [];
  const receive = createWebhookHandler({ apiKey, apiSecret, onPresence: (...call) => calls.push(call) });
  return { calls, receive };
};

describe('createWebhookHandler', () => {
  it("reports a human joining and leaving a session's room", async () => {
    const { calls, receive } = handler();
    const enter = await signedWebhook(joined('s1', 'ana'));
    expect(await receive(enter.body, enter.authorization)).toEqual({ ok: true, event: 'participant_joined' });
    const exit = await signedWebhook(left('s1', 'ana'));
    expect(await receive(exit.body, `Bearer ${exit.authorization}`)).toEqual({ ok: true, event: 'participant_left' });
    expect(calls).toEqual([
      ['s1', 'ana', true],
      ['s1', 'ana', false],
    ]);
  });

  it('ignores personas, the bridge, observers, other rooms and other events', async () => {
    const { calls, receive } = handler();
    for (const event of [
      joined('s1', 'persona:dr-lee'),
      joined('s1', 'server:s1'),
      joined('s1', 'observer:abc'),
      { ...joined('s1', 'ana'), room: { name: 'not-ours' } },
      { event: 'room_started', room: { name: roomNameFor('s1') } },
      { event: 'track_published', room: { name: roomNameFor('s1') }, participant: { identity: 'ana', sid: 'PA_1' } },
    ]) {
      const { body, authorization } = await signedWebhook(event);
      expect((await receive(body, authorization)).ok).toBe(true);
    }
    expect(calls).toEqual([]);
  });

  it('keeps a human present when a reload joins again before the old connection leaves', async () => {
    const { calls, receive } = handler();
    for (const event of [joined('s1', 'ana', 'PA_old'), joined('s1', 'ana', 'PA_new'), left('s1', 'ana', 'PA_old'), left('s1', 'ana', 'PA_new')]) {
      const { body, authorization } = await signedWebhook(event);
      await receive(body, authorization);
    }
    expect(calls.map(([, , present]) => present)).toEqual([true, true, true, false]);
  });

  it('refuses a webhook without a signature', async () => {
    const { calls, receive } = handler();
    const { body } = await signedWebhook(joined('s1', 'ana'));
    expect(await receive(body, undefined)).toMatchObject({ ok: false, reason: 'unsigned' });
    expect(await receive(body, '  ')).toMatchObject({ ok: false, reason: 'unsigned' });
    expect(calls).toEqual([]);
  });

  it('refuses a webhook signed with another key or secret', async () => {
    const { calls, receive } = handler();
    const otherKey = await signedWebhook(joined('s1', 'ana'), 'otherkey');
    expect(await receive(otherKey.body, otherKey.authorization)).toMatchObject({ ok: false, reason: 'bad-signature' });
    const otherSecret = await signedWebhook(joined('s1', 'ana'), apiKey, 'another-secret-another-secret-another');
    expect(await receive(otherSecret.body, otherSecret.authorization)).toMatchObject({ ok: false, reason: 'bad-signature' });
    expect(await receive(otherSecret.body, 'not-a-jwt')).toMatchObject({ ok: false, reason: 'bad-signature' });
    expect(calls).toEqual([]);
  });

  it('refuses a body changed after signing', async () => {
    const { calls, receive } = handler();
    const { body, authorization } = await signedWebhook(joined('s1', 'ana'));
    expect(await receive(body.replace('ana', 'bob'), authorization)).toMatchObject({ ok: false, reason: 'bad-signature' });
    expect(calls).toEqual([]);
  });

  it('calls a correctly signed body that is not an event malformed', async () => {
    const { receive } = handler();
    const body = '{"event": ';
    expect(await receive(body, await signWebhookBody(body, apiKey, apiSecret))).toMatchObject({ ok: false, reason: 'malformed' });
  });
});
