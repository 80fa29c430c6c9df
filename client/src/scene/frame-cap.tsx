/**
 * A cap on how often the desktop room is drawn (`?fps=N` on a room or replay link): `frameCapOf`
 * reads it, `FrameCap` draws a frame every 1/N s through react-three-fiber's on-demand loop, on a
 * canvas made with `frameloop="demand"`. A shared or battery-powered machine spends its CPU on
 * something else; the end-to-end tests that only read the room's state draw few frames so that the
 * server and the page have the cores. In the headset the XR session's own loop draws every frame.
 *
 * ```tsx
 * const cap = frameCapOf(location.search);
 * <Canvas frameloop={cap ? 'demand' : 'always'}>{cap && <FrameCap fps={cap} />}…</Canvas>
 * ```
 */
import { useThree } from '@react-three/fiber';
import { useEffect } from 'react';

/** The `fps` parameter of a page's query, 1 to 120; null when absent or not a positive number. */
export const frameCapOf = (search: string): number | null => {
  const raw = new URLSearchParams(search).get('fps');
  if (raw === null) return null;
  const fps = Number(raw);
  return Number.isFinite(fps) && fps > 0 ? Math.min(Math.max(fps, 1), 120) : null;
};

/** Draws a frame `fps` times a second on a canvas whose frameloop is `demand`. */
export const FrameCap = ({ fps }: { fps: number }) => {
  const invalidate = useThree((state) => state.invalidate);
  useEffect(() => {
    const timer = setInterval(() => invalidate(), 1000 / fps);
    return () => clearInterval(timer);
  }, [fps, invalidate]);
  return null;
};
