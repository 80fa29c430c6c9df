/**
 * Version 5: the scene each session runs, as it was when the session was made. A scene's version
 * is its YAML text, keyed by the scene's id and its ETag (a hash of the text, server/scene/library.ts),
 * so a version many sessions ran is stored once; a session's row names the version it ran
 * (`scene_etag`). Its review, replay, debrief and resume read that text, not the scene's file, which
 * the editor may since have changed or deleted. Sessions made before this step have no version
 * (NULL): they are read with the scene as it is now, as they always were.
 *
 * No foreign key ties a session to its version: SQLite cannot add a two-column one to an existing
 * table, and the stores' writes (store.ts, postgres.ts) keep the pair together themselves.
 */
import type { Migration } from './migration';

export default {
  version: 5,
  name: 'scene versions: the scene text each session ran',
  sqlite: `
    CREATE TABLE scene_versions (
      scene TEXT NOT NULL,
      etag TEXT NOT NULL,
      text TEXT NOT NULL,
      PRIMARY KEY (scene, etag)
    ) STRICT;
    ALTER TABLE sessions ADD COLUMN scene_etag TEXT;`,
  postgres: `
    CREATE TABLE scene_versions (
      scene TEXT NOT NULL,
      etag TEXT NOT NULL,
      text TEXT NOT NULL,
      PRIMARY KEY (scene, etag)
    );
    ALTER TABLE sessions ADD COLUMN scene_etag TEXT;`,
} satisfies Migration;
