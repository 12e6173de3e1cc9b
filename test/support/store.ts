/**
 * Stores for tests. `postgresStore()`: a schema of its own on the run's PostgreSQL server (see
 * ./postgres-server.ts), so every harness starts empty and two stores opened on the same `schema`
 * are two processes sharing one database (replicas).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject, onTestFinished } from 'vitest';
import { openStore, type ClaimLedger, type Store, type StoreOptions } from '../../src/store/index.js';

export interface PostgresStore extends Store {
  schema: string;
}

/** A store in a new schema, or (with `schema`) another process's view of an existing one. */
export async function postgresStore(options: StoreOptions & { schema?: string } = {}): Promise<PostgresStore> {
  const url = inject('postgresUrl');
  const schema = options.schema ?? `t_${randomUUID().replaceAll('-', '')}`;
  if (!options.schema) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA ${schema}`);
    } finally {
      await client.end();
    }
  }
  const store = openStore({ engine: 'postgres', url, connectionOptions: `-c search_path=${schema}` }, options);
  await store.ready();
  return Object.assign(store, { schema });
}

/** A store in a new schema for this test, closed when the test ends. Call it inside a test. */
export async function testStore(options: StoreOptions = {}): Promise<PostgresStore> {
  const store = await postgresStore(options);
  onTestFinished(() => store.close());
  return store;
}

/**
 * A ledger in this process's memory, for unit tests of what uses claims (not of the store: that is
 * test/store/store.test.ts, on both engines): first claim wins, done keys stay claimed, released ones
 * do not.
 */
export function memoryClaims(): ClaimLedger & { keys: Map<string, 'held' | 'done'> } {
  const keys = new Map<string, 'held' | 'done'>();
  return {
    keys,
    async claim(key) {
      const state = keys.get(key);
      if (state) return { won: false, state };
      keys.set(key, 'held');
      return { won: true, claim: { done: async () => void keys.set(key, 'done'), release: async () => void keys.delete(key) } };
    },
    async isClaimed(key) {
      return keys.has(key);
    },
  };
}
