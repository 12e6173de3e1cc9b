import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Every test file starts its own loopback servers; two workers fit the 2-core machines.
    maxWorkers: 2,
  },
});
