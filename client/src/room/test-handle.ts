/**
 * `window.__room` with `?test=1`: what end-to-end tests and browser benchmarks read and drive.
 *
 * - `enterVR(): Promise<boolean>`: starts the immersive session, on the emulated Quest 3 (IWER) the
 *   test asks for by calling it when the browser has no headset
 * - `stats()`: `{ drawCalls, triangles, avatars, fps, avatarMs }` of the last second, and
 *   `frames`, every frame drawn so far (counted at each frame: a test waits for frames drawn with it)
 * - `speaking()`: the participant whose audio is playing now, or null
 * - `voicedMs(participant)`: how much of a human's relayed voice (louder than silence) played here
 * - `progress(draft)`: how far a reply's speech has been heard here (`VoiceOutput.progress`), read
 *   with `performance.now()` in the same task to place its first audible sample on the page's clock
 * - `morph(participant, name)`: a morph target's current influence on that avatar
 * - `mouthOpen(participant)`: how open that avatar's mouth is, 0..1 (rig.mouthOpen)
 * - `headShown(participant)`: whether that avatar's head is drawn (not the wearer's own, in their headset)
 * - `gaze(participant)`: where that avatar's head is turned now, degrees: `yaw` to its left, `pitch` down (rig.gaze)
 * - `playTrack(participant, seconds)`: plays a vowel-like voice (a 120 Hz buzz through the formants of
 *   "ah") as a live track of that participant, the way LiveKit delivers a remote microphone, for
 *   `seconds`; the track stays attached and silent after
 * - `say(text)`, `state()`: the client's view of the session (`participants: [{ id, name, kind }]` …)
 * - `heads()`: every avatar's head as a box on the page (CSS pixels): its posed head box seen through
 *   the camera; `box` is null for a head behind the camera
 * - `framing()`: the desktop view's last framing (scene/framing.ts), the canvas size and the panels
 *   it was made for; null for the instructor's free camera
 * - `aim(content, across)`: in VR on the emulated headset, points the right controller (held in front
 *   of the chest) at that content's board, `across` from its left edge (0) to its right (1); false
 *   when there is no such board, no seat or no emulated headset
 * - `trigger(pressed)`: presses or releases the emulated right controller's trigger
 * - `hold(side, offset, turn)`: in VR on the emulated headset, holds that controller `offset` metres
 *   from the headset in the XR origin's frame (x right, y up, -z ahead), its grip turned by `turn`
 *   (a quaternion `[x, y, z, w]` in the same frame); false when there is no emulated headset
 * - `onScreen()`: every avatar's head and name tag as boxes on the page (CSS pixels), and how far each
 *   head is from the camera (scene/on-screen.ts): whether each tag sits just above its own head
 * - `wrist(participant, side)`: where that avatar's wrist (its hand bone) is in the room, `[x, y, z]`;
 *   with `head(participant)`: the middle of its head (rig.headCentre), to measure a reach against
 */
import type { XRStore } from '@react-three/xr';
import { Matrix4, Quaternion, Vector3, type Camera } from 'three';
import type { SpeechProgress } from '../audio/playback';
import type { Framing, Rect } from '../scene/framing';
import type { BoardPlace, Seat } from '../scene/layout';
import type { RoomStats } from '../scene/frame-stats';
import type { AvatarRig } from '../scene/rig';
import { onScreen, type OnScreen } from '../scene/on-screen';
import { emulatedHeadset, emulateHeadset } from './emulator';
import type { Session } from './session';

/** The camera the room is drawn with, and its canvas. */
export interface CameraView {
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
  mouthOpen(participant: string): number;
  gaze(participant: string): { yaw: number; pitch: number } | null;
  headShown(participant: string): boolean | null;
  playTrack(participant: string, seconds: number): boolean;
  say(text: string): void;
  state(): unknown;
  /** Frames rendered while in VR (the XR session's own loop). */
  vrFrames(): number;
  heads(): HeadBox[];
  framing(): FramingReport | null;
  aim(content: string, across: number): boolean;
  trigger(pressed: boolean): boolean;
  hold(side: 'left' | 'right', offset: [number, number, number], turn: [number, number, number, number]): boolean;
  wrist(participant: string, side: 'left' | 'right'): [number, number, number] | null;
  head(participant: string): [number, number, number] | null;
  onScreen(): OnScreen[];
}

/** Where this viewer sits and where each content's board is: what `aim` needs. */
export interface Aimable {
  seat: Seat | null;
  boards: { content: string; place: BoardPlace }[];
}

/** Where the right hand is held, in the XR origin's frame: in front of the chest, a little to the right. */
const hand = new Vector3(0.15, 1.25, -0.25);

