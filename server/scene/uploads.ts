/**
 * The files a scene's contents show: images for posters and slides, PDFs, text documents. Each is
 * checked by its bytes, not only by what its sender says it is, and stored under
 * `DATA_DIR/uploads/<scene>/<random name>` (0600, folders 0700). A content item refers to one as
 * `file: <scene>/<name>`, and GET /api/uploads/<scene>/<name> is the one way to read it back:
 * `pathOf` accepts only names this module made, so no request reaches another path.
 *
 * SVG is refused, not cleaned: an SVG is a document that can carry script and links, and a
 * sanitiser we could trust is a dependency of its own; a PNG or WebP shows the same poster.
 *
 * @example
 * const uploads = openUploads('./data');
 * const checked = checkUpload(bytes, 'image/png');
 * if (checked.ok) await uploads.save('team-standup', bytes, checked.kind); // { file: 'team-standup/Xy…Q.png', … }
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UPLOAD_FILE } from '../../shared/scene/schema';

const MB = 1024 * 1024;

/** What a kind of upload may weigh: a slide or poster image, a handout PDF, a text document. */
export const UPLOAD_LIMITS = { image: 5 * MB, pdf: 10 * MB, text: MB / 2 } as const;
/** Files one scene may hold, so that a loop in a client cannot fill the disk. */
export const MAX_UPLOADS_PER_SCENE = 200;

interface Kind {
  extension: string;
  /** What the file is served as. */
  type: string;
  limit: keyof typeof UPLOAD_LIMITS;
  /** What a sender may call it (Content-Type, without parameters). */
  declared: readonly string[];
  /** Whether the bytes are what they claim. */
  looksRight: (bytes: Uint8Array) => boolean;
  label: string;
}

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0): boolean => prefix.every((b, i) => bytes[at + i] === b);
const ascii = (text: string): number[] => [...text].map((ch) => ch.charCodeAt(0));

const isText = (bytes: Uint8Array): boolean => {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};

const kinds: readonly Kind[] = [
  { extension: 'png', type: 'image/png', limit: 'image', declared: ['image/png'], label: 'PNG image', looksRight: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { extension: 'jpg', type: 'image/jpeg', limit: 'image', declared: ['image/jpeg', 'image/jpg'], label: 'JPEG image', looksRight: (b) => startsWith(b, [0xff, 0xd8, 0xff]) },
  { extension: 'webp', type: 'image/webp', limit: 'image', declared: ['image/webp'], label: 'WebP image', looksRight: (b) => startsWith(b, ascii('RIFF')) && startsWith(b, ascii('WEBP'), 8) },
  { extension: 'pdf', type: 'application/pdf', limit: 'pdf', declared: ['application/pdf'], label: 'PDF', looksRight: (b) => startsWith(b, ascii('%PDF-')) },
  // Markdown is served as plain text: nothing a browser would render or run.
  { extension: 'md', type: 'text/plain; charset=utf-8', limit: 'text', declared: ['text/markdown'], label: 'Markdown document', looksRight: isText },
  { extension: 'txt', type: 'text/plain; charset=utf-8', limit: 'text', declared: ['text/plain'], label: 'text document', looksRight: isText },
];

const accepted = kinds.flatMap((k) => k.declared).join(', ');
const inMB = (bytes: number): string => `${bytes >= MB ? `${bytes / MB} MB` : `${bytes / 1024} KB`} (${bytes} bytes)`;

export type UploadCheck = { ok: true; kind: Kind } | { ok: false; status: 400 | 413 | 415; error: string; message: string };

const looksLikeSvg = (bytes: Uint8Array): boolean => /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!doctype svg[^>]*>\s*)?<svg[\s>]/i.test(new TextDecoder().decode(bytes.subarray(0, 4096)));

/** Whether `bytes`, sent as `contentType`, may be stored, and as what. */
export const checkUpload = (bytes: Uint8Array, contentType: string | undefined): UploadCheck => {
  const declared = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (declared === 'image/svg+xml' || looksLikeSvg(bytes)) {
    return { ok: false, status: 415, error: 'svg-refused', message: 'SVG images are refused: they can carry scripts. Export the image as PNG, JPEG or WebP and upload that.' };
  }
  const kind = kinds.find((k) => k.declared.includes(declared));
  if (!kind) return { ok: false, status: 415, error: 'unsupported-type', message: `Uploads may be ${accepted}; this one was sent as "${declared || 'no type'}".` };
  if (bytes.length === 0) return { ok: false, status: 400, error: 'malformed-upload', message: `The ${kind.label} is empty.` };
  const limit = UPLOAD_LIMITS[kind.limit];
  if (bytes.length > limit) {
    return { ok: false, status: 413, error: 'too-large', message: `A ${kind.label} may be at most ${inMB(limit)}; this one is ${bytes.length} bytes.` };
  }
  if (!kind.looksRight(bytes)) {
    const what = kind.limit === 'text' ? 'is not UTF-8 text' : `does not begin as a ${kind.label} does`;
    return { ok: false, status: 400, error: 'malformed-upload', message: `The file was sent as ${declared} but ${what}; nothing was stored.` };
  }
  return { ok: true, kind };
};

export interface StoredUpload {
  /** What a content item's `file` holds: `<scene>/<name>`. */
  file: string;
  url: string;
  type: string;
  bytes: number;
}

export interface UploadStore {
  save(scene: string, bytes: Uint8Array, kind: Kind): Promise<StoredUpload | { full: true }>;
  /** The file's path and type for a `<scene>/<name>` this store could have made; undefined for anything else. */
  pathOf(scene: string, name: string): { path: string; type: string; extension: string } | undefined;
}

export const openUploads = (dataDir: string): UploadStore => {
  const root = join(dataDir, 'uploads');
  return {
    async save(scene, bytes, kind) {
      const dir = join(root, scene);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      if ((await readdir(dir)).length >= MAX_UPLOADS_PER_SCENE) return { full: true };
      const name = `${randomBytes(18).toString('base64url')}.${kind.extension}`;
      await writeFile(join(dir, name), bytes, { mode: 0o600, flag: 'wx' });
      return { file: `${scene}/${name}`, url: `/api/uploads/${scene}/${name}`, type: kind.type, bytes: bytes.length };
    },
    pathOf(scene, name) {
      if (!UPLOAD_FILE.test(`${scene}/${name}`)) return undefined;
      const extension = name.slice(name.lastIndexOf('.') + 1);
      const kind = kinds.find((k) => k.extension === extension);
      return kind ? { path: join(root, scene, name), type: kind.type, extension } : undefined;
    },
  };
};
