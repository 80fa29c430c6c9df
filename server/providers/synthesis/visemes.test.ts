import { describe, expect, it } from 'vitest';
import { visemes, type Viseme } from '../../../shared/visemes';
import { phonemesToVisemes, phonemeVisemes, visemeCuesFrom } from './visemes';

/**
 * Every phoneme eSpeak NG 0.3.5 (echogarden build) emits for its English voices (en-US, en-GB,
 * RP, Scotland, Lancaster, West Midlands, Caribbean, New York City), with stress marks removed,
 * collected by phonemizing 22 000 English words and numbers with each voice.
 */
const englishPhonemes = [
  'a', 'a:', 'aa', 'aɪ', 'aɪə', 'aɪɚ', 'aʊ', 'aː', 'b', 'd', 'dʒ', 'e', 'ei', 'eə', 'eɪ', 'eʲ', 'eː', 'f',
  'h', 'i', 'iə', 'iː', 'j', 'k', 'l', 'm', 'n', 'n̩', 'o', 'oə', 'oɪ', 'oʊ', 'oː', 'p', 'r', 's', 't',
  'tʃ', 't̪', 'u', 'uː', 'v', 'w', 'x', 'z', 'æ', 'ææ', 'æʊ', 'ð', 'ŋ', 'ɐ', 'ɐɐ', 'ɑə', 'ɑː', 'ɑːɹ',
  'ɑ̃', 'ɒ', 'ɔ', 'ɔə', 'ɔɪ', 'ɔː', 'ɔːɹ', 'ə', 'əl', 'əu', 'əɪ', 'əɹ', 'əʊ', 'ɚ', 'ɛ', 'ɛə', 'ɛɹ',
  'ɜ', 'ɜː', 'ɡ', 'ɪ', 'ɪɹ', 'ɬ', 'ɹ', 'ɾ', 'ʃ', 'ʉ', 'ʉɹ', 'ʉː', 'ʊ', 'ʊə', 'ʊɹ', 'ʌ', 'ʌɹ', 'ʌʉ',
  'ʌʊ', 'ʍ', 'ʒ', 'ʔ', 'θ', 'ᵻ',
];

const one = (phoneme: string): Viseme[] => phonemesToVisemes([phoneme])[0]!;

describe('phonemesToVisemes', () => {
  it.each([
    [['p', 'b', 'm'], 'PP'],
    [['f', 'v'], 'FF'],
    [['θ', 'ð'], 'TH'],
    [['t', 'd'], 'DD'],
    [['k', 'g', 'ɡ', 'ŋ'], 'kk'],
    [['tʃ', 'dʒ', 'ʃ', 'ʒ'], 'CH'],
    [['s', 'z'], 'SS'],
    [['n', 'l'], 'nn'],
    [['r', 'ɹ'], 'RR'],
    [['ɑ', 'æ', 'ʌ', 'a'], 'aa'],
    [['ɛ', 'e', 'eɪ'], 'E'],
    [['ɪ', 'i'], 'I'],
    [['ɔ', 'o', 'oʊ'], 'O'],
    [['ʊ', 'u', 'w'], 'U'],
  ] as const)('maps %j to %s', (phonemes, viseme) => {
    expect(phonemesToVisemes(phonemes)).toEqual(phonemes.map(() => [viseme]));
  });

  it('gives every English phoneme eSpeak emits a mouth shape, never the silence fallback', () => {
    for (const phoneme of englishPhonemes) {
      const shapes = one(phoneme);
      expect(shapes.length, phoneme).toBeGreaterThan(0);
      expect(shapes, phoneme).not.toContain('sil');
      for (const shape of shapes) expect(visemes).toContain(shape);
    }
  });

  it('only maps to the 15 Oculus visemes', () => {
    for (const shapes of Object.values(phonemeVisemes)) for (const shape of [shapes].flat()) expect(visemes).toContain(shape);
  });

  it('ignores stress, length and diacritics', () => {
    expect(phonemesToVisemes(['ˈiː', 'ˌɔː', 'n̩', 'ɑ̃', 'eʲ', 'a:'])).toEqual([['I'], ['O'], ['nn'], ['aa'], ['E'], ['aa']]);
  });

  it('moves the mouth through diphthongs and r-coloured vowels, longest segment first', () => {
    expect(one('aɪ')).toEqual(['aa', 'I']);
    expect(one('aʊ')).toEqual(['aa', 'U']);
    expect(one('ɔɪ')).toEqual(['O', 'I']);
    expect(one('ˈɛɹ')).toEqual(['E', 'RR']);
    expect(one('ɑːɹ')).toEqual(['aa', 'RR']);
    expect(one('aɪɚ')).toEqual(['aa', 'I', 'RR']);
    expect(one('tʃ')).toEqual(['CH']);
    expect(one('ææ')).toEqual(['aa']);
  });

  it('closes the mouth at pauses and for symbols it does not know, and skips language switches', () => {
    expect(phonemesToVisemes(['_', '', ' ', '☃', '(fr)'])).toEqual([['sil'], ['sil'], ['sil'], ['sil'], []]);
  });
});

describe('visemeCuesFrom', () => {
  it('cues each phoneme at its start and closes the mouth at the end', () => {
    const cues = visemeCuesFrom([
      { phoneme: 'f', start: 11, end: 87 },
      { phoneme: 'ˈiː', start: 87, end: 326 },
    ]);
    expect(cues).toEqual([
      { t: 11, viseme: 'FF' },
      { t: 87, viseme: 'I' },
      { t: 326, viseme: 'sil' },
    ]);
  });

  it('merges consecutive identical visemes', () => {
    const cues = visemeCuesFrom([
      { phoneme: 'p', start: 0, end: 40 },
      { phoneme: 'm', start: 40, end: 80 },
      { phoneme: 'ɑ', start: 80, end: 150 },
      { phoneme: 'æ', start: 150, end: 200 },
    ]);
    expect(cues.map((c) => c.viseme)).toEqual(['PP', 'aa', 'sil']);
    expect(cues.map((c) => c.t)).toEqual([0, 80, 200]);
  });

  it('puts sil at pause phonemes and at gaps between phonemes', () => {
    const cues = visemeCuesFrom([
      { phoneme: 's', start: 0, end: 100 },
      { phoneme: '_', start: 100, end: 300 },
      { phoneme: 'k', start: 300, end: 350 },
      { phoneme: 'ɪ', start: 500, end: 600 },
    ]);
    expect(cues).toEqual([
      { t: 0, viseme: 'SS' },
      { t: 100, viseme: 'sil' },
      { t: 300, viseme: 'kk' },
      { t: 350, viseme: 'sil' },
      { t: 500, viseme: 'I' },
      { t: 600, viseme: 'sil' },
    ]);
  });

  it('shares a diphthong’s time among its visemes', () => {
    expect(visemeCuesFrom([{ phoneme: 'aɪ', start: 100, end: 300 }])).toEqual([
      { t: 100, viseme: 'aa' },
      { t: 200, viseme: 'I' },
      { t: 300, viseme: 'sil' },
    ]);
  });

  it('orders phonemes given out of order and skips those without duration', () => {
    const cues = visemeCuesFrom([
      { phoneme: 'd', start: 50, end: 100 },
      { phoneme: 'b', start: 0, end: 50 },
      { phoneme: 'z', start: 100, end: 100 },
    ]);
    expect(cues).toEqual([
      { t: 0, viseme: 'PP' },
      { t: 50, viseme: 'DD' },
      { t: 100, viseme: 'sil' },
    ]);
  });

  it('gives no cues for no phonemes', () => {
    expect(visemeCuesFrom([])).toEqual([]);
  });
});
