/**
 * The 3D replay's room: the live room's environment, boards and avatars (scene/), driven every
 * frame from the player's clock: the room view at the playhead (replay.ts) gives presence,
 * the floor, hands, nods, cuts and slides; scene/attention.ts turns it into gaze and gestures as in
 * the live room; the speaker's mouth follows their recording's cues (review/player.ts) while it
 * plays, and rests when paused. Everyone sits in the room; the viewer looks on with a free orbit
 * camera, starting from a raised view of the whole formation with tags sized to read from there
 * (viewpoint.ts).
 *
 * With `test`, `window.__replay` exposes a handle for end-to-end tests (see ReplayHandle).
 */
import { OrbitControls } from '@react-three/drei';
import { Canvas, useFrame, useThree } from '@react-three/fiber';
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import * as THREE from 'three';
import { Avatar } from '../scene/avatar';
import { useAvatarDriver, useRigRefs, type AvatarCast } from '../scene/drive';
import { noStats, type RoomStats } from '../scene/frame-stats';
import { useTagDeclutter } from '../scene/declutter';
import { Environment } from '../scene/environment';
import { FrameCap, frameCapOf } from '../scene/frame-cap';
import { boardsFor, seatsFor, wallHeight, type BoardPlace } from '../scene/layout';
import { onScreen, type OnScreen, type PageBox } from '../scene/on-screen';
import { settingFor } from '../scene/setting/setting';
import { UploadToken } from '../scene/uploaded';
import { lookingAt } from '../room/looking-at';
import type { AvatarRig } from '../scene/rig';
import { useViewSettings } from '../scene/view-settings';
import type { RoomView } from '../state/room';
import type { Player } from '../review/player';
import type { Replay } from './replay';
import { overlook } from './viewpoint';

/** What browser tests read of the replay (`window.__replay` with ?test=1). */
export interface ReplayHandle {
  /** `{ drawCalls, triangles, avatars, fps, avatarMs }` of the last second, as the live room reports them. */
  stats(): RoomStats;
  /** Whose utterance runs at the playhead (drawn speaking), or null. */
  speaking(): string | null;
  /** A morph target's current influence on that avatar (`viseme_aa`…). */
  morph(participant: string, name: string): number;
  /** Where that avatar's head is turned by gaze, in degrees (pitch down; negative: up), or null before it is built. */
  gaze(participant: string): { yaw: number; pitch: number } | null;
  /** Whose head that avatar's face points at now (within 20°), or null. */
  facing(participant: string): string | null;
  /**
   * How that avatar's head is held in the room, in degrees, or null before it is built: `pitch`
   * of the face above level (negative: looking down); `tilt` of its up axis away from upright
   * (however it leans); `seen`, the face's pitch against the line from it to the camera (0: it
   * faces the camera's height; positive: it turns its chin to the viewer, as a face tipped to the
   * ceiling is seen; negative: the viewer looks down onto the top of the head).
   */
  head(participant: string): { pitch: number; tilt: number; seen: number } | null;
  /** The camera's pitch in degrees (negative: looking down) and height in metres. */
  camera(): { pitch: number; height: number };
  position(): number;
  playing(): boolean;
  rate(): number;
  /** Recordings listed by the server, and clips started on the audio clock so far. */
  recordings: number;
  scheduled(): number;
  /** The room view at the playhead: floor, slides, hands, who is present. */
  view(): { floor: RoomView['floor']; slides: RoomView['slides']; hands: string[]; present: string[] };
  /** Every avatar's head and name tag as boxes on the page, and each head's distance from the camera (scene/on-screen.ts). */
  onScreen(): OnScreen[];
  /** That content's board as a box on the page (CSS pixels), or null when there is no such board or it is behind the camera. */
  board(content: string): PageBox | null;
}

declare global {
  interface Window {
    __replay?: ReplayHandle;
  }
}

interface Props {
  view: RoomView;
  replay: Replay;
  player: Player;
  /** Called when the room view at the playhead changes (an event passed): slides and the page follow it. */
  onView: (view: RoomView) => void;
  recordings: number;
  /** The page's token: the boards read the contents' uploaded images with it (scene/uploaded.ts). */
  token: string;
  test: boolean;
}

