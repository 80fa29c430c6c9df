/**
 * The contact sheet: every avatar of the manifest rendered side by side into one PNG, so a person
 * can judge the cast at a glance. Each avatar gets a cell with its full body in the `idle-standing`
 * pose on top, seen from the front at eye level, and a close-up of its face below, its id and name
 * under the cell. Every other avatar
 * (the second, fourth, ...) has its mouth at `viseme_aa`, so open and closed mouths sit next to
 * each other.
 *
 * The page (`sheet-page.html`) is rendered by headless Chromium (./chromium.ts) with SwiftShader. Nothing loads from
 * the network: a throwaway HTTP server on 127.0.0.1 serves the page, three.js from node_modules and
 * the avatar files.
 *
 * ```ts
 * const sheet = await renderSheet({ avatarsDir: 'avatars', out: '/tmp/sheet.png' });
 * sheet.cells[1]; // { id: 'avatar-02', x: 284, y: 12, width: 260, height: 640, viseme: true }
 * ```
 */
import { morphNames } from './character';
import { launchChromium } from './chromium';
import { visemeMorph } from '../../shared/visemes';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, extname, resolve, sep } from 'node:path';
import type { Manifest } from './index';

export interface SheetOptions {
  /** The folder holding `manifest.json`, the avatar GLBs and `animations.glb`. */
  avatarsDir: string;
  /** Where the PNG goes; its folder is created if missing. */
  out: string;
  /** Avatars per row. */
  columns?: number;
  /** Size of one avatar's cell in pixels: the full body on top, the face close-up below. */
  cellWidth?: number;
  cellHeight?: number;
  /**
   * Instead of the cast, one avatar once per morph target (each at weight 1, the first cell at
   * rest): its faces side by side, to check every viseme and expression by eye.
   */
  morphsOf?: string;
}

export interface SheetCell {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** Whether this avatar's mouth is at `viseme_aa` weight 1. */
  viseme: boolean;
}

export interface Sheet {
  width: number;
  height: number;
  cells: SheetCell[];
}

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What the page draws, all positions decided here so that the page and the returned cells agree. */
interface Plan {
  width: number;
  height: number;
  animations: string;
  avatars: { id: string; name: string; caption: string; file: string; viseme: boolean; morph: string | null; body: Rect; face: Rect; label: Rect }[];
}

/** The mouth every other avatar shows: wide open. */
const openMouth = visemeMorph('aa');

const defaults = { columns: 6, cellWidth: 260, cellHeight: 640 };

/** Space between cells and around the sheet, and the height of the label strip under each cell. */
const gutter = 12;
const labelHeight = 40;
/** Share of a cell's height given to the face close-up. */
const faceShare = 3 / 8;

/** SwiftShader renders a dozen avatars in a few seconds; this only bounds a page that never finishes. */
const renderTimeoutMs = 60_000;

