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
  /** The key is only ever held, never marked done (a lock): a row remembering it as done is not SubOps'. */
  heldOnly?: boolean;
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

/**
 * How much further than its hold a lease may run and still be SubOps' own. SubOps writes a lease exactly
 * as long as the hold its caller asks for (each key has one hold: a lock's 2 minutes, a webhook's 10, the
 * digest's 15, a link watch's three intervals), and every process judges leases on one clock (the
 * database's, or this machine's), give or take how well it measured that clock.
 */
export const LEASE_ALLOWANCE_MS = 10_000;

/** A claim row found on a key that SubOps did not write: taken over as if it had run out. */
export interface ForeignClaim {
  key: string;
  state: 'held' | 'done';
  /** When its lease (held) or memory (done) said it runs out. */
  until: number;
}

/**
 * Whether a row is one no SubOps process wrote (issue #37 §8: one such row made a device's activations
 * wait forever): held on a lease running out later than `holdMs` from `at` (plus the allowance), or
 * remembered as done on a key that is only ever held.
 */
export function isForeign(row: { state: 'held' | 'done'; until: number }, at: number, holdMs: number, heldOnly = false): boolean {
  return row.state === 'held' ? row.until > at + holdMs + LEASE_ALLOWANCE_MS : heldOnly;
}

/** Told of each foreign row a ledger takes over (the bot logs it, a CLI run prints it). */
export type ForeignClaimListener = (found: ForeignClaim) => void;

/** The warning a foreign row gets, in the bot's log and on a CLI run's terminal. */
export function foreignClaimWarning({ key, state, until }: ForeignClaim): string {
  const what = state === 'held' ? `held until ${new Date(until).toISOString()}, longer than SubOps ever holds it` : 'remembered as done, which SubOps never marks it';
  return `A claim in SubOps' store on ${key} was not written by SubOps (${what}): taken over as if it had run out.`;
}
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
    private readonly onForeign: ForeignClaimListener = () => undefined,
  ) {}

  async claim(key: string, { holdMs = DEFAULT_HOLD_MS, heldOnly = false }: ClaimOptions = {}): Promise<ClaimOutcome> {
    const at = await this.now();
    if (++this.claimsMade % PURGE_EVERY === 0) await this.sql.query('DELETE FROM claims WHERE until_ms < $1', [at - DEFAULT_HOLD_MS]);
    const insert = async () => {
      // Inserted, or taken over when the row's lease (held) or memory (done) has run out; else nothing returned.
      const won = await this.sql.query(
        `INSERT INTO claims (key, owner, state, until_ms, claimed_ms) VALUES ($1, $2, 'held', $3, $4)
         ON CONFLICT (key) DO UPDATE SET owner = EXCLUDED.owner, state = 'held', until_ms = EXCLUDED.until_ms, claimed_ms = EXCLUDED.claimed_ms
         WHERE claims.until_ms <= $4
         RETURNING key`,
        [key, this.owner, at + holdMs, at],
      );
      return won.length > 0;
    };
    if (await insert()) return { won: true, claim: this.claimOf(key) };
    // Lost: to a row SubOps wrote, or to one it did not (expired first, then taken as any other).
    let row = await this.standing(key);
    if (row && isForeign(row, at, holdMs, heldOnly) && (await this.expire(row))) {
      if (await insert()) return { won: true, claim: this.claimOf(key) };
      row = await this.standing(key);
    }
    return { won: false, state: row?.state ?? 'held' };
  }

  /** The row on `key` now, as its lease or memory stands. */
  private async standing(key: string): Promise<ForeignClaim | undefined> {
    const [row] = await this.sql.query<{ state: 'held' | 'done'; until_ms: string | number }>('SELECT state, until_ms FROM claims WHERE key = $1', [key]);
    return row && { key, state: row.state, until: Number(row.until_ms) };
  }

  /** Marks a foreign row run out (unless it changed meanwhile), and says so; whether it did. */
  private async expire(found: ForeignClaim): Promise<boolean> {
    const expired = await this.sql.query('UPDATE claims SET until_ms = 0 WHERE key = $1 AND state = $2 AND until_ms = $3 RETURNING key', [found.key, found.state, found.until]);
    if (expired.length) this.onForeign(found);
    return expired.length > 0;
  }

  async isClaimed(key: string): Promise<boolean> {
    return (await this.sql.query('SELECT 1 FROM claims WHERE key = $1 AND until_ms > $2', [key, (await this.now())])).length > 0;
  }

  async hold(key: string, holdMs: number): Promise<boolean> {
    const at = await this.now();
    const take = async () => {
      const held = await this.sql.query(
        `INSERT INTO claims (key, owner, state, until_ms, claimed_ms) VALUES ($1, $2, 'held', $3, $4)
         ON CONFLICT (key) DO UPDATE SET owner = EXCLUDED.owner, until_ms = EXCLUDED.until_ms
         WHERE claims.owner = EXCLUDED.owner OR claims.until_ms <= $4
         RETURNING key`,
        [key, this.owner, at + holdMs, at],
      );
      return held.length > 0;
    };
    if (await take()) return true;
    const row = await this.standing(key);
    return row !== undefined && isForeign(row, at, holdMs) && (await this.expire(row)) && (await take());
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
