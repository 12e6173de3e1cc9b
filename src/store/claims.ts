/**
 * Exactly once, across processes and restarts: what must happen once (a notice posted, a reply, an
 * event handled, a day's digest) is claimed here before it is done. The first claim of a key wins; the
 * winner marks it done (remembered for as long as a repeat may come) or releases it (it failed: the next
 * one to meet it tries). A claim is held on a lease: a process that died holding one leaves it to be
 * taken over when the lease runs out, never to be done twice meanwhile.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { SqlQueries } from './sql.js';

export interface ClaimOptions {
  /** How long the claim is held before another process may take it over. Default 2 minutes. */
  holdMs?: number;
}

/** A won claim: say how it ended. */
export interface Claim {
  /** Done: the key is not claimed again for `keepMs`. */
  done(keepMs: number): Promise<void>;
  /** Not done (it failed): the next one to meet the key claims it. */
  release(): Promise<void>;
  /**
   * Extends the lease to `holdMs` from now while this process still holds the key: false once it does
   * not (its lease ran out, whether or not another process has taken the key since).
   */
  renew(holdMs: number): Promise<boolean>;
  /** Whether this process holds the key now, its lease running: asked right before a write that cannot be taken back. */
  held(): Promise<boolean>;
}

export type ClaimOutcome = { won: true; claim: Claim } | { won: false; state: 'held' | 'done' };

export interface ClaimLedger {
  claim(key: string, options?: ClaimOptions): Promise<ClaimOutcome>;
  /** Whether the key is claimed now (held or done). */
  isClaimed(key: string): Promise<boolean>;
  /**
   * Holds `key` for this process on a lease of `holdMs`, as an owner does (a link watch): true when it is
   * this process's now (newly, renewed, or taken over from a process whose lease ran out).
   */
  hold(key: string, holdMs: number): Promise<boolean>;
  /** Gives up a key this process holds, for another process to take at once. */
  letGo(key: string): Promise<void>;
}

export const DEFAULT_HOLD_MS = 2 * 60_000;
/** Claims no longer held nor remembered are deleted now and then, a few at a time. */
const PURGE_EVERY = 500;

/** Names this process in the claims it holds. */
export const processOwner = (): string => `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

export class SqlClaimLedger implements ClaimLedger {
  private claimsMade = 0;

  constructor(
    private readonly sql: SqlQueries,
    private readonly owner: string = processOwner(),
    /** The lease clock: the database's (./sql.ts `clock`), or the test's. */
    private readonly now: () => Promise<number>,
  ) {}

  async claim(key: string, { holdMs = DEFAULT_HOLD_MS }: ClaimOptions = {}): Promise<ClaimOutcome> {
    const at = await this.now();
    if (++this.claimsMade % PURGE_EVERY === 0) await this.sql.query('DELETE FROM claims WHERE until_ms < $1', [at - DEFAULT_HOLD_MS]);
    // Inserted, or taken over when the row's lease (held) or memory (done) has run out; else nothing returned.
    const won = await this.sql.query(
      `INSERT INTO claims (key, owner, state, until_ms, claimed_ms) VALUES ($1, $2, 'held', $3, $4)
       ON CONFLICT (key) DO UPDATE SET owner = EXCLUDED.owner, state = 'held', until_ms = EXCLUDED.until_ms, claimed_ms = EXCLUDED.claimed_ms
       WHERE claims.until_ms <= $4
       RETURNING key`,
      [key, this.owner, at + holdMs, at],
    );
    if (won.length) return { won: true, claim: this.claimOf(key) };
    const [row] = await this.sql.query<{ state: 'held' | 'done' }>('SELECT state FROM claims WHERE key = $1', [key]);
    return { won: false, state: row?.state ?? 'held' };
  }

  async isClaimed(key: string): Promise<boolean> {
    return (await this.sql.query('SELECT 1 FROM claims WHERE key = $1 AND until_ms > $2', [key, (await this.now())])).length > 0;
  }

  async hold(key: string, holdMs: number): Promise<boolean> {
    const at = await this.now();
    const held = await this.sql.query(
      `INSERT INTO claims (key, owner, state, until_ms, claimed_ms) VALUES ($1, $2, 'held', $3, $4)
       ON CONFLICT (key) DO UPDATE SET owner = EXCLUDED.owner, until_ms = EXCLUDED.until_ms
       WHERE claims.owner = EXCLUDED.owner OR claims.until_ms <= $4
       RETURNING key`,
      [key, this.owner, at + holdMs, at],
    );
    return held.length > 0;
  }

  async letGo(key: string): Promise<void> {
    await this.sql.query('DELETE FROM claims WHERE key = $1 AND owner = $2', [key, this.owner]);
  }

  private claimOf(key: string): Claim {
    return {
      done: async (keepMs) => {
        await this.sql.query(`UPDATE claims SET state = 'done', until_ms = $3 WHERE key = $1 AND owner = $2`, [key, this.owner, (await this.now()) + keepMs]);
      },
      release: async () => {
        await this.sql.query(`DELETE FROM claims WHERE key = $1 AND owner = $2 AND state = 'held'`, [key, this.owner]);
      },
      renew: async (holdMs) => {
        const at = await this.now();
        const renewed = await this.sql.query(`UPDATE claims SET until_ms = $3 WHERE key = $1 AND owner = $2 AND state = 'held' AND until_ms > $4 RETURNING key`, [key, this.owner, at + holdMs, at]);
        return renewed.length > 0;
      },
      held: async () => (await this.sql.query(`SELECT 1 FROM claims WHERE key = $1 AND owner = $2 AND state = 'held' AND until_ms > $3`, [key, this.owner, (await this.now())])).length > 0,
    };
  }
}
