/**
 * The 3D room: the formation's environment with every shared content on its board, every
 * participant's avatar at their seat (lip sync, gaze, blinks, nods, hands, a name tag unless turned
 * off), voices placed on the avatars' heads, and the viewer: a participant sits at their own seat
 * (on a desktop a camera framed to show everyone clear of the HUD, with mouse-look and wheel zoom;
 * **Enter VR**, offered only where the browser has immersive VR or `?xr=emulate` asks for the
 * emulated headset, puts their eyes at their seat's (xr/seat-origin.tsx) in their own avatar, with
 * the panel (vr-panel.tsx) and push-to-talk (xr/input.tsx); their own avatar has no head there, and
 * everyone else sees its head follow their headset: xr/share-pose.tsx), the instructor looks on with a free
 * orbit camera, hidden from everyone. Whoever may change the slides gets previous / next below the room,
 * and in a headset pulls the trigger at the screen (its left third goes back).
 *
 * With `test`, `window.__room` exposes a handle for end-to-end tests and benchmarks (README).
 */
import { OrbitControls } from '@react-three/drei';
import { Canvas, useFrame, useThree } from '@react-three/fiber';
import { createXRStore, XR } from '@react-three/xr';
import { dropStaleInputStates } from '../xr/stale-inputs';
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import * as THREE from 'three';
import type { RoomView } from '../state/room';
import { Avatar } from '../scene/avatar';
import { nearTagScale, tagMiddleAbove } from '../scene/name-tag';
import { useTagDeclutter } from '../scene/declutter';
import { Environment } from '../scene/environment';
import { FrameCap, frameCapOf } from '../scene/frame-cap';
import { frameSeat, type Rect } from '../scene/framing';
import { boardsFor, seatsFor, type Seat, type Vec3 } from '../scene/layout';
import type { AvatarRig } from '../scene/rig';
import { useViewSettings, ViewMenu } from '../scene/view-settings';
import type { Session } from './session';
import { headOf, headTopOf } from '../scene/attention';
import { useAvatarDriver, useRigRefs, type AvatarCast } from '../scene/drive';
import { noStats, type RoomStats } from '../scene/frame-stats';
import { UploadToken } from '../scene/uploaded';
import { gazeReporter, lookingAt } from './looking-at';
import { SlideControls } from './slide-controls';
import { installTestHandle, type Aimable, type FramingReport, type CameraView } from './test-handle';
import { VrPanel } from './vr-panel';
import { XrInput } from '../xr/input';
import { SeatOrigin } from '../xr/seat-origin';
import { SharePose } from '../xr/share-pose';
import { rememberInVr, useImmersiveVr, wasInVr } from '../xr/support';
import { installXrTestHandle } from '../xr/test-handle';
import { createVrState, type VrStore } from '../xr/vr-state';

type Content = NonNullable<RoomView['snapshot']>['scene']['contents'][number];

/** The desktop camera's vertical field of view, degrees, before any zoom. */
const desktopFov = 60;
/** What covers the canvas and must not hide a face: the HUD, the Enter VR button. */
const coveringSelector = '.hud, .enter-vr';

const noContents: Content[] = [];
const noParticipants: NonNullable<RoomView['snapshot']>['participants'] = [];
/** Where the instructor's free camera turns about. */
const orbitTarget: Vec3 = [0, 1, 0];

