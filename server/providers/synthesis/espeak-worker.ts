/**
 * The eSpeak NG process. eSpeak NG is GPL-3.0 and synthesizes synchronously, so it runs here, in
 * a child process of the server (forked by espeak.ts), never in the server's own process or on its
 * event loop. It answers one request at a time over the IPC channel (advanced serialization, so
 * PCM crosses as an Int16Array):
 *
 *   -> { type: 'synthesize', id, text, voice: 'en-us+f3', pitch: 0-99, rate: wpm }
 *   <- { type: 'speech', id, sampleRate, pcm, sentences, phonemes, words }
 *   -> { type: 'phonemize', id, text, voice }
 *   <- { type: 'phonemes', id, words: [{ word, phonemes }] }
 *   <- { type: 'error', id, message }        and { type: 'ready' } once, when eSpeak is loaded
 *
 * The worker dies with the server, however the server ends: on the channel's close when idle, and
 * mid-synthesis as soon as it sees it was orphaned (a SIGKILLed server closes nothing; eSpeak
 * synthesizes synchronously, so no event could tell it). A reply that finds the server gone ends
 * the worker quietly, with no EPIPE trace.
 *
 * Times are ms from the start of the request's audio. Phonemes are IPA without stress marks; a
 * pause is "_". Words are the text's whitespace-separated tokens, so "42" or "U.S.A." is one word
 * even though eSpeak reads it as several.
 */
// @ts-expect-error The package ships no type declarations; the part used here is typed below.
import createEspeak from '@echogarden/espeak-ng-emscripten';
import type { WordTiming } from './port';
import { phonemesToVisemes, type PhonemeTiming } from './visemes';

export type WorkerRequest =
  | { type: 'synthesize'; id: number; text: string; voice: string; pitch: number; rate: number }
  | { type: 'phonemize'; id: number; text: string; voice: string };

export interface PhonemizedWord {
  word: string;
  phonemes: string[];
}

export type WorkerReply =
  | { type: 'ready' }
  | {
      type: 'speech';
      id: number;
      sampleRate: number;
      pcm: Int16Array;
      /** Sentence spans in ms, in order, covering the audio. */
      sentences: { start: number; end: number }[];
      phonemes: PhonemeTiming[];
      words: WordTiming[];
    }
  | { type: 'phonemes'; id: number; words: PhonemizedWord[] }
  | { type: 'error'; id: number; message: string };

// ------------------------------------------------------------------ the emscripten module

interface EspeakEvent {
  type: 'list_terminated' | 'word' | 'sentence' | 'mark' | 'play' | 'end' | 'msg_terminated' | 'phoneme' | 'samplerate';
  /** ms of audio before the event. */
  audio_position: number;
  /** 1-based code point position in the text. */
  text_position: number;
  word_length: number;
  id?: string | number;
}

interface EspeakEngine {
  readonly samplerate: number;
  list_voices(): { name: string; identifier: string; languages: { priority: number; name: string }[] }[];
  set_voice(name: string): number;
  set_pitch(pitch: number): void;
  set_rate(rate: number): void;
  /** A pointer to a new[]-allocated UTF-8 string: IPA, phonemes joined by "_", words by " ", clauses by " | ". */
  convert_to_phonemes(text: string, ipa: boolean): { ptr: number };
  /** Calls back with each buffer of samples and the events inside it; returning true stops. */
  synthesize(text: string, callback: (samples: Int16Array | undefined, events: EspeakEvent[]) => boolean): void;
}

interface EspeakModule {
  eSpeakNGWorker: new () => EspeakEngine;
  FS: { readdir(path: string): string[] };
  HEAPU8: Uint8Array;
  _free(pointer: number): void;
}

/** Where the module's bundled file system keeps the voice variants (f3, m2, klatt, ...). */
const variantFolder = '/usr/share/espeak-ng-data/voices/!v';

