/**
 * The 3D room: the formation's environment with every shared content on its board, every
 * participant's avatar at their seat (lip sync, gaze, blinks, nods, hands), voices placed on the
 * avatars' heads, and the viewer: a participant sits at their own seat (mouse-look on a desktop,
 * **Enter VR** in a headset, seated, no locomotion), the instructor looks on with a free orbit
 * camera, hidden from everyone. Whoever may change the slides gets previous / next below the room,
 * and in a headset pulls the trigger at the screen (its left third goes back).
 *
 * With `test`, `window.__room` exposes a handle for end-to-end tests and benchmarks (README).
 */
import { OrbitControls } from '@react-three/drei';
import { Canvas, useFrame, useThree } from '@react-three/fiber';
import { createXRStore, XR, XROrigin } from '@react-three/xr';
import { useEffect, useMemo, useRef, useState } from 'react';
import * as THREE from 'three';
import type { RoomView } from '../state/room';
import { Avatar } from '../scene/avatar';
import { Environment } from '../scene/environment';
import { boardHit, boardsFor, seatsFor, type BoardPlace, type Seat } from '../scene/layout';
import type { AvatarRig, RigInput } from '../scene/rig';
import type { Session } from './session';
import { emulateHeadsetOnLocalhost } from './emulator';
import { maySlide, SlideControls, slideStep } from './slide-controls';
import { installTestHandle, type RoomStats } from './test-handle';
import { VrPanel } from './vr-panel';

/** Head height above a seat: seated or standing. */
const headOf = (seat: Seat): THREE.Vector3 => new THREE.Vector3(seat.position[0], seat.position[1] + (seat.seated ? 1.2 : 1.62), seat.position[2]);

type Content = NonNullable<RoomView['snapshot']>['scene']['contents'][number];

const noContents: Content[] = [];

export const Room3D = ({ session, view, test }: { session: Session; view: RoomView; test: boolean }) => {
  const store = useMemo(
    () =>
      createXRStore({
        // Nothing from a CDN: no controller or hand models, no emulated room; the controllers'
        // button layouts (trigger for push-to-talk, A/X for the hand) come from public/xr-profiles.
        baseAssetPath: `${window.location.origin}/xr-profiles/`,
        controller: false,
        hand: false,
        transientPointer: false,
        gaze: false,
        screenInput: false,
        offerSession: false,
        // Emulation is installed by emulator.ts (see there why); the store's own would stand back.
        emulate: false,
      }),
    [],
  );
  const [inVR, setInVR] = useState(false);
  const [supported, setSupported] = useState(false);
  useEffect(() => {
    void emulateHeadsetOnLocalhost()
      .then(() => navigator.xr?.isSessionSupported('immersive-vr') ?? false)
      .then(setSupported, () => setSupported(false));
    return store.subscribe((state) => setInVR(state.session != null));
  }, [store]);

  const snapshot = view.snapshot;
  const participants = snapshot?.participants ?? [];
  const formation = snapshot?.scene.formation ?? 'table';
  const seats = useMemo(() => seatsFor(formation, participants.map((p) => ({ id: p.id, kind: p.kind }))), [formation, participants.length]); // eslint-disable-line react-hooks/exhaustive-deps
  const seatOf = useMemo(() => new Map(seats.map((s) => [s.id, s])), [seats]);
  const contents = snapshot?.scene.contents ?? noContents;
  const boards = useMemo(() => boardsFor(formation, contents.map((c) => c.kind), seats), [formation, contents, seats]);
  const me = view.you?.role === 'participant' ? view.you.participant : null;
  const mySeat = me ? seatOf.get(me) : undefined;
  const rigs = useRef(new Map<string, AvatarRig>());
  const stats = useRef<RoomStats>({ drawCalls: 0, triangles: 0, avatars: 0, fps: 0, avatarMs: 0 });

  // Voices come from the avatars' heads.
  useEffect(() => {
    for (const seat of seats) {
      const head = headOf(seat);
      session.voices?.place(seat.id, { x: head.x, y: head.y, z: head.z });
    }
  }, [seats, session]);

  useEffect(() => {
    if (!test) return;
    return installTestHandle({ session, store, stats: () => stats.current, rigs: () => rigs.current });
  }, [test, session, store]);

  return (
    <>
      <Canvas className="canvas" camera={{ fov: 60, near: 0.05, far: 80 }} gl={{ antialias: true, powerPreference: 'high-performance' }} dpr={[1, 2]}>
        <XR store={store}>
          <color attach="background" args={['#cfd3d6']} />
          <Environment formation={formation} seats={seats} contents={contents} boards={boards} slides={view.slides} />
          {participants.map((p) => {
            const seat = seatOf.get(p.id);
            // In first person you do not see your own body; everyone else does.
            if (!seat || p.id === me) return null;
            return (
              <Avatar
                key={p.id}
                file={`${p.avatar ?? 'avatar-01'}.glb`}
                position={seat.position}
                yaw={seat.yaw}
                seated={seat.seated}
                nameTag={p.name}
                speaking={false}
                rigRef={(rig: AvatarRig | null) => (rig ? rigs.current.set(p.id, rig) : rigs.current.delete(p.id))}
                manual
              />
            );
          })}
          <Animate session={session} view={view} seats={seatOf} rigs={rigs} stats={stats} me={me} />
          {mySeat ? (
            <Seated seat={mySeat} inVR={inVR} />
          ) : (
            <OrbitControls makeDefault target={[0, 1, 0]} maxPolarAngle={Math.PI / 2.05} />
          )}
          {mySeat && inVR && <VrPanel view={view} seat={mySeat} session={session} />}
          {mySeat && inVR && <ControllerInput session={session} view={view} contents={contents} boards={boards} />}
        </XR>
      </Canvas>
      {mySeat && supported && !inVR && (
        <button className="enter-vr" onClick={() => void store.enterVR()}>
          Enter VR
        </button>
      )}
      {view.you && !inVR && (
        <div className="room-tools">
          <SlideControls session={session} view={view} />
        </div>
      )}
    </>
  );
};

