/**
 * The data directory (DATA_DIR) belongs to one server at a time. `claimDataDir` makes it (0700)
 * if it is missing, checks that it is a directory this process can write, and takes its lock,
 * `<dir>/server.lock`; it throws a `DataDirError` whose message is one line naming the directory
 * and what is wrong, having written nothing if the directory is another server's.
 *
 * ```ts
 * const claim = claimDataDir(config.dataDir); // before crash recovery touches the store
 * const store = openStore(config.dataDir);
 * ```
 *
 * The lock is SQLite's: the lock file is a small SQLite database in which the owner keeps a write
 * transaction open (an OS lock on the file). The kernel drops it when the process ends, however
 * it ends, so a server that was killed never blocks the next start and no stale lock has to be
 * guessed at; SQLite also sees two connections of one process. The file names its owner (pid,
 * host, start time) for the message a second server prints. Shared network storage whose locks
 * are not honoured across machines is not protected: give each server its own DATA_DIR.
 *
 * The owner must never open the lock file any other way: closing any descriptor of a file drops
 * the process's POSIX locks on it.
 */
import Database from 'better-sqlite3';
import { accessSync, chmodSync, closeSync, constants, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

export class DataDirError extends Error {
  override name = 'DataDirError';
}

export interface DataDirClaim {
  /** The lock file. */
  readonly file: string;
  /** Gives the directory up (the process ending does the same). */
  release(): void;
}

/** Creates `dir` (0700) if it is missing; a directory that exists keeps its mode. */
export const makeDataDir = (dir: string): void => {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
};

/** Creates `file` empty with mode 0600 if it is missing, and takes it back to 0600 if it was more open. */
export const privateFile = (file: string): void => {
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
};

const reasons: Record<string, string> = {
  EACCES: 'is not writable by this user',
  EPERM: 'is not writable by this user',
  EROFS: 'is on a read-only file system',
  ENOTDIR: 'is not a directory (a file is in the way)',
  EEXIST: 'is not a directory (a file is in the way)',
  ENOSPC: 'is on a full disk',
};

const reasonFor = (error: unknown): string => reasons[(error as NodeJS.ErrnoException).code ?? ''] ?? `cannot be used (${(error as Error).message})`;

/** Why `dir` cannot be the data directory, or null. */
const problemWith = (dir: string): string | null => {
  try {
    makeDataDir(dir);
    if (!statSync(dir).isDirectory()) return reasons.ENOTDIR!;
    accessSync(dir, constants.W_OK | constants.X_OK);
    return null;
  } catch (error) {
    return reasonFor(error);
  }
};

interface Owner {
  pid: number;
  host: string;
  started: string;
}

export const claimDataDir = (dir: string): DataDirClaim => {
  const where = resolve(dir);
  const problem = problemWith(dir);
  if (problem) throw new DataDirError(`DATA_DIR ${where} ${problem}; set DATA_DIR to a directory this server can write`);
  const file = join(dir, 'server.lock');
  let db: Database.Database;
  try {
    if (!existsSync(file)) privateFile(file);
    db = new Database(file, { timeout: 0 });
  } catch (error) {
    throw new DataDirError(`DATA_DIR ${where} ${reasonFor(error)}; set DATA_DIR to a directory this server can write`);
  }
  const refuse = (): never => {
    let owner: Owner | undefined;
    try {
      owner = db.prepare<[], Owner>('SELECT pid, host, started FROM owner').get();
    } catch {
      // Being written this very moment (or an older file): the message goes without the owner.
    }
    db.close();
    const who = owner ? ` (pid ${owner.pid} on ${owner.host}, since ${owner.started})` : '';
    throw new DataDirError(`DATA_DIR ${where} is in use by another server${who}; stop that server first, or give this one its own DATA_DIR`);
  };
  const lock = () => {
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      if (/^SQLITE_(BUSY|LOCKED)/.test(String((error as { code?: unknown }).code))) refuse();
      throw error;
    }
  };
  lock();
  db.exec('CREATE TABLE IF NOT EXISTS owner (pid INTEGER NOT NULL, host TEXT NOT NULL, started TEXT NOT NULL)');
  db.exec('DELETE FROM owner');
  db.prepare('INSERT INTO owner (pid, host, started) VALUES (?, ?, ?)').run(process.pid, hostname(), new Date().toISOString());
  db.exec('COMMIT');
  // Held from here on: an open write transaction, with nothing in it.
  lock();
  return {
    file,
    release() {
      if (!db.open) return;
      db.exec('ROLLBACK');
      db.close();
    },
  };
};
