/**
 * The one conversion between words and speaking time. A word is a whitespace-separated token
 * with a letter or digit in it (a lone dash or ellipsis is not spoken); speaking time follows the
 * participant's rate in words per minute until real audio gives the true length.
 *
 * ```ts
 * countWords('Well — I think so.'); // 4
 * speakingMs(30, 150); // 12000
 * ```
 */

/** Words per minute when a participant has no rate of their own. */
export const defaultSpeakingRate = 150;

/** The spoken words of `text`, in order. */
export const spokenWords = (text: string): string[] => text.split(/\s+/).filter((token) => /[\p{L}\p{N}]/u.test(token));

export const countWords = (text: string): number => spokenWords(text).length;

/** How long `words` take to say at `wordsPerMinute` (the default rate when it is not positive). */
export const speakingMs = (words: number, wordsPerMinute: number = defaultSpeakingRate): number =>
  (words / (wordsPerMinute > 0 ? wordsPerMinute : defaultSpeakingRate)) * 60_000;

