/**
 * The headset's pointable surfaces by name (the panel, the keyboard): their mesh and their buttons
 * in texture pixels. Push-to-talk asks whether a ray hits one (a pull at a button is not speech),
 * and the test handle aims the emulated controller at a button by its id.
 *
 * ```ts
 * useEffect(() => registerTarget('panel', { mesh, canvas, buttons: () => buttons }), []);
 * hitsTarget(raycaster); // true when the ray meets the panel or the keyboard
 * ```
 */
import type { Mesh, Raycaster } from 'three';
import type { PanelButton } from './canvas-panel';

export interface Target {
  mesh: Mesh;
  canvas: { width: number; height: number };
  buttons(): readonly PanelButton[];
}

const targets = new Map<string, Target>();

export const registerTarget = (name: string, target: Target): (() => void) => {
  targets.set(name, target);
  return () => {
    if (targets.get(name) === target) targets.delete(name);
  };
};

export const targetNamed = (name: string): Target | undefined => targets.get(name);

/** Whether the ray meets any visible target. */
export const hitsTarget = (raycaster: Raycaster): boolean => {
  for (const { mesh } of targets.values()) if (mesh.visible && raycaster.intersectObject(mesh, false).length > 0) return true;
  return false;
};
