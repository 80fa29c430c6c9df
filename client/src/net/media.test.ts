import { describe, expect, it } from 'vitest';
import { mediaTransport, micOffer, micOfferText, participantOf, recognitionPrivacy } from './media';

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

describe('what the microphone offers', () => {
  it('leaves the microphone to the server when it transcribes', () => {
    expect(micOffer({ input: true, output: 'espeak' }, true)).toBe('server');
    expect(micOffer(null, false)).toBe('server');
  });

  it("offers the browser's recognition without a transcriber, and says where the audio goes", () => {
    const off = { input: false, output: 'espeak' };
    expect(micOffer(off, true)).toBe('browser');
    expect(micOfferText.browser).toBe("This server has no transcriber: type, or use your browser's speech recognition.");
    expect(micOffer(off, false)).toBe('typing');
    expect(micOfferText.typing).toMatch(/no transcriber.*type to speak/);
    expect(recognitionPrivacy(true)).toMatch(/on this device/);
    expect(recognitionPrivacy(false)).toMatch(/vendor may process the audio/);
  });
});

describe('LiveKit data topics', () => {
  it('turns each topic back into the protocol message it carries; cues become sample-less audio with a length', async () => {
    const { fromTopic } = await import('./media');
    const event = { type: 'event', event: { seq: 4, t: 100, type: 'floor', speaker: 'nora', reason: 'designated' } };
    expect(fromTopic('rehearsal.events', JSON.stringify(event))).toEqual(event);
    // An event not for everyone passes on the shared topic as its seq alone.
    expect(fromTopic('rehearsal.events', JSON.stringify({ type: 'seq', seq: 5 }))).toEqual({ type: 'seq', seq: 5 });
    expect(fromTopic('rehearsal.deltas', JSON.stringify({ type: 'delta', speaker: 'nora', draft: 'g3', text: 'Hi' }))).toMatchObject({ type: 'delta', text: 'Hi' });
    const cue = { type: 'audio', speaker: 'nora', draft: 'g3', seq: 1, offsetMs: 1000, sampleRate: 22050, cues: [{ t: 1000, viseme: 'aa' }, { t: 1400, viseme: 'sil' }], words: [{ word: 'Hi', start: 1000, end: 1450 }] };
    expect(fromTopic('rehearsal.cues', JSON.stringify(cue))).toEqual({ ...cue, pcm: '', durationMs: 450 });
    expect(fromTopic('rehearsal.control', JSON.stringify({ type: 'audio-stop', speaker: 'nora', draft: 'g3', atMs: 300, reason: 'barge-in' }))).toMatchObject({ type: 'audio-stop', atMs: 300 });
  });

  it('ignores other topics and malformed payloads', async () => {
    const { fromTopic } = await import('./media');
    expect(fromTopic('chat', JSON.stringify({ type: 'pong' }))).toBeNull();
    expect(fromTopic('rehearsal.events', '{not json')).toBeNull();
    expect(fromTopic('rehearsal.events', JSON.stringify({ type: 'event', event: { seq: 'x' } }))).toBeNull();
    expect(fromTopic('rehearsal.cues', JSON.stringify({ type: 'audio' }))).toBeNull();
  });
});
