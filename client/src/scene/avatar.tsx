/**
 * One participant's body in the room: their GLB from `avatars/`, posed and animated by an
 * `AvatarRig` every frame from `input()` (or by the caller, with `manual`), with a name tag above the head
 * (unless hidden). Three draw calls: head, body and tag. Skinned meshes are never frustum-culled (their bind-pose bounds do not follow the
 * animation, and a wrongly culled head is worse than drawing one off-screen); no shadows.
 *
 * ```tsx
 * const input = useMemo(() => ({ visemes: null, lookAt: null, speaking: false, nod: 0, handRaised: false, cutAt: 0 }), []);
 * <Avatar file="avatar-07.glb" position={seat.position} yaw={seat.yaw} seated={seat.seated}
 *         input={() => input} nameTag="Maya Chen" speaking={false} />
 * ```
 */
import { useFrame } from '@react-three/fiber';
import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { AnimationClip, SkinnedMesh } from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { clone } from 'three/examples/jsm/utils/SkeletonUtils.js';
import { NameTag } from './name-tag';
import { AvatarRig, type RigInput } from './rig';

/** Where the avatar GLBs and `animations.glb` are served. */
export const avatarsUrl = '/avatars/';

/** FNV-1a: a stable seed per participant, so avatars blink and gesture out of step, the same on every load. */
const seedOf = (text: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
};

interface AvatarBase {
  /** The GLB in `avatars/`, as the manifest names it: "avatar-07.glb". */
  file: string;
  /** The seat's point on the floor. */
  position: [number, number, number];
  /** Radians about Y; at 0 the avatar faces +Z. */
  yaw: number;
  seated: boolean;
  nameTag: string;
  /** Shows the name tag (default); hidden, it costs nothing to draw. */
  showTag?: boolean;
  /** The name tag's size as a multiple of its own (default 1): a view from afar draws it larger to stay readable. */
  tagScale?: number;
  /** Lights the name tag's dot; it also lights while the rig's last input says speaking. */
  speaking: boolean;
  /**
   * The wearer's own body in their headset: drawn without its head (their eyes are inside it; no
   * face fills the view) and without a name tag, the body under the head at the seat.
   */
  firstPerson?: boolean;
  /** Given the rig once it is built, and null when it goes (an object ref or a callback). */
  rigRef?: RefObject<AvatarRig | null> | ((rig: AvatarRig | null) => unknown);
}

export type AvatarProps = AvatarBase &
  (
    | {
        /** Read every frame and passed to `rig.update`. Return one object updated in place, so frames allocate nothing. */
        input: () => RigInput;
        manual?: false;
      }
    | {
        /** The caller updates the rig itself (through `rigRef`), e.g. every avatar in one loop. */
        manual: true;
        input?: undefined;
      }
  );

const share = (ref: AvatarBase['rigRef'], rig: AvatarRig | null) => {
  if (typeof ref === 'function') ref(rig);
  else if (ref) ref.current = rig;
};

/** How long a body that failed to load waits before it is tried again. */
const RETRY_MS = 3000;

/** Each GLB loads once for every avatar that wears it; a failed load is forgotten, so it can be tried again. */
const loads = new Map<string, Promise<GLTF>>();
const loadGltf = (url: string): Promise<GLTF> => {
  let load = loads.get(url);
  if (!load) {
    load = new GLTFLoader().loadAsync(url);
    loads.set(url, load);
    load.catch(() => loads.delete(url));
  }
  return load;
};

/**
 * The GLBs at `urls`, or null while they load. A failed load (the server restarting, a dropped
 * connection) is tried again every few seconds instead of throwing: one missing avatar must not
 * take the room down with it, and inside the canvas a thrown error is reported as uncaught.
 */
