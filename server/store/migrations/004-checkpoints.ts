/**
 * Version 4: each unfinished session's latest checkpoint, the engine's state after the event
 * `seq` of its log (server/conversation/checkpoint.ts writes and reads the JSON), so a session whose
 * server died resumes where it was instead of ending. One row per session, replaced with the batch
 * of events it follows, in the same transaction (SQLite) or statement (Postgres), fenced like them.
 */
import type { Migration } from './migration';

export default {
  version: 4,
  name: "sessions' latest checkpoints: the engine's state after an event",
  sqlite: `
    CREATE TABLE checkpoints (
      session TEXT PRIMARY KEY REFERENCES sessions (id),
      seq INTEGER NOT NULL,
      json TEXT NOT NULL
    ) STRICT;`,
  postgres: `
    CREATE TABLE checkpoints (
      session TEXT PRIMARY KEY REFERENCES sessions (id),
      seq INTEGER NOT NULL,
      json TEXT NOT NULL
    );`,
} satisfies Migration;
