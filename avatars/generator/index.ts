/**
 * Every file of `avatars/`, generated from code: one GLB per character of the cast, the shared
 * `animations.glb`, and `manifest.json`. Deterministic: the same code gives the same bytes.
 *
 * ```ts
 * const files = await generateAvatars(); // Map { 'avatar-01.glb' => Uint8Array, …, 'manifest.json' => … }
 * ```
 *
 * Your own Ready Player Me-compatible GLBs are listed in `avatars/custom.json` (see README,
 * "Avatars"); they are checked (bones and morph targets by name) and added to the manifest.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NodeIO, type Document } from '@gltf-transform/core';
import { animationClips, animationsDocument } from './animations';
import { cast, type Character } from './cast';
import { buildCharacter } from './character';
import { characterDocument } from './gltf';
import { visemeMorph, visemes } from '../../shared/visemes';
import { requiredBones, skeletonFor } from './skeleton';

export interface ManifestEntry {
  id: string;
  name: string;
  presentation: Character['presentation'];
  voices: Character['voices'];
  mood: string;
  file: string;
  triangles: number;
  /** Metres; 0 when unknown (a custom avatar). */
  height: number;
}

export interface Manifest {
  avatars: ManifestEntry[];
  animations: { file: string; clips: string[] };
}

/** An avatar someone brings: `avatars/custom.json` lists them, the files sit next to it. */
export interface CustomAvatar {
  id: string;
  name: string;
  presentation: Character['presentation'];
  file: string;
  voices?: Partial<Character['voices']>;
  mood?: string;
}

export const avatarsDir = new URL('..', import.meta.url).pathname;

/** The morph targets a GLB needs for lip sync, named as Ready Player Me names them. */
const visemeMorphs = visemes.map(visemeMorph);

const triangleCount = (doc: Document): number =>
  doc
    .getRoot()
    .listMeshes()
    .flatMap((m) => m.listPrimitives())
    .reduce((n, p) => n + (p.getIndices()?.getCount() ?? p.getAttribute('POSITION')?.getCount() ?? 0) / 3, 0);

/** What a GLB lacks to work as an avatar here: bones by Mixamo name, and the visemes on some mesh. */
export const avatarProblems = (doc: Document): string[] => {
  const problems: string[] = [];
  const nodes = new Set(doc.getRoot().listNodes().map((n) => n.getName()));
  const missingBones = requiredBones.filter((b) => !nodes.has(b));
  if (missingBones.length) problems.push(`missing bones ${missingBones.join(', ')} (Mixamo names, as Ready Player Me uses)`);
  const targetNames = doc
    .getRoot()
    .listMeshes()
    .map((m) => ((m.getExtras() as { targetNames?: string[] }).targetNames ?? []));
  const missingVisemes = visemeMorphs.filter((v) => !targetNames.some((names) => names.includes(v)));
  if (missingVisemes.length) {
    problems.push(`no morph targets ${missingVisemes.join(', ')} (export with the Oculus visemes, e.g. Ready Player Me's ?morphTargets=Oculus Visemes,ARKit)`);
  }
  return problems;
};

const readCustom = async (dir: string, io: NodeIO): Promise<{ entry: ManifestEntry }[]> => {
  let list: CustomAvatar[];
  try {
    list = (JSON.parse(await readFile(join(dir, 'custom.json'), 'utf8')) as { avatars: CustomAvatar[] }).avatars;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new Error(`avatars/custom.json: ${(error as Error).message}`);
  }
  const out: { entry: ManifestEntry }[] = [];
  for (const [i, a] of list.entries()) {
    const where = `avatars/custom.json avatars[${i}]`;
    for (const field of ['id', 'name', 'file'] as const) if (typeof a[field] !== 'string' || !a[field]) throw new Error(`${where}.${field}: expected a string`);
    if (a.presentation !== 'masculine' && a.presentation !== 'feminine') throw new Error(`${where}.presentation: expected "masculine" or "feminine"`);
    const doc = await io.read(join(dir, a.file)).catch((error: Error) => {
      throw new Error(`${where}.file: cannot read avatars/${a.file} (${error.message})`);
    });
    const problems = avatarProblems(doc);
    if (problems.length) throw new Error(`avatars/${a.file}: ${problems.join('; ')}`);
    out.push({
      entry: {
        id: a.id,
        name: a.name,
        presentation: a.presentation,
        voices: { espeak: a.voices?.espeak ?? (a.presentation === 'feminine' ? 'en-us+f3' : 'en-us+m3'), elevenlabs: a.voices?.elevenlabs ?? 'JBFqnCBsd6RMkjVDRZzb' },
        mood: a.mood ?? 'neutral',
        file: a.file,
        triangles: triangleCount(doc),
        height: 0,
      },
    });
  }
  return out;
};

export const generateAvatars = async (dir = avatarsDir): Promise<Map<string, Uint8Array>> => {
  const io = new NodeIO();
  const files = new Map<string, Uint8Array>();
  const avatars: ManifestEntry[] = [];
  // Your own GLBs are checked first: a bad one fails before the cast is built.
  const custom = await readCustom(dir, io);
  for (const character of cast) {
    const built = buildCharacter(character);
    const file = `${character.id}.glb`;
    files.set(file, await io.writeBinary(characterDocument(built)));
    avatars.push({
      id: character.id,
      name: character.name,
      presentation: character.presentation,
      voices: character.voices,
      mood: character.mood,
      file,
      triangles: built.head.triangleCount + built.body.triangleCount,
      height: character.height,
    });
  }
  const ids = new Set(avatars.map((a) => a.id));
  for (const { entry } of custom) {
    if (ids.has(entry.id)) throw new Error(`avatars/custom.json: the id "${entry.id}" is taken by a shipped avatar`);
    avatars.push(entry);
  }
  // Animations carry rotations only, so the skeleton they are stored with is just a reference.
  files.set('animations.glb', await io.writeBinary(animationsDocument(skeletonFor({ height: 1.75, shoulders: 1, hips: 1 }))));
  const manifest: Manifest = { avatars, animations: { file: 'animations.glb', clips: animationClips().map((c) => c.name) } };
  files.set('manifest.json', new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`));
  return files;
};
