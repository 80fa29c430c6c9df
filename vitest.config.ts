import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'client/**/*.test.ts', 'avatars/**/*.test.ts', 'tests/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
