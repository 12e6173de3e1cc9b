/**
 * Audit records waiting to be posted (Slack down, rate limited, the bot not in the channel): kept in
 * the order they were written and taken out once posted. The record is the front end's JSON.
 */
import type { SqlQueries } from './sql.js';

export interface WaitingRecord {
  seq: number;
  record: unknown;
  queuedAt: number;
}

export interface AuditOutbox {
  /** Its sequence number: where it waits. */
  add(record: unknown, at: number): Promise<number>;
  /** The oldest waiting records, first first. */
  oldest(limit: number): Promise<WaitingRecord[]>;
  /** Posted: no longer waiting. */
  remove(seq: number): Promise<void>;
  count(): Promise<number>;
}

export class SqlAuditOutbox implements AuditOutbox {
  constructor(private readonly sql: SqlQueries) {}

  async add(record: unknown, at: number): Promise<number> {
    const [row] = await this.sql.query<{ seq: string | number }>('INSERT INTO audit_outbox (record, queued_ms) VALUES ($1, $2) RETURNING seq', [JSON.stringify(record), at]);
    return Number(row!.seq);
  }

  async oldest(limit: number): Promise<WaitingRecord[]> {
    const rows = await this.sql.query<{ seq: string | number; record: unknown; queued_ms: string | number }>('SELECT seq, record, queued_ms FROM audit_outbox ORDER BY seq LIMIT $1', [limit]);
    return rows.map((row) => ({ seq: Number(row.seq), record: typeof row.record === 'string' ? (JSON.parse(row.record) as unknown) : row.record, queuedAt: Number(row.queued_ms) }));
  }

  async remove(seq: number): Promise<void> {
    await this.sql.query('DELETE FROM audit_outbox WHERE seq = $1', [seq]);
  }

  async count(): Promise<number> {
    const [row] = await this.sql.query<{ n: string | number }>('SELECT count(*) AS n FROM audit_outbox');
    return Number(row?.n ?? 0);
  }
}
