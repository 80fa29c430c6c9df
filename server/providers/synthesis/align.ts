/**
 * Character timings to a viseme timeline, for vendors that report when each character is spoken
 * (ElevenLabs) but not which mouth shapes: split the characters into words with their time
 * spans, phonemize the words, spread each word's phonemes evenly over its span, merge repeats
 * and close the mouth (`sil`) in pauses.
 *
 * ```ts
 * const { cues, words } = await alignCharactersToVisemes(
 *   { characters: [...'Hi Nora'], starts, ends }, // seconds
 *   phonemize,                                    // eSpeak: 'Hi Nora' -> [{ word: 'hi', phonemes: ['h', 'aɪ'] }, ...]
 *   (phoneme) => phonemesToVisemes([phoneme])[0]!, // visemes.ts: 'aɪ' -> ['aa', 'I']
 * );
 * ```
 *
 * The phonemizer and the phoneme-to-viseme table are parameters: they are per language and per
 * TTS source (TalkingHead's lip-sync modules), and eSpeak supplies both for the embedded voice.
 */
import type { Viseme, VisemeCue, WordTiming } from './port';

/** Parallel arrays, one entry per character, times in seconds from the start of the request's audio. */
export interface CharacterAlignment {
  characters: string[];
  starts: number[];
  ends: number[];
}

export type Phonemize = (text: string) => Promise<{ word: string; phonemes: string[] }[]>;
/**
 * The mouth shape(s) of one phoneme. Several share the phoneme's time (a diphthong the mouth
 * travels through); none leaves the previous shape in place (a language switch marker).
 */
export type PhonemeToViseme = (phoneme: string) => Viseme | readonly Viseme[];

export interface AlignOptions {
  /** A pause between words at least this long closes the mouth. Shorter ones are co-articulated. */
  minSilenceMs?: number;
  /** End (ms) of the word spoken just before these characters, so a pause across two calls is seen. */
  previousEnd?: number;
  /** Close the mouth after the last word (default). Off while more characters of the utterance will follow. */
  close?: boolean;
}

const spoken = /[\p{L}\p{N}]/u;

/** Words (runs of non-space characters, without edge punctuation) and their spans in ms. */
export const wordsOf = ({ characters, starts, ends }: CharacterAlignment): WordTiming[] => {
  const words: WordTiming[] = [];
  let first = -1;
  let last = -1;
  const flush = () => {
    if (first >= 0) {
      words.push({ word: characters.slice(first, last + 1).join(''), start: Math.round(starts[first]! * 1000), end: Math.round(ends[last]! * 1000) });
    }
    first = last = -1;
  };
  characters.forEach((character, i) => {
    if (/^\s+$/u.test(character)) return flush();
    // Leading and trailing punctuation ("Nora,", a lone "—") is no part of a word; inner ("don't") is.
    if (!spoken.test(character)) return;
    if (first < 0) first = i;
    last = i;
  });
  flush();
  return words;
};

/**
 * Phonemes per word. One phonemizer call for the whole text when it returns one entry per word;
 * otherwise (eSpeak reads "42" as two words, "Dr." as "doctor") one call per word.
 */
const phonemesOf = async (words: WordTiming[], phonemize: Phonemize): Promise<string[][]> => {
  if (words.length === 0) return [];
  const whole = await phonemize(words.map((w) => w.word).join(' '));
  if (whole.length === words.length) return whole.map((entry) => entry.phonemes);
  const each: string[][] = [];
  for (const word of words) each.push((await phonemize(word.word)).flatMap((entry) => entry.phonemes));
  return each;
};

export const alignCharactersToVisemes = async (
  alignment: CharacterAlignment,
  phonemize: Phonemize,
  phonemeToViseme: PhonemeToViseme,
  options: AlignOptions = {},
): Promise<{ cues: VisemeCue[]; words: WordTiming[] }> => {
  const { minSilenceMs = 100, previousEnd, close = true } = options;
  const words = wordsOf(alignment);
  const phonemes = await phonemesOf(words, phonemize);

  const cues: VisemeCue[] = [];
  const add = (t: number, viseme: Viseme) => {
    const at = Math.max(t, cues.at(-1)?.t ?? t);
    // Two cues at one instant: the later one is the one that shows.
    if (cues.at(-1)?.t === at) cues.pop();
    if (cues.at(-1)?.viseme !== viseme) cues.push({ t: at, viseme });
  };

  let end = previousEnd;
  words.forEach((word, i) => {
    const sounds = phonemes[i] ?? [];
    // A word with no phonemes (a symbol eSpeak skips) is silence to the mouth, like a pause.
    if (sounds.length === 0) return;
    if (end !== undefined && word.start - end >= minSilenceMs) add(end, 'sil');
    const slot = (word.end - word.start) / sounds.length;
    sounds.forEach((sound, k) => {
      const shapes = [phonemeToViseme(sound)].flat();
      shapes.forEach((viseme, j) => add(Math.round(word.start + k * slot + (j * slot) / shapes.length), viseme));
    });
    end = word.end;
  });
  if (close && end !== undefined) add(end, 'sil');
  return { cues, words };
};
