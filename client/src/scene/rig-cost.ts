/**
 * What `AvatarRig.update` costs in a busy room: `rigs` copies of one avatar, half of them talking
 * with changing lip sync, all following a moving point, one nodding now and then, for `frames`
 * frames at 72 Hz (a standalone headset). Runs in Node as well as the browser (GLB bytes in, no DOM).
 *
 * ```ts
 * const cost = await measureRigCost({ avatar: bytes('avatar-01.glb'), animations: bytes('animations.glb') });
 * cost.msPerRigFrame; // e.g. 0.02
 * ```
 */
import { Vector3, type AnimationClip } from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { clone } from 'three/examples/jsm/utils/SkeletonUtils.js';
import { AvatarRig, type RigInput } from './rig';

/** Parses a GLB; the avatars are textureless, so this needs no DOM. */
export const parseGlb = (bytes: ArrayBuffer): Promise<GLTF> =>
  new Promise((resolve, reject) => new GLTFLoader().parse(bytes, '', resolve, reject));

export interface RigCost {
  rigs: number;
  frames: number;
  /** Milliseconds to update every rig once. */
  msPerFrame: number;
  msPerRigFrame: number;
}

export const measureRigCost = async (options: {
  avatar: ArrayBuffer;
  animations: ArrayBuffer;
  rigs?: number;
  frames?: number;
}): Promise<RigCost> => {
  const { avatar, animations, rigs: count, frames } = { rigs: 10, frames: 600, ...options };
  const [model, clips] = await Promise.all([parseGlb(avatar), parseGlb(animations)]);
  const rigs = Array.from({ length: count }, (_, i) => new AvatarRig(clone(model.scene), clips.animations as AnimationClip[], { seated: i % 2 === 0, seed: i + 1 }));
  const lookAt = new Vector3();
  const mouth = { aa: 0, O: 0, PP: 0 };
  const inputs: RigInput[] = rigs.map((_, i) => ({ visemes: null, lookAt, speaking: i % 2 === 0, nod: 0, handRaised: i === 3, cutAt: 0 }));
  const dt = 1 / 72;
  const frame = (f: number) => {
    lookAt.set(Math.sin(f * 0.02) * 2, 1.4, 2);
    mouth.aa = 0.5 + 0.5 * Math.sin(f * 0.7);
    mouth.O = 0.5 - 0.5 * Math.sin(f * 0.7);
    mouth.PP = f % 9 === 0 ? 1 : 0;
    for (let i = 0; i < rigs.length; i++) {
      const input = inputs[i]!;
      input.visemes = input.speaking ? mouth : null;
      if (f % 100 === i) input.nod++;
      rigs[i]!.update(dt, input);
    }
  };
  for (let f = 0; f < 120; f++) frame(f); // warm up the JIT
  const begin = performance.now();
  for (let f = 0; f < frames; f++) frame(f);
  const ms = performance.now() - begin;
  for (const rig of rigs) rig.dispose();
  return { rigs: count, frames, msPerFrame: ms / frames, msPerRigFrame: ms / frames / count };
};
