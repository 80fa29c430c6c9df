import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimDataDir, DataDirError } from './data-dir';

const tempDir = () => mkdtempSync(join(tmpdir(), 'data-dir-'));

describe('claimDataDir', () => {
  it('makes a missing directory 0700 and its lock file 0600', () => {
    const dir = join(tempDir(), 'data');
    const claim = claimDataDir(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(claim.file).mode & 0o777).toBe(0o600);
    claim.release();
  });

  it('refuses a second claim while the first holds, naming the directory and the owner; a release frees it', () => {
    const dir = tempDir();
    const first = claimDataDir(dir);
    expect(() => claimDataDir(dir)).toThrow(new RegExp(`^DATA_DIR ${dir} is in use by another server \\(pid ${process.pid} on .+, since \\d{4}-`));
    expect(() => claimDataDir(dir)).toThrow(DataDirError);
    first.release();
    claimDataDir(dir).release();
  });

  it('says what is wrong with a directory it cannot use', () => {
    const file = join(tempDir(), 'data');
    writeFileSync(file, '');
    expect(() => claimDataDir(file)).toThrow(`DATA_DIR ${file} is not a directory (a file is in the way); set DATA_DIR to a directory this server can write`);
  });
});
