/**
 * One download of a model file at a time, across server processes and `npm run models` alike:
 * whoever holds `<MODELS_DIR>/.partial/<file>.lock` fetches; the others wait, then find the file
 * ready.
 *
 * ```ts
 * const release = await lockModel('data/models/.partial/qwen.gguf.lock', { onWaiting: () => say('waiting') });
 * try { await fetchIt(); } finally { release(); }
 * ```
 *
 * The lock is SQLite's, as DATA_DIR's is (store/data-dir.ts): the holder keeps a write transaction
 * open, an OS lock the kernel drops when the process ends however it ends, so a killed download never
 * blocks the next one and no stale lock file has to be guessed at. Two stores in one process are two
 * connections, which SQLite keeps apart too.
 */
import Database from 'better-sqlite3';

export interface LockOptions {
  /** How often a waiter tries again; default 500 ms. */
  pollMs?: number;
  /** Called once, when the lock is found held by someone else. */
  onWaiting?: () => void;
  signal?: AbortSignal;
}

const busy = (error: unknown): boolean => /^SQLITE_(BUSY|LOCKED)/.test(String((error as { code?: unknown }).code));

export const lockModel = async (file: string, options: LockOptions = {}): Promise<() => void> => {
  const db = new Database(file, { timeout: 0 });
  let told = false;
  for (;;) {
    try {
      db.exec('BEGIN IMMEDIATE');
      break;
    } catch (error) {
      if (!busy(error)) {
        db.close();
        throw error;
      }
    }
    if (!told) options.onWaiting?.();
    told = true;
    if (options.signal?.aborted) {
      db.close();
      throw options.signal.reason;
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 500));
  }
  return () => {
    if (!db.open) return;
    db.exec('ROLLBACK');
    db.close();
  };
};
