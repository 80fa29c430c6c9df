/**
 * One participant's body in the room: their GLB from `avatars/`, posed and animated by an
 * `AvatarRig` every frame from `input()` (or by the caller, with `manual`), with a name tag above the head. Three draw calls: head,
 * body and tag. Skinned meshes are never frustum-culled (their bind-pose bounds do not follow the
 * animation, and a wrongly culled head is worse than drawing one off-screen); no shadows.
 *
 * ```tsx
 * const input = useMemo(() => ({ visemes: null, lookAt: null, speaking: false, nod: 0, handRaised: false, cutAt: 0 }), []);
 * <Avatar file="avatar-07.glb" position={seat.position} yaw={seat.yaw} seated={seat.seated}
 *         input={() => input} nameTag="Maya Chen" speaking={false} />
 * ```
 */
import { useFrame, useLoader } from '@react-three/fiber';
import { useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { Group, SkinnedMesh } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { clone } from 'three/examples/jsm/utils/SkeletonUtils.js';
import { NameTag } from './name-tag';
import { AvatarRig, type RigInput } from './rig';

/** Where the avatar GLBs and `animations.glb` are served. */
export const avatarsUrl = '/avatars/';
/** The tag floats this far above the top of the head. */
const tagGap = 0.28;

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
  /** Lights the name tag's dot; it also lights while the rig's last input says speaking. */
  speaking: boolean;
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

export const Avatar = ({ file, position, yaw, seated, input, nameTag, speaking, rigRef }: AvatarProps) => {
  const gltf = useLoader(GLTFLoader, `${avatarsUrl}${file}`);
  const { animations } = useLoader(GLTFLoader, `${avatarsUrl}animations.glb`);
  const body = useMemo(() => {
    const copy = clone(gltf.scene);
    copy.traverse((o) => {
      if ((o as SkinnedMesh).isSkinnedMesh) o.frustumCulled = false;
    });
    return copy;
  }, [gltf]);
  const rig = useRef<AvatarRig | null>(null);
  const tag = useRef<Group>(null);
  const seed = seedOf(`${nameTag}/${file}`);
  // The rig ref may be a fresh callback every render; the rig should not be rebuilt for that.
  const shareRef = useRef(rigRef);
  shareRef.current = rigRef;

  // A layout effect, so a seated avatar is lowered onto its chair before the first frame is drawn.
  useLayoutEffect(() => {
    const built = new AvatarRig(body, animations, { seated, seed });
    rig.current = built;
    share(shareRef.current, built);
    tag.current?.position.setY(built.headTop + tagGap);
    return () => {
      built.dispose();
      rig.current = null;
      share(shareRef.current, null);
    };
  }, [body, animations, seated, seed]);

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
      <group ref={tag} position-y={(seated ? 1.4 : 1.8) + tagGap}>
        <NameTag name={nameTag} speaking={speaking || talking} />
      </group>
    </group>
  );
};
