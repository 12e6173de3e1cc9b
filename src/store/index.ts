/**
 * SubOps' own state (issue #28): what must happen once, approval decisions, audit records waiting for
 * Slack, operations in flight. Embedded (PGlite, in the state directory) by default; PostgreSQL when
 * DATABASE_URL is set, shared by replicas and CLI processes; this process's memory for the demo and
 * `serve --simulator`, which keep nothing. The schema is migrated at open. Opening the embedded engine
 * takes seconds, so `openStore` returns at once and opens the engine on `ready()` (which says when it is
 * open, or why it is not) or on first use; nothing is opened for a process that never asks (`subops
 * --help`). The bot holds its store as `storeLater` (./later.ts): nothing of it loads before it listens.
 */
import { SqlApprovalBook, type ApprovalBook } from './approvals.js';
import { processOwner, SqlClaimLedger, type ClaimLedger } from './claims.js';
import { openEmbedded } from './embedded.js';
import { Memory, MemoryApprovalBook, MemoryAuditOutbox, MemoryClaimLedger, MemoryOperationLog } from './memory.js';
import { migrate } from './migrations.js';
import { openPostgres } from './postgres.js';
import { SqlOperationLog, type OperationLog } from './operations.js';
import { SqlAuditOutbox, type AuditOutbox } from './outbox.js';
import { OpeningSql, type Sql } from './sql.js';

export type StoreSettings =
  | { engine: 'postgres'; url: string; connectionOptions?: string }
  /** `dir` undefined: PGlite in memory, gone at exit. */
  | { engine: 'embedded'; dir: string | undefined }
  /** This process's memory (./memory.ts): the demo, `serve --simulator`. */
  | { engine: 'memory' };

/** The engines that speak SQL. */
type SqlSettings = Exclude<StoreSettings, { engine: 'memory' }>;

export interface Store {
  claims: ClaimLedger;
  approvals: ApprovalBook;
  /** Audit records waiting for Slack. */
  outbox: AuditOutbox;
  /** Operations in flight, on this process's lease. */
  operations: OperationLog;
  /** Opens the store if nothing has yet; resolves when it is open and migrated, rejects (StoreError) when it cannot be. */
  ready(): Promise<void>;
  /** Whether it is open now (what must answer at once asks this rather than wait for it to open). */
  isOpen(): boolean;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** The processes' clock (ms): leases and memories run on it. */
  now?: () => number;
}

export function openStore(settings: StoreSettings, options: StoreOptions = {}): Store {
  return settings.engine === 'memory' ? storeIn(new Memory(), options) : storeOn(openSql(settings), options);
}

/** A store in this memory: two on one memory are two processes' views of it (tests). */
export function storeIn(memory: Memory, { now = Date.now }: StoreOptions = {}): Store {
  const owner = processOwner();
  return {
    claims: new MemoryClaimLedger(memory, owner, now),
    approvals: new MemoryApprovalBook(memory),
    outbox: new MemoryAuditOutbox(memory),
    operations: new MemoryOperationLog(memory, owner, now),
    ready: async () => undefined,
    isOpen: () => true,
    close: async () => undefined,
  };
}

/** A SQL engine, opening and migrating. */
export function openSql(settings: SqlSettings): OpeningSql {
  return new OpeningSql(() => openMigrated(settings));
}

/** A store on an engine: two on one engine are two processes' views of one database (tests). */
export function storeOn(sql: OpeningSql, { now = Date.now }: StoreOptions = {}): Store {
  const owner = processOwner();
  return {
    claims: new SqlClaimLedger(sql, owner, now),
    operations: new SqlOperationLog(sql, owner, now),
    approvals: new SqlApprovalBook(sql),
    outbox: new SqlAuditOutbox(sql),
    ready: () => sql.ready(),
    isOpen: () => sql.isOpen,
    close: () => sql.close(),
  };
}

async function openMigrated(settings: SqlSettings): Promise<Sql> {
  const sql = settings.engine === 'postgres' ? await openPostgres({ url: settings.url, ...(settings.connectionOptions && { connectionOptions: settings.connectionOptions }) }) : await openEmbedded(settings.dir);
  try {
    await migrate(sql);
  } catch (error) {
    await sql.close();
    throw error;
  }
  return sql;
}

export { StoreError } from './errors.js';
export { Memory } from './memory.js';
export type { Claim, ClaimLedger, ClaimOutcome } from './claims.js';
export type { ApprovalBook, RequestRow, StoredDecision } from './approvals.js';
export type { AuditOutbox, WaitingRecord } from './outbox.js';
export type { OperationLog, OperationRow } from './operations.js';
