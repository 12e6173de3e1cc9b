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
 * An engine opened on `ready()`, or on first use unless `deferred`: every call waits for it. The bot
 * starts listening before the embedded engine has opened (that takes seconds, most of it on the event
 * loop), so it opens the store `deferred` and calls `ready()` once it listens; a request that needs the
 * store meanwhile waits for that instead of opening it during start-up.
 */
export class OpeningSql implements Sql {
  private opening: Promise<Sql> | undefined;
  private open_ = false;
  private allow: (() => void) | undefined;
  private refuse: ((error: Error) => void) | undefined;
  private readonly allowed: Promise<void>;

  constructor(
    private readonly open: () => Promise<Sql>,
    { deferred = false }: { deferred?: boolean } = {},
  ) {
    this.allowed = deferred
      ? new Promise((resolve, reject) => {
          this.allow = resolve;
          this.refuse = reject;
        })
      : Promise.resolve();
    // Calls waiting for a store closed before it opened are refused; unobserved, that must not end the process.
    this.allowed.catch(() => undefined);
  }

  /** Whether the engine is open now: what must answer at once (/healthz) asks this instead of waiting. */
  get isOpen(): boolean {
    return this.open_;
  }

  /** Opens the engine if nothing has yet; resolves once it is open (rejects with why it could not open). */
  async ready(): Promise<void> {
    this.allow?.();
    this.refuse = undefined;
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

  /** Closes the engine when it was opened; one never opened stays closed, and what waited for it is refused. */
  async close(): Promise<void> {
    this.refuse?.(new Error('the store was closed before it was opened'));
    const sql = await this.opening?.catch(() => undefined);
    await sql?.close();
  }

  private engine(): Promise<Sql> {
    return (this.opening ??= this.allowed.then(async () => {
      const sql = await this.open();
      this.open_ = true;
      return sql;
    }));
  }
}