/**
 * Drives every avatar once a frame from the room state and the audio clock: lip sync, gaze
 * (listeners toward the speaker, the speaker toward the addressee), nods, raised hands, cuts.
 */
const Animate = ({
  session,
  view,
  seats,
  rigs,
  stats,
  me,
}: {
  session: Session;
  view: RoomView;
  seats: Map<string, Seat>;
  rigs: React.RefObject<Map<string, AvatarRig>>;
  stats: React.RefObject<RoomStats>;
  me: string | null;
}) => {
  const { gl, camera } = useThree();
  const viewRef = useRef(view);
  viewRef.current = view;
  const heads = useMemo(() => new Map([...seats].map(([id, seat]) => [id, headOf(seat)])), [seats]);
  const input = useRef<RigInput>({ visemes: null, lookAt: null, speaking: false, nod: 0, handRaised: false, cutAt: 0 });
  const frames = useRef({ count: 0, since: performance.now(), avatarMs: 0 });
  const forward = useMemo(() => new THREE.Vector3(), []);
  const up = useMemo(() => new THREE.Vector3(), []);
  const viewer = useMemo(() => new THREE.Vector3(), []);

  useFrame((_, delta) => {
    const v = viewRef.current;
    const audible = session.speaking();
    const speaker = audible ?? v.talking[0] ?? v.floor.speaker;
    const moderated = v.snapshot?.scene.moderated ?? false;
    const begin = performance.now();
    for (const [id, rig] of rigs.current) {
      // Once an avatar is built its head height is known: gaze and its voice use it.
      const head = heads.get(id);
      const seat = seats.get(id);
      if (head && seat && Math.abs(head.y - (seat.position[1] + rig.headTop - 0.1)) > 0.01) {
        head.y = seat.position[1] + rig.headTop - 0.1;
        session.voices?.place(id, { x: head.x, y: head.y, z: head.z });
      }
      const i = input.current;
      i.visemes = session.visemes(id);
      i.speaking = audible === id || v.talking.includes(id);
      // The speaker looks at whom they address (or the room); everyone else at the speaker.
      const target = id === speaker ? (v.floor.addressee ?? null) : speaker;
      i.lookAt = target && target !== id ? (target === me ? camera.getWorldPosition(viewer) : (heads.get(target) ?? null)) : null;
      i.nod = v.nods[id] ?? 0;
      i.cutAt = v.cuts[id] ?? 0;
      i.handRaised = v.hands.includes(id) && (moderated || v.waitingFor !== id);
      rig.update(Math.min(delta, 0.1), i);
    }
    const f = frames.current;
    f.avatarMs += performance.now() - begin;
    f.count++;
    // Spatial audio follows the viewer's head.
    camera.getWorldDirection(forward);
    up.set(0, 1, 0).applyQuaternion(camera.quaternion);
    camera.getWorldPosition(viewer);
    session.voices?.listen({ x: viewer.x, y: viewer.y, z: viewer.z }, { x: forward.x, y: forward.y, z: forward.z }, { x: up.x, y: up.y, z: up.z });
    const now = performance.now();
    if (now - f.since >= 1000) {
      stats.current = { drawCalls: gl.info.render.calls, triangles: gl.info.render.triangles, avatars: rigs.current.size, fps: (f.count * 1000) / (now - f.since), avatarMs: f.avatarMs / f.count };
      f.count = 0;
      f.avatarMs = 0;
      f.since = now;
    }
  });
  return null;
};