/** `token`: the page's own (its link's); the boards read the contents' uploaded images with it (scene/uploaded.ts). */
export const Room3D = ({ session, view, token, test }: { session: Session; view: RoomView; token: string; test: boolean }) => {
  const store = useMemo(
    () =>
      createXRStore({
        // Nothing from a CDN: no controller or hand models (the trainee's own avatar is their body),
        // no emulated room; the controllers' button layouts (trigger for push-to-talk, A/X for the
        // hand) come from public/xr-profiles. Controllers and hands point at the panel with a ray;
        // the trigger or a pinch presses what it points at.
        baseAssetPath: `${window.location.origin}/xr-profiles/`,
        controller: { model: false, grabPointer: false, teleportPointer: false, rayPointer: { rayModel: { color: '#9fd3ff' } } },
        hand: { model: false, grabPointer: false, touchPointer: false, teleportPointer: false, rayPointer: { rayModel: { color: '#9fd3ff' } } },
        transientPointer: false,
        gaze: false,
        screenInput: false,
        offerSession: false,
        // Emulation is installed by emulator.ts, only with ?xr=emulate (see there why); the store's own would stand back.
        emulate: false,
      }),
    [],
  );
  const [inVR, setInVR] = useState(false);
  const supported = useImmersiveVr();
  const [vrProblem, setVrProblem] = useState('');
  useEffect(() => store.subscribe((state) => setInVR(state.session != null)), [store]);
  // A controller gone before its layout loaded is not drawn twice when it comes back.
  useEffect(() => dropStaleInputStates(store), [store]);
  const sessionId = view.snapshot?.session ?? '';
  const returning = useMemo(() => sessionId !== '' && wasInVr(sessionId), [sessionId]);
  useEffect(() => {
    if (sessionId) rememberInVr(sessionId, inVR);
  }, [sessionId, inVR]);
  const exitVR = useMemo(() => () => void store.getState().session?.end(), [store]);
  const enterVR = () => {
    setVrProblem('');
    store.enterVR().catch((error: Error) => setVrProblem(`The headset did not start VR (${error.message}). Try again, or stay on this page.`));
  };
  // A session that ends while in VR brings the page back (its summary is a click away there).
  useEffect(() => {
    if (inVR && view.status === 'ended') exitVR();
  }, [inVR, view.status]); // eslint-disable-line react-hooks/exhaustive-deps
  // Escape leaves VR where a keyboard is at hand (the emulated headset; the headset has its own exit).
  useEffect(() => {
    if (!inVR) return;
    const key = (e: KeyboardEvent) => e.key === 'Escape' && exitVR();
    addEventListener('keydown', key);
    return () => removeEventListener('keydown', key);
  }, [inVR]); // eslint-disable-line react-hooks/exhaustive-deps

  const snapshot = view.snapshot;
  const participants = snapshot?.participants ?? noParticipants;
  const formation = snapshot?.scene.formation ?? 'table';
  const seats = useMemo(() => seatsFor(formation, participants.map((p) => ({ id: p.id, kind: p.kind }))), [formation, participants.length]); // eslint-disable-line react-hooks/exhaustive-deps
  const seatOf = useMemo(() => new Map(seats.map((s) => [s.id, s])), [seats]);
  const contents = snapshot?.scene.contents ?? noContents;
  const boards = useMemo(() => boardsFor(formation, contents.map((c) => c.kind), seats), [formation, contents, seats]);
  const me = view.you?.role === 'participant' ? view.you.participant : null;
  const mySeat = me ? seatOf.get(me) : undefined;
  const vr = useMemo(() => createVrState({ stance: mySeat?.seated === false ? 'standing' : 'seated' }), [mySeat?.seated]);
  const voiceIn = view.voice?.input ?? false;
  // The desktop camera looks past your chair from behind it (Seated): the chair would block the view.
  const chairless = useMemo(() => (me && !inVR ? [me] : []), [me, inVR]);
  const rigs = useRef(new Map<string, AvatarRig>());
  const stats = useRef<RoomStats>(noStats());
  const viewer = useRef<CameraView | null>(null);
  const framed = useRef<FramingReport | null>(null);
  const { nameTags } = useViewSettings();
  // Where each avatar's head is, once it is built (its rest pose): the framing then uses it.
  const [built, setBuilt] = useState<Record<string, { head: Vec3; top: number }>>({});
  const shareRig = useRigRefs(rigs, (id, rig) => {
    if (!rig) return;
    const head = rig.headCentre(new THREE.Vector3()).toArray() as Vec3;
    setBuilt((all) => ({ ...all, [id]: { head, top: rig.headTop } }));
  });
  const cast = useMemo((): AvatarCast => ({ seats: seatOf, rigs, stats }), [seatOf]);
  // Each name tag's size from your seat: a neighbour's no larger on screen than the others' (scene/name-tag.tsx).
  const tagScales = useMemo(() => {
    const from = mySeat && (built[mySeat.id]?.head ?? (headOf(mySeat).toArray() as Vec3));
    return new Map(
      seats.map((s) => {
        const head = built[s.id]?.head ?? (headOf(s).toArray() as Vec3);
        return [s.id, from ? nearTagScale(Math.hypot(head[0] - from[0], head[1] - from[1], head[2] - from[2])) : 1];
      }),
    );
  }, [seats, mySeat, built]);
  // What the desktop view keeps in frame: everyone else's head and name tag.
  const inFrame = useMemo(
    () =>
      seats
        .filter((s) => s.id !== me)
        .flatMap((s): Vec3[] => {
          const known = built[s.id];
          const head = known?.head ?? (headOf(s).toArray() as Vec3);
          // The tag hangs over the head as posed, at its rest height (scene/name-tag.tsx).
          const tag = s.position[1] + (known?.top ?? headTopOf(s)) + tagMiddleAbove(tagScales.get(s.id));
          return [head, [head[0], tag, head[2]]];
        }),
    [seats, me, built, tagScales],
  );

  // Voices come from the avatars' heads.
  useEffect(() => {
    for (const seat of seats) {
      const head = headOf(seat);
      session.voices?.place(seat.id, { x: head.x, y: head.y, z: head.z });
    }
  }, [seats, session]);

  const aimable = useRef<Aimable>({ seat: null, boards: [] });
  aimable.current = { seat: mySeat ?? null, boards: contents.flatMap((content, i) => (boards[i] ? [{ content: content.id, place: boards[i] }] : [])) };
  useEffect(() => {
    if (!test) return;
    const room = installTestHandle({ session, store, stats: () => stats.current, rigs: () => rigs.current, viewer: () => viewer.current, framing: () => framed.current, aimable: () => aimable.current });
    const xr = installXrTestHandle({ store, vr, viewer: () => viewer.current, rigs: () => rigs.current });
    return () => {
      room();
      xr();
    };
  }, [test, session, store, vr]);
  // Where the trainee's eyes go in the headset: their avatar's, once it is built (a little in front
  // of the head's centre), else the seat's usual head height.
  const eye = useMemo((): Vec3 | null => {
    if (!mySeat) return null;
    const head = built[mySeat.id]?.head ?? (headOf(mySeat).toArray() as Vec3);
    return [head[0] + Math.sin(mySeat.yaw) * 0.08, head[1], head[2] + Math.cos(mySeat.yaw) * 0.08];
  }, [mySeat, built]);

  // The canvas's tree, made again only when what it draws changes: the view changes many times a
  // second while people speak (words, audio, the floor), and re-rendering the room's tree each time
  // (React's reconciler and react-three-fiber's over every avatar) was the page's costliest script
  // after drawing itself (bench/client.bench.ts). The avatars read the view each frame (Animate);
  // only the panel and the controllers of VR show it through React.
  const vrView = inVR ? view : null;
  const form = snapshot?.scene.form;
  const frameCap = useMemo(() => frameCapOf(location.search), []);
  const canvas = useMemo(
    () => (
      <Canvas className="canvas" frameloop={frameCap ? 'demand' : 'always'} camera={{ fov: desktopFov, near: 0.05, far: 80 }} gl={{ antialias: true, powerPreference: 'high-performance' }} dpr={[1, 2]}>
        {frameCap && <FrameCap fps={frameCap} />}
        <XR store={store}>
          <color attach="background" args={['#cfd3d6']} />
          <UploadToken.Provider value={token || null}>
            <Environment formation={formation} form={form} seats={seats} contents={contents} boards={boards} slides={view.slides} chairless={chairless} />
          </UploadToken.Provider>
          {participants.map((p) => {
            const seat = seatOf.get(p.id);
            // On a desktop you look past your own chair from behind it; in the headset you sit in your avatar.
            if (!seat || (p.id === me && !inVR)) return null;
            return (
              <Avatar
                key={p.id}
                file={`${p.avatar ?? 'avatar-01'}.glb`}
                position={seat.position}
                yaw={seat.yaw}
                seated={seat.seated}
                nameTag={p.name}
                showTag={nameTags}
                tagScale={tagScales.get(p.id) ?? 1}
                speaking={false}
                rigRef={shareRig(p.id)}
                firstPerson={p.id === me}
                manual
              />
            );
          })}
          <Animate session={session} cast={cast} me={me} />
          {mySeat ? (
            <Seated seat={mySeat} inVR={inVR} inFrame={inFrame} framed={framed} eye={eye!} vr={vr} />
          ) : (
            <OrbitControls makeDefault target={orbitTarget} maxPolarAngle={Math.PI / 2.05} />
          )}
          {mySeat && inVR && <VrPanel view={vrView!} session={session} vr={vr} voiceIn={voiceIn} onExit={exitVR} />}
          {mySeat && inVR && <SharePose session={session} participant={me!} seat={mySeat} />}
          {mySeat && inVR && <XrInput session={session} view={vrView!} vr={vr} voiceIn={voiceIn} contents={contents} boards={boards} />}
          {test && <Lens into={viewer} />}
        </XR>
      </Canvas>
    ),
    [store, token, formation, form, seats, contents, boards, view.slides, chairless, participants, seatOf, me, inVR, nameTags, tagScales, shareRig, session, cast, mySeat, inFrame, eye, vr, vrView, voiceIn, exitVR, test, frameCap],
  );

  return (
    <>
      {canvas}
      {mySeat && supported && !inVR && (
        <div className="enter-vr">
          {returning && <p>The page reloaded while you were in VR; your seat is kept.</p>}
          {vrProblem && <p className="error">{vrProblem}</p>}
          <button onClick={enterVR}>{returning ? 'Back to VR' : 'Enter VR'}</button>
        </div>
      )}
      {view.you && !inVR && (
        <div className="room-tools">
          <SlideControls session={session} view={view} />
          <ViewMenu />
        </div>
      )}
    </>
  );
};

