/**
 * What the headset's own controls hold, beside the room view: how the trainee is placed (seated or
 * standing, turned by snap turns, recentred on demand), whether the panel follows the head or is
 * pinned, which of its pages is open (the keyboard, the brief), whether push-to-talk is held, and
 * what went wrong with the hardware (a controller lost, no hands, the microphone refused). A tiny
 * store read through selectors, as @react-three/xr's own.
 *
 * ```ts
 * const vr = createVrState({ stance: 'seated' });
 * vr.set({ pinned: true });
 * vr.recentre();                       // SeatOrigin puts the eyes back on the seat next frame
 * const pinned = useVrState(vr, (s) => s.pinned);
 * ```
 */
import { useSyncExternalStore } from 'react';

export type Stance = 'seated' | 'standing';

export interface VrState {
  /** seated: the eyes at the seat's eye height, whatever the headset's; standing: the real floor is the room's. */
  stance: Stance;
  /** Incremented to put the eyes back on the seat, facing the room (the panel's button, the system's recentre). */
  recentred: number;
  /** Snap turns taken, each SNAP_TURN_DEG (positive: to the right). */
  turns: number;
  /** Incremented by SeatOrigin each time it moves the origin: the panel then comes back in front at once. */
  placed: number;
  pinned: boolean;
  keyboard: boolean;
  brief: boolean;
  /** Push-to-talk held (the trigger or a pinch away from the panel). */
  talking: boolean;
  /** The microphone is off by the trainee's choice: holding the trigger does not talk. */
  muted: boolean;
  /** What the trainee should know about the hardware, shown on the panel until it clears. */
  notices: Partial<Record<NoticeKind, string>>;
}

export type NoticeKind = 'input' | 'microphone' | 'session';

export const SNAP_TURN_DEG = 30;

export interface VrStore {
  get(): VrState;
  set(patch: Partial<VrState>): void;
  notice(kind: NoticeKind, text: string | null): void;
  recentre(): void;
  subscribe(listener: () => void): () => void;
}

export const createVrState = (initial: Partial<VrState> = {}): VrStore => {
  let state: VrState = { stance: 'seated', recentred: 0, turns: 0, placed: 0, pinned: false, keyboard: false, brief: false, talking: false, muted: false, notices: {}, ...initial };
  const listeners = new Set<() => void>();
  const set = (patch: Partial<VrState>) => {
    state = { ...state, ...patch };
    for (const listener of listeners) listener();
  };
  return {
    get: () => state,
    set,
    notice(kind, text) {
      if ((state.notices[kind] ?? null) === text) return;
      const notices = { ...state.notices };
      if (text === null) delete notices[kind];
      else notices[kind] = text;
      set({ notices });
    },
    recentre: () => set({ recentred: state.recentred + 1, turns: 0 }),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
};

export const useVrState = <T>(store: VrStore, select: (state: VrState) => T): T => useSyncExternalStore(store.subscribe, () => select(store.get()));
