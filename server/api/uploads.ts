/**
 * GET /api/uploads/:scene/:name: the one way an uploaded file (server/scene/uploads.ts) is read.
 * The author (admin token, in the header) reads any; a session's token (participant or observer,
 * also as ?token= so an <img> can load it) reads only the files its session's scene shows. Only
 * names the upload store made are looked up, so no path reaches another file. Served with its
 * own type and nosniff (securityHeaders), a PDF as an attachment (a PDF viewer runs its script in
 * our origin otherwise), and nothing cached on the way.
 *
 * ```ts
 * app.route('/api/uploads', uploadFiles({ authorize, uploads, sceneOf: (session) => ... }));
 * // GET /api/uploads/my-scene/3q2…Xw.png -> 200 image/png
 * ```
 */
import { readFile } from 'node:fs/promises';
import { Hono } from 'hono';
import type { LoadedScene } from '../../shared/scene/schema';
import type { UploadStore } from '../scene/uploads';
import type { ApiEnv, Authorize } from './access';
import { problem } from './problem';

export interface UploadFilesOptions {
  authorize: Authorize;
  uploads: UploadStore;
  /** The scene a session runs (live or past), or undefined. */
  sceneOf: (session: string) => LoadedScene | undefined | Promise<LoadedScene | undefined>;
}

export const uploadFiles = (options: UploadFilesOptions): Hono<ApiEnv> => {
  const app = new Hono<ApiEnv>();
  app.get('/:scene/:name', options.authorize(['author', 'observer', 'participant']), async (c) => {
    const { scene, name } = c.req.param();
    const notFound = () => problem(c, 404, 'not-found', 'No such file.');
    const found = options.uploads.pathOf(scene, name);
    if (!found) return notFound();
    const access = c.get('access');
    if (access.role !== 'author') {
      const shown = (await options.sceneOf(access.session ?? ''))?.contents.some((content) => content.file === `${scene}/${name}`) ?? false;
      if (!shown) return problem(c, 403, 'forbidden', "This file is not one of your session's contents.");
    }
    let bytes: Buffer;
    try {
      bytes = await readFile(found.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return notFound();
      throw error;
    }
    const headers: Record<string, string> = { 'Content-Type': found.type };
    if (found.extension === 'pdf') headers['Content-Disposition'] = `attachment; filename="${name}"`;
    return c.body(new Uint8Array(bytes), 200, headers);
  });
  return app;
};