/** The participant's own place: a seated XR origin in a headset; on a desktop, a camera with mouse-look. */
const Seated = ({ seat, inVR }: { seat: Seat; inVR: boolean }) => {
  const { camera, gl } = useThree();
  const look = useRef({ yaw: 0, pitch: -0.08 });
  useEffect(() => {
    if (inVR) return;
    const head = headOf(seat);
    camera.position.copy(head);
    // Face where the seat faces (the table, the circle's centre, the panel, the board).
    look.current.yaw = seat.yaw + Math.PI;
    const apply = () => camera.quaternion.setFromEuler(new THREE.Euler(look.current.pitch, look.current.yaw, 0, 'YXZ'));
    apply();
    // Mouse-look: drag to turn your head.
    const canvas = gl.domElement;
    let dragging = false;
    const down = () => (dragging = true);
    const up = () => (dragging = false);
    const move = (e: PointerEvent) => {
      if (!dragging) return;
      look.current.yaw -= e.movementX * 0.004;
      look.current.pitch = Math.max(-1.2, Math.min(1.2, look.current.pitch - e.movementY * 0.004));
      apply();
    };
    canvas.addEventListener('pointerdown', down);
    addEventListener('pointerup', up);
    addEventListener('pointermove', move);
    return () => {
      canvas.removeEventListener('pointerdown', down);
      removeEventListener('pointerup', up);
      removeEventListener('pointermove', move);
    };
  }, [seat, inVR, camera, gl]);
  // In a headset the origin sits on the seat, facing the room; the headset gives the height.
  return <XROrigin position={[seat.position[0], seat.position[1], seat.position[2]]} rotation={[0, seat.yaw + Math.PI, 0]} />;
};

/**
 * Controllers: hold the trigger to talk (push-to-talk), A or X raises or lowers the hand. A trigger
 * pulled while pointing at slides you may change shows the next slide (the left third of the
 * screen: the previous one) instead of talking.
 */
const ControllerInput = ({ session, view, contents, boards }: { session: Session; view: RoomView; contents: readonly Content[]; boards: readonly BoardPlace[] }) => {
  const { gl } = useThree();
  const state = useRef({ talking: false, button: false, trigger: false, atSlides: false });
  const viewRef = useRef(view);
  viewRef.current = view;
  const handUp = view.you?.participant ? view.hands.includes(view.you.participant) : false;
  const handRef = useRef(handUp);
  handRef.current = handUp;
  const ray = useMemo(() => ({ pose: new THREE.Matrix4(), origin: new THREE.Vector3(), direction: new THREE.Vector3() }), []);
  // In the headset the desktop controls are out of sight: the microphone goes to push-to-talk.
  const voiceIn = view.voice?.input ?? false;
  useEffect(() => {
    if (voiceIn && !session.microphone()) session.startMicrophone('push-to-talk').catch((error: Error) => console.warn('no microphone in VR:', error.message));
  }, [voiceIn, session]);

  /** Changes the slide of the deck `source` points at, if any it may change; whether it pointed at one. */
  const pointAtSlides = (source: XRInputSource, frame: XRFrame): boolean => {
    const space = gl.xr.getReferenceSpace();
    const pose = space && frame.getPose(source.targetRaySpace, space);
    if (!pose) return false;
    // Poses are in the XR origin's frame (XROrigin holds the XR camera); the boards are in the room's.
    ray.pose.fromArray(pose.transform.matrix);
    const origin = gl.xr.getCamera().parent;
    if (origin) ray.pose.premultiply(origin.matrixWorld);
    ray.origin.setFromMatrixPosition(ray.pose);
    ray.direction.set(0, 0, -1).transformDirection(ray.pose);
    const v = viewRef.current;
    let nearest: { content: Content; across: number; distance: number } | null = null;
    for (const [i, content] of contents.entries()) {
      const board = boards[i];
      const hit = board && maySlide(v, content) ? boardHit(board, ray.origin.toArray(), ray.direction.toArray()) : null;
      if (hit && (!nearest || hit.distance < nearest.distance)) nearest = { content, ...hit };
    }
    if (!nearest) return false;
    const index = slideStep(v, nearest.content, nearest.across < 1 / 3 ? -1 : 1);
    if (index !== null) session.send({ type: 'slide', content: nearest.content.id, index });
    return true;
  };

  useFrame((_state, _delta, frame?: XRFrame) => {
    const sources = gl.xr.getSession()?.inputSources;
    if (!sources) return;
    let trigger: XRInputSource | null = null;
    let button = false;
    for (const source of sources) {
      const buttons = source.gamepad?.buttons;
      if (!buttons) continue;
      if (buttons[0]?.pressed) trigger ??= source;
      button ||= buttons[4]?.pressed ?? false;
    }
    const s = state.current;
    // A pull that began at the slides changes them and is not speech, until it is let go.
    if (trigger && !s.trigger) s.atSlides = frame !== undefined && pointAtSlides(trigger, frame);
    s.trigger = trigger !== null;
    const talking = s.trigger && !s.atSlides;
    if (talking !== s.talking) {
      s.talking = talking;
      session.microphone()?.setTalking(talking);
    }
    if (button && !s.button) session.setHand(!handRef.current);
    s.button = button;
  });
  return null;
};
