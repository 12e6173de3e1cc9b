/**
 * Stores for tests. `postgresStore()`: a schema of its own on the run's PostgreSQL server (see
 * ./postgres-server.ts), so every harness starts empty and two stores opened on the same `schema`
 * are two processes sharing one database (replicas).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { openStore, type Store, type StoreOptions } from '../../src/store/index.js';

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
