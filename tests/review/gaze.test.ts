/**
 * Issue 17, gaze at the speaker: a participant's client in VR sends `gaze` (whom the head points
 * at) when it changes; the room logs it for instructors only, and the report measures it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Report } from '../../shared/review/report';
import { Client, api, closeClients, createSession, createValve, logOf, serverPerFile, type Valve } from '../server/helpers';

let valve: Valve = createValve();

const server = serverPerFile({ generator: () => valve.generator() });
afterEach(async () => {
  valve.allow();
  await closeClients();
});

describe('gaze', () => {
  it('logs where a participant looks for instructors only, and the report measures their gaze at the speaker', async () => {
    valve = createValve(); // nothing is said until the gaze is logged
    const created = await createSession(server, 'team-standup', 'instant');
    const jordan = await Client.connect(server, created.id, created.tokens.jordan!);
    const observer = await Client.connect(server, created.id, created.tokens.observer!);

    jordan.send({ type: 'gaze', at: 'gwen' });
    const logged = await observer.waitForEvent((e) => e.type === 'gaze', 'the gaze event');
    expect(logged).toMatchObject({ type: 'gaze', participant: 'jordan', at: 'gwen', audience: 'observers' });
    // Nobody, themselves, or someone not in the scene: nobody, then nothing logged.
    jordan.send({ type: 'gaze', at: 'jordan' });
    jordan.send({ type: 'gaze', at: 'nobody-here' });
    jordan.send({ type: 'gaze', at: null });
    await observer.waitForEvent((e) => e.type === 'gaze' && e.at === null, 'looking at nobody');
    await jordan.ping();
    expect(jordan.events().some((e) => e.type === 'gaze')).toBe(false);
    expect(jordan.errors()).toEqual([]);

    jordan.send({ type: 'gaze', at: 'gwen' });
    await observer.waitForEvent((e) => e.type === 'gaze' && e.at === 'gwen' && e.seq > logged.seq, 'looking at Gwen again');
    valve.allow(3);
    await observer.waitForEvent((e) => e.type === 'utterance' && e.speaker !== 'jordan', 'someone else speaking');
    const gazes = (await logOf(server, created.id)).filter((e) => e.type === 'gaze');
    expect(gazes.map((e) => (e.type === 'gaze' ? e.at : undefined))).toEqual(['gwen', null, 'gwen']);

    const report = Report.parse(await (await api(server, `/api/sessions/${created.id}/report`, { token: created.tokens.jordan })).json());
    const share = report.participants.find((p) => p.id === 'jordan')!.gazeAtSpeakerShare;
    expect(share).not.toBeNull();
    expect(share).toBeGreaterThanOrEqual(0);
    expect(share).toBeLessThanOrEqual(1);
    // The personas have no head tracking.
    expect(report.participants.filter((p) => p.id !== 'jordan').every((p) => p.gazeAtSpeakerShare === null)).toBe(true);
  });

  it('is a participant\'s message: an observer sending it is refused', async () => {
    const created = await createSession(server, 'team-standup', 'instant');
    const observer = await Client.connect(server, created.id, created.tokens.observer!);
    expect(await observer.expectError({ type: 'gaze', at: 'gwen' })).toMatchObject({ code: 'forbidden' });
  });
});
