/**
 * The store in this process's memory, for a process that keeps nothing and shares nothing: the demo and
 * a trial on the bundled simulator (`serve --simulator`). It keeps the same promises as the SQL engines
 * (test/store/store.test.ts runs the same behaviours on all three) without their start-up cost: creating
 * even an in-memory PGlite takes seconds of CPU, which a demo's first command would wait for.
 */
import type { ApprovalBook, DecideOutcome, RequestRow, StoredDecision } from './approvals.js';
import type { Claim, ClaimLedger, ClaimOutcome } from './claims.js';
import type { OperationLog, OperationRow } from './operations.js';
import type { AuditOutbox, WaitingRecord } from './outbox.js';

const DEFAULT_HOLD_MS = 2 * 60_000;

/** One memory shared by every "process" opened on it (tests open two to stand for two replicas). */
export class Memory {
  readonly claims = new Map<string, { owner: string; state: 'held' | 'done'; until: number }>();
  readonly approvals = new Map<string, RequestRow>();
  readonly outbox: WaitingRecord[] = [];
  readonly operations = new Map<string, { row: OperationRow; owner: string; leaseUntil: number }>();
  nextSeq = 1;
}

export class MemoryClaimLedger implements ClaimLedger {
  constructor(
    private readonly memory: Memory,
    private readonly owner: string,
    private readonly now: () => number,
  ) {}

  async claim(key: string, { holdMs = DEFAULT_HOLD_MS }: { holdMs?: number } = {}): Promise<ClaimOutcome> {
    const at = this.now();
    const row = this.memory.claims.get(key);
    if (row && row.until > at) return { won: false, state: row.state };
    this.memory.claims.set(key, { owner: this.owner, state: 'held', until: at + holdMs });
    return { won: true, claim: this.claimOf(key) };
  }

  async isClaimed(key: string): Promise<boolean> {
    const row = this.memory.claims.get(key);
    return row !== undefined && row.until > this.now();
  }

  async hold(key: string, holdMs: number): Promise<boolean> {
    const at = this.now();
    const row = this.memory.claims.get(key);
    if (row && row.owner !== this.owner && row.until > at) return false;
    this.memory.claims.set(key, { owner: this.owner, state: 'held', until: at + holdMs });
    return true;
  }

  async letGo(key: string): Promise<void> {
    if (this.memory.claims.get(key)?.owner === this.owner) this.memory.claims.delete(key);
  }

  private claimOf(key: string): Claim {
    const mine = () => {
      const row = this.memory.claims.get(key);
      return row?.owner === this.owner ? row : undefined;
    };
    return {
      done: async (keepMs) => {
        const row = mine();
        if (row) Object.assign(row, { state: 'done', until: this.now() + keepMs });
      },
      release: async () => {
        if (mine()?.state === 'held') this.memory.claims.delete(key);
      },
    };
  }
}

export class MemoryApprovalBook implements ApprovalBook {
  constructor(private readonly memory: Memory) {}

  async add({ id, channel, ts, request, expiresAt }: { id: string; channel: string; ts: string; request: unknown; expiresAt: number }): Promise<void> {
    if (this.memory.approvals.has(id)) throw new Error(`approval request ${id} is in the store already`);
    this.memory.approvals.set(id, { id, channel, ts, request: structuredClone(request), expiresAt, decision: undefined });
  }

  async at(channel: string, ts: string): Promise<RequestRow | undefined> {
    const row = [...this.memory.approvals.values()].find((r) => r.channel === channel && r.ts === ts);
    return row && structuredClone(row);
  }

  async byId(id: string): Promise<RequestRow | undefined> {
    const row = this.memory.approvals.get(id);
    return row && structuredClone(row);
  }

  async decide(id: string, decision: StoredDecision, by: string, at: number): Promise<DecideOutcome> {
    const row = this.memory.approvals.get(id);
    if (!row) throw new Error(`approval request ${id} is not in the store`);
    if (row.decision) return { won: false, decision: row.decision.decision, by: row.decision.by };
    row.decision = { decision, by, at };
    return { won: true };
  }

  async undecided(): Promise<RequestRow[]> {
    return [...this.memory.approvals.values()]
      .filter((row) => !row.decision)
      .sort((a, b) => a.expiresAt - b.expiresAt)
      .map((row) => structuredClone(row));
  }
}

export class MemoryAuditOutbox implements AuditOutbox {
  constructor(private readonly memory: Memory) {}

  async add(record: unknown, at: number): Promise<void> {
    this.memory.outbox.push({ seq: this.memory.nextSeq++, record: structuredClone(record), queuedAt: at });
  }

  async oldest(limit: number): Promise<WaitingRecord[]> {
    return this.memory.outbox.slice(0, limit).map((waiting) => structuredClone(waiting));
  }

  async remove(seq: number): Promise<void> {
    const index = this.memory.outbox.findIndex((waiting) => waiting.seq === seq);
    if (index >= 0) this.memory.outbox.splice(index, 1);
  }

  async count(): Promise<number> {
    return this.memory.outbox.length;
  }
}

export class MemoryOperationLog implements OperationLog {
  constructor(
    private readonly memory: Memory,
    private readonly owner: string,
    private readonly now: () => number,
  ) {}

  async begin(row: OperationRow, leaseMs: number): Promise<void> {
    this.memory.operations.set(row.id, { row: structuredClone(row), owner: this.owner, leaseUntil: this.now() + leaseMs });
  }

  async renew(leaseMs: number): Promise<void> {
    for (const held of this.memory.operations.values()) if (held.owner === this.owner) held.leaseUntil = this.now() + leaseMs;
  }

  async end(id: string): Promise<void> {
    this.memory.operations.delete(id);
  }

  async takeAbandoned(leaseMs: number, limit: number): Promise<OperationRow[]> {
    const at = this.now();
    const abandoned = [...this.memory.operations.values()]
      .filter((held) => held.leaseUntil <= at)
      .sort((a, b) => a.row.startedAt - b.row.startedAt)
      .slice(0, limit);
    for (const held of abandoned) Object.assign(held, { owner: this.owner, leaseUntil: at + leaseMs });
    return abandoned.map((held) => structuredClone(held.row));
  }

  async giveUp(id: string): Promise<void> {
    const held = this.memory.operations.get(id);
    if (held?.owner === this.owner) held.leaseUntil = 0;
  }
}
