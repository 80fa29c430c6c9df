/**
 * The files the browser loads from the session server: the avatars (`/avatars/*`, from
 * avatars/), and the built client (dist/client) with its pages (`/room/<id>`, `/sessions`) answered
 * by the client's index.html. Returns false when the client is not built.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Hono } from 'hono';

// `any` environment: the app's own variables do not matter to static files.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const serveClient = (app: Hono<any>, root = '.'): boolean => {
  app.use('/avatars/*', serveStatic({ root }));
  const client = join(root, 'dist/client');
  if (!existsSync(join(client, 'index.html'))) return false;
  app.use('/*', serveStatic({ root: client }));
  // The client's own pages: a session's room, the instructors' sessions page.
  for (const page of ['/room/*', '/sessions']) app.get(page, serveStatic({ path: join(client, 'index.html') }));
  return true;
};
