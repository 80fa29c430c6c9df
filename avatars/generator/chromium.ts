/**
 * The headless Chromium that the contact sheet, the browser tests and `npm run bench` drive with
 * playwright-core. It comes from npm, so it is there wherever `npm install` ran: `@sparticuz/chromium`
 * ships a headless Chromium with SwiftShader (software WebGL2) and fonts as Brotli archives, which
 * are unpacked once per version into the temporary folder. A system browser is used only when
 * `CHROMIUM_PATH` names one.
 *
 * ```ts
 * const browser = await launchChromium(['--use-fake-device-for-media-stream']);
 * const page = await browser.newPage();
 * ```
 *
 * A browser that cannot start is an error with a one-line reason, never a skipped test.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, constants, createReadStream, createWriteStream, existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { extract } from 'tar-fs';

/** Headless, software WebGL, and none of Chromium's own network traffic (this machine's network is closed). */
export const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--use-gl=angle',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--ignore-gpu-blocklist',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-domain-reliability',
  '--no-first-run',
  '--disable-sync',
  '--no-pings',
];

interface Located {
  executable: string;
  /** Environment the browser needs (fontconfig for the bundled fonts), beyond the caller's. */
  env: Record<string, string>;
}

const packageDir = (): string => join(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')), '..');

const unpack = async (archive: string, into: string): Promise<void> => {
  await pipeline(createReadStream(archive), createBrotliDecompress(), extract(into));
};

/**
 * Unpacks the npm Chromium into `dir` unless it is there. Two test runs may start at once, so it
 * unpacks into a private folder and renames it into place: a reader never sees half a browser.
 */
const unpackChromium = async (dir: string): Promise<void> => {
  if (existsSync(join(dir, 'chromium'))) return;
  const bin = join(packageDir(), 'bin');
  const partial = `${dir}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  await mkdir(join(partial, 'fonts'), { recursive: true });
  try {
    await pipeline(createReadStream(join(bin, 'chromium.br')), createBrotliDecompress(), createWriteStream(join(partial, 'chromium'), { mode: 0o755 }));
    await unpack(join(bin, 'swiftshader.tar.br'), partial);
    await unpack(join(bin, 'fonts.tar.br'), join(partial, 'fonts'));
    // The package's fonts.conf names Lambda's folders; ours names the bundled fonts and the system's.
    await writeFile(
      join(partial, 'fonts', 'fonts.conf'),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${join(dir, 'fonts', 'fonts')}</dir>\n  <dir>/usr/share/fonts</dir>\n  <dir prefix="xdg">fonts</dir>\n  <cachedir>${join(dir, 'fonts', 'cache')}</cachedir>\n</fontconfig>\n`,
    );
    await rename(partial, dir).catch((error: NodeJS.ErrnoException) => {
      // Another run unpacked it first: theirs is as good as ours.
      if (!existsSync(join(dir, 'chromium'))) throw error;
    });
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
};

/** The browser to drive: `CHROMIUM_PATH` when set, else the one from npm (unpacked on first use). */
export const locateChromium = async (env: NodeJS.ProcessEnv = process.env): Promise<Located> => {
  const named = env.CHROMIUM_PATH?.trim();
  if (named) {
    try {
      accessSync(named, constants.X_OK);
    } catch {
      throw new Error(`CHROMIUM_PATH is ${named}, which is not an executable file; unset it to use the Chromium from npm`);
    }
    return { executable: named, env: {} };
  }
  const { version } = JSON.parse(readFileSync(join(packageDir(), 'package.json'), 'utf8')) as { version: string };
  const dir = join(tmpdir(), `rehearsal-chromium-${version}-${userInfo().uid}`);
  await unpackChromium(dir);
  return { executable: join(dir, 'chromium'), env: { FONTCONFIG_PATH: join(dir, 'fonts') } };
};

/** Launches headless Chromium with `chromiumFlags` plus `extraFlags`; fails with a one-line reason. */
export const launchChromium = async (extraFlags: readonly string[] = []): Promise<Browser> => {
  const { executable, env } = await locateChromium();
  try {
    return await chromium.launch({ executablePath: executable, args: [...chromiumFlags, ...extraFlags], env: { ...process.env, ...env } as Record<string, string> });
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n').find((line) => line.trim()) ?? 'unknown error';
    throw new Error(`Chromium (${executable}) could not start: ${reason}`);
  }
};
