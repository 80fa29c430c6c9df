import { defineConfig } from 'vitest/config';

/**
 * Tests that drive headless Chromium (or the benches): one at a time, after the rest, so software
 * WebGL has the machine. The client is built once, before the first of them.
 */
const browser = ['tests/client/**/*.test.ts', 'tests/bench/**/*.test.ts', 'tests/avatars/sheet.test.ts'];

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
          exclude: ['**/node_modules/**', ...browser],
          // Two cores: two files at a time.
          maxWorkers: 2,
          // The server and the CLIs the tests start as children, bundled once (tests/server/bundle.ts).
          globalSetup: ['tests/server/bundle.global.ts'],
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
