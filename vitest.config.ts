import { defineConfig } from 'vitest/config';

/**
 * Every activation, lookup, link-watch and duplicate test runs twice: against the simulator playing the
 * interface document's UISP (the default) and playing a stock UISP (SUBOPS_SIMULATOR_WORLD=stock: stock
 * status numbers, sites bound to services, `ucrm` only with ucrmDetails). SubOps detects the numbering in
 * each, as it does against a real UISP.
 */
const BOTH_WORLDS = [
  'test/services/{activation,interleavings,races,concurrency,round-trips,lookups,duplicates,typeahead,digest,outages,outage-watch,card-outages,sheets}.test.ts',
  'test/slack/{activate,link-watch,outages,duplicates,lookups,own-records,home,digest,approvals}.test.ts',
  'test/cli/{lookups,late-duplicates,cli,confirm,json,digest,outages,sheet}.test.ts',
  'test/e2e/activation.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Every test file starts its own loopback servers; two workers fit the 2-core machines.
    maxWorkers: 2,
    // One PostgreSQL server for the whole run: the store's tests, and every harness in a schema of its own.
    globalSetup: ['test/support/postgres-server.ts'],
    // Each test file has a home of its own: SubOps' default state folder is never the developer's.
    setupFiles: ['test/support/isolated-home.ts'],
    projects: [
      { extends: true, test: { name: 'interface', include: ['test/**/*.test.ts'] } },
      { extends: true, test: { name: 'stock', include: BOTH_WORLDS, env: { SUBOPS_SIMULATOR_WORLD: 'stock' } } },
    ],
  },
});
