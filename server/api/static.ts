/**
 * The files the browser loads from the session server, and nothing else: the avatars
 * (`/avatars/<name>.glb` and the `.json` files beside them: manifest, custom), and the built client
 * (dist/client, which holds public/ too) with its pages (`/room/<id>`, `/review/<id>`, `/replay/<id>`, `/sessions`, `/compare`) answered by the
 * client's index.html. Sources never leave: not the avatar generator under avatars/generator/, not
 * client/. Returns false when the client is not built.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Hono } from 'hono';

// `any` environment: the app's own variables do not matter to static files.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const serveClient = (app: Hono<any>, root = '.'): boolean => {
  app.get('/avatars/:file{[\\w.-]+\\.(?:glb|json)}', serveStatic({ root }));
  const client = join(root, 'dist/client');
  if (!existsSync(join(client, 'index.html'))) return false;
  app.use('/*', serveStatic({ root: client }));
  // The client's own pages: a session's room, its review, the instructors' sessions page.
  for (const page of ['/room/*', '/review/*', '/replay/*', '/debrief/*', '/sessions', '/compare']) app.get(page, serveStatic({ path: join(client, 'index.html') }));
  return true;
};
