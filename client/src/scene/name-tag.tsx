/**
 * A participant's name floating just above their head, always facing the viewer, with a dot that
 * lights while they speak. One sprite; the canvas is redrawn only when the name or the speaking
 * state changes.
 *
 * The tag hangs over the head as it is posed, not over the seat: seated, the head is 20-30 cm in
 * front of the seat's point (the body leans forward from the back of the chair), and a tag over the
 * seat floated behind its owner, over the next person's head or beside it, from most views (issue
 * 28). It follows the head across (a turn to the speaker, a lean) and keeps the rest pose's height,
 * so a nod does not bob it; its bottom edge stays a small gap above the crown at any scale.
 *
 * ```tsx
 * <NameTag name="Maya Chen" speaking={false} rig={rigRef} scale={1.6} visible />
 * ```
 */
import { useFrame } from '@react-three/fiber';
import { useEffect, useMemo, useRef, type RefObject } from 'react';
import { CanvasTexture, SRGBColorSpace, Vector3, type Group, type Object3D } from 'three';
import type { AvatarRig } from './rig';

const size = { width: 512, height: 128 };
/** Metres wide in the room; the height follows the canvas. */
const worldWidth = 0.5;
/** The tag's size in the room at scale 1, metres. */
export const tagSize = { width: worldWidth, height: (worldWidth * size.height) / size.width };
/** Between the crown and the tag's bottom edge at scale 1, metres: close enough to read as the head's, clear of hair. */
const gap = 0.08;

/** How far the middle of a tag of `scale` is above the top of its head, metres: what a view keeps on screen with the head. */
export const tagMiddleAbove = (scale = 1): number => (gap + tagSize.height / 2) * scale;

/**
 * A tag's scale seen from `distance` metres (the live room's, from the viewer's seat): as it is from
 * 3.2 m on (about 120 px wide at 720 px high there), smaller nearer, down to half, so it reads
 * about as large as the others'. At its own size, a neighbour's tag 1.4 m away was 270 px wide and
 * covered the faces across the table.
 */
export const nearTagScale = (distance: number): number => Math.min(1, Math.max(0.5, distance / 3.2));

/**
 * Where a tag's bottom edge goes, in its avatar's frame, given the middle of the head there: over
 * the head across, `gap` (scaled with the tag, so it looks the same from afar) above the crown's
 * rest height. Written into `out`.
 */
export const tagPlace = (head: { x: number; z: number }, headTop: number, scale: number, out: Vector3): Vector3 => out.set(head.x, headTop + gap * scale, head.z);
const font = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

const draw = (canvas: HTMLCanvasElement, name: string, speaking: boolean) => {
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('NameTag: no 2D canvas context to draw the name on');
  const { width, height } = size;
  ctx.clearRect(0, 0, width, height);
  ctx.fillStyle = 'rgba(22, 27, 34, 0.72)';
  ctx.beginPath();
  ctx.roundRect(4, 14, width - 8, height - 28, (height - 28) / 2);
  ctx.fill();

  const dot = { x: 62, y: height / 2, r: 18 };
  if (speaking) {
    ctx.fillStyle = 'rgba(74, 222, 128, 0.35)';
    ctx.beginPath();
    ctx.arc(dot.x, dot.y, dot.r + 10, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.fillStyle = speaking ? '#4ade80' : '#6b7280';
  ctx.beginPath();
  ctx.arc(dot.x, dot.y, dot.r, 0, 2 * Math.PI);
  ctx.fill();

  // Long names shrink to fit rather than run off the tag.
  const room = width - 120 - 36;
  let px = 54;
  ctx.font = `600 ${px}px ${font}`;
  while (px > 24 && ctx.measureText(name).width > room) ctx.font = `600 ${(px -= 2)}px ${font}`;
  ctx.fillStyle = '#ffffff';
  ctx.textBaseline = 'middle';
  ctx.fillText(name, 108, height / 2 + 2);
};

/** The tag hung over each rig's head (avatar.tsx files it): what test handles measure on screen. */
export const tagOf = new WeakMap<AvatarRig, Object3D>();

export interface NameTagProps {
  name: string;
  speaking: boolean;
  /** The avatar's rig once it is built: the tag hangs over its head. Its parent is the avatar's seat group. */
  rig: RefObject<AvatarRig | null>;
  /** The tag's size as a multiple of its own (a view from afar draws it larger to stay readable). */
  scale?: number;
  visible?: boolean;
}

export const NameTag = ({ name, speaking, rig, scale = 1, visible = true }: NameTagProps) => {
  const group = useRef<Group>(null);
  const [head, place] = useMemo(() => [new Vector3(), new Vector3()], []);
  // Placed before each frame is drawn, from the head as the rig posed it last.
  useFrame(() => {
    const built = rig.current;
    const tag = group.current;
    if (!visible || !built || !tag?.parent) return;
    if (tagOf.get(built) !== tag) tagOf.set(built, tag);
    tag.parent.worldToLocal(built.headCentre(head));
    tag.position.copy(tagPlace(head, built.headTop, scale, place));
  });
  const canvas = useMemo(() => Object.assign(document.createElement('canvas'), size), []);
  // The tag is never offset or repeated: its texture's transform need not be worked out every frame.
  const texture = useMemo(() => Object.assign(new CanvasTexture(canvas), { colorSpace: SRGBColorSpace, matrixAutoUpdate: false }), [canvas]);
  useEffect(() => {
    draw(canvas, name, speaking);
    texture.needsUpdate = true;
  }, [canvas, texture, name, speaking]);
  useEffect(() => () => texture.dispose(), [texture]);
  return (
    <group ref={group} visible={visible} scale={scale}>
      {/* Anchored at its bottom edge: a larger tag grows upward, away from the head. */}
      <sprite scale={[tagSize.width, tagSize.height, 1]} center={[0.5, 0]}>
        <spriteMaterial map={texture} transparent depthWrite={false} />
      </sprite>
    </group>
  );
};
