import { describe, expect, it } from 'vitest';
import { alignCharactersToVisemes, wordsOf, type CharacterAlignment, type Phonemize } from './align';
import type { Viseme } from './port';

/** Characters of `text` from `startSeconds`, each lasting `seconds`. */
const timed = (text: string, startSeconds = 0, seconds = 0.1): CharacterAlignment => {
  const characters = [...text];
  return {
    characters,
    starts: characters.map((_, i) => startSeconds + i * seconds),
    ends: characters.map((_, i) => startSeconds + (i + 1) * seconds),
  };
};

const join = (...parts: CharacterAlignment[]): CharacterAlignment => ({
  characters: parts.flatMap((p) => p.characters),
  starts: parts.flatMap((p) => p.starts),
  ends: parts.flatMap((p) => p.ends),
});

/** A stand-in for eSpeak: every letter is a phoneme. */
const letters: Phonemize = async (text) =>
  text
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => ({ word: word.toLowerCase(), phonemes: [...word.toLowerCase()].filter((c) => /\p{L}/u.test(c)) }));

const table: Record<string, Viseme> = { a: 'aa', e: 'E', i: 'I', o: 'O', u: 'U', m: 'PP', p: 'PP', b: 'PP', f: 'FF', v: 'FF', n: 'nn', r: 'RR', s: 'SS', t: 'DD', h: 'kk' };
const toViseme = (phoneme: string): Viseme => table[phoneme] ?? 'DD';

describe('wordsOf', () => {
  it('splits characters into words with their spans in ms, leaving out edge punctuation', () => {
    const alignment = timed('Hi, Nora — don’t.');
    expect(wordsOf(alignment)).toEqual([
      { word: 'Hi', start: 0, end: 200 },
      { word: 'Nora', start: 400, end: 800 },
      { word: 'don’t', start: 1100, end: 1600 },
    ]);
  });
});

