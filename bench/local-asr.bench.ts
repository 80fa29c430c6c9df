/**
 * The in-process recogniser (server/providers/transcription/local.ts) with a model of
 * `base.en`'s shape (q5_1, as `ggml-base.en-q5_1.bin`), written here with made-up weights
 * (tests/fixtures/models/ggml-whisper.ts): every multiplication a real one does, so the times
 * hold; the words do not. Two threads, as on the 2-core target, on whisper.cpp built for this CPU
 * (whisper-build.ts; built first if this machine has not yet, which the figures leave out).
 *
 *   npm run bench -- asr
 *
 * - local-asr.load_ms: the model file to a ready context.
 * - local-asr.first_partial_ms: the first pause's transcript (the first 2 s of speech), which
 *   endpointing waits for (conversation/listen.ts).
 * - local-asr.rtf: audio seconds per second of processing for a 4.5 s utterance (above 1 is
 *   faster than real time); local-asr.cpu_s: CPU seconds the same call took (load-independent
 *   on a shared machine).
 * - local-asr.rss_mb: the process's resident memory with the model loaded.
 * - local-asr.cpu_per_audio_s, local-asr.tiny_en.cpu_per_audio_s: CPU seconds per second of audio
 *   with one thread (no threads spinning at a barrier on a busy machine), base.en's and tiny.en's
 *   shapes; below 0.5, two cores keep up with speech.
 * - local-asr.wer: word error rate on tests/fixtures/speech (manifest.json) with the real model
 *   named by LOCAL_ASR_MODEL, when one is set and the set has recordings.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { round, timeAsync, type Bench, type BenchResult } from './timing';
import { wordErrorRate } from './wer';
import { createLocalTranscriber } from '../server/providers/transcription/local';
import { decodeWav } from '../shared/wav';
import { loadAudioFixture } from '../tests/fixtures/audio/fixtures';
import { baseEnWhisper, tinyEnWhisper, writeWhisperModel, type WhisperShape } from '../tests/fixtures/models/ggml-whisper';
import { whisperBuildDir } from '../tests/fixtures/models/whisper-runtime';
import { buildWhisperAddon } from '../server/providers/transcription/whisper-build';
import { loadSpeechManifest, speechFixtureDir, type SpeechClip } from '../tests/fixtures/speech/manifest';

const threads = 2;

/** CPU seconds per audio second for a 4.5 s utterance, one thread. */
const cpuPerAudioSecond = async (dir: string, shape: WhisperShape, name: string, pcm: Int16Array): Promise<number> => {
  const local = createLocalTranscriber({ modelPath: await writeWhisperModel(join(dir, name), shape), threads: 1, build: whisperBuildDir });
  await local.ready;
  const cpu = process.cpuUsage();
  await local.transcribe({ pcm, sampleRate: 16_000, language: 'en' });
  const { user, system } = process.cpuUsage(cpu);
  return round((user + system) / 1e6 / (pcm.length / 16_000), 3);
};

const speed = async (): Promise<BenchResult[]> => {
  const dir = mkdtempSync(join(tmpdir(), 'local-asr-bench-'));
  try {
    await buildWhisperAddon({ dir: whisperBuildDir, log: (line) => process.stderr.write(`local-asr: ${line}\n`) });
    const modelPath = await writeWhisperModel(join(dir, 'ggml-base.en-shaped-q5_1.bin'), baseEnWhisper);
    const local = createLocalTranscriber({ modelPath, threads, build: whisperBuildDir });
    const { ms: loadMs } = await timeAsync(() => local.ready);
    const { pcm } = await loadAudioFixture('hello-pause');
    const request = { sampleRate: 16_000, language: 'en', hints: ['Nora Lind', 'Omar'] };
    const { ms: partialMs } = await timeAsync(() => local.transcribe({ ...request, pcm: pcm.subarray(0, 32_000) }));
    const cpu = process.cpuUsage();
    const { ms } = await timeAsync(() => local.transcribe({ ...request, pcm }));
    const { user, system } = process.cpuUsage(cpu);
    return [
      { name: 'local-asr.load_ms', value: round(loadMs, 0), unit: 'ms' },
      { name: 'local-asr.first_partial_ms', value: round(partialMs, 0), unit: 'ms' },
      { name: 'local-asr.rtf', value: round(pcm.length / 16_000 / (ms / 1000)), unit: 'x' },
      { name: 'local-asr.cpu_s', value: round((user + system) / 1e6, 2), unit: 's' },
      { name: 'local-asr.rss_mb', value: round(process.memoryUsage().rss / 2 ** 20, 0), unit: 'MB' },
      { name: 'local-asr.cpu_per_audio_s', value: await cpuPerAudioSecond(dir, baseEnWhisper, 'ggml-base.en-shaped-1t.bin', pcm), unit: 's/s' },
      { name: 'local-asr.tiny_en.cpu_per_audio_s', value: await cpuPerAudioSecond(dir, tinyEnWhisper, 'ggml-tiny.en-shaped.bin', pcm), unit: 's/s' },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/** WER with a real model on real speech; nothing when either is missing (said on stderr). */
const accuracy = async (): Promise<BenchResult[]> => {
  const modelPath = process.env.LOCAL_ASR_MODEL?.trim();
  const clips = await loadSpeechManifest();
  if (!modelPath || clips.length === 0) {
    process.stderr.write(`local-asr: no word error rate: ${!modelPath ? 'LOCAL_ASR_MODEL names no real model' : 'tests/fixtures/speech has no recordings yet'}\n`);
    return [];
  }
  const local = createLocalTranscriber({ modelPath, threads, build: whisperBuildDir });
  const pairs: { reference: string; hypothesis: string; kind: SpeechClip['kind'] }[] = [];
  for (const clip of clips) {
    const { pcm, sampleRate } = decodeWav(await readFile(join(speechFixtureDir, clip.file)));
    const { text } = await local.transcribe({ pcm, sampleRate, language: 'en' });
    pairs.push({ reference: clip.text, hypothesis: text, kind: clip.kind });
  }
  return [
    { name: 'local-asr.wer', value: round(wordErrorRate(pairs), 4), unit: 'ratio' },
    ...(['read', 'rehearsal'] as const)
      .filter((kind) => pairs.some((p) => p.kind === kind))
      .map((kind) => ({ name: `local-asr.wer_${kind}`, value: round(wordErrorRate(pairs.filter((p) => p.kind === kind)), 4), unit: 'ratio' })),
  ];
};

const bench: Bench = async () => [...(await speed()), ...(await accuracy())];
export default bench;
