/**
 * Voice building blocks: eSpeak synthesis speed (real-time factor, warm, worker round trip
 * included) and Silero VAD cost per 32 ms frame.
 */
import { createSileroVad } from '../server/media/vad';
import { createEspeakSynthesizer } from '../server/providers/synthesis/espeak';
import { percentile, round, type BenchResult } from './timing';

const sentences = [
  'Thanks for the question, I think the pilot showed that cool roofs lowered heat visits by about eight percent.',
  'Could you walk us through how you chose the neighbourhoods, and whether the rollout order was random?',
  'We started with the hottest blocks first, so we matched them on income and age before comparing.',
];

export default async function voiceBench(): Promise<BenchResult[]> {
  const espeak = createEspeakSynthesizer();
  const rtf: number[] = [];
  try {
    for (let i = 0; i < 24; i++) {
      const text = sentences[i % sentences.length]!;
      const begin = performance.now();
      let samples = 0;
      let rate = 22050;
      for await (const chunk of espeak.synthesize({ text, voice: { espeak: i % 2 ? 'en-us+f3' : 'en-us' } })) {
        samples += chunk.pcm.length;
        rate = chunk.sampleRate;
      }
      const ms = performance.now() - begin;
      if (i >= 4) rtf.push(ms / ((samples / rate) * 1000)); // the first runs warm the worker up
    }
  } finally {
    await espeak.close();
  }

  const vad = await createSileroVad();
  const frame = new Float32Array(512);
  const frameUs: number[] = [];
  try {
    for (let i = 0; i < 1200; i++) {
      for (let j = 0; j < frame.length; j++) frame[j] = Math.sin((i * 512 + j) * 0.05) * (i % 40 < 20 ? 0.3 : 0.001);
      const begin = process.hrtime.bigint();
      await vad.frame(frame);
      if (i >= 200) frameUs.push(Number(process.hrtime.bigint() - begin) / 1000);
    }
  } finally {
    await vad.close();
  }

  return [
    { name: 'tts.espeak.rtf', value: round(percentile(rtf, 50), 4), unit: 'ratio' },
    { name: 'tts.espeak.rtf_p95', value: round(percentile(rtf, 95), 4), unit: 'ratio' },
    { name: 'vad.frame_us', value: round(percentile(frameUs, 50), 1), unit: 'us' },
    { name: 'vad.frame_p99_us', value: round(percentile(frameUs, 99), 1), unit: 'us' },
  ];
}
