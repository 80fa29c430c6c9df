/**
 * A built character as a glTF document, the way Ready Player Me lays one out: a root node
 * `Armature` holding the `Hips` skeleton and the skinned meshes `Wolf3D_Head` (with the morph
 * targets, named in `mesh.extras.targetNames`) and `Wolf3D_Body`, vertex-coloured materials, no
 * textures. Morph targets are sparse accessors (only the vertices a target moves are stored).
 */
import { Document, type Accessor, type Buffer as GltfBuffer, type Material, type Node } from '@gltf-transform/core';
import type { BuiltCharacter } from './character';
import type { MeshBuilder } from './mesh';

export const GENERATOR = 'rehearsal-room avatars (avatars/generator)';

const accessor = (doc: Document, buffer: GltfBuffer, type: 'SCALAR' | 'VEC3' | 'VEC4' | 'MAT4', array: Float32Array | Uint16Array | Uint8Array): Accessor =>
  doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);

/** The skeleton as nodes under `Armature`; returns the nodes by bone name. */
export const addSkeleton = (doc: Document, armature: Node, bones: BuiltCharacter['bones']): Map<string, Node> => {
  const nodes = new Map<string, Node>();
  for (const bone of bones) {
    const node = doc.createNode(bone.name).setTranslation(bone.local);
    nodes.set(bone.name, node);
    (bone.parent ? nodes.get(bone.parent)! : armature).addChild(node);
  }
  return nodes;
};

export const characterDocument = (built: BuiltCharacter): Document => {
  const doc = new Document();
  doc.getRoot().getAsset().generator = GENERATOR;
  const buffer = doc.createBuffer();
  const scene = doc.createScene('Scene');
  const armature = doc.createNode('Armature');
  scene.addChild(armature);
  const nodes = addSkeleton(doc, armature, built.bones);

  const skin = doc.createSkin('Armature');
  const inverseBind = new Float32Array(built.bones.length * 16);
  built.bones.forEach((bone, i) => {
    skin.addJoint(nodes.get(bone.name)!);
    // Rest rotations are the identity: the inverse bind matrix is a translation.
    inverseBind.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -bone.world[0], -bone.world[1], -bone.world[2], 1], i * 16);
  });
  skin.setInverseBindMatrices(accessor(doc, buffer, 'MAT4', inverseBind)).setSkeleton(nodes.get('Hips')!);

  const material = (name: string): Material => doc.createMaterial(name).setBaseColorFactor([1, 1, 1, 1]).setMetallicFactor(0).setRoughnessFactor(0.78);
  const meshNode = (name: string, geometry: MeshBuilder, mat: Material, morphs: BuiltCharacter['morphs']) => {
    const primitive = doc
      .createPrimitive()
      .setMaterial(mat)
      .setIndices(accessor(doc, buffer, 'SCALAR', new Uint16Array(geometry.indices)))
      .setAttribute('POSITION', accessor(doc, buffer, 'VEC3', new Float32Array(geometry.positions)))
      .setAttribute('NORMAL', accessor(doc, buffer, 'VEC3', new Float32Array(geometry.normals)))
      .setAttribute('COLOR_0', accessor(doc, buffer, 'VEC3', new Float32Array(geometry.colors)))
      .setAttribute('JOINTS_0', accessor(doc, buffer, 'VEC4', new Uint8Array(geometry.joints)))
      .setAttribute('WEIGHTS_0', accessor(doc, buffer, 'VEC4', new Float32Array(geometry.weights)));
    const mesh = doc.createMesh(name).addPrimitive(primitive);
    for (const morph of morphs) {
      const target = doc.createPrimitiveTarget(morph.name).setAttribute('POSITION', accessor(doc, buffer, 'VEC3', morph.deltas).setSparse(true));
      primitive.addTarget(target);
    }
    if (morphs.length) mesh.setWeights(morphs.map(() => 0)).setExtras({ targetNames: morphs.map((m) => m.name) });
    armature.addChild(doc.createNode(name).setMesh(mesh).setSkin(skin));
  };
  meshNode('Wolf3D_Head', built.head, material('Wolf3D_Skin'), built.morphs);
  meshNode('Wolf3D_Body', built.body, material('Wolf3D_Outfit'), []);
  return doc;
};
