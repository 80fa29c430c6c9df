/**
 * The shipped avatars (avatars/*.glb, animations.glb, manifest.json): valid glTF, loaded by three the
 * way the client loads them, named like Ready Player Me avatars, within budget, described truly by
 * the manifest, and exactly what the generator makes today.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PropertyBinding, type Mesh, type Object3D, type SkinnedMesh } from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { describe, expect, it } from 'vitest';
import { generateAvatars, type CustomAvatar, type Manifest } from '../../avatars/generator/index';
import { requiredBones } from '../../avatars/generator/skeleton';
import { loadScenes } from '../../server/scene/load';

/** The parts of a gltf-validator report these tests read (the package ships no types). */
interface ValidationReport {
  issues: { numErrors: number; messages: { code: string; severity: number; pointer?: string; offset?: number; message: string }[] };
  info?: { resources?: { pointer: string; image?: { width: number; height: number } }[] };
}
const validator = createRequire(import.meta.url)('gltf-validator') as {
  validateBytes: (bytes: Uint8Array, options: { maxIssues: number }) => Promise<ValidationReport>;
};

/** The parts of the glTF JSON chunk the budgets read. */
interface GltfJson {
  meshes?: { name?: string; primitives: { attributes: Record<string, number>; indices?: number; mode?: number }[] }[];
  accessors: { count: number }[];
  materials?: unknown[];
  images?: unknown[];
}

const visemes = [
  'viseme_sil', 'viseme_PP', 'viseme_FF', 'viseme_TH', 'viseme_DD', 'viseme_kk', 'viseme_CH', 'viseme_SS',
  'viseme_nn', 'viseme_RR', 'viseme_aa', 'viseme_E', 'viseme_I', 'viseme_O', 'viseme_U',
];
const expressions = ['eyeBlinkLeft', 'eyeBlinkRight', 'jawOpen', 'mouthSmileLeft', 'mouthSmileRight', 'browInnerUp', 'mouthFrownLeft', 'mouthFrownRight'];
const clips = ['idle-standing', 'idle-seated', 'nod', 'head-shake', 'raise-hand', 'talk-1', 'talk-2', 'talk-3'];

const budget = { triangles: 12_000, materials: 3, bytes: 1_500_000, texturePixels: 512 };
const millimetre = 0.001;

const dir = 'avatars';
const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
const files = [...manifest.avatars.map((a) => a.file), manifest.animations.file];
// GLBs people bring (avatars/custom.json) must work in the room, but they are not held to the shipped cast's budgets.
const customIds = new Set(
  existsSync(join(dir, 'custom.json')) ? (JSON.parse(readFileSync(join(dir, 'custom.json'), 'utf8')) as { avatars: CustomAvatar[] }).avatars.map((a) => a.id) : [],
);
const shippedFiles = [...manifest.avatars.filter((a) => !customIds.has(a.id)).map((a) => a.file), manifest.animations.file];
const bytesOf = (file: string): Uint8Array<ArrayBuffer> => new Uint8Array(readFileSync(join(dir, file)));

const load = (bytes: Uint8Array<ArrayBuffer>): Promise<GLTF> =>
  new Promise((resolve, reject) => new GLTFLoader().parse(bytes.buffer, '', resolve, reject));

const jsonOf = (bytes: Uint8Array): GltfJson => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // GLB: 12-byte header, then the JSON chunk (length, type "JSON", data).
  expect(view.getUint32(0, true), 'GLB magic').toBe(0x46546c67);
  expect(view.getUint32(16, true), 'first chunk is JSON').toBe(0x4e4f534a);
  return JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + view.getUint32(12, true)))) as GltfJson;
};

/** Triangles drawn by every primitive of every mesh, from its index buffer (or its vertices when unindexed). */
const trianglesOf = (json: GltfJson): number =>
  (json.meshes ?? []).flatMap((mesh) => mesh.primitives).reduce((sum, primitive) => {
    const count = json.accessors[primitive.indices ?? primitive.attributes.POSITION ?? -1]?.count ?? 0;
    const mode = primitive.mode ?? 4;
    return sum + (mode === 4 ? count / 3 : mode === 5 || mode === 6 ? Math.max(count - 2, 0) : 0);
  }, 0);

/** The meshes of a named node: itself, or its children when three split a multi-primitive mesh into a group. */
const meshesNamed = (root: Object3D, name: string): Mesh[] => {
  const node = root.getObjectByName(name);
  if (!node) return [];
  return (node as Mesh).isMesh ? [node as Mesh] : node.children.filter((child): child is Mesh => (child as Mesh).isMesh === true);
};

