import { defineConfig } from 'vitest/config';

// Benchmarks: timed and memory-bound checks kept out of the unit suite (`npm run bench`).
export default defineConfig({
  test: {
    include: ['bench/**/*.bench.ts'],
    pool: 'forks',
    execArgv: ['--expose-gc'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
