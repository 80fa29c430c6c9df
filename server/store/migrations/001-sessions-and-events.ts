/**
 * Version 1: sessions and their append-only event logs. An event is kept whole as JSON text (its
 * seq, time and type beside it for ordering and reading), so the store never needs a step when
 * the event schema (shared/events.ts) grows.
 */
import type { Migration } from './migration';

export default {
  version: 1,
  name: 'sessions and their event logs',
  sqlite: `
    CREATE TABLE sessions (
      id TEXT PRIMARY KEY,
      scene TEXT NOT NULL,
      seed INTEGER NOT NULL,
      pace TEXT NOT NULL CHECK (pace IN ('instant', 'realtime')),
      created_at INTEGER NOT NULL,
      present TEXT NOT NULL,
      ended_at INTEGER
    ) STRICT;
    CREATE TABLE events (
      session TEXT NOT NULL REFERENCES sessions (id),
      seq INTEGER NOT NULL,
      t REAL NOT NULL,
      type TEXT NOT NULL,
      json TEXT NOT NULL,
      PRIMARY KEY (session, seq)
    ) STRICT, WITHOUT ROWID;`,
  // Times are milliseconds since 1970 (BIGINT); JSON stays text: Postgres's json types would
  // rewrite it (jsonb) or refuse a "\u0000" some text may hold.
  postgres: `
    CREATE TABLE sessions (
      id TEXT PRIMARY KEY,
      scene TEXT NOT NULL,
      seed BIGINT NOT NULL,
      pace TEXT NOT NULL CHECK (pace IN ('instant', 'realtime')),
      created_at BIGINT NOT NULL,
      present TEXT NOT NULL,
      ended_at BIGINT
    );
    CREATE TABLE events (
      session TEXT NOT NULL REFERENCES sessions (id),
      seq INTEGER NOT NULL,
      t DOUBLE PRECISION NOT NULL,
      type TEXT NOT NULL,
      json TEXT NOT NULL,
      PRIMARY KEY (session, seq)
    );`,
} satisfies Migration;