describe('alignCharactersToVisemes', () => {
  it('spreads each word’s phonemes evenly over the word’s span and closes the mouth at the end', async () => {
    const { cues, words } = await alignCharactersToVisemes(timed('mama'), letters, toViseme);
    expect(words).toEqual([{ word: 'mama', start: 0, end: 400 }]);
    expect(cues).toEqual([
      { t: 0, viseme: 'PP' },
      { t: 100, viseme: 'aa' },
      { t: 200, viseme: 'PP' },
      { t: 300, viseme: 'aa' },
      { t: 400, viseme: 'sil' },
    ]);
  });

  it('spreads phonemes over the word, not its characters, when the counts differ', async () => {
    const twoSounds: Phonemize = async () => [{ word: 'through', phonemes: ['T', 'u'] }];
    const { cues } = await alignCharactersToVisemes(timed('through', 1), twoSounds, toViseme);
    // 7 characters from 1000 to 1700 ms: the two phonemes share that span.
    expect(cues).toEqual([
      { t: 1000, viseme: 'DD' },
      { t: 1350, viseme: 'U' },
      { t: 1700, viseme: 'sil' },
    ]);
  });

  it('merges repeated visemes into one cue', async () => {
    const { cues } = await alignCharactersToVisemes(timed('moon'), letters, toViseme);
    expect(cues.map((c) => c.viseme)).toEqual(['PP', 'O', 'nn', 'sil']);
    expect(cues[1]).toEqual({ t: 100, viseme: 'O' });
  });

  it('closes the mouth in a pause but not between words of connected speech', async () => {
    // "no" 0-200, a 50 ms space, "more" 250-650, then a 400 ms pause before "fun".
    const alignment = join(timed('no', 0), timed(' ', 0.2, 0.05), timed('more', 0.25), timed(' ', 0.65, 0.4), timed('fun', 1.05));
    const { cues } = await alignCharactersToVisemes(alignment, letters, toViseme);
    expect(cues).toEqual([
      { t: 0, viseme: 'nn' },
      { t: 100, viseme: 'O' },
      { t: 250, viseme: 'PP' },
      { t: 350, viseme: 'O' },
      { t: 450, viseme: 'RR' },
      { t: 550, viseme: 'E' },
      { t: 650, viseme: 'sil' },
      { t: 1050, viseme: 'FF' },
      { t: 1150, viseme: 'U' },
      { t: 1250, viseme: 'nn' },
      { t: 1350, viseme: 'sil' },
    ]);
  });

  it('takes the pause threshold as an option', async () => {
    const alignment = join(timed('no', 0), timed(' ', 0.2, 0.05), timed('no', 0.25));
    const { cues } = await alignCharactersToVisemes(alignment, letters, toViseme, { minSilenceMs: 50 });
    expect(cues.map((c) => `${c.t}:${c.viseme}`)).toEqual(['0:nn', '100:O', '200:sil', '250:nn', '350:O', '450:sil']);
  });

  it('continues a timeline across calls: a pause after the previous word, no closing while more follows', async () => {
    const first = await alignCharactersToVisemes(timed('so ', 0), letters, toViseme, { close: false });
    expect(first.cues).toEqual([
      { t: 0, viseme: 'SS' },
      { t: 100, viseme: 'O' },
    ]);
    const second = await alignCharactersToVisemes(timed('on', 0.5), letters, toViseme, { previousEnd: first.words.at(-1)!.end });
    expect(second.cues).toEqual([
      { t: 200, viseme: 'sil' },
      { t: 500, viseme: 'O' },
      { t: 600, viseme: 'nn' },
      { t: 700, viseme: 'sil' },
    ]);
  });

  it('closes the mouth at the previous word when a call brings no words', async () => {
    expect((await alignCharactersToVisemes(timed(' '), letters, toViseme, { previousEnd: 900 })).cues).toEqual([{ t: 900, viseme: 'sil' }]);
    expect(await alignCharactersToVisemes(timed(''), letters, toViseme)).toEqual({ cues: [], words: [] });
  });

  it('phonemizes word by word when the phonemizer reads a word as several (numbers, abbreviations)', async () => {
    const calls: string[] = [];
    const spellsNumbers: Phonemize = async (text) => {
      calls.push(text);
      return letters(text.replace('42', 'forty two'));
    };
    const { cues, words } = await alignCharactersToVisemes(timed('42 apps'), spellsNumbers, toViseme);
    expect(calls).toEqual(['42 apps', '42', 'apps']);
    expect(words.map((w) => w.word)).toEqual(['42', 'apps']);
    // "fortytwo" spread over "42" (0-200 ms): 8 phonemes, 25 ms apart.
    expect(cues.slice(0, 2)).toEqual([
      { t: 0, viseme: 'FF' },
      { t: 25, viseme: 'O' },
    ]);
    expect(cues.find((c) => c.t >= 300)).toEqual({ t: 300, viseme: 'aa' });
  });

  it('shares a phoneme’s time among its visemes, and keeps the previous shape for a phoneme with none', async () => {
    const ipa: Phonemize = async () => [{ word: 'hi', phonemes: ['h', '(en)', 'aɪ'] }];
    const visemesOf = (phoneme: string) => ({ h: 'kk', '(en)': [], aɪ: ['aa', 'I'] })[phoneme] as Viseme | Viseme[];
    const { cues } = await alignCharactersToVisemes(timed('hi'), ipa, visemesOf);
    // Three phonemes over 0-200 ms: "h" at 0, nothing for "(en)", "aɪ" from 133 ms split in two.
    expect(cues).toEqual([
      { t: 0, viseme: 'kk' },
      { t: 133, viseme: 'aa' },
      { t: 167, viseme: 'I' },
      { t: 200, viseme: 'sil' },
    ]);
  });

  it('treats a word without phonemes as silence', async () => {
    const skipsSymbols: Phonemize = async (text) => text.split(' ').map((word) => ({ word, phonemes: word === 'xyz' ? [] : [...word] }));
    const { cues } = await alignCharactersToVisemes(timed('no xyz no'), skipsSymbols, toViseme);
    expect(cues.map((c) => `${c.t}:${c.viseme}`)).toEqual(['0:nn', '100:O', '200:sil', '700:nn', '800:O', '900:sil']);
  });
});