/** A mistake in the request (an unknown voice): answered, and the engine stays up. */
class RequestError extends Error {}

// ------------------------------------------------------------------ the text eSpeak reads

/**
 * The emscripten build reads its input as SSML with inline phonemes, so `<` and `&` would start
 * markup and `[[` phoneme mnemonics. `&` is said as a word, brackets as parentheses, and `origin`
 * maps each code point eSpeak reads back to the code point of the caller's text it came from.
 */
const ssmlSafe: Record<string, string> = { '&': ' and ', '<': ' ', '>': ' ', '[': '(', ']': ')' };

/** A whitespace-separated token of the caller's text; `start` (in code points) identifies it. */
interface Token {
  start: number;
  end: number;
  /** The token without its outer punctuation ("U.S.A", "42", "don't"). */
  word: string;
}

interface Reading {
  spoken: string;
  origin: number[];
  tokens: Token[];
}

const reading = (text: string): Reading => {
  const source = [...text];
  let spoken = '';
  const origin: number[] = [];
  source.forEach((char, i) => {
    for (const c of ssmlSafe[char] ?? char) {
      spoken += c;
      origin.push(i);
    }
  });
  const spans: { start: number; end: number }[] = [];
  source.forEach((char, i) => {
    if (/\s/u.test(char)) return;
    const last = spans.at(-1);
    if (last?.end === i) last.end = i + 1;
    else spans.push({ start: i, end: i + 1 });
  });
  const tokens = spans.map(({ start, end }) => {
    const raw = source.slice(start, end).join('');
    return { start, end, word: raw.replace(/^\p{P}+|\p{P}+$/gu, '') || raw };
  });
  return { spoken, origin, tokens };
};

// ------------------------------------------------------------------ synthesis

/**
 * The id of a phoneme event is a char[8] without a terminator when full, so the glue code reads
 * past it ("ˈɔːɹ" arrives as "ˈɔːɹ\x07..."): keep 8 bytes, drop a cut character, drop stress.
 */
const phonemeOf = (id: string): string => {
  const bytes = new TextEncoder().encode(id).subarray(0, 8);
  return new TextDecoder().decode(bytes).replace(/[\uFFFD\p{Cc}ˈˌ]/gu, '');
};

interface Timeline {
  sampleRate: number;
  pcm: Int16Array;
  sentences: { start: number; end: number }[];
  phonemes: PhonemeTiming[];
  words: (WordTiming & { phonemes: string[] })[];
}

/** A word of the text and the phonemes (indices into the timeline) eSpeak gave it. */
interface Spoken {
  token: Token;
  indices: number[];
}