export const renderSheet = async (options: SheetOptions): Promise<Sheet> => {
  const { avatarsDir, out, columns, cellWidth, cellHeight } = { ...defaults, ...options } satisfies Required<Omit<SheetOptions, 'morphsOf'>>;
  const manifest = JSON.parse(await readFile(resolve(avatarsDir, 'manifest.json'), 'utf8')) as Manifest;
  const morphSheet = options.morphsOf ? manifest.avatars.find((a) => a.id === options.morphsOf) : undefined;
  if (options.morphsOf && !morphSheet) throw new Error(`no avatar "${options.morphsOf}" in ${resolve(avatarsDir, 'manifest.json')}`);
  // A morph sheet shows one avatar per morph target, from its first cell at rest.
  const entries = morphSheet ? [null, ...morphNames].map((morph) => ({ avatar: morphSheet, morph })) : manifest.avatars.map((avatar, i) => ({ avatar, morph: i % 2 === 1 ? openMouth : null }));

  const rows = Math.ceil(entries.length / columns);
  const faceHeight = Math.round(cellHeight * faceShare);
  const plan: Plan = {
    width: gutter + Math.min(columns, entries.length) * (cellWidth + gutter),
    height: gutter + rows * (cellHeight + labelHeight + gutter),
    animations: manifest.animations.file,
    avatars: entries.map(({ avatar, morph }, i) => {
      const x = gutter + (i % columns) * (cellWidth + gutter);
      const y = gutter + Math.floor(i / columns) * (cellHeight + labelHeight + gutter);
      const viseme = morph === openMouth;
      return {
        id: avatar.id,
        name: avatar.name,
        // Custom avatars (avatars/custom.json) have no known height.
        caption: morphSheet ? (morph ?? 'rest') : [avatar.presentation, avatar.height > 0 ? `${avatar.height.toFixed(2)} m` : 'own GLB', ...(viseme ? [openMouth] : [])].join(' · '),
        file: avatar.file,
        viseme,
        morph,
        body: { x, y, width: cellWidth, height: cellHeight - faceHeight },
        face: { x, y: y + cellHeight - faceHeight, width: cellWidth, height: faceHeight },
        label: { x, y: y + cellHeight, width: cellWidth, height: labelHeight },
      };
    }),
  };

  const server = await serve(plan, resolve(avatarsDir));
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: plan.width, height: plan.height }, deviceScaleFactor: 1 });
    // The first console error ends the wait: a page whose modules fail to load never sets its flag.
    const errors: string[] = [];
    const failed = new Promise<string>((resolve) => {
      const fail = (text: string) => {
        errors.push(text);
        resolve('failed');
      };
      page.on('console', (message) => message.type() === 'error' && fail(`${message.text()} (${message.location().url})`));
      page.on('pageerror', (error) => fail(error.stack ?? error.message));
    });

    const { port } = server.address() as AddressInfo;
    await page.goto(`http://127.0.0.1:${port}/`);
    const finished = page
      .waitForFunction('document.body.dataset.sheet === "done"', undefined, { timeout: renderTimeoutMs })
      .then(() => 'done')
      .catch((error: unknown) => `did not finish: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    const state = await Promise.race([finished, failed]);
    if (state !== 'done') throw new Error(`contact sheet: the page ${state}\n${errors.join('\n')}`);

    await mkdir(dirname(out), { recursive: true });
    await page.screenshot({ path: out });
  } finally {
    await browser.close();
    server.close();
  }

  return {
    width: plan.width,
    height: plan.height,
    cells: plan.avatars.map(({ id, viseme, body, face }) => ({ id, x: body.x, y: body.y, width: body.width, height: body.height + face.height, viseme })),
  };
};

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.glb': 'model/gltf-binary',
};

/** Serves the page, its plan, three.js and the avatar files; nothing else, and nothing outside those folders. */
const serve = async (plan: Plan, avatarsDir: string): Promise<Server> => {
  const page = await readFile(new URL('./sheet-page.html', import.meta.url), 'utf8');
  // `three` resolves to build/three.cjs for require; the package root is two levels up.
  const threeDir = dirname(dirname(createRequire(import.meta.url).resolve('three')));
  const mounts: [prefix: string, dir: string][] = [
    ['/three/', threeDir],
    ['/avatars/', avatarsDir],
  ];

  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    if (path === '/') return void response.writeHead(200, { 'content-type': contentTypes['.html'] }).end(page);
    if (path === '/plan.json') return void response.writeHead(200, { 'content-type': contentTypes['.json'] }).end(JSON.stringify(plan));

    const mount = mounts.find(([prefix]) => path.startsWith(prefix));
    const file = mount && resolve(mount[1], `.${path.slice(mount[0].length - 1)}`);
    if (!mount || !file || !file.startsWith(mount[1] + sep)) return void response.writeHead(404).end();
    stat(file).then(
      (info) => {
        if (!info.isFile()) return void response.writeHead(404).end();
        response.writeHead(200, { 'content-type': contentTypes[extname(file)] ?? 'application/octet-stream', 'content-length': info.size });
        createReadStream(file).pipe(response);
      },
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((done, fail) => server.once('error', fail).listen(0, '127.0.0.1', done));
  return server;
};
