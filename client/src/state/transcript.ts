/**
 * Which transcript lines are shown, and how much of each: a line appears when its speech starts
 * to be heard and its words follow the speech (the `audio` messages' word timings), so nobody
 * reads a reply before hearing it. A human's own words show at once; without speech (no
 * synthesizer, or no audio output here) a reply shows when it is logged, never while it streams.
 *
 * ```ts
 * for (const line of shownLines(view)) draw(line, spokenText(line, view.speech[line.audio], voices.position(line.audio)));
 * ```
 */
import type { Line, RoomView, Speech } from './room';

/** The line is someone's speech this client will play: it waits for its audio. */
const voiced = (view: RoomView, line: Line): boolean => view.speakers && view.voice?.output != null && line.source !== 'human';

/** Whether the line is on screen now. */
export const isShown = (view: RoomView, line: Line): boolean => (voiced(view, line) ? line.heard : !line.streaming);

/** Lines whose speech this client still waits to hear. */
export const awaitingSpeech = (view: RoomView, line: Line): boolean => voiced(view, line) && !line.heard;

export const shownLines = (view: RoomView): Line[] => view.transcript.filter((line) => isShown(view, line));

/** The line is being spoken now: its words are still being revealed. */
export const isSpeaking = (view: RoomView, line: Line): boolean => voiced(view, line) && view.speech[line.audio]?.state === 'audible';

/**
 * As much of the line's text as has been heard at `positionMs` (ms into its speech): as many of
 * its words as the speech has started by then (at least the first). All of it once the speech is
 * over, or without timings or a position.
 */
export const spokenText = (line: Line, speech: Speech | undefined, positionMs: number | null): string => {
  if (!speech || speech.state !== 'audible' || positionMs === null || speech.words.length === 0) return line.text;
  // The first word shows as the speech starts: a line never appears empty.
  const started = Math.max(1, speech.words.filter((w) => w.start <= positionMs).length);
  // Words the speech has not reached yet; the text may have more words than the timings (still streaming).
  const words = line.text.split(/(\s+)/);
  let count = 0;
  let end = 0;
  for (let i = 0; i < words.length; i++) {
    if (/\S/.test(words[i]!)) {
      if (count === started) break;
      count++;
    }
    end = i + 1;
  }
  return words.slice(0, end).join('').trimEnd();
};
