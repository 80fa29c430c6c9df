/**
 * How this person likes to see the room, kept in the browser (localStorage) from one session to the
 * next: name tags over the avatars or not (the N key toggles them), and how fast dragging turns the
 * view on a desktop (1: a drag across the canvas turns it by about its field of view).
 *
 * ```tsx
 * const { nameTags, lookSpeed } = useViewSettings();
 * <ViewMenu />   // a small "View" menu: the name-tag checkbox and the look-speed slider
 * ```
 */
import { useEffect, useSyncExternalStore } from 'react';

export interface ViewSettings {
  nameTags: boolean;
  lookSpeed: number;
}

const storageKey = 'rehearsal-room.view';
export const lookSpeeds = { min: 0.25, max: 3, step: 0.25 };
const defaults: ViewSettings = { nameTags: true, lookSpeed: 1 };

/** The stored settings, each kept only when it is of the right kind and range. */
export const parseViewSettings = (stored: string | null): ViewSettings => {
  let raw: Partial<Record<keyof ViewSettings, unknown>> = {};
  try {
    raw = stored ? (JSON.parse(stored) as typeof raw) : {};
  } catch {
    // Written by something else, or by hand: the defaults stand in for it.
  }
  const speed = typeof raw.lookSpeed === 'number' && Number.isFinite(raw.lookSpeed) ? raw.lookSpeed : defaults.lookSpeed;
  return {
    nameTags: typeof raw.nameTags === 'boolean' ? raw.nameTags : defaults.nameTags,
    lookSpeed: Math.min(lookSpeeds.max, Math.max(lookSpeeds.min, speed)),
  };
};

/** localStorage, or null where the browser refuses it (some private modes): then settings last for the page. */
const storage = (): Storage | null => {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
};

let current = parseViewSettings(storage()?.getItem(storageKey) ?? null);
const listeners = new Set<() => void>();

export const setViewSettings = (change: Partial<ViewSettings>): void => {
  current = { ...current, ...change };
  try {
    storage()?.setItem(storageKey, JSON.stringify(current));
  } catch (error) {
    console.warn(`view settings not saved (${(error as Error).message}); they last for this page`);
  }
  for (const listener of listeners) listener();
};

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => void listeners.delete(listener);
};

export const useViewSettings = (): ViewSettings => useSyncExternalStore(subscribe, () => current);

/** The "View" menu, and the N key for name tags (not while typing). */
export const ViewMenu = () => {
  const { nameTags, lookSpeed } = useViewSettings();
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      if (e.code !== 'KeyN' || e.ctrlKey || e.metaKey || e.altKey) return;
      if ((e.target as HTMLElement | null)?.closest('input, textarea, select')) return;
      setViewSettings({ nameTags: !current.nameTags });
    };
    addEventListener('keydown', key);
    return () => removeEventListener('keydown', key);
  }, []);
  return (
    <details className="view-settings">
      <summary>View</summary>
      <label title="N">
        <input type="checkbox" checked={nameTags} onChange={(e) => setViewSettings({ nameTags: e.target.checked })} /> Name tags
      </label>
      <label>
        Look speed{' '}
        <input
          type="range"
          min={lookSpeeds.min}
          max={lookSpeeds.max}
          step={lookSpeeds.step}
          value={lookSpeed}
          onChange={(e) => setViewSettings({ lookSpeed: Number(e.target.value) })}
          aria-label="look speed"
        />
      </label>
    </details>
  );
};