/** The largest distance any vertex moves under one morph target (three keeps glTF's targets as deltas). */
const maxDisplacement = (mesh: Mesh, target: string): number => {
  const deltas = mesh.geometry.morphAttributes.position?.[mesh.morphTargetDictionary?.[target] ?? -1];
  if (!deltas) return 0;
  let max = 0;
  for (let i = 0; i < deltas.count; i++) max = Math.max(max, Math.hypot(deltas.getX(i), deltas.getY(i), deltas.getZ(i)));
  return max;
};

const reports = new Map(await Promise.all(files.map(async (file) => [file, await validator.validateBytes(bytesOf(file), { maxIssues: 100 })] as const)));
const avatars = await Promise.all(
  manifest.avatars.map(async (entry) => {
    const bytes = bytesOf(entry.file);
    return { ...entry, bytes, json: jsonOf(bytes), root: (await load(bytes)).scene };
  }),
);
const shipped = avatars.filter((a) => !customIds.has(a.id));
const animations = await load(bytesOf(manifest.animations.file));

describe('avatar files', () => {
  it.each(files)('%s passes the Khronos glTF validator', (file) => {
    const { issues } = reports.get(file)!;
    const errors = issues.messages.filter((m) => m.severity === 0).map((m) => `${m.code} ${m.pointer ?? `byte ${m.offset}`}: ${m.message}`);
    expect(issues.numErrors, `${file}:\n${errors.join('\n')}`).toBe(0);
  });

  it.each(avatars)('$id has the Ready Player Me skeleton under Armature, bound by its skinned meshes', ({ root }) => {
    const armature = root.getObjectByName('Armature');
    expect(armature, 'node Armature').toBeDefined();
    expect(requiredBones.filter((name) => !(armature?.getObjectByName(name) as { isBone?: boolean } | undefined)?.isBone), 'missing bones').toEqual([]);

    for (const name of ['Wolf3D_Head', 'Wolf3D_Body']) {
      const meshes = meshesNamed(root, name);
      expect(meshes.length, `meshes of ${name}`).toBeGreaterThan(0);
      for (const mesh of meshes) {
        const skeleton = (mesh as SkinnedMesh).isSkinnedMesh ? (mesh as SkinnedMesh).skeleton : undefined;
        expect(skeleton, `${name} is a SkinnedMesh`).toBeDefined();
        const unbound = requiredBones.filter((bone) => skeleton?.getBoneByName(bone) === undefined || skeleton.getBoneByName(bone) !== root.getObjectByName(bone));
        expect(unbound, `${name}: required bones not in its skeleton`).toEqual([]);
      }
    }
  });

  it.each(avatars)('$id has every viseme and expression on its face mesh', ({ root }) => {
    const meshes = meshesNamed(root, 'Wolf3D_Head');
    expect(meshes.length).toBeGreaterThan(0);
    for (const mesh of meshes) {
      expect([...visemes, ...expressions].filter((name) => mesh.morphTargetDictionary?.[name] === undefined), 'missing morph targets').toEqual([]);
    }
  });

  it.each(shipped)('$id moves its face by more than a millimetre for every viseme, and aa is not U', ({ root }) => {
    const meshes = meshesNamed(root, 'Wolf3D_Head');
    const still = visemes.flatMap((name) => {
      const moved = Math.max(...meshes.map((mesh) => maxDisplacement(mesh, name)));
      return moved > millimetre ? [] : [`${name}: ${(moved * 1000).toFixed(2)} mm`];
    });
    expect(still, 'visemes that move no vertex by more than 1 mm').toEqual([]);

    const difference = Math.max(
      ...meshes.map((mesh) => {
        const targets = mesh.geometry.morphAttributes.position ?? [];
        const aa = targets[mesh.morphTargetDictionary?.viseme_aa ?? -1];
        const u = targets[mesh.morphTargetDictionary?.viseme_U ?? -1];
        if (!aa || !u) return 0;
        let max = 0;
        for (let i = 0; i < aa.count; i++) max = Math.max(max, Math.hypot(aa.getX(i) - u.getX(i), aa.getY(i) - u.getY(i), aa.getZ(i) - u.getZ(i)));
        return max;
      }),
    );
    expect(difference, 'largest difference between the viseme_aa and viseme_U deltas').toBeGreaterThan(millimetre);
  });

  it.each(shippedFiles)('%s stays within budget: 12,000 triangles, 3 materials, 1.5 MB, textures up to 512 × 512', (file) => {
    const bytes = bytesOf(file);
    const json = jsonOf(bytes);
    expect(trianglesOf(json), 'triangles').toBeLessThanOrEqual(budget.triangles);
    expect(json.materials?.length ?? 0, 'materials').toBeLessThanOrEqual(budget.materials);
    expect(bytes.byteLength, 'bytes').toBeLessThanOrEqual(budget.bytes);
    const images = (reports.get(file)?.info?.resources ?? []).flatMap((r) => (r.image ? [{ pointer: r.pointer, ...r.image }] : []));
    expect(images.length, 'images the validator measured').toBe(json.images?.length ?? 0);
    expect(images.filter((i) => i.width > budget.texturePixels || i.height > budget.texturePixels), 'textures over 512 × 512').toEqual([]);
  });
});

