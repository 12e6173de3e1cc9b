/**
 * The store's four parts on the embedded engines (./kv.ts: LMDB, or this process's memory), keeping the
 * promises the PostgreSQL engine keeps with SQL (test/store/store.test.ts runs the same behaviours on
 * every engine). Each decision (who wins a claim, which decision stands) is one transaction: its reads
 * and its writes with no other writer between them, whichever process on the machine asks.
 */
import type { ApprovalBook, DecideOutcome, DecisionRow, NewRequestRow, RequestRow, RunIntent } from './approvals.js';
import { DEFAULT_HOLD_MS, isForeign, type Claim, type ClaimLedger, type ClaimOptions, type ClaimOutcome, type ForeignClaim, type ForeignClaimListener } from './claims.js';
import type { Kv } from './kv.js';
import type { OperationLog, OperationRow } from './operations.js';
import type { AuditOutbox, WaitingRecord } from './outbox.js';

interface ClaimValue {
  owner: string;
  state: 'held' | 'done';
  /** held: the lease runs out then; done: remembered until then. */
  until: number;
}

/** Claims looked at per purge, from where the last one stopped: a purge costs the same whatever the table holds. */
const PURGE_BATCH = 500;
const PURGE_EVERY = 500;

export class KvClaimLedger implements ClaimLedger {
  private claimsMade = 0;

  constructor(
    private readonly kv: Kv,
    private readonly owner: string,
    private readonly now: () => number,
    private readonly onForeign: ForeignClaimListener = () => undefined,
  ) {}

  async claim(key: string, { holdMs = DEFAULT_HOLD_MS, heldOnly = false }: ClaimOptions = {}): Promise<ClaimOutcome> {
    const at = this.now();
    if (++this.claimsMade % PURGE_EVERY === 0) await this.purge(at - DEFAULT_HOLD_MS);
    const outcome = await this.kv.transaction((tx): { standing: ClaimValue['state'] } | { foreign: ForeignClaim | undefined } => {
      const row = tx.get<ClaimValue>('claims', key);
      // A row SubOps did not write counts as run out (issue #37 §8).
      const foreign = row && isForeign(row, at, holdMs, heldOnly) ? { key, state: row.state, until: row.until } : undefined;
      if (row && row.until > at && !foreign) return { standing: row.state };
      tx.put('claims', key, { owner: this.owner, state: 'held', until: at + holdMs } satisfies ClaimValue);
      return { foreign };
    });
    if ('standing' in outcome) return { won: false, state: outcome.standing };
    if (outcome.foreign) this.onForeign(outcome.foreign);
    return { won: true, claim: this.claimOf(key) };
  }

  async isClaimed(key: string): Promise<boolean> {
    const row = await this.kv.read((tx) => tx.get<ClaimValue>('claims', key));
    return row !== undefined && row.until > this.now();
  }

  async hold(key: string, holdMs: number): Promise<boolean> {
    const at = this.now();
    const outcome = await this.kv.transaction((tx) => {
      const row = tx.get<ClaimValue>('claims', key);
      const foreign = row && row.owner !== this.owner && isForeign(row, at, holdMs) ? { key, state: row.state, until: row.until } : undefined;
      if (row && row.owner !== this.owner && row.until > at && !foreign) return { held: false };
      tx.put('claims', key, { owner: this.owner, state: row?.owner === this.owner ? row.state : 'held', until: at + holdMs } satisfies ClaimValue);
      return { held: true, foreign };
    });
    if (outcome.foreign) this.onForeign(outcome.foreign);
    return outcome.held;
  }

  async letGo(key: string): Promise<void> {
    await this.kv.transaction((tx) => {
      if (tx.get<ClaimValue>('claims', key)?.owner === this.owner) tx.remove('claims', key);
    });
  }