// Memoised: the page re-renders as the playhead moves, the room only when the view at it changes.
export const Replay3D = memo(function Replay3D({ view, replay, player, onView, recordings, token, test }: Props) {
  const snapshot = view.snapshot;
  const participants = snapshot?.participants ?? [];
  const formation = snapshot?.scene.formation ?? 'table';
  const seats = useMemo(() => seatsFor(formation, participants.map((p) => ({ id: p.id, kind: p.kind }))), [formation, participants.length]); // eslint-disable-line react-hooks/exhaustive-deps
  const seatOf = useMemo(() => new Map(seats.map((s) => [s.id, s])), [seats]);
  const contents = useMemo(() => snapshot?.scene.contents ?? [], [snapshot]);
  const boards = useMemo(() => boardsFor(formation, contents.map((c) => c.kind), seats), [formation, contents, seats]);
  const rigs = useRef(new Map<string, AvatarRig>());
  const stats = useRef<RoomStats>(noStats());
  const { nameTags } = useViewSettings();
  const shareRig = useRigRefs(rigs);
  const cast = useMemo((): AvatarCast => ({ seats: seatOf, rigs, stats }), [seatOf]);
  // The canvas fills the window: the view is framed for the window the replay opened in.
  const [screen] = useState(() => ({ width: window.innerWidth, height: window.innerHeight }));
  // Inside the room's walls (the setting the environment furnishes), looking at the humans' faces.
  const form = snapshot?.scene.form;
  const humans = participants.filter((p) => p.kind === 'human').map((p) => p.id).join(' ');
  const viewpoint = useMemo(() => {
    const { bounds } = settingFor({ formation, form, seats, boards, kinds: contents.map((c) => c.kind) });
    return overlook(seats, screen, { bounds, ceiling: wallHeight }, humans.split(' '));
  }, [formation, form, seats, boards, contents, screen, humans]);
  const lens = useRef<Lensed | null>(null);

  useEffect(() => {
    if (!test) return;
    const handle: ReplayHandle = {
      stats: () => stats.current,
      speaking: () => replay.speakingAt(player.position()),
      morph: (participant, name) => rigs.current.get(participant)?.morph(name) ?? 0,
      gaze: (participant) => rigs.current.get(participant)?.gaze() ?? null,
      facing: (participant) => facedBy(rigs.current, participant),
      head: (participant) => {
        const rig = rigs.current.get(participant);
        const camera = lens.current?.camera;
        return rig && camera ? headPose(rig, camera) : null;
      },
      camera: () => {
        const camera = lens.current?.camera;
        if (!camera) return { pitch: 0, height: 0 };
        const forward = camera.getWorldDirection(new THREE.Vector3());
        return { pitch: THREE.MathUtils.radToDeg(Math.asin(forward.y)), height: camera.position.y };
      },
      position: () => player.position(),
      playing: () => player.playing(),
      rate: () => player.rate(),
      recordings,
      scheduled: () => player.scheduled(),
      view: () => {
        const v = replay.at(player.position());
        return { floor: v.floor, slides: v.slides, hands: v.hands, present: (v.snapshot?.participants ?? []).filter((p) => p.present).map((p) => p.id) };
      },
      onScreen: () => (lens.current ? onScreen(rigs.current, lens.current.camera, lens.current.canvas) : []),
      board: (content) => {
        const place = boards[contents.findIndex((c) => c.id === content)];
        return place && lens.current ? boardBox(place, lens.current) : null;
      },
    };
    window.__replay = handle;
    return () => void (window.__replay === handle && delete window.__replay);
  }, [test, replay, player, recordings, boards, contents]);

  const frameCap = useMemo(() => frameCapOf(location.search), []);
  return (
    <Canvas className="canvas" frameloop={frameCap ? 'demand' : 'always'} camera={{ fov: viewpoint.fov, near: 0.05, far: 80, position: viewpoint.position }} gl={{ antialias: true, powerPreference: 'high-performance' }} dpr={[1, 2]}>
      {frameCap && <FrameCap fps={frameCap} />}
      <color attach="background" args={['#cfd3d6']} />
      <UploadToken.Provider value={token || null}>
        <Environment formation={formation} form={snapshot?.scene.form} seats={seats} contents={contents} boards={boards} slides={view.slides} />
      </UploadToken.Provider>
      {participants.map((p) => {
        const seat = seatOf.get(p.id);
        return (
          seat && (
            <Avatar key={p.id} file={`${p.avatar ?? 'avatar-01'}.glb`} position={seat.position} yaw={seat.yaw} seated={seat.seated} nameTag={p.name} showTag={nameTags} tagScale={viewpoint.tagScale.get(p.id) ?? 1} speaking={false} rigRef={shareRig(p.id)} manual />
          )
        );
      })}
      <Animate replay={replay} player={player} cast={cast} onView={onView} />
      <OrbitControls makeDefault target={viewpoint.target} maxPolarAngle={Math.PI / 2.05} />
      {test && <Lens into={lens} />}
    </Canvas>
  );
});

/** The camera the replay is drawn with, and its canvas. */
interface Lensed {
  camera: THREE.Camera;
  canvas: HTMLCanvasElement;
}

