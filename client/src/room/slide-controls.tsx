/**
 * Previous and next slide, for everyone at once, shown to whoever may change the slides: the
 * instructor for every deck, a participant for their own party's decks (the server sends a
 * participant only the public contents and their party's, so a deck with a party owner in their
 * view is theirs). A presenter's clicker (Page Up / Page Down) works on the first deck too.
 *
 * ```tsx
 * <SlideControls session={session} view={view} />
 * ```
 */
import { useEffect } from 'react';
import { slideCount } from '../scene/board';
import type { RoomView } from '../state/room';
import type { Session } from './session';

type Content = NonNullable<RoomView['snapshot']>['scene']['contents'][number];

/** This viewer may change this content's slide (the server checks it again). */
export const maySlide = (view: RoomView, content: Content): boolean =>
  content.kind === 'slides' && (view.you?.role !== 'participant' || (content.owner !== undefined && content.owner !== 'public'));

/** The slide `by` steps from the deck's current one, kept within the deck; null when there is none that way. */
export const slideStep = (view: RoomView, content: Content, by: number): number | null => {
  const current = view.slides[content.id] ?? 0;
  const next = Math.min(Math.max(current + by, 0), slideCount(content) - 1);
  return next === current ? null : next;
};

export const SlideControls = ({ session, view }: { session: Session; view: RoomView }) => {
  const decks = (view.snapshot?.scene.contents ?? []).filter((c) => maySlide(view, c));
  const first = decks[0];

  useEffect(() => {
    if (!first) return;
    const key = (e: KeyboardEvent) => {
      if (e.code !== 'PageDown' && e.code !== 'PageUp') return;
      if ((e.target as HTMLElement | null)?.closest('input, textarea, select')) return;
      e.preventDefault();
      const index = slideStep(view, first, e.code === 'PageDown' ? 1 : -1);
      if (index !== null) session.send({ type: 'slide', content: first.id, index });
    };
    addEventListener('keydown', key);
    return () => removeEventListener('keydown', key);
  }, [first, view, session]);

  const go = (content: Content, by: number) => {
    const index = slideStep(view, content, by);
    if (index !== null) session.send({ type: 'slide', content: content.id, index });
  };

  if (decks.length === 0) return null;
  return (
    <section className="slide-controls" aria-label="slides">
      {decks.map((deck) => {
        const current = view.slides[deck.id] ?? 0;
        return (
          <div key={deck.id} className="deck">
            <button onClick={() => go(deck, -1)} disabled={slideStep(view, deck, -1) === null} aria-label={`previous slide of ${deck.title}`} title="Page Up">
              ‹
            </button>
            <span title={deck.title}>
              Slide {current + 1} / {slideCount(deck)}
            </span>
            <button onClick={() => go(deck, 1)} disabled={slideStep(view, deck, 1) === null} aria-label={`next slide of ${deck.title}`} title="Page Down">
              ›
            </button>
          </div>
        );
      })}
    </section>
  );
};
