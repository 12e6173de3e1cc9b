/**
 * The store on a PostgreSQL server (DATABASE_URL): what several replicas, and CLI processes, share.
 * `pg` (node-postgres) is loaded only here, when DATABASE_URL is set.
 */
import type { Client as PgClient, ClientConfig } from 'pg';
import type { Sql, SqlQueries } from './sql.js';
import { parseDatabaseUrl, UNREADABLE_DATABASE_URL, whereIs } from './database-url.js';
import { StoreError } from './errors.js';

export interface PostgresOptions {
  url: string;
  /** Connections at most (default 5: the store's queries are small and short). */
  maxConnections?: number;
  /** Sent as the connection's `options` (tests put each run in a schema of its own). */
  connectionOptions?: string;
  /**
   * Longest a query may take (default 5 s): a store that does not answer fails the step fast, with a
   * clear sentence, instead of stalling a run that holds what an agent waits for.
   */
  queryTimeoutMs?: number;
}

const NO_PASSWORD = 'the server asks for a password, and neither DATABASE_URL nor PGPASSWORD holds one (SubOps does not read ~/.pgpass)';

/**
 * node-postgres reads ~/.pgpass when it has no password (neither in the URL nor PGPASSWORD): a URL a
 * cloned `.env` names would be sent the password the operator keeps there for another server. Its
 * clients here have a password function instead, which the driver asks rather than the file.
 */
function clientWithoutPgpass(Client: typeof PgClient): typeof PgClient {
  return class extends Client {
    constructor(config?: ClientConfig) {
      super(config);
      if (this.password == null) {
        (this as { password?: unknown }).password = () => {
          throw new Error(NO_PASSWORD);
        };
      }
    }
  };
}

export async function openPostgres({ url, maxConnections = 5, connectionOptions, queryTimeoutMs = 5_000 }: PostgresOptions): Promise<Sql> {
  if (!parseDatabaseUrl(url)) throw new StoreError(`Could not connect to the store at DATABASE_URL (${whereIs(url)}): ${UNREADABLE_DATABASE_URL}`);
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    Client: clientWithoutPgpass(pg.Client),
    connectionString: url,
    max: maxConnections,
    idleTimeoutMillis: 10_000,
    connectionTimeoutMillis: 5_000,
    // The server cancels a statement past the deadline; the client gives up a little later if even that is lost.
    statement_timeout: queryTimeoutMs,
    query_timeout: queryTimeoutMs + 1_000,
    allowExitOnIdle: true,
    ...(connectionOptions && { options: connectionOptions }),
  });
  // An idle connection the server dropped must not take the process down: the next query reconnects.
  pool.on('error', () => undefined);
  let clockOffsetMs: number;
  try {
    // The database's clock against this process's, read halfway through the round trip.
    const sent = Date.now();
    const { rows } = await pool.query<{ ms: string }>('SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS ms');
    clockOffsetMs = Math.round(Number(rows[0]!.ms) - (sent + Date.now()) / 2);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new StoreError(`Could not connect to the store at DATABASE_URL (${whereIs(url)}): ${error instanceof Error ? error.message : String(error)}`, !refusedByServer(error));
  }
  const queries = (client: Pick<typeof pool, 'query'>): SqlQueries => ({
    async query<Row>(text: string, params?: readonly unknown[]) {
      return (await client.query(text, params as unknown[] | undefined)).rows as Row[];
    },
  });
  return {
    ...queries(pool),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(queries(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
    clockOffsetMs,
  };
}

/**
 * The server answered and said no: a password or role it refused (SQLSTATE class 28), a database that
 * does not exist (3D000). A restart does not change that; no answer at all (refused, timed out) may pass.
 */
function refusedByServer(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('28') || code === '3D000');
}