  private claimOf(key: string): Claim {
    return {
      done: async (keepMs) => {
        await this.kv.transaction((tx) => {
          const row = tx.get<ClaimValue>('claims', key);
          if (row?.owner === this.owner) tx.put('claims', key, { ...row, state: 'done', until: this.now() + keepMs } satisfies ClaimValue);
        });
      },
      release: async () => {
        await this.kv.transaction((tx) => {
          const row = tx.get<ClaimValue>('claims', key);
          if (row?.owner === this.owner && row.state === 'held') tx.remove('claims', key);
        });
      },
      renew: async (holdMs) => {
        const at = this.now();
        return this.kv.transaction((tx) => {
          const row = tx.get<ClaimValue>('claims', key);
          if (!this.holds(row, at)) return false;
          tx.put('claims', key, { ...row, until: at + holdMs } satisfies ClaimValue);
          return true;
        });
      },
      held: async () => this.holds(await this.kv.read((tx) => tx.get<ClaimValue>('claims', key)), this.now()),
    };
  }

  private holds(row: ClaimValue | undefined, at: number): row is ClaimValue {
    return row?.owner === this.owner && row.state === 'held' && row.until > at;
  }

  /** Deletes claims neither held nor remembered since `before`, a batch at a time, going round the table. */
  private async purge(before: number): Promise<void> {
    await this.kv.transaction((tx) => {
      const from = tx.get<string>('meta', 'claims_purged_to') ?? '';
      let looked = 0;
      let last: string | undefined;
      for (const [key, row] of tx.entries<ClaimValue>('claims')) {
        if (key <= from) continue;
        if (row.until < before) tx.remove('claims', key);
        last = key;
        if (++looked === PURGE_BATCH) break;
      }
      // The end of the table was reached: the next purge starts again from the beginning.
      tx.put('meta', 'claims_purged_to', looked === PURGE_BATCH && last !== undefined ? last : '');
    });
  }
}

interface ApprovalValue {
  id: string;
  channel: string;
  ts: string;
  request: unknown;
  seal?: string | undefined;
  expiresAt: number;
  decision: DecisionRow | null;
}

const messageKey = (channel: string, ts: string) => `${channel}/${ts}`;
const rowOf = (value: ApprovalValue): RequestRow => ({ ...value, seal: value.seal, decision: value.decision ?? undefined });

export class KvApprovalBook implements ApprovalBook {
  constructor(
    private readonly kv: Kv,
    private readonly owner: string,
    private readonly now: () => number,
  ) {}

  async add({ id, channel, ts, request, seal, expiresAt }: NewRequestRow): Promise<void> {
    const taken = await this.kv.transaction((tx) => {
      if (tx.get('approvals', id) !== undefined || tx.get('approvals_at', messageKey(channel, ts)) !== undefined) return true;
      tx.put('approvals', id, { id, channel, ts, request, seal, expiresAt, decision: null } satisfies ApprovalValue);
      tx.put('approvals_at', messageKey(channel, ts), id);
      return false;
    });
    if (taken) throw new Error(`approval request ${id} (or its message) is in the store already`);
  }

  async at(channel: string, ts: string): Promise<RequestRow | undefined> {
    const value = await this.kv.read((tx) => {
      const id = tx.get<string>('approvals_at', messageKey(channel, ts));
      return id === undefined ? undefined : tx.get<ApprovalValue>('approvals', id);
    });
    return value && rowOf(value);
  }

  async byId(id: string): Promise<RequestRow | undefined> {
    const value = await this.kv.read((tx) => tx.get<ApprovalValue>('approvals', id));
    return value && rowOf(value);
  }

  async decide(id: string, { decision, by, at, seal }: DecisionRow & { seal: string }, intent?: RunIntent): Promise<DecideOutcome> {
    const now = this.now();
    const outcome = await this.kv.transaction((tx): DecideOutcome | undefined => {
      const value = tx.get<ApprovalValue>('approvals', id);
      if (!value) return undefined;
      if (value.decision) return { won: false, decision: value.decision.decision, by: value.decision.by };
      tx.put('approvals', id, { ...value, decision: { decision, by, at, seal } } satisfies ApprovalValue);
      if (intent && decision === 'approved') tx.put('operations', intent.operation.id, { row: intent.operation, owner: this.owner, leaseUntil: now + intent.leaseMs } satisfies OperationValue);
      return { won: true };
    });
    if (!outcome) throw new Error(`approval request ${id} is not in the store`);
    return outcome;
  }

