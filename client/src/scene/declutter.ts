/**
 * Name tags that would cover a face: a tag drawn over the face of someone farther from the camera
 * than its owner (a neighbour's tag across the table, over the chin of the person opposite) is
 * faded so that the face shows through it, and comes back once it is clear. Decided from what the
 * camera shows (on-screen.ts), five times a second, on a desktop view (the room's and the
 * replay's); in a headset every tag is whole.
 *
 * ```tsx
 * useTagDeclutter(rigs); // inside the canvas, once for all the room's avatars
 * const faded = coveringTags(onScreen(rigs, camera, canvas)); // Set { 'oskar' }
 * ```
 */
import { useFrame, useThree } from '@react-three/fiber';
import { useRef, type RefObject } from 'react';
import type { SpriteMaterial } from 'three';
import { tagOf } from './name-tag';
import { onScreen, spriteIn, type OnScreen, type PageBox } from './on-screen';
import type { AvatarRig } from './rig';

/** A faded tag's opacity: its name still readable, the face behind it seen. */
export const FADED_OPACITY = 0.25;
/** A tag covers a face when it hides more than this share of the face's box. */
const COVERS = 0.1;
/** How often the tags are looked at again, ms. */
const EVERY_MS = 200;

const overlap = (a: PageBox, b: PageBox): number =>
  Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)) * Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));

/** The participants whose tag covers the face of someone farther away than they are. */
export const coveringTags = (boxes: readonly OnScreen[]): Set<string> => {
  const covering = new Set<string>();
  for (const mine of boxes) {
    if (!mine.tag) continue;
    for (const other of boxes) {
      if (other === mine || !other.head || other.depth <= mine.depth) continue;
      const face = other.head.width * other.head.height;
      if (face > 0 && overlap(mine.tag, other.head) / face > COVERS) {
        covering.add(mine.participant);
        break;
      }
    }
  }
  return covering;
};

/** Fades each tag that covers a farther face (`coveringTags`), and shows it whole again once it does not. */
export const useTagDeclutter = (rigs: RefObject<Map<string, AvatarRig>>): void => {
  const { camera, gl } = useThree();
  const next = useRef(0);
  useFrame(() => {
    const now = performance.now();
    if (now < next.current) return;
    next.current = now + EVERY_MS;
    const faded = gl.xr.isPresenting ? new Set<string>() : coveringTags(onScreen(rigs.current, camera, gl.domElement));
    for (const [participant, rig] of rigs.current) {
      const sprite = spriteIn(tagOf.get(rig));
      if (sprite) (sprite.material as SpriteMaterial).opacity = faded.has(participant) ? FADED_OPACITY : 1;
    }
  });
};
