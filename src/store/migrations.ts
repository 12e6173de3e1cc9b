/**
 * The store's schema, one migration a step, applied at open in order and never edited once released
 * (a change is a new step). Replicas starting together take turns on an advisory lock; each step is
 * recorded in subops_migrations in the same transaction as its changes.
 *
 * Times are milliseconds since the epoch on the database's clock (./sql.ts `clock`; tests bring their own).
 */
import type { Sql } from './sql.js';

const MIGRATIONS: readonly (readonly string[])[] = [
  // 1: exactly-once claims, and approval requests with their one decision.
  [
  `CREATE TABLE claims (
     key text PRIMARY KEY,
     owner text NOT NULL,
     state text NOT NULL CHECK (state IN ('held', 'done')),
     -- held: the owner's lease runs out then, and another process may take the claim over.
     -- done: remembered until then, and after it the key may be claimed again.
     until_ms bigint NOT NULL,
     claimed_ms bigint NOT NULL
   )`,
  'CREATE INDEX claims_until ON claims (until_ms)',
  `CREATE TABLE approval_requests (
     id text PRIMARY KEY,
     channel text NOT NULL,
     ts text NOT NULL,
     request jsonb NOT NULL,
     expires_ms bigint NOT NULL,
     decision text CHECK (decision IN ('approved', 'rejected', 'expired')),
     decided_by text,
     decided_ms bigint,
     UNIQUE (channel, ts)
   )`,
  'CREATE INDEX approval_requests_undecided ON approval_requests (expires_ms) WHERE decision IS NULL',
  ],
  // 2: audit records waiting for Slack, in the order they were written.
  ['CREATE TABLE audit_outbox (seq bigserial PRIMARY KEY, record jsonb NOT NULL, queued_ms bigint NOT NULL)'],
  // 3: operations in flight, each on its process's lease, with what its thread says if it is left unfinished.
  [
    `CREATE TABLE operations (
       id text PRIMARY KEY,
       owner text NOT NULL,
       lease_until_ms bigint NOT NULL,
       channel text NOT NULL,
       thread_ts text NOT NULL,
       if_stopped jsonb NOT NULL,
       started_ms bigint NOT NULL
     )`,
    'CREATE INDEX operations_lease ON operations (lease_until_ms)',
  ],
  // 4: the bot's seals over an approval request as posted and over its decision (src/slack/approval-seal.ts).
  ['ALTER TABLE approval_requests ADD COLUMN seal text, ADD COLUMN decision_seal text'],
  // 5: install sheets as checked and shown, and how each of their rows ended (./sheets.ts).
  [
    'CREATE TABLE sheets (id text PRIMARY KEY, sheet jsonb NOT NULL, seal text NOT NULL, expires_ms bigint NOT NULL)',
    `CREATE TABLE sheet_rows (
       sheet_id text NOT NULL REFERENCES sheets (id) ON DELETE CASCADE,
       row_no integer NOT NULL,
       outcome text NOT NULL,
       seal text NOT NULL,
       PRIMARY KEY (sheet_id, row_no)
     )`,
  ],
];

/** An arbitrary constant: the advisory lock SubOps' migrations take. */
const MIGRATION_LOCK = 7_142_028;

/** Applies the steps this database has not had yet; returns how many it applied. */
export async function migrate(sql: Sql): Promise<number> {
  return sql.transaction(async (tx) => {
    // The lock first: creating even the bookkeeping table is a change two replicas must not make at once
    // (PostgreSQL refuses the second CREATE TABLE IF NOT EXISTS with a duplicate key in pg_type).
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query('CREATE TABLE IF NOT EXISTS subops_migrations (version integer PRIMARY KEY, applied_ms bigint NOT NULL)');
    const [row] = await tx.query<{ version: number | null }>('SELECT max(version) AS version FROM subops_migrations');
    const applied = Number(row?.version ?? 0);
    for (let version = applied + 1; version <= MIGRATIONS.length; version++) {
      for (const statement of MIGRATIONS[version - 1]!) await tx.query(statement);
      await tx.query('INSERT INTO subops_migrations (version, applied_ms) VALUES ($1, $2)', [version, Date.now()]);
    }
    return MIGRATIONS.length - applied;
  });
}

export const SCHEMA_VERSION = MIGRATIONS.length;