/** Hands the test handle the camera and the canvas it draws on. */
const Lens = ({ into }: { into: React.RefObject<CameraView | null> }) => {
  const { camera, gl } = useThree();
  useEffect(() => {
    into.current = { camera, canvas: gl.domElement };
    return () => void (into.current = null);
  }, [camera, gl, into]);
  return null;
};

/**
 * Drives every avatar once a frame from the room state and the audio clock: lip sync, gaze
 * (listeners toward the speaker, the speaker toward the addressee), nods, raised hands, cuts.
 * It reads the session's view as each frame is drawn, so a new view re-renders nothing here.
 */
const Animate = memo(function Animate({ session, cast, me }: { session: Session; cast: AvatarCast; me: string | null }) {
  const { gl, camera } = useThree();
  const forward = useMemo(() => new THREE.Vector3(), []);
  const up = useMemo(() => new THREE.Vector3(), []);
  const viewer = useMemo(() => new THREE.Vector3(), []);
  // In a headset, whom your head points at goes to the server for your debrief (gaze at the speaker).
  const reportGaze = useMemo(() => gazeReporter((at) => session.send({ type: 'gaze', at })), [session]);
  const { drive, heads } = useAvatarDriver(cast, {
    visemes: (id) => session.visemes(id),
    waveform: (id) => session.voices?.waveform(id) ?? null,
    // Whoever looks at you looks into your eyes: the camera.
    lookAt: (target) => (target === me ? camera.getWorldPosition(viewer) : null),
    // A headset wearer's avatar looks where their headset does.
    headed: (id, out) => {
      const seat = cast.seats.get(id);
      return seat !== undefined && session.poses.lookPoint(id, seat, performance.now(), out);
    },
    // And their arms reach for their hands.
    arms: (id, out) => {
      const seat = cast.seats.get(id);
      return seat !== undefined && session.poses.arms(id, seat, performance.now(), out);
    },
    // A voice sounds from its avatar's mouth.
    onHead: (id, head) => session.voices?.place(id, { x: head.x, y: head.y, z: head.z }),
  });
  // A near tag over a farther face fades.
  useTagDeclutter(cast.rigs);

  useFrame((_, delta) => {
    const v = session.view;
    const begin = drive(delta, v, session.speaking());
    // Spatial audio follows the viewer's head.
    camera.getWorldDirection(forward);
    up.set(0, 1, 0).applyQuaternion(camera.quaternion);
    camera.getWorldPosition(viewer);
    session.voices?.listen({ x: viewer.x, y: viewer.y, z: viewer.z }, { x: forward.x, y: forward.y, z: forward.z }, { x: up.x, y: up.y, z: up.z });
    if (me && gl.xr.isPresenting && v.status === 'live') reportGaze(lookingAt(viewer, forward, heads, me), begin);
  });
  return null;
});

