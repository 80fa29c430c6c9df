import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { avatarsDir, generateAvatars, type Manifest } from './index';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const withCustom = (files: Record<string, string>, list: unknown) => {
  dir = mkdtempSync(join(tmpdir(), 'avatars-'));
  for (const [name, from] of Object.entries(files)) copyFileSync(join(avatarsDir, from), join(dir, name));
  writeFileSync(join(dir, 'custom.json'), JSON.stringify(list));
  return dir;
};

describe('your own Ready Player Me-compatible avatars (avatars/custom.json)', () => {
  it('are checked and added to the manifest, with their triangle count', async () => {
    const files = await generateAvatars(withCustom({ 'mine.glb': 'avatar-03.glb' }, { avatars: [{ id: 'mine', name: 'My Avatar', presentation: 'feminine', file: 'mine.glb' }] }));
    const manifest = JSON.parse(new TextDecoder().decode(files.get('manifest.json'))) as Manifest;
    const mine = manifest.avatars.find((a) => a.id === 'mine')!;
    const shipped = manifest.avatars.find((a) => a.id === 'avatar-03')!;
    expect(mine).toMatchObject({ name: 'My Avatar', presentation: 'feminine', file: 'mine.glb', triangles: shipped.triangles, voices: { espeak: 'en-us+f3' } });
    expect(files.has('mine.glb')).toBe(false); // the file is yours; the generator never rewrites it
  });

  it('refuse a GLB without the Mixamo bones or the viseme morph targets, saying what is missing', async () => {
    const list = { avatars: [{ id: 'rig', name: 'Just a rig', presentation: 'masculine', file: 'rig.glb' }] };
    await expect(generateAvatars(withCustom({ 'rig.glb': 'animations.glb' }, list))).rejects.toThrow(/avatars\/rig\.glb: no morph targets viseme_sil, viseme_PP.*Oculus Visemes/);
  });

  it('refuse an entry with a bad field or a taken id', async () => {
    await expect(generateAvatars(withCustom({}, { avatars: [{ id: 'x', name: 'X', presentation: 'other', file: 'x.glb' }] }))).rejects.toThrow('avatars/custom.json avatars[0].presentation: expected "masculine" or "feminine"');
    rmSync(dir, { recursive: true, force: true });
    await expect(generateAvatars(withCustom({ 'a.glb': 'avatar-01.glb' }, { avatars: [{ id: 'avatar-01', name: 'Dup', presentation: 'masculine', file: 'a.glb' }] }))).rejects.toThrow('the id "avatar-01" is taken');
  });
});
