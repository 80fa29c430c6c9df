/**
 * `npm run avatars`: regenerates every file in avatars/ from code, and prints what it wrote.
 *
 *   npm run avatars                          # write avatars/*.glb, animations.glb, manifest.json
 *   npm run avatars -- --sheet sheet.png     # and render a contact sheet (headless Chromium)
 *   npm run avatars -- --sheet faces.png --morphs avatar-07   # one avatar, once per morph target
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { avatarsDir, generateAvatars } from './index';

const usage = 'usage: npm run avatars [-- --sheet <file.png> [--morphs <avatar id>]]';

const main = async (): Promise<void> => {
  let values: { sheet?: string | undefined; morphs?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({ options: { sheet: { type: 'string' }, morphs: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
    if (values.morphs && !values.sheet) throw new Error('--morphs needs --sheet <file.png>');
  } catch (error) {
    process.stderr.write(`avatars: ${(error as Error).message}\n${usage}\n`);
    process.exit(1);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  const dir = avatarsDir;
  let files: Map<string, Uint8Array>;
  try {
    files = await generateAvatars(dir);
  } catch (error) {
    process.stderr.write(`avatars: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const manifest = JSON.parse(new TextDecoder().decode(files.get('manifest.json'))) as { avatars: { id: string; name: string; triangles: number; file: string }[] };
  for (const [name, bytes] of files) await writeFile(join(dir, name), bytes);
  for (const a of manifest.avatars) {
    const size = files.get(a.file)?.length;
    process.stdout.write(`${a.id}  ${a.name.padEnd(16)} ${String(a.triangles).padStart(6)} triangles  ${size ? `${(size / 1024).toFixed(0).padStart(5)} kB` : '(yours)'}\n`);
  }
  process.stdout.write(`animations.glb ${(files.get('animations.glb')!.length / 1024).toFixed(0)} kB; wrote ${files.size} files to avatars/\n`);
  if (values.sheet) {
    const { renderSheet } = await import('./sheet');
    const sheet = await renderSheet({ avatarsDir: dir, out: values.sheet, ...(values.morphs ? { morphsOf: values.morphs } : {}) });
    process.stdout.write(`contact sheet: ${values.sheet} (${sheet.width}×${sheet.height})\n`);
  }
};

void main();
