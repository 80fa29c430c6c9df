/**
 * The skin follows the bones, as three draws it: an elbow bends the forearm and hand and not the
 * upper arm, the head turns the face and not the shoulders, the eyes turn with their bones.
 */
import { readFileSync } from 'node:fs';
import { Bone, Euler, Quaternion, SkinnedMesh, Vector3, type Object3D } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { describe, expect, it } from 'vitest';

const load = (file: string): Promise<Object3D> => {
  const bytes = readFileSync(new URL(`../${file}`, import.meta.url));
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return new Promise((resolve, reject) => new GLTFLoader().parse(buffer, '', (gltf) => resolve(gltf.scene), reject));
};

/** Every vertex of `mesh` where three would draw it now, with its strongest bone. */
const skinned = (mesh: SkinnedMesh) => {
  mesh.updateMatrixWorld(true);
  mesh.skeleton.update();
  const position = mesh.geometry.getAttribute('position');
  const joints = mesh.geometry.getAttribute('skinIndex');
  const weights = mesh.geometry.getAttribute('skinWeight');
  return Array.from({ length: position.count }, (_, i) => {
    const p = mesh.applyBoneTransform(i, new Vector3().fromBufferAttribute(position, i));
    let strongest = 0;
    for (let k = 1; k < 4; k++) if (weights.getComponent(i, k) > weights.getComponent(i, strongest)) strongest = k;
    return { p, bone: mesh.skeleton.bones[joints.getComponent(i, strongest)]!.name, weight: weights.getComponent(i, strongest) };
  });
};

const moved = (before: ReturnType<typeof skinned>, after: ReturnType<typeof skinned>, bone: string) =>
  before.flatMap((v, i) => (v.bone === bone && v.weight > 0.99 ? [v.p.distanceTo(after[i]!.p)] : []));

const turn = (root: Object3D, name: string, euler: Euler) => {
  const bone = root.getObjectByName(name) as Bone;
  bone.quaternion.copy(new Quaternion().setFromEuler(euler));
  root.updateMatrixWorld(true);
};

describe.each(['avatar-01.glb', 'avatar-07.glb'])('%s skinning', (file) => {
  it('bends the arm at the elbow', async () => {
    const root = await load(file);
    const body = root.getObjectByName('Wolf3D_Body') as SkinnedMesh;
    const rest = skinned(body);
    turn(root, 'LeftForeArm', new Euler(0, 0, -Math.PI / 2));
    const bent = skinned(body);
    expect(Math.max(...moved(rest, bent, 'LeftArm'))).toBeLessThan(0.001);
    expect(Math.min(...moved(rest, bent, 'LeftHand'))).toBeGreaterThan(0.1);
    expect(Math.max(...moved(rest, bent, 'RightHand'))).toBeLessThan(0.001);
  });

  it('turns the face with the head, the eyes with their bones, and leaves the shoulders', async () => {
    const root = await load(file);
    const head = root.getObjectByName('Wolf3D_Head') as SkinnedMesh;
    const body = root.getObjectByName('Wolf3D_Body') as SkinnedMesh;
    const rest = { head: skinned(head), body: skinned(body) };
    turn(root, 'Head', new Euler(0, Math.PI / 4, 0));
    const turned = { head: skinned(head), body: skinned(body) };
    // The tip of the nose (the face's most forward point) swings toward +X for a turn to the left.
    const tip = rest.head.reduce((best, v, i) => (v.p.z > rest.head[best]!.p.z ? i : best), 0);
    expect(turned.head[tip]!.p.x - rest.head[tip]!.p.x).toBeGreaterThan(0.03);
    expect(Math.max(...moved(rest.body, turned.body, 'Spine2'))).toBeLessThan(0.001);
    turn(root, 'Head', new Euler());
    turn(root, 'LeftEye', new Euler(0, 0.5, 0));
    const looked = skinned(head);
    expect(Math.max(...moved(rest.head, looked, 'LeftEye'))).toBeGreaterThan(0.004);
    expect(Math.max(...moved(rest.head, looked, 'RightEye'))).toBeLessThan(0.0001);
  });
});