const synthesize = (engine: EspeakEngine, text: string, alone: (word: string) => string[]): Timeline => {
  const { spoken, origin, tokens } = reading(text);
  const buffers: Int16Array[] = [];
  const events: EspeakEvent[] = [];
  engine.synthesize(spoken, (samples, batch) => {
    // A long text keeps eSpeak busy for seconds, with no event loop to hear the server go.
    if (orphaned()) process.exit(0);
    if (samples && samples.length > 0) buffers.push(samples);
    events.push(...batch);
    return false;
  });
  const pcm = new Int16Array(buffers.reduce((n, b) => n + b.length, 0));
  buffers.reduce((at, b) => (pcm.set(b, at), at + b.length), 0);
  const sampleRate = engine.samplerate;
  const duration = (pcm.length / sampleRate) * 1000;

  // Each phoneme lasts until the next one starts; the silence before the first is a pause.
  const phonemes: PhonemeTiming[] = [];
  const words: Spoken[] = [];
  const starts = new Set([0]);
  for (const event of events) {
    const t = Math.min(event.audio_position, duration);
    if (event.type === 'sentence') starts.add(t);
    if (event.type === 'word') {
      const at = origin[event.text_position - 1] ?? Infinity;
      const token = tokens.find((k) => at < k.end) ?? tokens.at(-1);
      // eSpeak reads "42" as two words at overlapping positions: both belong to the one token.
      if (token && words.at(-1)?.token !== token) words.push({ token, indices: [] });
    }
    if (event.type !== 'phoneme' || typeof event.id !== 'string' || event.id.startsWith('(')) continue;
    const previous = phonemes.at(-1);
    if (previous) previous.end = t;
    else if (t > 0) phonemes.push({ phoneme: '_', start: 0, end: t });
    const phoneme = phonemeOf(event.id) || '_';
    phonemes.push({ phoneme, start: t, end: duration });
    if (phoneme !== '_') words.at(-1)?.indices.push(phonemes.length - 1);
  }
  if (phonemes.length === 0 && duration > 0) phonemes.push({ phoneme: '_', start: 0, end: duration });
  const bounds = [...starts].filter((t) => t < duration).sort((a, b) => a - b);
  return {
    sampleRate,
    pcm,
    sentences: bounds.map((start, i) => ({ start, end: bounds[i + 1] ?? duration })),
    phonemes,
    // A word lasts from its first phoneme to the end of its last one.
    words: separate(words, tokens, phonemes, alone)
      .filter(({ indices }) => indices.length > 0)
      .map(({ token, indices }) => ({
        word: token.word,
        start: phonemes[indices[0]!]!.start,
        end: phonemes[indices.at(-1)!]!.end,
        phonemes: indices.map((i) => phonemes[i]!.phoneme),
      })),
  };
};

const mouth = (phonemes: string[]): string => phonemesToVisemes(phonemes).flat().join(' ');

/**
 * eSpeak joins some short words to the word before, with no word event of their own ("from the"
 * is one word /fɹʌmðə/). A word of the text left without one gets its phonemes back from the end
 * of the word before when they sound like the word said alone (same visemes: the joined "of" is
 * /əv/, alone /ʌv/); otherwise the two stay one word.
 */
const separate = (words: Spoken[], tokens: Token[], phonemes: PhonemeTiming[], alone: (word: string) => string[]): Spoken[] =>
  words.flatMap((word, i) => {
    const next = words[i + 1]?.token.start ?? Infinity;
    const skipped = tokens.filter((k) => k.start > word.token.start && k.start < next && /[\p{L}\p{N}]/u.test(k.word));
    const split: Spoken[] = [];
    for (const token of skipped.reverse()) {
      const own = alone(token.word);
      const tail = word.indices.slice(-own.length).map((k) => phonemes[k]!.phoneme);
      if (own.length === 0 || own.length >= word.indices.length || mouth(tail) !== mouth(own)) break;
      split.unshift({ token, indices: word.indices.splice(-own.length) });
    }
    return [word, ...split];
  });

// ------------------------------------------------------------------ voices

/**
 * "en-us", "en-gb+f3", "gmw/en-US", "English (America)": a voice identifier, name or language,
 * with an optional variant. eSpeak's own lookup fails on some language names ("en-gb") and
 * accepts any variant silently, so both are resolved here and an unknown one is an error.
 */
const voiceResolver = (espeak: EspeakModule, engine: EspeakEngine) => {
  const voices = engine.list_voices();
  const variants = espeak.FS.readdir(variantFolder).filter((f) => !f.startsWith('.'));
  const resolved = new Map<string, string>();
  return (requested: string): string => {
    const known = resolved.get(requested);
    if (known) return known;
    const [base = '', variant, ...extra] = requested.trim().split('+');
    const key = base.toLowerCase();
    const voice =
      voices.find((v) => v.identifier.toLowerCase() === key || v.name.toLowerCase() === key) ??
      voices
        .flatMap((v) => v.languages.filter((l) => l.name === key).map((l) => ({ v, priority: l.priority })))
        .sort((a, b) => a.priority - b.priority)[0]?.v;
    if (!voice || extra.length > 0) throw new RequestError(`unknown voice "${requested}"`);
    const variantFile = variant === undefined ? undefined : variants.find((f) => f.toLowerCase() === variant.toLowerCase());
    if (variant !== undefined && !variantFile) {
      throw new RequestError(`unknown voice variant "${variant}" (known: ${variants.join(', ')})`);
    }
    const name = variantFile ? `${voice.identifier}+${variantFile}` : voice.identifier;
    resolved.set(requested, name);
    return name;
  };
};

