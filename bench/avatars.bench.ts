/**
 * The avatar cast against its budgets (DESIGN §10, standalone headsets): generation time, and the
 * largest avatar's triangles and file size (budgets: 12,000 triangles, 1.5 MB).
 */
import { generateAvatars, type Manifest } from '../avatars/generator/index';
import { round, type BenchResult } from './timing';

export default async function avatarsBench(): Promise<BenchResult[]> {
  await generateAvatars(); // warm: module loading and the JIT
  const begin = performance.now();
  const files = await generateAvatars();
  const ms = performance.now() - begin;
  const manifest = JSON.parse(new TextDecoder().decode(files.get('manifest.json'))) as Manifest;
  const shipped = manifest.avatars.filter((a) => files.has(a.file));
  return [
    { name: 'avatars.generate_ms', value: round(ms, 0), unit: 'ms' },
    { name: 'avatars.max_triangles', value: Math.max(...shipped.map((a) => a.triangles)), unit: 'triangles' },
    { name: 'avatars.max_glb_kb', value: round(Math.max(...shipped.map((a) => files.get(a.file)!.length)) / 1024, 0), unit: 'kB' },
    { name: 'avatars.animations_kb', value: round(files.get('animations.glb')!.length / 1024, 0), unit: 'kB' },
  ];
}
