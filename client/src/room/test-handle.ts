/**
 * `window.__room` with `?test=1`: what end-to-end tests and browser benchmarks read and drive.
 *
 * - `enterVR(): Promise<boolean>`: starts the immersive session (IWER emulates a Quest 3 on localhost)
 * - `stats()`: `{ drawCalls, triangles, avatars, fps, avatarMs }` of the last second
 * - `speaking()`: the participant whose audio is playing now, or null
 * - `progress(draft)`: how far a reply's speech has been heard here (`VoiceOutput.progress`), read
 *   with `performance.now()` in the same task to place its first audible sample on the page's clock
 * - `morph(participant, name)`: a morph target's current influence on that avatar
 * - `say(text)`, `state()`: the client's view of the session (`participants: [{ id, name, kind }]` …)
 */
import type { XRStore } from '@react-three/xr';
import type { SpeechProgress } from '../audio/playback';
import type { AvatarRig } from '../scene/rig';
import { emulateHeadsetOnLocalhost } from './emulator';
import type { Session } from './session';

/** What the room measures over each second, for the handle to report. */
export interface RoomStats {
  drawCalls: number;
  triangles: number;
  avatars: number;
  fps: number;
  /** Script time of the last frames' avatar updates (lip sync, gaze, blink, idle), ms per frame. */
  avatarMs: number;
}

export interface RoomHandle {
  enterVR(): Promise<boolean>;
  stats(): RoomStats;
  speaking(): string | null;
  progress(draft: string): SpeechProgress | null;
  morph(participant: string, name: string): number;
  say(text: string): void;
  state(): unknown;
  /** Frames rendered while in VR (the XR session's own loop). */
  vrFrames(): number;
}

declare global {
  interface Window {
    __room?: RoomHandle;
  }
}

export const installTestHandle = (options: { session: Session; store: XRStore; stats: () => RoomStats; rigs: () => Map<string, AvatarRig> }): (() => void) => {
  const { session, store } = options;
  let vrFrames = 0;
  const handle: RoomHandle = {
    async enterVR() {
      try {
        await emulateHeadsetOnLocalhost();
        const xr = await store.enterVR();
        if (!xr) return false;
        const count = (_t: number) => {
          vrFrames++;
          xr.requestAnimationFrame(count);
        };
        xr.requestAnimationFrame(count);
        return true;
      } catch (error) {
        console.warn('enterVR failed', error);
        return false;
      }
    },
    stats: options.stats,
    speaking: () => session.speaking(),
    progress: (draft) => session.voices?.progress(draft) ?? null,
    morph: (participant, name) => options.rigs().get(participant)?.morph(name) ?? 0,
    say: (text) => session.say(text),
    state: () => {
      const view = session.view;
      return {
        ...view,
        participants: (view.snapshot?.participants ?? []).map(({ id, name, kind, present, avatar }) => ({ id, name, kind, present, avatar })),
      };
    },
    vrFrames: () => vrFrames,
  };
  window.__room = handle;
  return () => {
    if (window.__room === handle) delete window.__room;
  };
};
