/**
 * Approval requests and their one decision, as rows. A decision is made by one UPDATE that only an
 * undecided row matches: of two approvers (or replicas) deciding at once, exactly one succeeds and the
 * other is told the standing decision. Nothing anyone posts in Slack reaches these rows. The request
 * itself is the front end's JSON, kept as it was confirmed (the caller parses it), with the front end's
 * seals over the request and over its decision: what the store gives back is data until a seal verifies
 * (src/slack/approval-seal.ts).
 */
import { insertOperation, type OperationRow } from './operations.js';
import type { Sql } from './sql.js';

export type StoredDecision = 'approved' | 'rejected' | 'expired';

/** A decision as recorded, with the deciding process's seal over it. */
export interface DecisionRow {
  decision: StoredDecision;
  by: string;
  at: number;
  seal: string | undefined;
}

export interface RequestRow {
  id: string;
  channel: string;
  ts: string;
  request: unknown;
  /** The front end's seal over the request and its message; undefined on a row without one. */
  seal: string | undefined;
  expiresAt: number;
  decision: DecisionRow | undefined;
}

export type NewRequestRow = { id: string; channel: string; ts: string; request: unknown; seal: string; expiresAt: number };

export type DecideOutcome = { won: true } | { won: false; decision: StoredDecision; by: string };

/**
 * The approved run, recorded as an operation in flight in the same transaction as the approval: a process
 * that stops at any point after the decision leaves it for the next sweep to report (./operations.ts).
 */
export interface RunIntent {
  operation: OperationRow;
  leaseMs: number;
}

export interface ApprovalBook {
  add(row: NewRequestRow): Promise<void>;
  /** The request posted as the message at channel/ts. */
  at(channel: string, ts: string): Promise<RequestRow | undefined>;
  /** The request of this id (what a Retry of its approved run names). */
  byId(id: string): Promise<RequestRow | undefined>;
  /** The first decision stands; a later one is refused with it. A won approval records `intent` with it, owned by this process. */
  decide(id: string, decision: DecisionRow & { seal: string }, intent?: RunIntent): Promise<DecideOutcome>;
  /** Every request without a decision, oldest first. */
  undecided(): Promise<RequestRow[]>;
}

interface Row {
  id: string;
  channel: string;
  ts: string;
  request: unknown;
  seal: string | null;
  expires_ms: string | number;
  decision: StoredDecision | null;
  decided_by: string | null;
  decided_ms: string | number | null;
  decision_seal: string | null;
}

const rowOf = (row: Row): RequestRow => ({
  id: row.id,
  channel: row.channel,
  ts: row.ts,
  // node-postgres parses jsonb; a text column would come back as a string.
  request: typeof row.request === 'string' ? JSON.parse(row.request) : row.request,
  seal: row.seal ?? undefined,
  expiresAt: Number(row.expires_ms),
  decision: row.decision ? { decision: row.decision, by: row.decided_by ?? '', at: Number(row.decided_ms), seal: row.decision_seal ?? undefined } : undefined,
});

export class SqlApprovalBook implements ApprovalBook {
  constructor(
    private readonly sql: Sql,
    private readonly owner: string,
    /** The lease clock: the database's (./sql.ts `clock`), or the test's. */
    private readonly now: () => Promise<number>,
  ) {}

  async add({ id, channel, ts, request, seal, expiresAt }: NewRequestRow): Promise<void> {
    await this.sql.query('INSERT INTO approval_requests (id, channel, ts, request, seal, expires_ms) VALUES ($1, $2, $3, $4, $5, $6)', [id, channel, ts, JSON.stringify(request), seal, expiresAt]);
  }

  async at(channel: string, ts: string): Promise<RequestRow | undefined> {
    const [row] = await this.sql.query<Row>('SELECT * FROM approval_requests WHERE channel = $1 AND ts = $2', [channel, ts]);
    return row && rowOf(row);
  }

  async byId(id: string): Promise<RequestRow | undefined> {
    const [row] = await this.sql.query<Row>('SELECT * FROM approval_requests WHERE id = $1', [id]);
    return row && rowOf(row);
  }

  async decide(id: string, { decision, by, at, seal }: DecisionRow & { seal: string }, intent?: RunIntent): Promise<DecideOutcome> {
    const won = await this.sql.transaction(async (tx) => {
      const updated = await tx.query('UPDATE approval_requests SET decision = $2, decided_by = $3, decided_ms = $4, decision_seal = $5 WHERE id = $1 AND decision IS NULL RETURNING id', [id, decision, by, at, seal]);
      if (!updated.length) return false;
      if (intent && decision === 'approved') await insertOperation(tx, intent, this.owner, (await this.now()));
      return true;
    });
    if (won) return { won: true };
    const [row] = await this.sql.query<Row>('SELECT * FROM approval_requests WHERE id = $1', [id]);
    if (!row?.decision) throw new Error(`approval request ${id} is not in the store`);
    return { won: false, decision: row.decision, by: row.decided_by ?? '' };
  }

  async undecided(): Promise<RequestRow[]> {
    return (await this.sql.query<Row>('SELECT * FROM approval_requests WHERE decision IS NULL ORDER BY expires_ms')).map(rowOf);
  }
}
