/** One step of the store's schema (index.ts lists them in order), in each store's dialect. */
export interface Migration {
  version: number;
  /** What the step does, for `schema_version` and the log. */
  name: string;
  /** The step in SQLite's dialect (STRICT tables, INTEGER booleans). */
  sqlite: string;
  /** The step in Postgres's dialect (BIGINT times, DOUBLE PRECISION). */
  postgres: string;
}