/**
 * The panels laid over the canvas (`coveringSelector`), in the canvas's pixels: measured again
 * whenever the canvas or one of them changes size, or one comes or goes.
 */
const useCovered = (canvas: HTMLCanvasElement): Rect[] => {
  const [covered, setCovered] = useState<Rect[]>([]);
  useEffect(() => {
    // The panels are the canvas wrapper's siblings (its wrapper has our class name `canvas`).
    const room = canvas.closest('.canvas')?.parentElement ?? document.body;
    const measure = () => {
      const origin = canvas.getBoundingClientRect();
      const next = Array.from(room.querySelectorAll(coveringSelector), (element) => {
        const r = element.getBoundingClientRect();
        return { left: r.left - origin.left, top: r.top - origin.top, right: r.right - origin.left, bottom: r.bottom - origin.top };
      });
      setCovered((last) => (JSON.stringify(last) === JSON.stringify(next) ? last : next));
    };
    const sizes = new ResizeObserver(measure);
    const watch = () => {
      sizes.disconnect();
      sizes.observe(canvas);
      for (const element of Array.from(room.querySelectorAll(coveringSelector))) sizes.observe(element);
      measure();
    };
    const arrivals = new MutationObserver(watch);
    arrivals.observe(room, { childList: true });
    watch();
    return () => {
      sizes.disconnect();
      arrivals.disconnect();
    };
  }, [canvas]);
  return covered;
};

