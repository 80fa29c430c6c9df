/**
 * `window.__room` with `?test=1`: what end-to-end tests and browser benchmarks read and drive.
 *
 * - `enterVR(): Promise<boolean>`: starts the immersive session (IWER emulates a Quest 3 on localhost)
 * - `stats()`: `{ drawCalls, triangles, avatars, fps, avatarMs }` of the last second
 * - `speaking()`: the participant whose audio is playing now, or null
 * - `voicedMs(participant)`: how much of a human's relayed voice (louder than silence) played here
 * - `progress(draft)`: how far a reply's speech has been heard here (`VoiceOutput.progress`), read
 *   with `performance.now()` in the same task to place its first audible sample on the page's clock
 * - `morph(participant, name)`: a morph target's current influence on that avatar
 * - `say(text)`, `state()`: the client's view of the session (`participants: [{ id, name, kind }]` …)
 * - `heads()`: every avatar's head as a box on the page (CSS pixels): its posed head box seen through
 *   the camera; `box` is null for a head behind the camera
 * - `framing()`: the desktop view's last framing (scene/framing.ts), the canvas size and the panels
 *   it was made for; null for the instructor's free camera
 */
import type { XRStore } from '@react-three/xr';
import { Vector3, type Camera } from 'three';
import type { SpeechProgress } from '../audio/playback';
import type { Framing, Rect } from '../scene/framing';
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

/** The camera the room is drawn with, and its canvas. */
export interface Viewer {
  camera: Camera;
  canvas: HTMLCanvasElement;
}

/** The desktop framing in use, and the canvas size and covered rectangles it was made for. */
export type FramingReport = Framing & { width: number; height: number; covered: Rect[] };

export interface HeadBox {
  participant: string;
  box: { x: number; y: number; width: number; height: number } | null;
}

export interface RoomHandle {
  enterVR(): Promise<boolean>;
  stats(): RoomStats;
  speaking(): string | null;
  voicedMs(participant: string): number;
  progress(draft: string): SpeechProgress | null;
  morph(participant: string, name: string): number;
  say(text: string): void;
  state(): unknown;
  /** Frames rendered while in VR (the XR session's own loop). */
  vrFrames(): number;
  heads(): HeadBox[];
  framing(): FramingReport | null;
}

declare global {
  interface Window {
    __room?: RoomHandle;
  }
}

/** Each head's box on the page: the eight corners of its posed box (rig.headCorners), projected. */
const headBoxes = (rigs: Map<string, AvatarRig>, viewer: Viewer | null): HeadBox[] => {
  if (!viewer) return [];
  const { camera, canvas } = viewer;
  camera.updateMatrixWorld();
  const page = canvas.getBoundingClientRect();
  const corners = Array.from({ length: 8 }, () => new Vector3());
  return [...rigs].map(([participant, rig]) => {
    rig.headCorners(corners);
    const box = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
    for (const corner of corners) {
      corner.project(camera);
      if (corner.z < -1 || corner.z > 1) return { participant, box: null };
      const x = page.left + ((corner.x + 1) / 2) * page.width;
      const y = page.top + ((1 - corner.y) / 2) * page.height;
      box.left = Math.min(box.left, x);
      box.right = Math.max(box.right, x);
      box.top = Math.min(box.top, y);
      box.bottom = Math.max(box.bottom, y);
    }
    return { participant, box: { x: box.left, y: box.top, width: box.right - box.left, height: box.bottom - box.top } };
  });
};

export const installTestHandle = (options: {
  session: Session;
  store: XRStore;
  stats: () => RoomStats;
  rigs: () => Map<string, AvatarRig>;
  viewer: () => Viewer | null;
  framing: () => FramingReport | null;
}): (() => void) => {
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
    voicedMs: (participant) => session.voices?.voicedMs(participant) ?? 0,
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
    heads: () => headBoxes(options.rigs(), options.viewer()),
    framing: options.framing,
  };
  window.__room = handle;
  return () => {
    if (window.__room === handle) delete window.__room;
  };
};
