/**
 * SubOps' own state (issue #28): what must happen once, approval decisions, audit records waiting for
 * Slack, operations in flight. Embedded (LMDB, in the state folder) by default, shared by the bot and
 * every CLI process on the machine; PostgreSQL when DATABASE_URL is set, shared by replicas on several
 * machines; this process's memory for the demo and `serve --simulator`, which keep nothing. `openStore`
 * returns at once and opens the engine on `ready()` (which says when it is open, or why it is not) or on
 * first use: nothing is opened for a process that never asks (`subops --help`).
 */
import { SqlApprovalBook, type ApprovalBook } from './approvals.js';
import { processOwner, SqlClaimLedger, type ClaimLedger, type ForeignClaimListener } from './claims.js';
import { Memory, OpeningKv, type Kv } from './kv.js';
import { KvApprovalBook, KvAuditOutbox, KvClaimLedger, KvOperationLog } from './kv-store.js';
import { migrate } from './migrations.js';
import { openPostgres } from './postgres.js';
import { SqlOperationLog, type OperationLog } from './operations.js';
import { SqlAuditOutbox, type AuditOutbox } from './outbox.js';
import { KvSheetBook, SqlSheetBook, type SheetBook } from './sheets.js';
import { OpeningSql, type Sql } from './sql.js';

export type StoreSettings =
  | { engine: 'postgres'; url: string; connectionOptions?: string }
  /** LMDB in `dir`. */
  | { engine: 'embedded'; dir: string }
  /** This process's memory: the demo, `serve --simulator`. */
  | { engine: 'memory' };

export interface Store {
  claims: ClaimLedger;
  approvals: ApprovalBook;
  /** Audit records waiting for Slack. */
  outbox: AuditOutbox;
  /** Operations in flight, on this process's lease. */
  operations: OperationLog;
  /** Install sheets as checked, and how their rows ended. */
  sheets: SheetBook;
  /** Opens the store if nothing has yet; resolves when it is open (and migrated), rejects (StoreError) when it cannot be. */
  ready(): Promise<void>;
  /** Whether it is open now (what must answer at once asks this rather than wait for it to open). */
  isOpen(): boolean;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** The clock (ms) leases and memories run on: by default this machine's (embedded) or the database's (PostgreSQL); tests move their own. */
  now?: () => number;
  /** The bot's store: an embedded one holds its folder against a second bot while it is open (./folder-guard.ts). */
  guardFolder?: boolean;
  /** Told of each claim row SubOps did not write that the store took over (./claims.ts `isForeign`). */
  onForeignClaim?: ForeignClaimListener;
}

export function openStore(settings: StoreSettings, options: StoreOptions = {}): Store {
  switch (settings.engine) {
    case 'memory':
      return storeOnKv(new Memory(), options);
    case 'embedded': {
      const { dir } = settings;
      return storeOnKv(new OpeningKv(async () => (await import('./lmdb.js')).openLmdb(dir, { guard: options.guardFolder ?? false })), options);
    }
    case 'postgres':
      return storeOnSql(new OpeningSql(() => openMigrated(settings)), options);
  }
}

/** A store on key-value tables (LMDB, or a `Memory`): two on one `Memory` are two processes' views of it (tests). */
export function storeOnKv(kv: Kv, { now = Date.now, onForeignClaim }: StoreOptions = {}): Store {
  const owner = processOwner();
  const opening = kv instanceof OpeningKv ? kv : undefined;
  return {
    claims: new KvClaimLedger(kv, owner, now, onForeignClaim),
    approvals: new KvApprovalBook(kv, owner, now),
    outbox: new KvAuditOutbox(kv),
    operations: new KvOperationLog(kv, owner, now),
    sheets: new KvSheetBook(kv, now),
    ready: async () => opening?.ready(),
    isOpen: () => opening?.isOpen ?? true,
    close: () => kv.close(),
  };
}

/** A store on a SQL engine: two on one engine are two processes' views of one database (tests). */
export function storeOnSql(sql: OpeningSql, { now, onForeignClaim }: StoreOptions = {}): Store {
  const owner = processOwner();
  // Leases on the database's clock (a test's, when it brings one).
  const clock = now ? async () => now() : () => sql.clock();
  return {
    claims: new SqlClaimLedger(sql, owner, clock, onForeignClaim),
    operations: new SqlOperationLog(sql, owner, clock),
    approvals: new SqlApprovalBook(sql, owner, clock),
    outbox: new SqlAuditOutbox(sql),
    sheets: new SqlSheetBook(sql, clock),
    ready: () => sql.ready(),
    isOpen: () => sql.isOpen,
    close: () => sql.close(),
  };
}

async function openMigrated(settings: Extract<StoreSettings, { engine: 'postgres' }>): Promise<Sql> {
  const sql = await openPostgres({ url: settings.url, ...(settings.connectionOptions && { connectionOptions: settings.connectionOptions }) });
  try {
    await migrate(sql);
  } catch (error) {
    await sql.close();
    throw error;
  }
  return sql;
}

export { StoreError } from './errors.js';
export { Memory } from './kv.js';
export { foreignClaimWarning } from './claims.js';
export type { Claim, ClaimLedger, ClaimOutcome, ForeignClaim, ForeignClaimListener } from './claims.js';
export type { ApprovalBook, DecisionRow, RequestRow, RunIntent, StoredDecision } from './approvals.js';
export type { AuditOutbox, WaitingRecord } from './outbox.js';
export type { OperationLog, OperationRow } from './operations.js';
export type { RowEndRow, SheetBook, SheetRecordRow } from './sheets.js';
