/**
 * The transcript beside the timeline: every utterance with its time, speaker and addressee, and
 * what the report says of it (a question, cut off, a breakdown). The selected line is highlighted
 * and scrolled into view; clicking a line selects it, and the reader's scrolling moves the playhead
 * to the selected line while it is in view, else to the first line in view (its own scrolling to a
 * selected line does not: the playhead is already there, mid-line perhaps, where a scrub left it). A line with no recording to
 * play says so, quietly.
 */
import { useEffect, useMemo, useRef } from 'react';
import type { Report } from '../../../shared/review/report';
import { clock, lanesOf, ROOM, utterancesOf } from './series';

interface Props {
  report: Report;
  selected: string | null;
  onSelect: (utterance: string) => void;
  onScrollTo: (ms: number) => void;
  /** The line has no recording (absent: the session has none at all, and no line is marked). */
  unrecorded?: ((utterance: string) => boolean) | undefined;
}

/** Where `line` is in the scrolled content of `box`, in pixels from its top. */
const offsetIn = (box: HTMLElement, line: HTMLElement) => line.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;

export const Transcript = ({ report, selected, onSelect, onScrollTo, unrecorded }: Props) => {
  const lines = useMemo(() => utterancesOf(report), [report]);
  const lanes = useMemo(() => new Map(lanesOf(report).map((l) => [l.id, l])), [report]);
  const cut = useMemo(() => new Set(report.timeline.filter((i) => i.kind === 'interruption').map((i) => i.utterance)), [report]);
  const breakdowns = useMemo(() => new Map(report.breakdowns.list.map((b) => [b.utterance, b.kind])), [report]);
  const list = useRef<HTMLOListElement>(null);
  /** Where the transcript is scrolling to by itself, to show the selected line; null when the reader scrolls. */
  const following = useRef<number | null>(null);

  useEffect(() => {
    const box = list.current;
    const line = box?.querySelector<HTMLElement>(`[data-utterance="${CSS.escape(selected ?? '')}"]`);
    if (!box || !line) return;
    // Scroll the transcript only, not the page: the timeline above should stay where it is.
    const top = offsetIn(box, line);
    if (top < box.scrollTop || top + line.offsetHeight > box.scrollTop + box.clientHeight) {
      const target = Math.round(Math.min(Math.max(0, top - box.clientHeight / 3), box.scrollHeight - box.clientHeight));
      if (Math.abs(target - box.scrollTop) >= 2) following.current = target;
      box.scrollTo({ top: target });
    }
  }, [selected]);

  const scrolled = () => {
    const box = list.current;
    if (!box) return;
    // Our own scroll to the selected line (the playhead already moved there): not the reader's, so the playhead stays.
    if (following.current !== null) {
      if (Math.abs(box.scrollTop - following.current) < 2) following.current = null;
      return;
    }
    const inView = (line: HTMLElement) => {
      const top = offsetIn(box, line);
      return top + line.offsetHeight > box.scrollTop && top < box.scrollTop + box.clientHeight;
    };
    const chosen = box.querySelector<HTMLElement>('li.selected');
    if (chosen && inView(chosen)) return onScrollTo(Number(chosen.dataset.start));
    // The first line in view, by bisection: a two-hour session has a thousand lines or more.
    const lines = box.children as HTMLCollectionOf<HTMLElement>;
    let low = 0;
    let high = lines.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      const line = lines[middle]!;
      if (offsetIn(box, line) + line.offsetHeight <= box.scrollTop) low = middle + 1;
      else high = middle;
    }
    if (lines[low]) onScrollTo(Number(lines[low]!.dataset.start));
  };

  const name = (id: string | null | undefined) => lanes.get(id ?? ROOM)?.name ?? id ?? '';
  return (
    <ol ref={list} className="review-transcript" onScroll={scrolled} aria-label="Transcript">
      {lines.map((u) => (
        <li key={u.utterance} data-utterance={u.utterance} data-start={u.startMs} className={u.utterance === selected ? 'selected' : undefined} aria-current={u.utterance === selected ? 'true' : undefined}>
          <button type="button" onClick={() => onSelect(u.utterance)}>
            <time>{clock(u.startMs)}</time>
            <span className="who">
              <i className="swatch" style={{ background: lanes.get(u.participant ?? ROOM)?.color }} />
              {name(u.participant)}
              {u.addressee && <span className="to"> → {name(u.addressee)}</span>}
            </span>
            <span className="text">{u.text || <em>(no words)</em>}</span>
            <span className="tags">
              {u.pair === 'question' && <span className="tag question">question</span>}
              {cut.has(u.utterance) && <span className="tag cut">cut off</span>}
              {breakdowns.has(u.utterance) && <span className="tag breakdown">{breakdowns.get(u.utterance)}</span>}
              {unrecorded?.(u.utterance) && (
                <span className="tag silent" data-no-recording>
                  no recording
                </span>
              )}
            </span>
          </button>
        </li>
      ))}
    </ol>
  );
};