// ------------------------------------------------------------------ the process

/** The server that forked this worker. Once it is gone the worker is reparented, and its ppid changes. */
const server = process.ppid;
/** Whether the server is gone: `process.ppid` is read afresh each time (getppid). */
function orphaned(): boolean {
  return process.ppid !== server;
}

/** Answers the server; if it is gone (EPIPE, a closed channel) there is no one left to answer: exit. */
const reply = (message: WorkerReply, then?: () => void) =>
  process.send?.(message, undefined, {}, (error: Error | null) => {
    if (error) process.exit(0);
    then?.();
  });
// The worker's output is the server's standard error: once its reader is gone, a write must not crash the worker with a trace.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => process.exit(0));

const start = async () => {
  const espeak = (await createEspeak()) as EspeakModule;
  const engine = new espeak.eSpeakNGWorker();
  const resolveVoice = voiceResolver(espeak, engine);
  let voice = '';
  const useVoice = (requested: string) => {
    const name = resolveVoice(requested);
    if (name === voice) return;
    if (engine.set_voice(name) !== 0) throw new RequestError(`cannot load voice "${requested}"`);
    voice = name;
  };
  /** eSpeak's phonemes for a word said on its own. */
  const alone = (word: string): string[] => {
    const { ptr } = engine.convert_to_phonemes(word, true);
    const end = espeak.HEAPU8.indexOf(0, ptr);
    const ipa = new TextDecoder().decode(espeak.HEAPU8.subarray(ptr, end));
    espeak._free(ptr);
    return ipa.split(/[\s_|]+/u).map((p) => p.replace(/[ˈˌ]/gu, '')).filter((p) => p && !p.startsWith('('));
  };
  // The first synthesis compiles the hot paths; doing it now keeps it off the first reply.
  useVoice('en-us');
  synthesize(engine, 'Ready.', alone);
  return { engine, useVoice, alone };
};

const answer = ({ engine, useVoice, alone }: Awaited<ReturnType<typeof start>>, request: WorkerRequest): WorkerReply => {
  useVoice(request.voice);
  if (request.type === 'phonemize') {
    // The phonemes do not depend on the rate (checked over 6000 words), and at the fastest one
    // eSpeak makes the least audio that is only thrown away.
    engine.set_rate(450);
    const { words } = synthesize(engine, request.text, alone);
    return { type: 'phonemes', id: request.id, words: words.map(({ word, phonemes }) => ({ word, phonemes })) };
  }
  engine.set_pitch(request.pitch);
  engine.set_rate(request.rate);
  const { words, ...speech } = synthesize(engine, request.text, alone);
  return { type: 'speech', id: request.id, ...speech, words: words.map(({ word, start, end }) => ({ word, start, end })) };
};

// Listen before loading, so no request sent meanwhile is lost; requests are answered in order.
const loading = start();
process.on('message', (request: WorkerRequest) => {
  void loading.then((loaded) => {
    try {
      reply(answer(loaded, request));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // Anything but a bad request may have left eSpeak's memory broken: answer, then exit for a fresh one.
      reply({ type: 'error', id: request.id, message }, error instanceof RequestError ? undefined : () => process.exit(1));
    }
  });
});
// The server is gone (or closed the worker): nothing left to answer.
process.on('disconnect', () => process.exit(0));
loading.then(
  () => reply({ type: 'ready' }),
  (error: unknown) => {
    console.error('espeak-worker: cannot load eSpeak NG:', error);
    process.exit(1);
  },
);
