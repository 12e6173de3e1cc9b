/**
 * Stores for tests. `postgresStore()`: a schema of its own on the run's PostgreSQL server (see
 * ./postgres-server.ts), so every harness starts empty and two stores opened on the same `schema`
 * are two processes sharing one database (replicas). `holdingBot()` and `storeChild()`: real other
 * processes on an embedded store.
 */
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { inject, onTestFinished } from 'vitest';
import { Memory, openStore, storeOnKv, type ClaimLedger, type Store, type StoreOptions } from '../../src/store/index.js';

const STORE_CHILD = fileURLToPath(new URL('./store-child.ts', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/tsx/dist/esm/index.mjs', import.meta.url));
const runFile = promisify(execFile);

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

/** A store in a new schema (or, with `schema`, another process on that one) for this test, closed when the test ends. Call it inside a test. */
export async function testStore(options: StoreOptions & { schema?: string } = {}): Promise<PostgresStore> {
  const store = await postgresStore(options);
  onTestFinished(() => store.close());
  return store;
}

/** Claims in this process's memory (the memory engine's), for unit tests of what uses claims. */
export function memoryClaims(): ClaimLedger {
  return storeOnKv(new Memory()).claims;
}

/**
 * Holds every write to `table` of the store in `schema` (a transaction of another connection takes the
 * table in EXCLUSIVE mode: reads go on, writes wait): the interleaving "both read, then both write", forced
 * with PostgreSQL's own locks. `waiting(n)` resolves once n writes are blocked on it (PostgreSQL's
 * pg_stat_activity says so), `release()` lets them through.
 */
export async function holdWrites(schema: string, table: string): Promise<{ waiting(count: number): Promise<void>; release(): Promise<void> }> {
  const holder = new pg.Client({ connectionString: inject('postgresUrl'), options: `-c search_path=${schema}` });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query(`LOCK TABLE ${table} IN EXCLUSIVE MODE`);
  const watcher = new pg.Client({ connectionString: inject('postgresUrl') });
  await watcher.connect();
  return {
    async waiting(count) {
      // A condition PostgreSQL reports, asked until it holds (each question answers within milliseconds).
      for (;;) {
        const { rows } = await watcher.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid WHERE NOT l.granted AND l.relation = $1::regclass`,
          [`${schema}.${table}`],
        );
        if (Number(rows[0]!.n) >= count) return;
        await watcher.query('SELECT pg_sleep(0.01)');
      }
    },
    async release() {
      await holder.query('COMMIT');
      await holder.end();
      await watcher.end();
    },
  };
}

/**
 * Another process holding the embedded store in `dir` as the bot does (./store-child.ts): resolves once
 * it holds it; `kill()` ends it with SIGKILL (no clean-up of its own) and resolves once it is gone.
 */
export async function holdingBot(dir: string): Promise<{ pid: number; kill(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', TSX, STORE_CHILD, 'bot', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async () => {
    child.kill('SIGKILL');
    await exited;
  };
  onTestFinished(kill);
  const [line] = await Promise.race([once(createInterface({ input: child.stdout }), 'line'), exited.then(() => ['exited'])]);
  if (line !== 'holding') throw new Error(`the holding process did not hold ${dir}: ${String(line)}`);
  return { pid: child.pid!, kill };
}

/** Runs ./store-child.ts with `args` as a separate process; resolves with what it printed. */
export async function storeChild(args: string[]): Promise<string> {
  return (await runFile(process.execPath, ['--import', TSX, STORE_CHILD, ...args], { timeout: 30_000 })).stdout;
}