const useGltfs = (urls: string[]): GLTF[] | null => {
  const key = urls.join('\n');
  const [loaded, setLoaded] = useState<{ key: string; gltfs: GLTF[] } | null>(null);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const attempt = () =>
      Promise.all(key.split('\n').map(loadGltf)).then(
        (gltfs) => live && setLoaded({ key, gltfs }),
        (error: Error) => {
          if (!live) return;
          console.warn(`${error.message}; trying again in ${RETRY_MS / 1000} s`);
          timer = setTimeout(attempt, RETRY_MS);
        },
      );
    void attempt();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [key]);
  return loaded?.key === key ? loaded.gltfs : null;
};

/** Whether two skeletons move a mesh the same way: the same bones, bound with the same inverses. */
const sameBinding = (a: SkinnedMesh['skeleton'], b: SkinnedMesh['skeleton']): boolean =>
  a.bones.length === b.bones.length && a.bones.every((bone, i) => bone === b.bones[i] && a.boneInverses[i]!.equals(b.boneInverses[i]!));

// Memoised: a room re-renders with every change of its view (many a second while people speak),
// and ten avatars reconciled each time cost more script than animating them (bench/client.bench.ts).
// Give it stable props (a rig ref made once per participant: scene/drive.ts, useRigRefs).
export const Avatar = memo(function Avatar(props: AvatarProps) {
  const gltfs = useGltfs([`${avatarsUrl}${props.file}`, `${avatarsUrl}animations.glb`]);
  return gltfs ? <Body {...props} gltf={gltfs[0]!} animations={gltfs[1]!.animations} /> : null;
});

const Body = ({ file, position, yaw, seated, input, nameTag, showTag = true, tagScale = 1, speaking, rigRef, firstPerson = false, gltf, animations }: AvatarProps & { gltf: GLTF; animations: AnimationClip[] }) => {
  const body = useMemo(() => {
    const copy = clone(gltf.scene);
    // Head and body are bound to the same bones, but the loader gives each mesh a skeleton of its
    // own, and three.js uploads every skeleton's bone texture every frame: one shared skeleton
    // halves those uploads (the profile's texSubImage2D calls, bench/client.bench.ts).
    let skeleton: SkinnedMesh['skeleton'] | null = null;
    copy.traverse((o) => {
      const mesh = o as SkinnedMesh;
      if (!mesh.isSkinnedMesh) return;
      mesh.frustumCulled = false;
      if (skeleton && sameBinding(skeleton, mesh.skeleton)) mesh.skeleton = skeleton;
      else skeleton ??= mesh.skeleton;
    });
    return copy;
  }, [gltf]);
  const rig = useRef<AvatarRig | null>(null);
  const seed = seedOf(`${nameTag}/${file}`);
  // The rig ref may be a fresh callback every render; the rig should not be rebuilt for that.
  const shareRef = useRef(rigRef);
  shareRef.current = rigRef;

  // A layout effect, so a seated avatar is lowered onto its chair before the first frame is drawn.
  useLayoutEffect(() => {
    const built = new AvatarRig(body, animations, { seated, seed });
    rig.current = built;
    share(shareRef.current, built);
    return () => {
      built.dispose();
      rig.current = null;
      share(shareRef.current, null);
    };
  }, [body, animations, seated, seed]);

  // After the rig's effect: the rig it builds draws the head unless the wearer is inside it.
  useLayoutEffect(() => {
    if (rig.current) rig.current.headShown = !firstPerson;
  }, [body, animations, seated, seed, firstPerson]);

  // The tag's dot follows the rig's input too, re-rendering only when it changes.
  const [talking, setTalking] = useState(false);
  useFrame((_, delta) => {
    const current = rig.current;
    if (!current) return;
    if (input) current.update(delta, input());
    if (current.speaking !== talking) setTalking(current.speaking);
  });

  return (
    <group position={position} rotation-y={yaw}>
      <primitive object={body} />
      <NameTag name={nameTag} speaking={speaking || talking} rig={rig} scale={tagScale} visible={showTag && !firstPerson} />
    </group>
  );
};
