import { defineConfig } from 'vitest/config';

/**
 * Tests that drive headless Chromium (or the benches): one at a time, after the rest, so software
 * WebGL has the machine. The client is built once, before the first of them.
 */
const browser = ['tests/client/**/*.test.ts', 'tests/bench/**/*.test.ts', 'tests/avatars/sheet.test.ts'];
/**
 * Tests that need a process of their own: a process loads one whisper.cpp binding, and this one
 * loads the prebuilt (a worker that ran it before the built binding's test had only the prebuilt).
 */
const ownProcess = ['server/providers/transcription/whisper-prebuilt.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    // Closing a browser and a server on a loaded 2-core machine can take more than the default 10 s.
    hookTimeout: 60_000,
    // The engine compares texts with the word vectors it is given: every test gives it the installation's.
    setupFiles: ['tests/word-vectors.setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['server/**/*.test.ts', 'client/**/*.test.ts', 'avatars/**/*.test.ts', 'tests/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...browser, ...ownProcess],
          // Two cores: two files at a time.
          maxWorkers: 2,
          // Each worker keeps its modules from one file to the next: the server, the engine and zod
          // load once per worker, not once per file (130 s of imports a run on two cores, now 18 s).
          // A file must leave nothing behind that fails another: close what it opens, catch what it
          // leaves running (the suite passes in any order of files, under load).
          isolate: false,
          // The server and the CLIs the tests start as children, bundled once (tests/server/bundle.ts).
          globalSetup: ['tests/server/bundle.global.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'own-process',
          include: ownProcess,
          isolate: true,
          maxWorkers: 1,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: browser,
          globalSetup: ['tests/server/bundle.global.ts', 'tests/client/build.global.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
