/**
 * The persona inspector's play button, server side: POST /api/scenes/voice-sample speaks a line in
 * a participant's voice as a session would give it (their scene voice, else voicesOf's default),
 * through the server's synthesizer (the embedded eSpeak here), as WAV; only for the author, a bad
 * or unknown voice 422 in the schema's or eSpeak's words, at most a dozen a minute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEspeakSynthesizer } from '../../server/providers/synthesis/espeak';
import { decodeWav } from '../../shared/wav';
import { createSession, startServer, type InProcessServer } from './helpers';

const espeak = createEspeakSynthesizer({ workers: 1 });
let server: InProcessServer;
let silent: InProcessServer;

beforeAll(async () => {
  server = await startServer({ synthesizer: () => espeak });
  silent = await startServer();
});
afterAll(async () => {
  await Promise.all([server.close(), silent.close()]);
  await espeak.close();
});

const dana = { id: 'dana', voice: { espeak: 'en-gb+f3', rate: 180 } };
const sample = (on: InProcessServer, body: unknown, token = on.admin) =>
  fetch(`${on.base}/api/scenes/voice-sample`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
const messageOf = async (res: Response) => ((await res.json()) as { message: string }).message;

describe('a voice sample', () => {
  it("speaks the line in the participant's voice as WAV", async () => {
    const res = await sample(server, { text: 'Hello, I am Dana from finance.', participant: 'dana', participants: [dana] });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(res.headers.get('x-voice')).toBe('en-gb+f3; 180 wpm');
    const { pcm, sampleRate } = decodeWav(Buffer.from(await res.arrayBuffer()));
    expect(sampleRate).toBe(22050);
    // About two seconds of speech, and not silence.
    expect(pcm.length / sampleRate).toBeGreaterThan(1);
    expect(pcm.some((s) => Math.abs(s) > 1000)).toBe(true);
  });

  it('gives a participant without a voice the default a session would give them, at their speaking rate', async () => {
    const res = await sample(server, { text: 'Hello.', participant: 'omar', participants: [dana, { id: 'omar', persona: { speakingRate: 120 } }] });
    expect(res.status).toBe(200);
    // en-gb+f3 is Dana's: a default never takes a voice another participant has.
    expect(res.headers.get('x-voice')).toMatch(/^en-(us|gb)\+[mf]\d; 120 wpm$/);
    expect(res.headers.get('x-voice')).not.toMatch(/^en-gb\+f3/);
  });

  it('refuses a voice eSpeak does not have, or one the schema refuses, with 422 and their words', async () => {
    const unknown = await sample(server, { text: 'Hello.', participant: 'dana', participants: [{ id: 'dana', voice: { espeak: 'en-us+nobody' } }] });
    expect(unknown.status).toBe(422);
    expect(await messageOf(unknown)).toMatch(/^The server's synthesizer has no such voice \(eSpeak: unknown voice variant "nobody" \(known: .*f3.*\)\)\.$/);
    const tooFast = await sample(server, { text: 'Hello.', participant: 'dana', participants: [{ id: 'dana', voice: { rate: 900 } }] });
    expect(tooFast.status).toBe(422);
    expect(await messageOf(tooFast)).toMatch(/^participants\[0\]\.voice\.rate: /);
    const nobody = await sample(server, { text: 'Hello.', participant: 'zoe', participants: [dana] });
    expect(nobody.status).toBe(422);
    expect((await sample(silent, { text: '', participant: 'dana', participants: [dana] })).status).toBe(400);
    expect((await sample(silent, { text: 'x'.repeat(201), participant: 'dana', participants: [dana] })).status).toBe(400);
  });

  it("is the author's only", async () => {
    const body = { text: 'Hello.', participant: 'dana', participants: [dana] };
    expect((await fetch(`${server.base}/api/scenes/voice-sample`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status).toBe(401);
    const { tokens } = await createSession(server, 'team-standup');
    const observer = tokens.observer!;
    const refused = await sample(server, body, observer);
    expect(refused.status).toBe(403);
  });

  it('says so on a server without voices', async () => {
    const res = await sample(silent, { text: 'Hello.', participant: 'dana', participants: [dana] });
    expect(res.status).toBe(503);
    expect(await messageOf(res)).toMatch(/SYNTHESIZER=none/);
  });

  it('lets six samples through at once, then says when to play again', async () => {
    const fresh = await startServer();
    try {
      const body = { text: 'Hi.', participant: 'dana', participants: [dana] };
      const statuses = [];
      for (let i = 0; i < 7; i++) statuses.push((await sample(fresh, body)).status);
      expect(statuses).toEqual([503, 503, 503, 503, 503, 503, 429]);
      const refused = await sample(fresh, body);
      expect(refused.headers.get('retry-after')).toMatch(/^[1-5]$/);
      expect(await messageOf(refused)).toMatch(/^At most 12 voice samples a minute; play again in [1-5] s\.$/);
    } finally {
      await fresh.close();
    }
  });
});
