/**
 * The live transcript: speaker → addressee, the newest at the bottom. A line appears when its
 * speech starts and its words follow the speech (state/transcript.ts says which and how much).
 */
import { useEffect, useRef, useState } from 'react';
import { nameOf, type RoomView } from '../state/room';
import { isSpeaking, shownLines, spokenText } from '../state/transcript';

export const Transcript = ({ view, position, lines = 60 }: { view: RoomView; position: (draft: string) => number | null; lines?: number }) => {
  const end = useRef<HTMLDivElement>(null);
  const shown = shownLines(view).slice(-lines);
  const speaking = shown.some((line) => isSpeaking(view, line));
  const [, setFrame] = useState(0);

  // While a line is being spoken, its words are revealed frame by frame.
  useEffect(() => {
    if (!speaking) return;
    let frame = requestAnimationFrame(function next() {
      setFrame((n) => n + 1);
      frame = requestAnimationFrame(next);
    });
    return () => cancelAnimationFrame(frame);
  }, [speaking]);

  const last = shown.at(-1);
  const lastText = last ? spokenText(last, view.speech[last.audio], position(last.audio)) : '';
  useEffect(() => {
    // (Newer browsers return a promise from scrollIntoView: never hand it to React as a cleanup.)
    void end.current?.scrollIntoView({ block: 'end' });
  }, [shown.length, lastText.length]);

  return (
    <div className="transcript" role="log" aria-live="polite">
      {shown.map((line) => (
        <p key={line.id} className={isSpeaking(view, line) ? 'speaking' : ''} data-speaker={line.speaker} data-line={line.id}>
          <b>{nameOf(view, line.speaker)}</b>
          {line.addressee && <span className="to"> → {nameOf(view, line.addressee)}</span>}: {spokenText(line, view.speech[line.audio], position(line.audio))}
        </p>
      ))}
      <div ref={end} />
    </div>
  );
};
