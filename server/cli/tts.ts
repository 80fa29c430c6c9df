/**
 * Speaks a text with the embedded eSpeak NG synthesizer: a WAV file and its viseme timeline.
 *
 *   npm run -s tts -- --text "Hello there. How are you?" --voice en-us+f3 --out hello.wav --cues hello.json
 *
 * The cues file is {"sampleRate", "durationMs", "cues": [{"t", "viseme"}], "words": [{"word", "start", "end"}]},
 * times in ms from the start of the audio: what an avatar needs to lip-sync the WAV.
 */
import { writeFile } from 'node:fs/promises';
import { optionsOrExit, readCommandLine, UsageError } from './command-line';
import { createEspeakSynthesizer } from '../providers/synthesis/espeak';
import type { VisemeCue, WordTiming } from '../providers/synthesis/port';
import { encodeWav } from '../../shared/wav';

const usage = `Usage: npm run -s tts -- --text "<text>" --out <file.wav> [options]

Synthesizes <text> with eSpeak NG and writes
  <file.wav>    the speech, PCM16 mono
  <file.json>   with --cues: {sampleRate, durationMs, cues, words}, times in ms

Options:
  --text <text>     what to say (required)
  --out <file.wav>  where to write the audio (required)
  --cues <file>     where to write the viseme cues and word timings
  --voice <voice>   eSpeak voice or language, optionally with a variant:
                    en-us, en-gb, en-us+f3, en-gb+m3 (default en-us)
  --pitch <0-99>    eSpeak pitch (default 50)
  --rate <80-450>   words per minute (default 175)
  -h, --help        show this help
`;

interface Options {
  text: string;
  out: string;
  cues: string | undefined;
  voice: string | undefined;
  pitch: number | undefined;
  rate: number | undefined;
}

const integer = (flag: string, value: string | undefined, min: number, max: number): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < min || n > max) throw new UsageError(`${flag} expects an integer from ${min} to ${max}, got "${value}"`);
  return n;
};

/** Returns `null` when help was asked for. */
const parseOptions = (argv: string[]): Options | null => {
  const { values } = readCommandLine(argv, {
    text: { type: 'string' },
    out: { type: 'string' },
    cues: { type: 'string' },
    voice: { type: 'string' },
    pitch: { type: 'string' },
    rate: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return null;
  if (!values.text?.trim()) throw new UsageError('missing --text "<what to say>"');
  if (!values.out) throw new UsageError('missing --out <file.wav>');
  return {
    text: values.text,
    out: values.out,
    cues: values.cues,
    voice: values.voice,
    pitch: integer('--pitch', values.pitch, 0, 99),
    rate: integer('--rate', values.rate, 80, 450),
  };
};

const main = async (argv: string[]): Promise<number> => {
  const options = optionsOrExit('tts', usage, () => parseOptions(argv));
  if (typeof options === 'number') return options;

  const espeak = createEspeakSynthesizer();
  const pieces: Int16Array[] = [];
  const cues: VisemeCue[] = [];
  const words: WordTiming[] = [];
  let sampleRate = 0;
  try {
    const voice = { espeak: options.voice, pitch: options.pitch, rate: options.rate };
    for await (const chunk of espeak.synthesize({ text: options.text, voice })) {
      pieces.push(chunk.pcm);
      // Each sentence opens and closes with sil: one timeline needs only one between them.
      for (const cue of chunk.cues) if (cue.viseme !== cues.at(-1)?.viseme) cues.push(cue);
      words.push(...chunk.words);
      sampleRate = chunk.sampleRate;
    }
  } catch (error) {
    process.stderr.write(`tts: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await espeak.close();
  }

  if (pieces.length === 0) {
    process.stderr.write('tts: eSpeak produced no audio for this text\n');
    return 1;
  }
  const pcm = new Int16Array(pieces.reduce((n, piece) => n + piece.length, 0));
  pieces.reduce((at, piece) => (pcm.set(piece, at), at + piece.length), 0);
  const durationMs = (pcm.length / sampleRate) * 1000;
  await writeFile(options.out, encodeWav(pcm, sampleRate));
  if (options.cues) await writeFile(options.cues, `${JSON.stringify({ sampleRate, durationMs, cues, words }, null, 2)}\n`);
  process.stdout.write(
    `tts: wrote ${options.out} (${(durationMs / 1000).toFixed(2)} s at ${sampleRate} Hz)` +
      (options.cues ? ` and ${options.cues} (${cues.length} cues, ${words.length} words)` : '') +
      '\n',
  );
  return 0;
};

process.exitCode = await main(process.argv.slice(2));