/** Hands the test handle the camera and the canvas. */
const Lens = ({ into }: { into: React.RefObject<Lensed | null> }) => {
  const { camera, gl } = useThree();
  useEffect(() => {
    into.current = { camera, canvas: gl.domElement };
    return () => void (into.current = null);
  }, [camera, gl, into]);
  return null;
};

/** A board's four corners seen through the camera, as a box on the page; null when one is behind it. */
const boardBox = (place: BoardPlace, { camera, canvas }: Lensed): PageBox | null => {
  camera.updateMatrixWorld();
  const page = canvas.getBoundingClientRect();
  const [x, y, z] = place.position;
  const [width, height] = place.size;
  // The board's own X runs along (cos yaw, 0, -sin yaw) (scene/layout.ts, boardHit).
  const corners = [-1, 1].flatMap((across) =>
    [-1, 1].map((up) => new THREE.Vector3(x + (across * width * Math.cos(place.yaw)) / 2, y + (up * height) / 2, z - (across * width * Math.sin(place.yaw)) / 2).project(camera)),
  );
  if (corners.some((c) => c.z < -1 || c.z > 1)) return null;
  const xs = corners.map((c) => page.left + ((c.x + 1) / 2) * page.width);
  const ys = corners.map((c) => page.top + ((1 - c.y) / 2) * page.height);
  return { x: Math.min(...xs), y: Math.min(...ys), width: Math.max(...xs) - Math.min(...xs), height: Math.max(...ys) - Math.min(...ys) };
};

/** A rig's face from its posed box (rig.headCorners): the head's middle, and where its face and its crown point. */
const faceOf = (rig: AvatarRig): { centre: THREE.Vector3; forward: THREE.Vector3; up: THREE.Vector3 } => {
  const corners = Array.from({ length: 8 }, () => new THREE.Vector3());
  rig.headCorners(corners);
  // Corner i is at the front when i & 4, at the top when i & 2 (rig.ts).
  const mean = (pick: (i: number) => boolean) => corners.filter((_, i) => pick(i)).reduce((sum, c) => sum.add(c), new THREE.Vector3()).multiplyScalar(0.25);
  return {
    centre: mean(() => true).multiplyScalar(0.5),
    forward: mean((i) => (i & 4) !== 0).sub(mean((i) => (i & 4) === 0)).normalize(),
    up: mean((i) => (i & 2) !== 0).sub(mean((i) => (i & 2) === 0)).normalize(),
  };
};

/** Whose head `participant`'s face points at (room/looking-at.ts, as a headset reports it, with a wider cone: a face is not a view's centre line). */
const facedBy = (rigs: Map<string, AvatarRig>, participant: string): string | null => {
  const rig = rigs.get(participant);
  if (!rig) return null;
  const { centre, forward } = faceOf(rig);
  const heads = new Map([...rigs].map(([id, other]) => [id, other.headCentre(new THREE.Vector3())]));
  return lookingAt(centre, forward, heads, participant, 20);
};

/** How a rig's head is held, from its posed box (rig.headCorners), for `ReplayHandle.head`. */
const headPose = (rig: AvatarRig, camera: THREE.Camera): { pitch: number; tilt: number; seen: number } => {
  const { centre, forward, up } = faceOf(rig);
  const toCamera = camera.getWorldPosition(new THREE.Vector3()).sub(centre).normalize();
  const deg = THREE.MathUtils.radToDeg;
  const pitch = deg(Math.asin(forward.y));
  return { pitch, tilt: deg(Math.acos(Math.min(1, up.y))), seen: pitch - deg(Math.asin(toCamera.y)) };
};

/** Drives every avatar once a frame from the room at the playhead and the recordings' cues. */
const Animate = ({
  replay,
  player,
  cast,
  onView,
}: {
  replay: Replay;
  player: Player;
  cast: AvatarCast;
  onView: (view: RoomView) => void;
}) => {
  const shown = useRef<RoomView | null>(null);
  const heads = useRef<Map<string, THREE.Vector3> | null>(null);
  const { drive, heads: headsOf } = useAvatarDriver(cast, {
    visemes: (id) => player.visemes(id),
    // A headset wearer's head turns to whom they looked at (their logged gaze, instructors' only); looking at nobody, the room's.
    headed: (id, out) => {
      const at = shown.current?.gazes[id];
      const head = at ? heads.current?.get(at) : undefined;
      if (!head) return false;
      out.copy(head);
      return true;
    },
  });
  heads.current = headsOf;
  useTagDeclutter(cast.rigs);

  useFrame((_, delta) => {
    const ms = player.position();
    const v = replay.at(ms);
    if (v !== shown.current) {
      shown.current = v;
      onView(v);
    }
    drive(delta, v, replay.speakingAt(ms));
  });
  return null;
};
