/**
 * How the pages write figures for people: the sessions list, the ended page, the review and the
 * debrief say a length the same way.
 *
 * ```ts
 * formatDuration(754_000); // "12 min 34 s"
 * ```
 */

/** 754000 → "12 min 34 s". */
export const formatDuration = (ms: number): string => {
  const seconds = Math.round(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  return minutes ? `${minutes} min ${seconds % 60} s` : `${seconds} s`;
};
