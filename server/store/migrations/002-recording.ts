/** Version 2: whether a session records participants' microphones; sessions made before did not. */
import type { Migration } from './migration';

export default {
  version: 2,
  name: "sessions record participants' microphones or not",
  sqlite: 'ALTER TABLE sessions ADD COLUMN recording INTEGER NOT NULL DEFAULT 0;',
  postgres: 'ALTER TABLE sessions ADD COLUMN recording BOOLEAN NOT NULL DEFAULT false;',
} satisfies Migration;
