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

/**
 * The whitespace-separated tokens of `text`, a lone dash included: where a text is cut and
 * rebuilt, so an interruption's `atWord` counts these.
 */
export const tokensOf = (text: string): string[] => text.split(/\s+/).filter(Boolean);

/** The spoken words of `text`, in order. */
export const spokenWords = (text: string): string[] => tokensOf(text).filter((token) => /[\p{L}\p{N}]/u.test(token));

export const countWords = (text: string): number => spokenWords(text).length;

/** How long `words` take to say at `wordsPerMinute` (the default rate when it is not given or not positive). */
export const speakingMs = (words: number, wordsPerMinute: number = defaultSpeakingRate): number =>
  (words / (wordsPerMinute > 0 ? wordsPerMinute : defaultSpeakingRate)) * 60_000;

