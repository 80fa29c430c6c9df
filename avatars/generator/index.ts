/**
 * Every file of `avatars/`, generated from code: one GLB per character of the cast, the shared
 * `animations.glb`, and `manifest.json`. Deterministic: the same code gives the same bytes.
 *
 * ```ts
 * const files = await generateAvatars(); // Map { 'avatar-01.glb' => Uint8Array, …, 'manifest.json' => … }
 * ```
 */
import { NodeIO } from '@gltf-transform/core';
import { animationClips, animationsDocument } from './animations';
import { cast, type Character } from './cast';
import { buildCharacter } from './character';
import { characterDocument } from './gltf';
import { skeletonFor } from './skeleton';

export interface ManifestEntry {
  id: string;
  name: string;
  presentation: Character['presentation'];
  voices: Character['voices'];
  mood: string;
  file: string;
  triangles: number;
  height: number;
}

export interface Manifest {
  avatars: ManifestEntry[];
  animations: { file: string; clips: string[] };
}

export const generateAvatars = async (): Promise<Map<string, Uint8Array>> => {
  const io = new NodeIO();
  const files = new Map<string, Uint8Array>();
  const avatars: ManifestEntry[] = [];
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
  // Animations carry rotations only, so the skeleton they are stored with is just a reference.
  files.set('animations.glb', await io.writeBinary(animationsDocument(skeletonFor({ height: 1.75, shoulders: 1, hips: 1 }))));
  const manifest: Manifest = { avatars, animations: { file: 'animations.glb', clips: animationClips().map((c) => c.name) } };
  files.set('manifest.json', new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`));
  return files;
};
