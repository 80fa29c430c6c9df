/**
 * English lip sync: phonemes to the 15 Oculus visemes, as data plus one function (TalkingHead's
 * lipsync modules take the same shape), and the cue timeline of timed phonemes.
 *
 * ```ts
 * phonemesToVisemes(['θ', 'ˈɪ', 'ŋ', 'k']); // [['TH'], ['I'], ['kk'], ['kk']]
 * visemeCuesFrom([{ phoneme: 'f', start: 11, end: 87 }, { phoneme: 'iː', start: 87, end: 326 }]);
 * // [{ t: 11, viseme: 'FF' }, { t: 87, viseme: 'I' }, { t: 326, viseme: 'sil' }]
 * ```
 *
 * Phonemes are IPA, as eSpeak NG's phoneme events and phonemizer give them ("ˈaɪɚ", "ɑːɹ", "n̩").
 * Stress and length marks, diacritics and modifier letters do not change the mouth shape and
 * are ignored. eSpeak groups some sequences into one phoneme (r-coloured vowels "ɛɹ",
 * diphthongs with schwa "aɪə"), so a phoneme is read as the longest segments of the table, left
 * to right: "aɪɚ" is aɪ + ɚ, three visemes. A pause ("_", or eSpeak's empty pause event) is
 * `sil`; a language switch marker such as "(fr)" has no viseme; a symbol the table lacks is
 * skipped, and a phoneme made only of such symbols falls back to `sil`.
 */
import type { Viseme } from '../../../shared/visemes';
import type { VisemeCue } from './port';

/** One phoneme and when it sounds, in ms. */
export interface PhonemeTiming {
  phoneme: string;
  start: number;
  end: number;
}

/**
 * IPA segment -> viseme(s). English first (every phoneme the eSpeak English voices emit is made of
 * these), then the neighbours a loanword or another voice may bring, each on its nearest mouth
 * shape. Diphthongs the mouth visibly travels through are two visemes, unless listed whole.
 */
export const phonemeVisemes: Readonly<Record<string, Viseme | readonly Viseme[]>> = {
  // pauses
  _: 'sil',
  // lips closed
  p: 'PP', b: 'PP', m: 'PP',
  // lower lip to teeth
  f: 'FF', v: 'FF', ɱ: 'FF', ɸ: 'FF', β: 'FF',
  // tongue between the teeth
  θ: 'TH', ð: 'TH',
  // tongue tip stops and the flap of American "water"
  t: 'DD', d: 'DD', ɾ: 'DD', ʈ: 'DD', ɖ: 'DD',
  // back of the tongue; h and the glottal stop keep the jaw where a back consonant has it
  k: 'kk', g: 'kk', ɡ: 'kk', ŋ: 'kk', x: 'kk', ɣ: 'kk', q: 'kk', ɢ: 'kk', ɴ: 'kk', c: 'kk', ɟ: 'kk',
  χ: 'kk', h: 'kk', ɦ: 'kk', ħ: 'kk', ʕ: 'kk', ʔ: 'kk',
  // rounded, protruded lips
  tʃ: 'CH', dʒ: 'CH', ʃ: 'CH', ʒ: 'CH', tɕ: 'CH', dʑ: 'CH', ɕ: 'CH', ʑ: 'CH', ʂ: 'CH', ʐ: 'CH',
  // teeth together
  s: 'SS', z: 'SS', ts: 'SS', dz: 'SS',
  // tongue up, jaw slightly open
  n: 'nn', l: 'nn', ɫ: 'nn', ɬ: 'nn', ɮ: 'nn', ɲ: 'nn', ɳ: 'nn', ʎ: 'nn', ɭ: 'nn', ʟ: 'nn',
  r: 'RR', ɹ: 'RR', ɻ: 'RR', ʀ: 'RR', ʁ: 'RR', ɺ: 'RR', ɽ: 'RR', ɚ: 'RR', ɝ: 'RR',
  // open vowels, schwa
  a: 'aa', ɑ: 'aa', æ: 'aa', ʌ: 'aa', ɐ: 'aa', ə: 'aa', ɶ: 'aa',
  // mid front vowels
  e: 'E', ɛ: 'E', ɜ: 'E', ɘ: 'E', eɪ: 'E', ei: 'E',
  // close front vowels and the glide of "yes"
  i: 'I', ɪ: 'I', ᵻ: 'I', ɨ: 'I', ɯ: 'I', j: 'I',
  // rounded mid vowels
  o: 'O', ɔ: 'O', ɒ: 'O', ɤ: 'O', ɵ: 'O', ø: 'O', œ: 'O', ɞ: 'O', oʊ: 'O', əʊ: 'O', əu: 'O',
  // rounded close vowels and glides
  u: 'U', ʊ: 'U', ʉ: 'U', y: 'U', ʏ: 'U', w: 'U', ʍ: 'U', ɥ: 'U',
};

