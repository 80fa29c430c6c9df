/** The live transcript: speaker → addressee, lines still streaming in italics, the newest at the bottom. */
import { useEffect, useRef } from 'react';
import { nameOf, type RoomView } from '../state/room';

export const Transcript = ({ view, lines = 60 }: { view: RoomView; lines?: number }) => {
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // (Newer browsers return a promise from scrollIntoView: never hand it to React as a cleanup.)
    void end.current?.scrollIntoView({ block: 'end' });
  }, [view.transcript]);
  return (
    <div className="transcript" role="log" aria-live="polite">
      {view.transcript.slice(-lines).map((line) => (
        <p key={line.id} className={line.streaming ? 'streaming' : ''} data-speaker={line.speaker}>
          <b>{nameOf(view, line.speaker)}</b>
          {line.addressee && <span className="to"> → {nameOf(view, line.addressee)}</span>}: {line.text}
        </p>
      ))}
      <div ref={end} />
    </div>
  );
};