describe('manifest', () => {
  it('lists every avatar once, with its file and its true triangle count', () => {
    expect(new Set(manifest.avatars.map((a) => a.id)).size, 'unique ids').toBe(manifest.avatars.length);
    const present = new Set(readdirSync(dir));
    expect(files.filter((file) => !present.has(file)), 'files named by the manifest but missing').toEqual([]);
    expect(avatars.map((a) => ({ id: a.id, triangles: trianglesOf(a.json) }))).toEqual(manifest.avatars.map((a) => ({ id: a.id, triangles: a.triangles })));
  });

  it('offers at least five masculine and five feminine avatars', () => {
    expect(manifest.avatars.filter((a) => a.presentation === 'masculine').length).toBeGreaterThanOrEqual(5);
    expect(manifest.avatars.filter((a) => a.presentation === 'feminine').length).toBeGreaterThanOrEqual(5);
  });

  it('names the clips the room plays', () => {
    expect(manifest.animations.clips).toEqual(expect.arrayContaining(clips));
  });
});

describe('animations.glb', () => {
  it('holds every clip of the manifest', () => {
    expect(manifest.animations.clips.filter((name) => !animations.animations.some((clip) => clip.name === name)), 'missing clips').toEqual([]);
  });

  it('carries nodes only: no meshes, no materials', () => {
    const json = jsonOf(bytesOf(manifest.animations.file));
    expect(json.meshes ?? []).toEqual([]);
    expect(json.materials ?? []).toEqual([]);
  });

  it('rotates only bones that every avatar has', () => {
    const problems = animations.animations.flatMap((clip) =>
      clip.tracks.flatMap((track) => {
        const { nodeName, propertyName } = PropertyBinding.parseTrackName(track.name);
        if (propertyName !== 'quaternion') return [`${clip.name}: ${track.name} is not a rotation`];
        return avatars.filter((a) => !a.root.getObjectByName(nodeName)).map((a) => `${clip.name}: ${a.id} has no ${nodeName}`);
      }),
    );
    expect(problems).toEqual([]);
  });
});

describe('the generator', () => {
  it('makes the committed files byte for byte, every time', async () => {
    const [first, second] = [await generateAvatars(), await generateAvatars()];
    expect([...second.keys()].sort()).toEqual([...first.keys()].sort());
    for (const [file, bytes] of first) {
      expect(Buffer.from(bytes).equals(second.get(file) ?? new Uint8Array()), `${file} differs between two runs`).toBe(true);
      expect(Buffer.from(bytes).equals(readFileSync(join(dir, file))), `avatars/${file} is stale: run npm run avatars`).toBe(true);
    }
    const named = new Set([...files, 'custom.json']);
    const leftovers = readdirSync(dir).filter((file) => /\.(glb|json)$/.test(file) && !first.has(file) && !named.has(file));
    expect(leftovers, 'files in avatars/ the generator no longer makes: delete them and run npm run avatars').toEqual([]);
  }, 120_000);
});

describe('scenes', () => {
  it('cast only avatars of the manifest', async () => {
    const ids = new Set(manifest.avatars.map((a) => a.id));
    const scenes = await loadScenes('scenes');
    const unknown = scenes.flatMap((scene) =>
      scene.participants.flatMap((p) => (p.avatar !== undefined && !ids.has(p.avatar) ? [`${scene.id}: ${p.id} → ${p.avatar}`] : [])),
    );
    expect(unknown).toEqual([]);
  });
});