/** Longest key of the table, in code points. */
const longestSegment = Math.max(...Object.keys(phonemeVisemes).map((key) => [...key].length));

/** Stress and length marks, modifier letters (ʲ ʰ ˞), combining diacritics (n̩ ɑ̃ t̪) and ASCII length ":". */
const ignored = /[\p{M}\p{Lm}\p{Sk}:\s]/gu;

/**
 * The visemes of each phoneme, in order: one list per phoneme (empty for a language switch
 * marker), repeated visemes within a phoneme collapsed.
 */
export const phonemesToVisemes = (phonemes: readonly string[]): Viseme[][] =>
  phonemes.map((phoneme) => {
    if (phoneme.startsWith('(')) return [];
    const symbols = [...phoneme.normalize('NFD').replace(ignored, '')];
    if (symbols.length === 0) return ['sil'];
    const visemes: Viseme[] = [];
    for (let i = 0; i < symbols.length; ) {
      let length = Math.min(longestSegment, symbols.length - i);
      while (length > 0 && phonemeVisemes[symbols.slice(i, i + length).join('')] === undefined) length--;
      if (length === 0) {
        i++;
        continue;
      }
      for (const viseme of [phonemeVisemes[symbols.slice(i, i + length).join('')]!].flat()) {
        if (visemes.at(-1) !== viseme) visemes.push(viseme);
      }
      i += length;
    }
    return visemes.length > 0 ? visemes : ['sil'];
  });

/** A silence between two phonemes at least this long closes the mouth. */
const shortestPauseMs = 30;

/**
 * The viseme cues of timed phonemes: time-ordered, consecutive identical visemes merged, `sil` at
 * pauses (pause phonemes and gaps) and at the end of the last phoneme. A phoneme of several
 * visemes shares its time equally among them; phonemes without duration are skipped.
 */
export const visemeCuesFrom = (phonemes: readonly PhonemeTiming[]): VisemeCue[] => {
  const cues: VisemeCue[] = [];
  const cue = (t: number, viseme: Viseme) => {
    const last = cues.at(-1);
    if (last?.viseme === viseme) return;
    cues.push({ t: Math.max(t, last?.t ?? t), viseme });
  };
  const ordered = [...phonemes].sort((a, b) => a.start - b.start);
  const visemes = phonemesToVisemes(ordered.map(({ phoneme }) => phoneme));
  let end: number | undefined;
  ordered.forEach(({ start, end: stop }, i) => {
    const own = visemes[i] ?? [];
    if (!(stop > start) || own.length === 0) return;
    if (end !== undefined && start - end >= shortestPauseMs) cue(end, 'sil');
    const share = (stop - start) / own.length;
    own.forEach((viseme, k) => cue(start + k * share, viseme));
    end = Math.max(end ?? stop, stop);
  });
  if (end !== undefined) cue(end, 'sil');
  return cues;
};
