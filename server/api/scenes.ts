/**
 * GET /api/scenes, open to anyone: the scenes this server can run. Titles and formations are not
 * secret; the personas are, so only the human seats are named.
 *
 * ```ts
 * app.route('/api/scenes', scenes({ scenes: loaded }));
 * // {"scenes":[{"id":"team-standup","title":"…","topic":"…","formation":"…","humans":["Jordan"],"participants":4,"recording":false,"duration":null}]}
 * ```
 */
import { Hono } from 'hono';
import type { LoadedScene } from '../../shared/scene/schema';

export interface ScenesOptions {
  scenes: readonly LoadedScene[];
}

export const scenes = (options: ScenesOptions): Hono => {
  const app = new Hono();
  app.get('/', (c) =>
    c.json({
      scenes: options.scenes.map((s) => ({
        id: s.id,
        title: s.title,
        topic: s.topic,
        formation: s.formation,
        humans: s.participants.filter((p) => p.kind === 'human').map((p) => p.name),
        participants: s.participants.length,
        recording: s.recording ?? false,
        duration: s.duration ?? null,
      })),
    }),
  );
  return app;
};
