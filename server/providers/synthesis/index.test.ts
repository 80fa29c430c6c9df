import { afterAll, describe, expect, it } from 'vitest';
import { startFakeElevenLabs } from '../../../tests/fakes/elevenlabs-server';
import { createSynthesizer } from './index';

describe('createSynthesizer', () => {
  const fakes: { close(): Promise<void> }[] = [];
  afterAll(() => Promise.all(fakes.map((f) => f.close())));

  it('gives nothing for none, and eSpeak by name', async () => {
    expect(createSynthesizer('none', {})).toBeNull();
    const espeak = createSynthesizer('espeak', {})!;
    expect(espeak.name).toBe('espeak');
    await espeak.close?.();
  });

  it('names the missing or bad ElevenLabs variable', () => {
    expect(() => createSynthesizer('elevenlabs', {})).toThrow(/ELEVENLABS_API_KEY is not set/);
    expect(() => createSynthesizer('elevenlabs', { ELEVENLABS_API_KEY: 'k', ELEVENLABS_BASE_URL: 'ftp://x' })).toThrow(/ELEVENLABS_BASE_URL must be an http/);
  });

  it('puts eSpeak phonemes under ElevenLabs character timestamps', async () => {
    const fake = await startFakeElevenLabs();
    fakes.push(fake);
    fake.script({ chunks: ['papa ', 'fee'] });
    const eleven = createSynthesizer('elevenlabs', { ELEVENLABS_API_KEY: 'test-key', ELEVENLABS_BASE_URL: fake.baseUrl })!;
    const cues = [];
    for await (const chunk of eleven.synthesize({ text: 'papa fee', voice: { elevenlabs: 'voice-1' } })) cues.push(...chunk.cues);
    const spoken = cues.map((c) => c.viseme).filter((v) => v !== 'sil');
    expect(spoken[0]).toBe('PP');
    expect(spoken).toContain('FF');
    for (let i = 1; i < cues.length; i++) expect(cues[i]!.t).toBeGreaterThanOrEqual(cues[i - 1]!.t);
  });
});
