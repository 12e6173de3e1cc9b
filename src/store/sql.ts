/**
 * The one thing the store's engines share: SQL text with $1-style parameters, PostgreSQL's dialect.
 * The embedded engine (PGlite, ./embedded.ts) and a PostgreSQL server (./postgres.ts) both speak it, so
 * the schema and every query are written once.
 */
export interface SqlQueries {
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
}

export interface Sql extends SqlQueries {
  /** Several statements, no parameters (migrations). */
  exec(script: string): Promise<void>;
  /** `work` on one connection inside BEGIN … COMMIT (ROLLBACK when it throws). */
  transaction<T>(work: (sql: SqlQueries) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * An engine still opening: every call waits for it. The bot starts listening before the embedded
 * engine has opened (that takes seconds); the first request that needs the store waits instead.
 */
export class OpeningSql implements Sql {
  constructor(private readonly opening: Promise<Sql>) {
    // Whoever awaits it sees the failure; unobserved, it must not end the process.
    opening.catch(() => undefined);
  }

  /** Resolves once the engine is open (rejects with why it could not open). */
  async ready(): Promise<void> {
    await this.opening;
  }

  async query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]> {
    return (await this.opening).query<Row>(text, params);
  }

  async exec(script: string): Promise<void> {
    return (await this.opening).exec(script);
  }

  async transaction<T>(work: (sql: SqlQueries) => Promise<T>): Promise<T> {
    return (await this.opening).transaction(work);
  }

  async close(): Promise<void> {
    const sql = await this.opening.catch(() => undefined);
    await sql?.close();
  }
}
