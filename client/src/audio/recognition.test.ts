import { describe, expect, it } from 'vitest';
import { hasRecognition, recognisesOnDevice, startRecognition } from './recognition';

/** A stand-in for the browser's SpeechRecognition that the test drives. */
const fakeRecognition = (availability?: string) => {
  const made: FakeRecognizer[] = [];
  class FakeRecognizer {
    lang = '';
    continuous = false;
    interimResults = true;
    processLocally = false;
    starts = 0;
    stops = 0;
    onresult: ((event: unknown) => void) | null = null;
    onerror: ((event: { error: string }) => void) | null = null;
    onend: (() => void) | null = null;
    constructor() {
      made.push(this);
    }
    start() {
      this.starts++;
    }
    stop() {
      this.stops++;
    }
    say(text: string, isFinal: boolean) {
      this.onresult?.({ resultIndex: 0, results: [Object.assign([{ transcript: text }], { isFinal })] });
    }
    static available = availability === undefined ? undefined : async () => availability;
  }
  return { scope: { webkitSpeechRecognition: FakeRecognizer }, made };
};

describe("the browser's speech recognition", () => {
  it('is on the device only when the browser says the language is available there', async () => {
    expect(hasRecognition({})).toBe(false);
    expect(hasRecognition(fakeRecognition().scope)).toBe(true);
    expect(await recognisesOnDevice('en-US', {})).toBe(false);
    expect(await recognisesOnDevice('en-US', fakeRecognition().scope)).toBe(false);
    expect(await recognisesOnDevice('en-US', fakeRecognition('downloadable').scope)).toBe(false);
    expect(await recognisesOnDevice('en-US', fakeRecognition('available').scope)).toBe(true);
  });

  it('asks for on-device processing when it is available, and passes on final results only', () => {
    const { scope, made } = fakeRecognition('available');
    const said: string[] = [];
    startRecognition({ lang: 'en-GB', onDevice: true, onFinal: (text) => said.push(text), onError: () => {} }, scope);
    const recognizer = made[0]!;
    expect(recognizer).toMatchObject({ lang: 'en-GB', continuous: true, interimResults: false, processLocally: true, starts: 1 });
    recognizer.say('I think we', false);
    recognizer.say(' I think we should ship on Friday ', true);
    expect(said).toEqual(['I think we should ship on Friday']);
  });

  it('listens again when the browser ends a session, until stopped or refused', () => {
    const { scope, made } = fakeRecognition();
    const errors: string[] = [];
    const recognition = startRecognition({ lang: 'en-US', onDevice: false, onFinal: () => {}, onError: (message) => errors.push(message) }, scope);
    const recognizer = made[0]!;
    expect(recognizer.processLocally).toBe(false);
    recognizer.onerror!({ error: 'no-speech' });
    recognizer.onend!();
    expect(recognizer.starts).toBe(2);
    recognition.stop();
    recognizer.onend!();
    expect(recognizer.starts).toBe(2);

    const refused = fakeRecognition();
    startRecognition({ lang: 'en-US', onDevice: false, onFinal: () => {}, onError: (message) => errors.push(message) }, refused.scope);
    refused.made[0]!.onerror!({ error: 'not-allowed' });
    refused.made[0]!.onend!();
    expect(refused.made[0]!.starts).toBe(1);
    expect(errors).toEqual([expect.stringMatching(/did not allow/)]);
  });
});