/**
 * The participant's own place: in a headset, the XR origin that puts their eyes at `eye`; on a desktop, a camera framed to
 * show everyone in `inFrame` clear of the HUD (scene/framing.ts), turned by dragging (at the look
 * speed of the view settings) and zoomed with the wheel to read a board.
 */
const Seated = memo(function Seated({ seat, inVR, inFrame, framed, eye, vr }: { seat: Seat; inVR: boolean; inFrame: readonly Vec3[]; framed: React.RefObject<FramingReport | null>; eye: Vec3; vr: VrStore }) {
  const { camera, gl, size } = useThree();
  const covered = useCovered(gl.domElement);
  const { lookSpeed } = useViewSettings();
  const framing = useMemo(
    () => frameSeat({ eye: headOf(seat).toArray() as Vec3, facing: seat.yaw, heads: inFrame, screen: { width: size.width, height: size.height, fov: desktopFov, covered } }),
    [seat, inFrame, size.width, size.height, covered],
  );
  // The person's own turn of the head and zoom, on top of the framing, kept when the framing changes.
  const look = useRef({ yaw: 0, pitch: 0, zoom: 1 });
  useEffect(() => {
    if (inVR) return;
    const lens = camera as THREE.PerspectiveCamera;
    const apply = () => {
      const { yaw, pitch, zoom } = look.current;
      camera.position.set(...framing.position);
      camera.rotation.set(Math.max(-1.2, Math.min(1.2, framing.pitch + pitch)), framing.yaw + yaw, 0, 'YXZ');
      lens.fov = (2 * Math.atan(Math.tan((framing.fov * Math.PI) / 360) / zoom) * 180) / Math.PI;
      lens.updateProjectionMatrix();
    };
    apply();
    framed.current = { width: size.width, height: size.height, covered, ...framing };

    // Drag to turn your head: at look speed 1 a drag across the canvas's height turns the view by
    // its field of view, so what is under the pointer stays about under it.
    const canvas = gl.domElement;
    let dragging = false;
    const down = () => (dragging = true);
    const up = () => (dragging = false);
    const move = (e: PointerEvent) => {
      if (!dragging) return;
      const perPixel = (lookSpeed * THREE.MathUtils.degToRad(lens.fov)) / Math.max(canvas.clientHeight, 1);
      look.current.yaw -= e.movementX * perPixel;
      look.current.pitch = Math.max(-1.2 - framing.pitch, Math.min(1.2 - framing.pitch, look.current.pitch - e.movementY * perPixel));
      apply();
    };
    const wheel = (e: WheelEvent) => {
      e.preventDefault();
      look.current.zoom = Math.max(1, Math.min(4, look.current.zoom * Math.exp(-e.deltaY * 0.001)));
      apply();
    };
    canvas.addEventListener('pointerdown', down);
    canvas.addEventListener('wheel', wheel, { passive: false });
    addEventListener('pointerup', up);
    addEventListener('pointermove', move);
    return () => {
      canvas.removeEventListener('pointerdown', down);
      canvas.removeEventListener('wheel', wheel);
      removeEventListener('pointerup', up);
      removeEventListener('pointermove', move);
    };
  }, [framing, inVR, camera, gl, lookSpeed, size.width, size.height, covered, framed]);
  return <SeatOrigin seat={seat} eye={eye} vr={vr} />;
});
