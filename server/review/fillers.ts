/**
 * Filler words in an utterance, for the trainee's debrief: the ones speech coaches count. Matched
 * conservatively, so a figure shown to a trainee is never inflated by ordinary uses of a word:
 *
 * - Hesitation sounds, wherever they are: "um" (um, umm, uhm), "uh" (uh, uhh), "er", "erm".
 * - Discourse markers, only when set off as a parenthetical: "like", "you know", "I mean",
 *   "basically", "actually", "literally", opening a sentence or following a comma or dash, and
 *   followed by a comma, a dash or the end of a sentence. "It was, like, huge" and "You know, I
 *   think" count; "I'd like that", "do you know?", "I mean it" and "what I mean is" do not.
 * - Hedges "sort of" and "kind of" (also "sorta", "kinda"), unless a determiner or a question word
 *   comes before them ("a kind of", "what sort of", "this kind of" name a kind; "it's kind of late"
 *   hedges).
 *
 * Left out on purpose: "so", "well", "right", "okay" (they open turns and close sequences as
 * often as they fill), "hmm" (a backchannel), "err" (a verb).
 *
 * ```ts
 * fillersIn('Um, it was, like, kind of late, you know.'); // ['um', 'like', 'you know', 'kind of']
 * ```
 */

import type { Filler } from '../../shared/review/report';

const hesitations: [RegExp, Filler][] = [
  [/^(u+m+|u+hm+)$/, 'um'],
  [/^u+h+$/, 'uh'],
  [/^er$/, 'er'],
  [/^e+r+m+$/, 'erm'],
];

/** Before a parenthetical marker: the start, a sentence's end, a comma or a dash. After: a comma, a dash or a sentence's end. */
const markers = /(?:^|[.!?…;:]\s*|,\s*|[—–]\s*|\s-\s*)(you know|i mean|like|basically|actually|literally)(?=\s*(?:[,.!?…;:—–]|\s-\s|$))/g;

const hedges = /(?:\b([\p{L}']+)\s+)?\b(sort\s+of|kind\s+of|sorta|kinda)\b/gu;
/** Words before "kind of" / "sort of" that make it name a kind. */
const determiners = new Set(['a', 'an', 'the', 'this', 'that', 'these', 'those', 'what', 'which', 'whatever', 'some', 'any', 'every', 'each', 'no', 'one', 'same', 'other', 'another', 'own', 'your', 'my', 'our', 'their', 'his', 'her', 'its', 'what\'s', 'that\'s', 'first', 'only', 'right', 'wrong', 'new', 'different', 'certain']);

/** Every filler in `text`, once per occurrence: hesitations first, then markers, then hedges. */
export const fillersIn = (text: string): Filler[] => {
  const lower = text.toLowerCase().replace(/[’‘]/g, "'");
  const found: Filler[] = [];
  for (const word of lower.split(/[^\p{L}']+/u)) {
    for (const [pattern, label] of hesitations) if (pattern.test(word)) found.push(label);
  }
  for (const match of lower.matchAll(markers)) found.push(match[1] as Filler);
  for (const match of lower.matchAll(hedges)) {
    if (match[1] && determiners.has(match[1])) continue;
    found.push(match[2]!.startsWith('sort') ? 'sort of' : 'kind of');
  }
  return found;
};
