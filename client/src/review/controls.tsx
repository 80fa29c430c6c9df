/**
 * The playback controls of the review and the replay: play or pause from the playhead, 1× or 2×,
 * a scrub bar (arrow keys 5 s, Page Up/Down 30 s), and the time; `usePlayer`, a page's player, closed with the page; and `usePlayhead`,
 * the player's position as React state (ten times a second while it plays, at once on a seek), so
 * only what shows the playhead follows it.
 *
 * ```tsx
 * const player = usePlayer(recordings, report.durationMs, token, startMs);
 * const ms = usePlayhead(player);
 * <PlayerControls player={player} ms={ms} />
 * ```
 */
import { useEffect, useMemo, useState } from 'react';
import { createPlayer, type Player, type Rate, type Recordings } from './player';
import { clock } from './series';

/** How often the page follows a playing playhead (the 3D replay reads it every frame instead). */
const FOLLOW_MS = 100;

/** The page's player of `recordings`, its playhead at `startMs`; closed when the page goes. */
export const usePlayer = (recordings: Recordings, durationMs: number, token: string, startMs: number): Player => {
  const player = useMemo(() => {
    const made = createPlayer({ recordings, durationMs, token });
    made.seek(startMs);
    return made;
  }, [recordings, durationMs, token]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => () => player.close(), [player]);
  return player;
};

export const usePlayhead = (player: Player): number => {
  const [ms, setMs] = useState(() => player.position());
  useEffect(() => {
    let timer: ReturnType<typeof setInterval> | null = null;
    const follow = () => {
      setMs(player.position());
      if (player.playing() && !timer) timer = setInterval(() => setMs(player.position()), FOLLOW_MS);
      if (!player.playing() && timer) {
        clearInterval(timer);
        timer = null;
      }
    };
    follow();
    const unsubscribe = player.subscribe(follow);
    return () => {
      unsubscribe();
      if (timer) clearInterval(timer);
    };
  }, [player]);
  return ms;
};

const rates: Rate[] = [1, 2];

/** What an arrow key (and Page Up/Down) moves the playhead by: the bar's own step is 1 ms. */
const keySteps: Record<string, number> = { ArrowLeft: -5000, ArrowDown: -5000, ArrowRight: 5000, ArrowUp: 5000, PageDown: -30_000, PageUp: 30_000 };

export const PlayerControls = ({ player, ms, note }: { player: Player; ms: number; note?: string }) => {
  const playing = player.playing();
  return (
    <div className="player-controls" data-playing={playing} data-rate={player.rate()} data-position={Math.round(ms)}>
      <button type="button" className="play" onClick={() => (playing ? player.pause() : player.play())} aria-label={playing ? 'Pause' : 'Play'}>
        {playing ? '❚❚ Pause' : '▶ Play'}
      </button>
      <span className="rates" role="group" aria-label="Speed">
        {rates.map((rate) => (
          <button key={rate} type="button" className="small" aria-pressed={player.rate() === rate} onClick={() => player.setRate(rate)}>
            {rate}×
          </button>
        ))}
      </span>
      <input
        type="range"
        className="scrub"
        aria-label="Playhead"
        min={0}
        // Step 1: with a coarser step the bar stops at the last multiple of it, short of the end.
        max={Math.max(1, Math.ceil(player.durationMs))}
        step={1}
        value={Math.round(ms)}
        aria-valuetext={`${clock(ms)} of ${clock(player.durationMs)}`}
        onChange={(e) => player.seek(Number(e.currentTarget.value))}
        onKeyDown={(e) => {
          const by = keySteps[e.key];
          if (by === undefined) return;
          e.preventDefault();
          player.seek(Math.min(player.durationMs, Math.max(0, ms + by)));
        }}
      />
      <time className="time">
        {clock(ms)} / {clock(player.durationMs)}
      </time>
      {note && <span className="note">{note}</span>}
    </div>
  );
};
