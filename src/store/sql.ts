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
 * An engine opened on first use (or on `ready()`): every call waits for it. Nothing is opened for a
 * process that never asks.
 */
export class OpeningSql implements Sql {
  private opening: Promise<Sql> | undefined;
  private opened = false;

  constructor(private readonly open: () => Promise<Sql>) {}

  /** Whether the engine is open now: what must answer at once (/healthz) asks this instead of waiting. */
  get isOpen(): boolean {
    return this.opened;
  }

  /** Opens the engine if nothing has yet; resolves once it is open (rejects with why it could not open). */
  async ready(): Promise<void> {
    await this.engine();
  }

  async query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]> {
    return (await this.engine()).query<Row>(text, params);
  }

  async exec(script: string): Promise<void> {
    return (await this.engine()).exec(script);
  }

  async transaction<T>(work: (sql: SqlQueries) => Promise<T>): Promise<T> {
    return (await this.engine()).transaction(work);
  }

  /** Closes the engine when it was opened; one never opened stays closed. */
  async close(): Promise<void> {
    const sql = await this.opening?.catch(() => undefined);
    await sql?.close();
  }

  private engine(): Promise<Sql> {
    return (this.opening ??= this.open().then((sql) => {
      this.opened = true;
      return sql;
    }));
  }
}
