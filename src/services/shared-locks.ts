/**
 * Runs on the same device or client take turns across processes when they share a store (DATABASE_URL:
 * bot replicas and CLI processes), as they do inside one process. A key is held in this process first
 * (KeyedLock), then in the store as a claim on a lease (`lock:<key>`, keys in sorted order, so two runs
 * never hold one each of the other's). A key another process holds is asked for again after a wait that
 * grows from `firstWaitMs` to `maxWaitMs`; a process that died holding one frees it when its lease runs
 * out. A store that does not answer leaves the run to this process's lock: what UISP says is the backstop
 * (every write converges, src/services/converge.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Claim, ClaimLedger } from '../store/index.js';
import { KeyedLock, type Locks } from './converge.js';

export interface SharedLockOptions {
  claims: ClaimLedger;
  /** How long a held key stays held if its process stops answering. Default 2 minutes. */
  holdMs?: number;
  /** Waits before asking again for a key another process holds (tests pass one they release themselves). */
  wait?: (attempt: number) => Promise<void>;
  /** Told when the store did not answer (the run then goes on under this process's lock alone). */
  onStoreError?: (error: unknown) => void;
}

const backoff = (attempt: number) => sleep(Math.min(50 * 2 ** attempt, 1_000));

export class SharedLocks implements Locks {
  private readonly local = new KeyedLock();
  /** Releases sent to the store and not answered yet: a process waits for them before it closes its store. */
  private readonly releasing = new Set<Promise<void>>();

  constructor(private readonly options: SharedLockOptions) {}

  async acquire(keys: string[]): Promise<{ release: () => void; waited: boolean }> {
    const local = await this.local.acquire(keys);
    const { claims, holdMs = 120_000, wait = backoff } = this.options;
    const held: Claim[] = [];
    const releaseShared = () =>
      held.forEach((claim) => {
        const released = claim.release().catch(() => undefined);
        this.releasing.add(released);
        void released.finally(() => this.releasing.delete(released));
      });
    let waited = local.waited;
    try {
      for (const key of [...new Set(keys)].sort()) {
        for (let attempt = 0; ; attempt++) {
          const outcome = await claims.claim(`lock:${key}`, { holdMs });
          if (outcome.won) {
            held.push(outcome.claim);
            break;
          }
          waited = true;
          await wait(attempt);
        }
      }
    } catch (error) {
      this.options.onStoreError?.(error);
    }
    return {
      waited,
      release: () => {
        releaseShared();
        local.release();
      },
    };
  }

  /** Resolves once every release sent has been answered (or failed): then closing the store loses none. */
  async settled(): Promise<void> {
    await Promise.all(this.releasing);
  }
}
