/**
 * The room tab's 3D preview: the room (scene/environment.tsx) with every participant's real
 * avatar at their seat, idling, seen from above the formation (replay/viewpoint.ts) with an orbit
 * camera. It redraws as the draft changes: a new avatar, a swapped seat, another formation, a
 * poster's uploaded image (read with the admin token).
 *
 * ```tsx
 * <Preview3D />
 * ```
 */
import { OrbitControls } from '@react-three/drei';
import { Canvas } from '@react-three/fiber';
import { useMemo } from 'react';
import { overlook } from '../replay/viewpoint';
import { Avatar } from '../scene/avatar';
import { Environment } from '../scene/environment';
import type { RigInput } from '../scene/rig';
import { UploadToken } from '../scene/uploaded';
import { useEditor } from './context';
import { usePlan } from './plan';

/** Nobody speaks or nods in the preview: one input object for every avatar, never changed. */
const idle: RigInput = { visemes: null, lookAt: null, speaking: false, nod: 0, handRaised: false, cutAt: 0 };
const still = () => idle;

export const Preview3D = () => {
  const { draft, admin } = useEditor();
  const { formation, seats, boards } = usePlan();
  const contents = useMemo(
    () => (draft.contents ?? []).map((c) => ({ id: c.id, kind: c.kind, title: c.title, owner: c.owner ?? 'public', summary: c.summary ?? '', sections: c.sections ?? [], ...(c.file ? { file: c.file } : {}) })),
    [draft.contents],
  );
  const view = useMemo(() => overlook(seats, { width: 560, height: 420 }), [seats]);
  const byId = new Map(draft.participants.map((p) => [p.id, p]));
  return (
    <div className="preview-3d" aria-label="3D preview">
      <Canvas camera={{ fov: view.fov, near: 0.05, far: 80, position: view.position }} dpr={[1, 1.5]}>
        <color attach="background" args={['#cfd3d6']} />
        <UploadToken.Provider value={admin}>
          <Environment formation={formation} seats={seats} contents={contents} boards={boards} slides={{}} />
        </UploadToken.Provider>
        {seats.map((seat) => {
          const p = byId.get(seat.id);
          return (
            <Avatar key={`${seat.id}-${p?.avatar}`} file={`${p?.avatar ?? 'avatar-01'}.glb`} position={seat.position} yaw={seat.yaw} seated={seat.seated} nameTag={p?.name || seat.id} tagScale={view.tagScale.get(seat.id) ?? 1} speaking={false} input={still} />
          );
        })}
        <OrbitControls makeDefault target={view.target} maxPolarAngle={Math.PI / 2.05} />
      </Canvas>
    </div>
  );
};
