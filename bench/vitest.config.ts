import { defineConfig } from 'vitest/config';

// Benchmarks: timed and memory-bound rows kept out of the unit suite (`npm run bench`).
export default defineConfig({
  test: {
    include: ['bench/**/*.bench.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
