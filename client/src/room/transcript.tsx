/**
 * The live transcript: speaker → addressee, the newest at the bottom. A line appears when its
 * speech starts and its words follow the speech (state/transcript.ts says which and how much).
 *
 * Each line is its own memoised component: a change of the room (speech arrives many times a
 * second) re-renders only the lines it changed, and while a line is spoken only that line is drawn
 * again, and only when a word is added, not the sixty lines above it every frame.
 *
 * ```tsx
 * <Transcript view={view} position={session.position} />
 * ```
 */
import { memo, useEffect, useRef, useState } from 'react';
import { nameOf, type Line, type RoomView, type Speech } from '../state/room';
import { isSpeaking, shownLines, spokenText } from '../state/transcript';

export const Transcript = ({ view, position, lines = 60 }: { view: RoomView; position: (draft: string) => number | null; lines?: number }) => {
  const log = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const shown = shownLines(view).slice(-lines);
  // The newest line stays in sight: the log scrolls to its end whenever its lines grow (a line
  // added, a word that wraps), measured after the browser's own layout rather than by forcing one
  // for every word revealed.
  useEffect(() => {
    if (!content.current) return;
    const grown = new ResizeObserver(() => log.current?.scrollTo({ top: log.current.scrollHeight }));
    grown.observe(content.current);
    return () => grown.disconnect();
  }, []);

  return (
    <div className="transcript" role="log" aria-live="polite" ref={log}>
      <div ref={content}>
        {shown.map((line) => (
          <TranscriptLine
            key={line.id}
            line={line}
            speech={view.speech[line.audio]}
            speaking={isSpeaking(view, line)}
            speaker={nameOf(view, line.speaker)}
            addressee={line.addressee ? nameOf(view, line.addressee) : null}
            position={position}
          />
        ))}
      </div>
    </div>
  );
};

interface LineProps {
  line: Line;
  speech: Speech | undefined;
  speaking: boolean;
  speaker: string;
  addressee: string | null;
  position: (draft: string) => number | null;
}

const TranscriptLine = memo(({ line, speech, speaking, speaker, addressee, position }: LineProps) => {
  const [, setHeard] = useState('');
  // While the line is being spoken, its words are revealed as they are heard: looked at every
  // frame, drawn again only when a word is added (the same text is no update for React).
  useEffect(() => {
    if (!speaking) return;
    let frame = requestAnimationFrame(function next() {
      setHeard(spokenText(line, speech, position(line.audio)));
      frame = requestAnimationFrame(next);
    });
    return () => cancelAnimationFrame(frame);
  }, [speaking, line, speech, position]);
  const text = spokenText(line, speech, position(line.audio));
  return (
    <p className={speaking ? 'speaking' : ''} data-speaker={line.speaker} data-line={line.id}>
      <b>{speaker}</b>
      {addressee && <span className="to"> → {addressee}</span>}: {text}
    </p>
  );
});