/**
 * The emulated right controller's pose that points from `hand` at a spot on the board. The XR
 * origin sits at the seat, turned to face the room (as room3d's SeatOrigin places it), so the
 * aim is worked out in the room and turned back into the origin's frame.
 */
const aimAt = (seat: Seat, board: BoardPlace, across: number): { position: Vector3; quaternion: Quaternion } => {
  const origin = new Matrix4().compose(new Vector3(...seat.position), new Quaternion().setFromAxisAngle(new Vector3(0, 1, 0), seat.yaw + Math.PI), new Vector3(1, 1, 1));
  const from = hand.clone().applyMatrix4(origin);
  // The board's own X runs along (cos yaw, 0, -sin yaw) (scene/layout.ts, boardHit).
  const along = (across - 0.5) * board.size[0];
  const target = new Vector3(board.position[0] + along * Math.cos(board.yaw), board.position[1], board.position[2] - along * Math.sin(board.yaw));
  const direction = target.sub(from).normalize().transformDirection(origin.clone().invert());
  return { position: hand.clone(), quaternion: new Quaternion().setFromUnitVectors(new Vector3(0, 0, -1), direction) };
};

declare global {
  interface Window {
    __room?: RoomHandle;
  }
}

/** Each head's box on the page: the eight corners of its posed box (rig.headCorners), projected. */
const headBoxes = (rigs: Map<string, AvatarRig>, viewer: CameraView | null): HeadBox[] => {
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
  viewer: () => CameraView | null;
  framing: () => FramingReport | null;
  aimable: () => Aimable;
}): (() => void) => {
  const { session, store } = options;
  let vrFrames = 0;
  // Every immersive session's frames are counted, however it was entered (this handle, the page's button).
  let counted: XRSession | null = null;
  const unsubscribe = store.subscribe(({ session: xr }) => {
    if (!xr || xr === counted) return;
    counted = xr;
    const count = (_t: number) => {
      vrFrames++;
      xr.requestAnimationFrame(count);
    };
    xr.requestAnimationFrame(count);
  });
  const handle: RoomHandle = {
    async enterVR() {
      try {
        await emulateHeadset();
        return (await store.enterVR()) != null;
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
    mouthOpen: (participant) => options.rigs().get(participant)?.mouthOpen() ?? 0,
    gaze: (participant) => options.rigs().get(participant)?.gaze() ?? null,
    headShown: (participant) => options.rigs().get(participant)?.headShown ?? null,
    playTrack(participant, seconds) {
      const voices = session.voices;
      if (!voices) return false;
      const context = new AudioContext();
      const buzz = context.createOscillator();
      buzz.type = 'sawtooth';
      buzz.frequency.value = 120;
      const out = context.createMediaStreamDestination();
      for (const [hz, q, level] of [[730, 6, 1], [1090, 8, 0.5]] as const) {
        const formant = context.createBiquadFilter();
        formant.type = 'bandpass';
        formant.frequency.value = hz;
        formant.Q.value = q;
        const gain = context.createGain();
        gain.gain.value = level;
        buzz.connect(formant).connect(gain).connect(out);
      }
      buzz.start();
      buzz.stop(context.currentTime + seconds);
      voices.attach(participant, out.stream.getAudioTracks()[0]!);
      return true;
    },
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
    aim(content, across) {
      const controller = emulatedHeadset()?.controllers.right;
      const { seat, boards } = options.aimable();
      const board = boards.find((b) => b.content === content)?.place;
      if (!controller || !seat || !board) return false;
      const { position, quaternion } = aimAt(seat, board, across);
      controller.position.set(position.x, position.y, position.z);
      controller.quaternion.set(quaternion.x, quaternion.y, quaternion.z, quaternion.w);
      return true;
    },
    trigger(pressed) {
      const controller = emulatedHeadset()?.controllers.right;
      controller?.updateButtonValue('trigger', pressed ? 1 : 0);
      return controller !== undefined;
    },
    hold(side, [x, y, z], turn) {
      const device = emulatedHeadset();
      const controller = device?.controllers[side];
      if (!device || !controller) return false;
      controller.position.set(device.position.x + x, device.position.y + y, device.position.z + z);
      controller.quaternion.set(...turn);
      return true;
    },
    wrist(participant, side) {
      const at = options.rigs().get(participant)?.wrist(side, new Vector3());
      return at ? (at.toArray() as [number, number, number]) : null;
    },
    head(participant) {
      const rig = options.rigs().get(participant);
      return rig ? (rig.headCentre(new Vector3()).toArray() as [number, number, number]) : null;
    },
    onScreen() {
      const viewer = options.viewer();
      return viewer ? onScreen(options.rigs(), viewer.camera, viewer.canvas) : [];
    },
  };
  window.__room = handle;
  return () => {
    unsubscribe();
    if (window.__room === handle) delete window.__room;
  };
};
