/**
 * A C++ compiler for tests of whisper.cpp's build (server/providers/transcription/whisper-build.ts)
 * that compiles nothing: each call waits until the test lets it go, then fails the way a compiler
 * does. The build's real steps run up to it (the sources found, ggml's headers read), in seconds
 * rather than the real build's CPU-minute, and the test decides when the build ends.
 *
 * ```ts
 * const compiler = heldCompiler(dir);           // CXX=compiler.path
 * await until(() => building(), 'the build');   // the build waits in the compiler…
 * compiler.release();                           // …and fails: `compiler.says`
 * ```
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface HeldCompiler {
  path: string;
  /** The error line it prints on standard error once released. */
  says: string;
  release(): void;
}

export const heldCompiler = (dir: string): HeldCompiler => {
  const path = join(dir, 'held-c++');
  const gate = join(dir, 'held-c++.go');
  const says = "held.cpp:1:1: error: this test's compiler stops here";
  writeFileSync(path, `#!/bin/sh\nwhile [ ! -e '${gate}' ]; do sleep 0.05; done\necho "${says}" >&2\nexit 1\n`);
  chmodSync(path, 0o755);
  return { path, says, release: () => writeFileSync(gate, '') };
};
