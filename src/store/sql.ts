/**
 * The PostgreSQL engine's interface (./postgres.ts): SQL text with $1-style parameters.
 */
import { Opening } from './opening.js';

export interface SqlQueries {
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
}

export interface Sql extends SqlQueries {
  /** `work` on one connection inside BEGIN … COMMIT (ROLLBACK when it throws). */
  transaction<T>(work: (sql: SqlQueries) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * The database's clock minus this process's, measured when it connected: leases are judged on the
   * database's clock, so replicas whose clocks disagree never take each other's leases early.
   */
  readonly clockOffsetMs: number;
}

/** A SQL engine opened on first use (./opening.ts). */
export class OpeningSql extends Opening<Sql> implements Sql {
  private offsetMs = 0;

  get clockOffsetMs(): number {
    return this.offsetMs;
  }

  /** The database's time now (ms), once it is open. */
  async clock(): Promise<number> {
    this.offsetMs = (await this.engine()).clockOffsetMs;
    return Date.now() + this.offsetMs;
  }

  async query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]> {
    return (await this.engine()).query<Row>(text, params);
  }

  async transaction<T>(work: (sql: SqlQueries) => Promise<T>): Promise<T> {
    return (await this.engine()).transaction(work);
  }
}
