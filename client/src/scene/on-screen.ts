/**
 * Where each avatar's head and name tag are on the page, as boxes in CSS pixels: what the room's
 * and the replay's test handles report (`heads()`, `tags()`), so a browser test can check from
 * what the camera shows that a tag sits just above its own head, clear of the others and the HUD.
 * The head is its posed box (rig.headCorners) projected; the tag is its sprite as three.js draws
 * one (a quad facing the camera, sized by its world scale, anchored at its `center`).
 *
 * ```ts
 * const boxes = onScreen(rigs, camera, canvas); // [{ participant: 'maya', head: { x, y, width, height }, tag: {…}, depth: 2.4 }]
 * ```
 */
import { Vector3, type Camera, type Object3D, type Sprite, type SpriteMaterial } from 'three';
import { tagOf } from './name-tag';
import type { AvatarRig } from './rig';

/** A box on the page, CSS pixels from its top-left corner. */
export interface PageBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface OnScreen {
  participant: string;
  /** The posed head; null when some of it is behind the camera. */
  head: PageBox | null;
  /** The name tag; null when it is hidden, not built, or behind the camera. */
  tag: PageBox | null;
  /** How far the head is from the camera, metres: who is in front of whom. */
  depth: number;
  /** The tag is drawn faded (scene/declutter.ts: it would cover a farther face). */
  faded: boolean;
}

const corners = Array.from({ length: 8 }, () => new Vector3());
const at = new Vector3();
const scale = new Vector3();

/** Page coordinates of a point in normalised device coordinates. */
const toPage = (ndc: Vector3, page: DOMRect): [number, number] => [page.left + ((ndc.x + 1) / 2) * page.width, page.top + ((1 - ndc.y) / 2) * page.height];

/** The box around points in normalised device coordinates; null when one is behind the camera. */
const boxAround = (points: readonly Vector3[], page: DOMRect): PageBox | null => {
  let [left, top, right, bottom] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const p of points) {
    if (p.z < -1 || p.z > 1) return null;
    const [x, y] = toPage(p, page);
    [left, right, top, bottom] = [Math.min(left, x), Math.max(right, x), Math.min(top, y), Math.max(bottom, y)];
  }
  return { x: left, y: top, width: right - left, height: bottom - top };
};

const headBox = (rig: AvatarRig, camera: Camera, page: DOMRect): PageBox | null => {
  rig.headCorners(corners);
  for (const c of corners) c.project(camera);
  return boxAround(corners, page);
};

/** Shown only when it and every parent are visible. */
const shown = (object: Object3D): boolean => {
  for (let o: Object3D | null = object; o; o = o.parent) if (!o.visible) return false;
  return true;
};

/** A sprite's quad as three.js draws it: in view space, its world scale across and up, offset by its `center`. */
const spriteBox = (sprite: Sprite, camera: Camera, page: DOMRect): PageBox | null => {
  sprite.getWorldPosition(at).applyMatrix4(camera.matrixWorldInverse);
  sprite.getWorldScale(scale);
  const quad = [0, 1, 2, 3].map((i) =>
    corners[i]!.set(at.x + ((i & 1) - sprite.center.x) * scale.x, at.y + ((i >> 1) - sprite.center.y) * scale.y, at.z).applyMatrix4(camera.projectionMatrix),
  );
  return boxAround(quad, page);
};

/** The sprite of a tag (tagOf), if it is built. */
export const spriteIn = (object: Object3D | undefined): Sprite | null => {
  let found: Sprite | null = null;
  object?.traverse((o) => {
    if (!found && (o as Sprite).isSprite) found = o as Sprite;
  });
  return found;
};

/** Every rig's head and name tag on the page, as `camera` shows them in `canvas`. */
export const onScreen = (rigs: ReadonlyMap<string, AvatarRig>, camera: Camera, canvas: HTMLCanvasElement): OnScreen[] => {
  camera.updateMatrixWorld();
  const page = canvas.getBoundingClientRect();
  const eye = camera.getWorldPosition(new Vector3());
  return [...rigs].map(([participant, rig]) => {
    const sprite = spriteIn(tagOf.get(rig));
    return {
      participant,
      head: headBox(rig, camera, page),
      tag: sprite && shown(sprite) ? spriteBox(sprite, camera, page) : null,
      depth: rig.headCentre(at).distanceTo(eye),
      faded: sprite !== null && (sprite.material as SpriteMaterial).opacity < 1,
    };
  });
};
