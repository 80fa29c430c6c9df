/**
 * What the trainee's hands do in the headset, controllers or tracked hands alike (WebXR's `select`
 * is the trigger and the pinch):
 * - held away from the panel and the keyboard: push-to-talk, through the room's microphone (the
 *   same path as the desktop's: audio/mic.ts frames to the socket, or LiveKit), lit on the panel;
 * - pulled at slides the trainee may change: the next slide (the left third: the previous one);
 * - at the panel or the keyboard: nothing here (their buttons take the pointer's click);
 * - A or X: raise or lower the hand.
 * And what goes wrong with them, told on the panel: the microphone refused, a controller lost, no
 * controllers or hands tracked at all.
 *
 * ```tsx
 * <XrInput session={session} view={view} vr={vr} voiceIn contents={contents} boards={boards} />
 * ```
 */
import { useFrame, useThree } from '@react-three/fiber';
import { useXR } from '@react-three/xr';
import { useEffect, useMemo, useRef } from 'react';
import * as THREE from 'three';
import { boardHit, type BoardPlace } from '../scene/layout';
import type { RoomView } from '../state/room';
import { maySlide, slideStep } from '../room/slide-controls';
import type { Session } from '../room/session';
import { hitsTarget } from './targets';
import type { VrStore } from './vr-state';

type Content = NonNullable<RoomView['snapshot']>['scene']['contents'][number];

/** Why the microphone did not start, and what to do instead. */
export const micNotice = (error: unknown): string => {
  const name = (error as { name?: string }).name;
  if (name === 'NotAllowedError') return 'The browser refused the microphone: allow it in its settings, or type with the Keyboard.';
  if (name === 'NotFoundError') return 'No microphone was found: type with the Keyboard.';
  return `The microphone could not start (${(error as Error).message}): type with the Keyboard.`;
};

/** What the panel says about the tracked inputs, or null when all is well. */
export const inputNotice = (sources: readonly { handedness: XRHandedness; hand?: unknown }[], lost: readonly XRHandedness[]): string | null => {
  if (sources.length === 0) return 'No controllers or hands are tracked: pick up a controller, or hold your hands up in view.';
  const gone = lost.filter((side) => !sources.some((s) => s.handedness === side));
  if (gone.length > 0) return `The ${gone.join(' and ')} controller is not tracked: use the other hand, or turn it back on.`;
  return null;
};

export const XrInput = ({ session, view, vr, voiceIn, contents, boards }: { session: Session; view: RoomView; vr: VrStore; voiceIn: boolean; contents: readonly Content[]; boards: readonly BoardPlace[] }) => {
  const { gl } = useThree();
  const viewRef = useRef(view);
  viewRef.current = view;
  const handUp = view.you?.participant ? view.hands.includes(view.you.participant) : false;
  const handRef = useRef(handUp);
  handRef.current = handUp;
  const ray = useMemo(() => ({ pose: new THREE.Matrix4(), caster: new THREE.Raycaster() }), []);
  const button = useRef(false);
  const xr = useXR((s) => s.session);

  // In the headset the desktop controls are out of sight: the microphone goes to push-to-talk.
  useEffect(() => {
    if (!voiceIn) return;
    if (session.view.mic === 'push-to-talk') return;
    session.startMicrophone('push-to-talk').then(() => vr.notice('microphone', null), (error: unknown) => vr.notice('microphone', micNotice(error)));
  }, [voiceIn, session, vr]);

  useEffect(() => {
    if (!xr) return;
    /** The source now talking, if any: only its release stops the talk. */
    let talker: XRInputSource | null = null;
    /** Sides that had a controller or a hand this session: losing one is told. */
    const seen = new Set<XRHandedness>();

    /** The ray of `source` in the room, or null when it has no pose this frame. */
    const aim = (source: XRInputSource, frame: XRFrame): THREE.Ray | null => {
      const space = gl.xr.getReferenceSpace();
      const pose = space && frame.getPose(source.targetRaySpace, space);
      if (!pose) return null;
      // Poses are in the XR origin's frame (it holds the XR camera); the room is in world space.
      ray.pose.fromArray(pose.transform.matrix);
      const origin = gl.xr.getCamera().parent;
      if (origin) ray.pose.premultiply(origin.matrixWorld);
      ray.caster.ray.origin.setFromMatrixPosition(ray.pose);
      ray.caster.ray.direction.set(0, 0, -1).transformDirection(ray.pose);
      return ray.caster.ray;
    };

    /** Changes the slide of the deck `at` points at, if any it may change; whether it pointed at one. */
    const slide = (at: THREE.Ray): boolean => {
      const v = viewRef.current;
      let nearest: { content: Content; across: number; distance: number } | null = null;
      for (const [i, content] of contents.entries()) {
        const board = boards[i];
        const hit = board && maySlide(v, content) ? boardHit(board, at.origin.toArray(), at.direction.toArray()) : null;
        if (hit && (!nearest || hit.distance < nearest.distance)) nearest = { content, ...hit };
      }
      if (!nearest) return false;
      const index = slideStep(v, nearest.content, nearest.across < 1 / 3 ? -1 : 1);
      if (index !== null) session.send({ type: 'slide', content: nearest.content.id, index });
      return true;
    };

    const talk = (on: boolean) => {
      vr.set({ talking: on });
      session.microphone()?.setTalking(on);
    };
    const start = (e: XRInputSourceEvent) => {
      const at = aim(e.inputSource, e.frame);
      if (at && hitsTarget(ray.caster)) return;
      if (at && slide(at)) return;
      const s = vr.get();
      if (!voiceIn || s.muted || !session.microphone() || talker) return;
      talker = e.inputSource;
      talk(true);
    };
    const end = (e: XRInputSourceEvent) => {
      if (e.inputSource !== talker) return;
      talker = null;
      talk(false);
    };
    const sources = () => {
      const now = [...xr.inputSources];
      for (const source of now) seen.add(source.handedness);
      if (talker && !now.includes(talker)) end({ inputSource: talker } as XRInputSourceEvent);
      vr.notice('input', inputNotice(now, [...seen]));
    };
    xr.addEventListener('selectstart', start);
    xr.addEventListener('selectend', end);
    xr.addEventListener('inputsourceschange', sources);
    sources();
    return () => {
      xr.removeEventListener('selectstart', start);
      xr.removeEventListener('selectend', end);
      xr.removeEventListener('inputsourceschange', sources);
      if (talker) talk(false);
    };
  }, [xr, gl, session, vr, voiceIn, contents, boards, ray]);

  // Muting while talking stops the talk.
  useEffect(() => vr.subscribe(() => {
    const s = vr.get();
    if (s.muted && s.talking) {
      vr.set({ talking: false });
      session.microphone()?.setTalking(false);
    }
  }), [vr, session]);

  // A or X (xr-standard button 4) raises or lowers the hand.
  useFrame(() => {
    const sources = gl.xr.getSession()?.inputSources;
    if (!sources) return;
    let pressed = false;
    for (const source of sources) pressed ||= source.gamepad?.buttons[4]?.pressed ?? false;
    if (pressed && !button.current) session.setHand(!handRef.current);
    button.current = pressed;
  });
  return null;
};