  async undecided(): Promise<RequestRow[]> {
    const values = await this.kv.read((tx) => [...tx.entries<ApprovalValue>('approvals')].map(([, value]) => value).filter((value) => !value.decision));
    return values.sort((a, b) => a.expiresAt - b.expiresAt).map(rowOf);
  }
}

/** Sequence numbers as keys that sort as the numbers do. */
const seqKey = (seq: number) => String(seq).padStart(16, '0');

export class KvAuditOutbox implements AuditOutbox {
  constructor(private readonly kv: Kv) {}

  async add(record: unknown, at: number): Promise<number> {
    return this.kv.transaction((tx) => {
      const seq = (tx.get<number>('meta', 'outbox_seq') ?? 0) + 1;
      tx.put('meta', 'outbox_seq', seq);
      tx.put('outbox', seqKey(seq), { seq, record, queuedAt: at } satisfies WaitingRecord);
      return seq;
    });
  }

  async oldest(limit: number): Promise<WaitingRecord[]> {
    return this.kv.read((tx) => {
      const oldest: WaitingRecord[] = [];
      for (const [key, waiting] of tx.entries<Partial<WaitingRecord> | null>('outbox')) {
        if (oldest.length === limit) break;
        // Where it waits is its key, whatever the value says: a value without its seq is still taken out.
        oldest.push({ seq: Number(key), record: waiting?.record, queuedAt: Number(waiting?.queuedAt) });
      }
      return oldest;
    });
  }

  async remove(seq: number): Promise<void> {
    await this.kv.transaction((tx) => tx.remove('outbox', seqKey(seq)));
  }

  async count(): Promise<number> {
    return this.kv.read((tx) => [...tx.entries('outbox')].length);
  }
}

interface OperationValue {
  row: OperationRow;
  owner: string;
  leaseUntil: number;
}

export class KvOperationLog implements OperationLog {
  constructor(
    private readonly kv: Kv,
    private readonly owner: string,
    private readonly now: () => number,
  ) {}

  async begin(row: OperationRow, leaseMs: number): Promise<void> {
    await this.kv.transaction((tx) => tx.put('operations', row.id, { row, owner: this.owner, leaseUntil: this.now() + leaseMs } satisfies OperationValue));
  }

  async renew(leaseMs: number): Promise<void> {
    await this.kv.transaction((tx) => {
      for (const [id, held] of tx.entries<OperationValue>('operations')) if (held.owner === this.owner) tx.put('operations', id, { ...held, leaseUntil: this.now() + leaseMs } satisfies OperationValue);
    });
  }

  async end(id: string): Promise<void> {
    await this.kv.transaction((tx) => tx.remove('operations', id));
  }

  async takeAbandoned(leaseMs: number, limit: number): Promise<OperationRow[]> {
    const at = this.now();
    return this.kv.transaction((tx) => {
      const abandoned = [...tx.entries<OperationValue>('operations')]
        .filter(([, held]) => held.leaseUntil <= at)
        .sort(([, a], [, b]) => a.row.startedAt - b.row.startedAt)
        .slice(0, limit);
      for (const [id, held] of abandoned) tx.put('operations', id, { ...held, owner: this.owner, leaseUntil: at + leaseMs } satisfies OperationValue);
      return abandoned.map(([, held]) => held.row);
    });
  }

  async giveUp(id: string): Promise<void> {
    await this.kv.transaction((tx) => {
      const held = tx.get<OperationValue>('operations', id);
      if (held?.owner === this.owner) tx.put('operations', id, { ...held, leaseUntil: 0 } satisfies OperationValue);
    });
  }
}
