/**
 * Operations in flight, for when a process stops hard (crash, OOM kill, eviction) in the middle of one:
 * each row names the Slack thread showing it and what that thread is told if it is left unfinished (as
 * the front end records it: a kind and ids with its check, src/slack/in-flight.ts). Read back, a row is
 * data for the front end to validate, never a message to post.
 * Its process holds it on a lease it renews while it runs and deletes it when the operation ends; a row
 * whose lease ran out belongs to a process that died, and the next one takes it over to say so.
 */
import type { SqlQueries } from './sql.js';

export interface OperationRow {
  id: string;
  channel: string;
  threadTs: string;
  /** What the thread is told when the operation was left unfinished, as the front end recorded it (never a message). */
  ifStopped: unknown;
  startedAt: number;
}

export interface OperationLog {
  begin(row: OperationRow, leaseMs: number): Promise<void>;
  /** Extends the lease of every operation this process runs. */
  renew(leaseMs: number): Promise<void>;
  end(id: string): Promise<void>;
  /** Takes over the operations whose process stopped holding them (at most `limit`). */
  takeAbandoned(leaseMs: number, limit: number): Promise<OperationRow[]>;
  /** Gives one back, for whoever sweeps next. */
  giveUp(id: string): Promise<void>;
}

interface Row {
  id: string;
  channel: string;
  thread_ts: string;
  if_stopped: unknown;
  started_ms: string | number;
}

export class SqlOperationLog implements OperationLog {
  constructor(
    private readonly sql: SqlQueries,
    private readonly owner: string,
    /** The lease clock: the database's (./sql.ts `clock`), or the test's. */
    private readonly now: () => Promise<number>,
  ) {}

  async begin(row: OperationRow, leaseMs: number): Promise<void> {
    await insertOperation(this.sql, { operation: row, leaseMs }, this.owner, (await this.now()));
  }

  async renew(leaseMs: number): Promise<void> {
    await this.sql.query('UPDATE operations SET lease_until_ms = $2 WHERE owner = $1', [this.owner, (await this.now()) + leaseMs]);
  }

  async end(id: string): Promise<void> {
    await this.sql.query('DELETE FROM operations WHERE id = $1', [id]);
  }

  async takeAbandoned(leaseMs: number, limit: number): Promise<OperationRow[]> {
    const at = await this.now();
    const rows = await this.sql.query<Row>(
      `UPDATE operations SET owner = $1, lease_until_ms = $2
       WHERE id IN (SELECT id FROM operations WHERE lease_until_ms <= $3 ORDER BY started_ms LIMIT $4 FOR UPDATE SKIP LOCKED)
       RETURNING id, channel, thread_ts, if_stopped, started_ms`,
      [this.owner, at + leaseMs, at, limit],
    );
    return rows.map((row) => ({
      id: row.id,
      channel: row.channel,
      threadTs: row.thread_ts,
      ifStopped: typeof row.if_stopped === 'string' ? (JSON.parse(row.if_stopped) as unknown) : row.if_stopped,
      startedAt: Number(row.started_ms),
    }));
  }

  async giveUp(id: string): Promise<void> {
    await this.sql.query('UPDATE operations SET lease_until_ms = 0 WHERE id = $1 AND owner = $2', [id, this.owner]);
  }
}

/** Records an operation in flight on `owner`'s lease (also inside an approval's transaction, ./approvals.ts). */
export async function insertOperation(sql: SqlQueries, { operation, leaseMs }: { operation: OperationRow; leaseMs: number }, owner: string, at: number): Promise<void> {
  const { id, channel, threadTs, ifStopped, startedAt } = operation;
  await sql.query('INSERT INTO operations (id, owner, lease_until_ms, channel, thread_ts, if_stopped, started_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)', [id, owner, at + leaseMs, channel, threadTs, JSON.stringify(ifStopped), startedAt]);
}
