/**
 * The files the browser loads from the session server, and nothing else: the avatars
 * (`/avatars/<name>.glb` and the `.json` files beside them: manifest, custom), and the built client
 * (dist/client, which holds public/ too) with its pages (`/room/<id>`, `/review/<id>`, `/replay/<id>`,
 * `/debrief/<id>`, `/sessions`, `/compare`, `/editor`) answered by the client's index.html. Sources never
 * leave: not the avatar generator under avatars/generator/, not client/. Mounted last, after the API.
 *
 * ```ts
 * const files = staticFiles({ root: '.' });
 * if (!files.clientBuilt) log('the client is not built (dist/client): run npm run build:client');
 * app.route('/', files.app);
 * ```
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';

export interface StaticOptions {
  /** The directory holding avatars/ and dist/client; default the working directory. */
  root?: string;
}

export const staticFiles = (options: StaticOptions = {}): { app: Hono; clientBuilt: boolean } => {
  const root = options.root ?? '.';
  const app = new Hono();
  app.get('/avatars/:file{[\\w.-]+\\.(?:glb|json)}', serveStatic({ root }));
  const client = join(root, 'dist/client');
  if (!existsSync(join(client, 'index.html'))) return { app, clientBuilt: false };
  app.use('/*', serveStatic({ root: client }));
  // The client's own pages: a session's room, its review, the instructors' sessions page, the scene editor.
  for (const page of ['/room/*', '/review/*', '/replay/*', '/debrief/*', '/sessions', '/compare', '/editor']) app.get(page, serveStatic({ path: join(client, 'index.html') }));
  return { app, clientBuilt: true };
};
